/* link.c — the QPU's fragment-program linker for the blend, colour-mask and
 * stencil state (link.h: the link_fragment of the QPU's gs_isa, which
 * gs_drv_fs_link and the driver's variants call; docs/blending.md explains
 * the code it generates).
 *
 * The VideoCore IV has no blend unit and no stencil state in its control
 * lists (RG §5): a shader that blends loads the tile's
 * colour with the `loadc` signal and mixes it with its own, and stencil is
 * set up by writes to TLB_STENCIL_SETUP before the Z write. Mesa's vc4
 * driver therefore compiles a variant of each fragment shader per state;
 * gpusim has no compiler, so it links the program's instruction words
 * instead: a colour write is redirected to a free accumulator and followed
 * by generated blend code, a Z write is preceded by `ldi tlb_stencil` words,
 * and relative branches are moved to where their targets went.
 *
 * The generated code is written as assembly text and assembled line by line
 * (gs_qpu_asm_word), so the encodings come from the instruction table alone
 * (one table for every encoding) and the code reads in docs as it is generated. Anything
 * the linker cannot prove safe is refused with the instruction's index and
 * disassembly rather than linked into a program that would misbehave.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpusim/driver.h"
#include "gpusim/qpu.h"
#include "core/bytes.h"
#include "isa/qpu/link.h"
#include "isa/qpu/pred.h"

/* ---- what an instruction does (pred.h) ---------------------------------------- */

#define ALL_ACCS 0x1Fu /* r0..r4 */
#define ACC_R4 4u      /* bit of r4 in accumulator masks */

/* Whether w names regfile-A register `reg` at all (read or write). */
static bool touches_ra(uint64_t w, unsigned reg) { return qpu_writes_reg(w, 0, reg) || qpu_raddr(w, 0) == reg; }

/* Whether instruction i runs in the delay slots of a branch (three) or of
 * a thread end or switch (two): code inserted there would change which
 * instructions run before the jump or the end. */
static bool in_delay_slot(const uint64_t *w, size_t i) {
  for (size_t k = 1; k <= 3 && k <= i; k++) {
    if (qpu_is_branch(w[i - k])) return true;
    if (k <= 2 && (qpu_ends_thread(w[i - k]) || qpu_switches_thread(w[i - k]))) return true;
  }
  return false;
}

/* Accumulators r0..r4 (bits) that the code after instruction c may read
 * before overwriting them. The scan follows the straight line to the end
 * of the program (thread end and its two delay slots); at a branch or
 * thread switch (accumulators do not survive one, but where a branch goes
 * is not followed) every register not yet overwritten counts as read. */
static unsigned live_after(const uint64_t *w, size_t n, size_t c, size_t *cut) {
  unsigned live = 0, written = 0;
  size_t end = qpu_ends_thread(w[c]) ? c + 3 : n + 1;
  *cut = n;
  for (size_t j = c + 1; j < end; j++) {
    if (j >= n) return live | (ALL_ACCS & ~written); /* no thread end: assume the worst */
    live |= qpu_acc_reads(w[j]) & ~written;
    written |= qpu_acc_full_writes(w[j]);
    if (qpu_is_branch(w[j]) || qpu_switches_thread(w[j])) {
      *cut = j;
      return live | (ALL_ACCS & ~written);
    }
    if (qpu_ends_thread(w[j]) && end > j + 3) end = j + 3;
  }
  return live;
}

/* ---- the linker's output ----------------------------------------------------- */

typedef struct linker {
  const uint64_t *in;
  size_t n;
  const gs_drv_state *s;
  bool threaded;
  unsigned samples;      /* 1 or 4 */
  const uint32_t *lines; /* source lines, or NULL */
  gs_diag *d;
  uint64_t *out;
  size_t nout, cap;
  size_t at;           /* the input instruction being linked, for messages */
  int ra;              /* regfile-A register for the source alpha; -1 none free */
  size_t ra_ready;     /* output index from which ra holds its value */
  bool has_pending;    /* a one-ALU instruction held back to pair with the next */
  uint64_t pending;
  char pending_text[160];
} linker;

/* Fails with "instruction <at> [at line L] (<disassembly>): <why>". */
static int refuse(linker *l, const char *fmt, ...) {
  char why[512], text[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  gs_qpu_disasm_word(l->in[l->at], text, sizeof text);
  if (l->lines)
    return gs_diag_set(l->d, GS_EINVAL, "instruction %zu at line %u (%s): %s", l->at, l->lines[l->at], text, why);
  return gs_diag_set(l->d, GS_EINVAL, "instruction %zu (%s): %s", l->at, text, why);
}

static int append(linker *l, uint64_t w) {
  if (l->nout == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    uint64_t *p = realloc(l->out, cap * sizeof *p);
    if (!p) return gs_diag_set(l->d, GS_ENOMEM, "fragment program link: host out of memory");
    l->out = p;
    l->cap = cap;
  }
  l->out[l->nout++] = w;
  return GS_OK;
}

/* Emits the instruction held back for pairing, if any. */
static int flush(linker *l) {
  if (!l->has_pending) return GS_OK;
  l->has_pending = false;
  return append(l, l->pending);
}

/* Emits w as it is, after anything held back. */
static int put_word(linker *l, uint64_t w) {
  int rc = flush(l);
  return rc < 0 ? rc : append(l, w);
}

/* The half (0 ADD, 1 MUL) of a generated instruction that does one
 * operation into r0..r3, unconditionally, with no signal; -1 for any other
 * (signals, load immediates, tile-buffer writes stay as they are). */
static int lone_half(uint64_t w) {
  if (!qpu_is_alu(w) || qpu_signal(w) != QPU_SIG_NONE) return -1;
  bool add = qpu_get(w, QPU_F_OP_ADD) != QPU_A_NOP, mul = qpu_get(w, QPU_F_OP_MUL) != QPU_M_NOP;
  if (add == mul) return -1;
  int h = mul;
  unsigned a = qpu_half_waddr(w, h);
  return qpu_waddr_is_acc(a) && qpu_half_cond(w, h) == 1 ? h : -1;
}

/* The instruction doing both one-ALU instructions p then q at once, if that
 * means the same: q does not read what p writes, they write different
 * accumulators, and the assembler finds read ports and unpacks for both
 * (it refuses otherwise). Reads happen before writes, so p may read what q
 * writes. (Today's generator computes each chain in one register, so a q
 * reading p's result also writes p's register; the read check keeps the
 * rule whole for code that does not.) */
static bool pair(const char *p_text, uint64_t p, const char *q_text, uint64_t q, uint64_t *out) {
  int hp = lone_half(p), hq = lone_half(q);
  if (hp < 0 || hq < 0 || hp == hq) return false;
  unsigned dp = qpu_half_waddr(p, hp), dq = qpu_half_waddr(q, hq);
  if (dp == dq || (qpu_acc_reads(q) >> (dp - QPU_W_ACC0) & 1)) return false;
  const char *add = hp == 0 ? p_text : q_text, *mul = hp == 0 ? q_text : p_text;
  if (strncmp(mul, "nop ; ", 6) == 0) mul += 6; /* "nop ; v8adds ..." puts v8adds on the MUL ALU */
  char line[340];
  gs_diag ad;
  snprintf(line, sizeof line, "%s ; %s", add, mul);
  return gs_qpu_asm_word(line, 0, out, &ad) == GS_OK;
}

/* Assembles one line of generated code and appends it, paired with the
 * instruction before when the two use different ALUs and can run together
 * (the QPU issues an ADD and a MUL operation per instruction). A failure to
 * assemble is a bug in the generator, reported with the line. */
static int put(linker *l, const char *fmt, ...) {
  char line[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  uint64_t w, both;
  gs_diag ad;
  if (gs_qpu_asm_word(line, 0, &w, &ad) < 0)
    return gs_diag_set(l->d, GS_EINVAL, "fragment program link: generated '%s' does not assemble: %s", line,
                       ad.msg);
  if (lone_half(w) < 0) return put_word(l, w);
  if (l->has_pending && pair(l->pending_text, l->pending, line, w, &both)) {
    l->has_pending = false;
    return append(l, both);
  }
  int rc = flush(l);
  if (rc < 0) return rc;
  l->pending = w;
  snprintf(l->pending_text, sizeof l->pending_text, "%s", line);
  l->has_pending = true;
  return GS_OK;
}

/* Makes sure the next instruction can read the regfile-A register written
 * for the source alpha — a regfile write is readable two instructions
 * later (RG §3, instruction restrictions) — by emitting what is held back, then
 * nops. A held-back instruction takes the next place itself, so the next
 * one comes after it or pairs with it, no earlier. */
static int wait_ra(linker *l) {
  int rc = GS_OK;
  while (rc == GS_OK && l->nout < l->ra_ready) rc = l->has_pending ? flush(l) : put(l, "nop");
  return rc;
}

/* ---- the state: blend factors as byte words ---------------------------------------------- */

/* What a factor is, byte by byte: the source colour S (the shader's), the
 * destination D (the tile's, in r4), their alphas replicated into all four
 * bytes (SA, DA), a constant, and 255 minus each (the bitwise not of a
 * byte is 255 minus it). */
typedef enum word_kind {
  W_ZERO, W_ONE, W_S, W_NOT_S, W_D, W_NOT_D, W_SA, W_NOT_SA, W_DA, W_NOT_DA, W_CONST, W_SAT
} word_kind;

typedef struct factor_word {
  word_kind kind;
  uint32_t value;   /* W_CONST */
} factor_word;

static uint32_t replicate(uint32_t byte) { return (byte & 0xffu) * 0x01010101u; }

/* The word of factor f applied to all four bytes; its byte 3 is what f
 * means for alpha, except src_alpha_saturate (min(As, 1 − Ad)), whose
 * alpha is 1: alpha_byte() tells them apart. */
static factor_word factor_of(gs_drv_blend_factor f, uint32_t constant) {
  static const word_kind kinds[] = {W_ZERO, W_ONE, W_S, W_NOT_S, W_D, W_NOT_D, W_SA, W_NOT_SA, W_DA, W_NOT_DA};
  switch (f) {
  case GS_DRV_FACTOR_CONSTANT_COLOR: return (factor_word){W_CONST, constant};
  case GS_DRV_FACTOR_ONE_MINUS_CONSTANT_COLOR: return (factor_word){W_CONST, ~constant};
  case GS_DRV_FACTOR_CONSTANT_ALPHA: return (factor_word){W_CONST, replicate(constant >> 24)};
  case GS_DRV_FACTOR_ONE_MINUS_CONSTANT_ALPHA: return (factor_word){W_CONST, ~replicate(constant >> 24)};
  case GS_DRV_FACTOR_SRC_ALPHA_SATURATE: return (factor_word){W_SAT, 0};
  default: return (factor_word){kinds[f], 0};
  }
}

/* A name for what byte 3 of a factor word holds, so that two factors can be
 * compared for the alpha byte: codes below 0x100 are constants, the others
 * As, 255 − As, Ad, 255 − Ad, and "not a GL alpha factor". */
static uint32_t alpha_byte(factor_word f) {
  switch (f.kind) {
  case W_ZERO: return 0;
  case W_ONE: return 255;
  case W_CONST: return f.value >> 24;
  case W_S: case W_SA: return 0x100;
  case W_NOT_S: case W_NOT_SA: return 0x101;
  case W_D: case W_DA: return 0x102;
  case W_NOT_D: case W_NOT_DA: return 0x103;
  default: return 0x104;
  }
}

/* What factor f means for the alpha byte, in alpha_byte's codes. */
static uint32_t alpha_meaning(gs_drv_blend_factor f, uint32_t constant) {
  if (f == GS_DRV_FACTOR_SRC_ALPHA_SATURATE) return 255;
  return alpha_byte(factor_of(f, constant));
}

static bool is_min_max(gs_drv_blend_equation e) { return e == GS_DRV_BLEND_MIN || e == GS_DRV_BLEND_MAX; }

/* Whether one computation over all four bytes gives the alpha byte too:
 * the same equation, and factors whose byte 3 already means the alpha
 * factors. */
static bool one_pass(const gs_drv_blend *b) {
  if (b->equation != b->alpha_equation) return false;
  if (is_min_max(b->equation)) return true;
  return alpha_byte(factor_of(b->src, b->color)) == alpha_meaning(b->src_alpha, b->color) &&
         alpha_byte(factor_of(b->dst, b->color)) == alpha_meaning(b->dst_alpha, b->color);
}

/* Whether s's blend changes the colour, and whether its colour mask leaves
 * a channel out (gpusim/driver.h). */
static bool blends(const gs_drv_state *s) { return gs_drv_fs_blend_on(s); }
static bool masks(const gs_drv_state *s) { return (s->color_mask & 0xF) != 0xF; }

/* The factor words the blend code of s multiplies by (at most four): the
 * colour pair, and the alpha pair when the alpha byte needs its own pass
 * (src_alpha_saturate means one there); none for min and max. */
static int used_factors(const gs_drv_state *s, factor_word f[4]) {
  const gs_drv_blend *b = &s->blend;
  int n = 0;
  if (!blends(s)) return 0;
  if (!is_min_max(b->equation)) {
    f[n++] = factor_of(b->src, b->color);
    f[n++] = factor_of(b->dst, b->color);
  }
  if (!one_pass(b) && !is_min_max(b->alpha_equation)) {
    gs_drv_blend_factor a[2] = {b->src_alpha, b->dst_alpha};
    for (int i = 0; i < 2; i++)
      f[n++] = a[i] == GS_DRV_FACTOR_SRC_ALPHA_SATURATE ? (factor_word){W_ONE, 0} : factor_of(a[i], b->color);
  }
  return n;
}

/* Whether the blend of s reads the source alpha replicated (which takes a
 * regfile-A register and its unpack). */
static bool needs_sa(const gs_drv_state *s) {
  factor_word f[4];
  int n = used_factors(s, f);
  for (int i = 0; i < n; i++)
    if (f[i].kind == W_SA || f[i].kind == W_NOT_SA || f[i].kind == W_SAT) return true;
  return false;
}

/* Whether the code loads the tile's colour (D): the destination terms, D
 * in a factor, min or max, or a colour mask (which keeps D's bytes). */
static bool needs_dst(const gs_drv_state *s) {
  if (masks(s)) return true;
  if (!blends(s)) return false;
  const gs_drv_blend *b = &s->blend;
  if (is_min_max(b->equation) || is_min_max(b->alpha_equation)) return true;
  factor_word f[4];
  int n = used_factors(s, f);
  for (int i = 0; i < n; i++) {
    word_kind k = f[i].kind;
    if ((i % 2 == 1 && k != W_ZERO) || k == W_D || k == W_NOT_D || k == W_DA || k == W_NOT_DA || k == W_SAT)
      return true;
  }
  return false;
}

/* ---- generating blend code ------------------------------------------------------ */

/* A value of the blend code: a register as the assembler names it (with
 * an unpack suffix if any), the small immediate 0, and whether it is a
 * temporary accumulator of the generator (acc >= 0). */
typedef struct val {
  char s[16];
  int acc;
} val;

typedef struct gen {
  linker *l;
  unsigned free;   /* accumulators r0..r3 the generator may take */
  unsigned avail;  /* all it could take, for the message when they run out */
  int need;        /* accumulators in use at most, for that message */
  int used;
  val src, dst;    /* S (an accumulator) and D (r4) */
} gen;

static val reg_val(const char *s) {
  val v = {{0}, -1};
  snprintf(v.s, sizeof v.s, "%s", s);
  return v;
}

static bool is_zero(val v) { return strcmp(v.s, "0") == 0; }

static int take(gen *g, val *out) {
  for (int k = 0; k < 4; k++) {
    if (!(g->free >> k & 1)) continue;
    g->free &= ~(1u << k);
    if (++g->used > g->need) g->need = g->used;
    *out = (val){{0}, k};
    snprintf(out->s, sizeof out->s, "r%d", k);
    return GS_OK;
  }
  char list[32] = "";
  for (int k = 0; k < 4; k++)
    if (g->avail >> k & 1) snprintf(list + strlen(list), sizeof list - strlen(list), "%sr%d", *list ? ", " : "", k);
  return refuse(g->l, "blending needs %d of r0..r3 free after the colour write, but the code after it reads "
                "the others (free: %s)", g->need + 1, *list ? list : "none");
}

static void give_back(gen *g, val v) {
  if (v.acc < 0) return;
  g->free |= 1u << v.acc;
  g->used--;
}

/* The operand of factor word f for multiplying src: a register, or a
 * temporary the factor is computed into (*t). */
static int factor_operand(gen *g, factor_word f, val *op, val *t) {
  linker *l = g->l;
  int rc = GS_OK;
  char ra[16];
  snprintf(ra, sizeof ra, "ra%d.8dr", l->ra);
  switch (f.kind) {
  case W_S: *op = g->src; return GS_OK;
  case W_D: *op = g->dst; return GS_OK;
  case W_DA: *op = reg_val("r4.8dr"); return GS_OK;
  case W_SA:
    *op = reg_val(ra);
    return wait_ra(l);
  default: break;
  }
  if ((rc = take(g, t)) < 0) return rc;
  *op = *t;
  switch (f.kind) {
  case W_NOT_S: return put(l, "not %s, %s", t->s, g->src.s);
  case W_NOT_D: return put(l, "not %s, r4", t->s);
  case W_NOT_DA: return put(l, "not %s, r4.8dr", t->s);
  case W_NOT_SA:
    if ((rc = wait_ra(l)) < 0) return rc;
    return put(l, "not %s, %s", t->s, ra);
  case W_CONST: return put(l, "ldi %s, 0x%08x", t->s, f.value);
  default: /* W_SAT: min(As, 255 − Ad) */
    if ((rc = put(l, "not %s, r4.8dr", t->s)) < 0 || (rc = wait_ra(l)) < 0) return rc;
    return put(l, "v8min %s, %s, %s", t->s, t->s, ra);
  }
}

/* A term: src × factor f, byte by byte (v8muld: (a·b + 127) / 255). */
static int term(gen *g, val src, factor_word f, val *out) {
  if (f.kind == W_ZERO) {
    *out = reg_val("0");
    return GS_OK;
  }
  if (f.kind == W_ONE) {
    *out = src;
    return GS_OK;
  }
  val op, t = {{0}, -1};
  int rc = factor_operand(g, f, &op, &t);
  if (rc < 0) return rc;
  /* One unpack serves every mux reading r4, so D × DA needs DA apart. */
  if (strcmp(src.s, "r4") == 0 && strcmp(op.s, "r4.8dr") == 0) {
    if ((rc = take(g, &t)) < 0 || (rc = put(g->l, "mov %s, r4.8dr", t.s)) < 0) return rc;
    op = t;
  }
  if (t.acc < 0 && (rc = take(g, &t)) < 0) return rc;
  if ((rc = put(g->l, "v8muld %s, %s, %s", t.s, src.s, op.s)) < 0) return rc;
  *out = t;
  return GS_OK;
}

/* A temporary to hold the result of an operation on a and b: one of
 * theirs if either is a temporary, else a new one. */
static int result_reg(gen *g, val a, val b, val *out) {
  if (a.acc >= 0) {
    *out = a;
    give_back(g, b);
    return GS_OK;
  }
  if (b.acc >= 0) {
    *out = b;
    return GS_OK;
  }
  return take(g, out);
}

/* The blend equation e over the terms ts (source) and td (destination). */
static int equation(gen *g, gs_drv_blend_equation e, val ts, val td, val *out) {
  static const char *const ops[] = {"v8adds", "v8subs", "v8subs", "v8min", "v8max"};
  if (is_min_max(e)) {
    int rc = take(g, out);
    if (rc < 0) return rc;
    return put(g->l, "%s %s, %s, r4", ops[e], out->s, g->src.s);
  }
  val a = e == GS_DRV_BLEND_REVERSE_SUBTRACT ? td : ts, b = e == GS_DRV_BLEND_REVERSE_SUBTRACT ? ts : td;
  if (is_zero(b) || (is_zero(a) && e == GS_DRV_BLEND_ADD)) { /* x ± 0 = x, 0 + x = x */
    *out = is_zero(b) ? a : b;
    return GS_OK;
  }
  if (is_zero(a)) { /* 0 − x saturates to 0 */
    give_back(g, b);
    *out = reg_val("0");
    return GS_OK;
  }
  int rc = result_reg(g, a, b, out);
  if (rc < 0) return rc;
  /* the MUL ALU's byte ops, as the VC4 blends (RG §3) */
  return put(g->l, "nop ; %s %s, %s, %s", ops[e], out->s, a.s, b.s);
}

/* One blend over all four bytes with equation e and factors fs, fd. */
static int blend_pass(gen *g, gs_drv_blend_equation e, factor_word fs, factor_word fd, val *out) {
  val ts = reg_val("0"), td = reg_val("0");
  int rc = GS_OK;
  if (!is_min_max(e) && ((rc = term(g, g->src, fs, &ts)) < 0 || (rc = term(g, g->dst, fd, &td)) < 0)) return rc;
  return equation(g, e, ts, td, out);
}

/* (a & mask) | (b & ~mask) into *out: the bytes of a where mask has 0xff. */
static int merge(gen *g, val a, val b, uint32_t mask, val *out) {
  linker *l = g->l;
  val m, x;
  int rc = take(g, &m);
  if (rc < 0) return rc;
  if (a.acc >= 0) x = a;
  else if ((rc = take(g, &x)) < 0) return rc;
  if ((rc = put(l, "ldi %s, 0x%08x", m.s, mask)) < 0 || (rc = put(l, "and %s, %s, %s", x.s, a.s, m.s)) < 0 ||
      (rc = put(l, "not %s, %s", m.s, m.s)) < 0 || (rc = put(l, "and %s, %s, %s", m.s, b.s, m.s)) < 0 ||
      (rc = put(l, "or %s, %s, %s", x.s, x.s, m.s)) < 0)
    return rc;
  give_back(g, m);
  give_back(g, b);
  *out = x;
  return GS_OK;
}

/* The blended colour of s into *out (S and D already in place). */
static int blend_value(gen *g, const gs_drv_state *s, val *out) {
  const gs_drv_blend *b = &s->blend;
  int rc;
  if (!blends(s)) {
    *out = g->src;
  } else if (one_pass(b)) {
    if ((rc = blend_pass(g, b->equation, factor_of(b->src, b->color), factor_of(b->dst, b->color), out)) < 0)
      return rc;
  } else {
    /* colour and alpha differ: blend twice, then take bytes 0..2 of the
     * first and byte 3 of the second */
    val rgb, alpha;
    factor_word sa = factor_of(b->src_alpha, b->color), da = factor_of(b->dst_alpha, b->color);
    if (b->src_alpha == GS_DRV_FACTOR_SRC_ALPHA_SATURATE) sa = (factor_word){W_ONE, 0};
    if (b->dst_alpha == GS_DRV_FACTOR_SRC_ALPHA_SATURATE) da = (factor_word){W_ONE, 0};
    if ((rc = blend_pass(g, b->equation, factor_of(b->src, b->color), factor_of(b->dst, b->color), &rgb)) < 0 ||
        (rc = blend_pass(g, b->alpha_equation, sa, da, &alpha)) < 0 ||
        (rc = merge(g, rgb, alpha, 0x00ffffffu, out)) < 0)
      return rc;
  }
  if (!masks(s)) return GS_OK;
  uint32_t keep = 0;
  for (int k = 0; k < 4; k++)
    if (s->color_mask >> k & 1) keep |= 0xffu << (8 * k);
  return merge(g, *out, g->dst, keep, out);
}

/* ---- linking one colour write --------------------------------------------------- */

/* Checks that the colour write at l->at can be redirected and returns the
 * half writing it and the signal to move to the final write (or NONE). */
static int check_colour_write(linker *l, int *half, unsigned *sig) {
  uint64_t w = l->in[l->at];
  int h = qpu_half_writing(w, QPU_W_TLB_COLOUR_ALL);
  *half = h;
  *sig = qpu_signal(w);
  if (h == 0 && qpu_half_writes(w, 1) && qpu_half_waddr(w, 1) == QPU_W_TLB_COLOUR_ALL)
    return refuse(l, "both ALUs write the colour");
  if (qpu_half_cond(w, h) != 1)
    return refuse(l, "a conditional colour write cannot be blended (the blend would need the same condition)");
  if (h == 1 && qpu_get(w, QPU_F_PM) && qpu_get(w, QPU_F_PACK) != 0 && qpu_get(w, QPU_F_PACK) != 3)
    return refuse(l, "a colour write with a partial colour pack cannot be redirected (an accumulator keeps the "
                  "other bytes, the TLB does not)");
  if (*sig != QPU_SIG_NONE && *sig != QPU_SIG_THREND && *sig != QPU_SIG_SBDONE)
    return refuse(l, "a colour write carrying the signal '%s' cannot be blended (only thrend and sbdone move to "
                  "the blended write)", qpu_sig_names[*sig]);
  if (in_delay_slot(l->in, l->at))
    return refuse(l, "a colour write in the delay slots of a branch, thread switch or thread end cannot be "
                  "followed by blend code");
  for (size_t k = l->at >= 2 ? l->at - 2 : 0; k <= l->at; k++)
    if (qpu_writes_sfu(l->in[k]))
      return refuse(l, "an SFU result is still on its way to r4, where blending loads the tile colour "
                    "(move the colour write 3 instructions after the SFU write)");
  return GS_OK;
}

/* The free accumulators after the colour write (bits 0..3), checking that
 * r4 is not needed after it when the blend loads the tile colour there. */
static int scratch_after(linker *l, bool dst, unsigned *spare) {
  size_t cut;
  unsigned live = live_after(l->in, l->n, l->at, &cut);
  if (cut < l->n && (live & 0xFu) == 0xFu)
    return refuse(l, "instruction %zu, a branch or thread switch, comes after the colour write and before the "
                  "thread end: the linker cannot tell which accumulators the code after it reads, and needs "
                  "some for blending", cut);
  if (dst && (live >> ACC_R4 & 1))
    return refuse(l, "the code after the colour write %s r4, where blending loads the tile colour",
                  cut < l->n ? "may read (a branch follows)" : "reads");
  *spare = ~live & 0xFu;
  return GS_OK;
}

/* Emits the colour write at l->at redirected to a free accumulator, then
 * the code that loads the tile colour, blends and writes the result. */
static int link_colour_write(linker *l) {
  uint64_t w = l->in[l->at];
  const gs_drv_state *s = l->s;
  int h = 0, rc;
  unsigned sig = QPU_SIG_NONE, spare = 0;
  bool dst = needs_dst(s), sa = needs_sa(s);
  if ((rc = check_colour_write(l, &h, &sig)) < 0 || (rc = scratch_after(l, dst, &spare)) < 0) return rc;
  if (sa && l->ra < 0)
    return refuse(l, "blending with the source alpha needs a regfile-A register the program never uses "
                  "(ra0..ra13%s)", l->threaded ? "" : ", ra16..ra31");
  gen g = {l, spare, spare, 0, 0, {{0}, -1}, reg_val("r4")};
  /* S must not be the other half's destination: both would write it. */
  uint64_t other = qpu_half_writes(w, !h) ? qpu_half_waddr(w, !h) : QPU_W_NOP;
  if (qpu_waddr_is_acc(other)) g.free &= ~(1u << (other - QPU_W_ACC0));
  if ((rc = take(&g, &g.src)) < 0) return rc;
  g.free = spare & ~(1u << g.src.acc);
  int src_acc = g.src.acc;
  g.src.acc = -1; /* held to the end: never reused for a result */
  uint64_t r = qpu_set(w, h ? QPU_F_WADDR_MUL : QPU_F_WADDR_ADD, QPU_W_ACC0 + (unsigned)src_acc);
  if (qpu_is_alu(w) && sig != QPU_SIG_NONE) r = qpu_set(r, QPU_F_SIG, QPU_SIG_NONE);
  if ((rc = put_word(l, r)) < 0) return rc;
  /* With 4 samples each has its own tile colour: load, blend and write
   * them one by one (loadc and TLB_COLOUR_MS go through the samples in the
   * same fixed order, docs/tile-buffer.md); a blend that ignores D writes
   * all samples at once. */
  unsigned per = dst && l->samples == 4 ? 4 : 1, temps = g.free;
  const char *reg = per == 4 ? "tlb_colour_ms" : "tlb_colour_all";
  const char *sig_text = sig == QPU_SIG_NONE ? "" : sig == QPU_SIG_THREND ? " ; thrend" : " ; sbdone";
  for (unsigned k = 0; k < per; k++) {
    const char *end = k + 1 == per ? sig_text : "";
    g.free = temps;
    g.used = 1;
    if (k == 0 && sa) {
      if ((rc = flush(l)) < 0) return rc;
      l->ra_ready = l->nout + 2;
      rc = put(l, "mov ra%d, %s%s", l->ra, g.src.s, dst ? " ; loadc" : "");
    } else if (dst) {
      rc = put(l, "loadc");
    }
    val v;
    if (rc < 0 || (rc = blend_value(&g, s, &v)) < 0) return rc;
    if (is_zero(v) && *end) { /* no signal beside a small immediate */
      if ((rc = take(&g, &v)) < 0 || (rc = put(l, "ldi %s, 0", v.s)) < 0) return rc;
    }
    if ((rc = put(l, "mov %s, %s%s", reg, v.s, end)) < 0) return rc;
  }
  return GS_OK;
}

/* ---- stencil ----------------------------------------------------------------------- */

static int put_stencil_setup(linker *l) {
  uint32_t w[3];
  unsigned n = gs_drv_stencil_words(&l->s->stencil, w);
  int rc = GS_OK;
  for (unsigned i = 0; i < n && rc == GS_OK; i++) rc = put(l, "ldi tlb_stencil, 0x%08x", w[i]);
  return rc;
}

/* ---- the whole program --------------------------------------------------------------- */

/* A regfile-A register no instruction names, for the source alpha: not
 * ra14/ra15 (the thread end writes the next fragment's W there), and only
 * ra0..ra13 in a threaded program (each thread owns 16). -1 if none. */
static int free_ra(const uint64_t *w, size_t n, bool threaded) {
  for (int r = threaded ? 13 : 31; r >= 0; r--) {
    if (r == 14 || r == 15) continue;
    bool used = false;
    for (size_t i = 0; i < n && !used; i++) used = touches_ra(w[i], (unsigned)r);
    if (!used) return r;
  }
  return -1;
}

/* Refuses what the linker cannot move or does not understand: branches
 * that are not plain relative ones, and (with stencil) a program that
 * sets up stencil itself or writes Z in a delay slot. */
static int check_program(linker *l, bool stencil) {
  for (l->at = 0; l->at < l->n; l->at++) {
    uint64_t w = l->in[l->at];
    if (qpu_is_branch(w)) {
      if (qpu_get(w, QPU_F_REG)) return refuse(l, "a register branch cannot be moved (its target is not known)");
      if (!qpu_get(w, QPU_F_REL)) return refuse(l, "an absolute branch cannot be moved; use brr");
      int32_t imm = (int32_t)qpu_get(w, QPU_F_IMM);
      int64_t t = (int64_t)l->at + 4 + imm / 8;
      if (imm % 8 || t < 0 || t >= (int64_t)l->n)
        return refuse(l, "the branch target (instruction %lld) is not an instruction of the program", (long long)t);
      for (unsigned a = QPU_W_TLB_STENCIL; a <= QPU_W_TLB_COLOUR_ALL; a++)
        if (qpu_half_writing(w, a) >= 0) return refuse(l, "a branch links to a tile-buffer register");
    }
    if (qpu_loads_tile_colour(w) && l->samples == 4 && needs_dst(l->s))
      return refuse(l, "the program loads the tile colour itself; with 4 samples the blend code's loads would "
                    "no longer meet the samples its writes go to (both count through the samples in order)");
    if (qpu_half_writing(w, QPU_W_TLB_COLOUR_MS) >= 0 && (blends(l->s) || masks(l->s)))
      return refuse(l, "blending and colour masks work on tlb_colour_all writes; tlb_colour_ms writes one "
                    "sample and cannot be blended here");
    if (!stencil) continue;
    if (qpu_half_writing(w, QPU_W_TLB_STENCIL) >= 0)
      return refuse(l, "the program writes tlb_stencil itself; with the stencil state on, the driver does");
    if (qpu_half_writing(w, QPU_W_TLB_Z) >= 0 && in_delay_slot(l->in, l->at))
      return refuse(l, "a Z write in the delay slots of a branch or thread end cannot get stencil setup "
                    "before it");
  }
  return GS_OK;
}

/* Where, when the program writes no Z, the driver adds `mov tlb_z, rb15`
 * (the stencil test runs on the Z write): before the first colour write.
 * *at = n when there is nothing to do. */
static int z_insertion(linker *l, size_t *at) {
  *at = l->n;
  if (!l->s->stencil.enable) return GS_OK;
  size_t colour = l->n;
  for (size_t i = 0; i < l->n; i++) {
    if (qpu_half_writing(l->in[i], QPU_W_TLB_Z) >= 0) return GS_OK;
    if (colour == l->n && (qpu_half_writing(l->in[i], QPU_W_TLB_COLOUR_ALL) >= 0 ||
                           qpu_half_writing(l->in[i], QPU_W_TLB_COLOUR_MS) >= 0))
      colour = i;
  }
  l->at = colour < l->n ? colour : 0;
  if (colour == l->n)
    return refuse(l, "stencil runs on the Z write, and the program writes neither Z nor a colour");
  if (in_delay_slot(l->in, colour))
    return refuse(l, "the first colour write is in a delay slot; the driver cannot add the Z write "
                  "(mov tlb_z, rb15) before it");
  for (size_t i = 0; i < l->n; i++)
    if (qpu_writes_reg(l->in[i], 1, 15)) {
      l->at = i;
      return refuse(l, "the program writes rb15, which the driver's Z write (mov tlb_z, rb15) reads");
    }
  *at = colour;
  return GS_OK;
}

/* Instructions from i to the first thread end or switch on the straight
 * line (the signal's own instruction not counted); n + 1 when a branch or
 * the end of the program comes first. */
static size_t to_thread_end(const linker *l, size_t i) {
  for (size_t j = i; j < l->n; j++) {
    if (qpu_ends_thread(l->in[j]) || qpu_switches_thread(l->in[j])) return j - i;
    if (qpu_is_branch(l->in[j])) break;
  }
  return l->n + 1;
}

/* Moves each relative branch to the new place of its target. start[i] is
 * where input instruction i's group (inserted code before it, then it)
 * begins in the output, pos[i] where i itself went. */
static void fix_branches(linker *l, const size_t *start, const size_t *pos) {
  for (size_t b = 0; b < l->n; b++) {
    uint64_t w = l->in[b];
    if (!qpu_is_branch(w)) continue;
    int32_t imm = (int32_t)qpu_get(w, QPU_F_IMM);
    size_t t = (size_t)((int64_t)b + 4 + imm / 8);
    int64_t moved = ((int64_t)start[t] - (int64_t)(pos[b] + 4)) * 8;
    l->out[pos[b]] = qpu_set(w, QPU_F_IMM, (uint32_t)(int32_t)moved);
  }
}

/* Emits every instruction with what goes before and after it. */
static int link_all(linker *l, size_t z_at, size_t *start, size_t *pos) {
  bool stencil = l->s->stencil.enable, colour = blends(l->s) || masks(l->s);
  int rc = GS_OK;
  for (l->at = 0; l->at < l->n && rc == GS_OK; l->at++) {
    uint64_t w = l->in[l->at];
    start[l->at] = l->nout;
    if (stencil && (qpu_half_writing(w, QPU_W_TLB_Z) >= 0 || l->at == z_at)) {
      if ((rc = put_stencil_setup(l)) < 0) return rc;
      if (l->at == z_at && (rc = put(l, "mov tlb_z, rb15")) < 0) return rc;
      /* Erratum HW-2806 (RG Appendix A): a Z test still running at the
       * thread end hands MS_FLAGS to the next thread's quads; keep two
       * instructions between the added Z write and the end (blend code,
       * when there is some, already does). */
      for (size_t k = colour ? 2 : to_thread_end(l, l->at); l->at == z_at && k < 2 && rc == GS_OK; k++)
        rc = put(l, "nop");
      if (rc < 0) return rc;
    }
    pos[l->at] = l->nout;
    if (colour && qpu_half_writing(w, QPU_W_TLB_COLOUR_ALL) >= 0) rc = link_colour_write(l);
    else rc = put_word(l, w);
    if (rc == GS_OK) rc = flush(l); /* nothing pairs across an instruction of the program */
  }
  return rc;
}

/* Links words[0..n) for s into l's output (qpu_link_fragment). */
static int link_words(const uint64_t *words, size_t n, const gs_drv_state *s, const gs_drv_fs_link_info *info,
                      linker *l, gs_diag *d) {
  int rc = gs_drv_fs_check_state(s, d);
  if (rc < 0) return rc;
  const gs_drv_fs_link_info none = {false, 1, NULL};
  if (!info) info = &none;
  unsigned samples = info->samples ? info->samples : 1;
  if (samples != 1 && samples != 4)
    return gs_diag_set(d, GS_EARG, "fragment program link: %u samples; 1 or 4", info->samples);
  bool threaded = info->threaded;
  *l = (linker){words, n, s, threaded, samples, info->lines, d, NULL, 0, 0, 0, -1, 0, false, 0, {0}};
  size_t *start = malloc(2 * n * sizeof *start), z_at = n;
  if (!start) return gs_diag_set(d, GS_ENOMEM, "fragment program link: host out of memory");
  if (!gs_drv_fs_needs_variant(s)) {
    for (size_t i = 0; i < n && rc == GS_OK; i++) rc = put_word(l, words[i]);
  } else {
    l->ra = needs_sa(s) ? free_ra(words, n, threaded) : -1;
    if ((rc = check_program(l, s->stencil.enable)) == GS_OK && (rc = z_insertion(l, &z_at)) == GS_OK &&
        (rc = link_all(l, z_at, start, start + n)) == GS_OK)
      fix_branches(l, start, start + n);
  }
  free(start);
  return rc;
}

int qpu_link_fragment(const uint8_t *code, size_t size, const struct gs_drv_state *s,
                      const struct gs_drv_fs_link_info *info, uint8_t **out, size_t *out_size, gs_diag *d) {
  *out = NULL;
  *out_size = 0;
  if (!code || size == 0) return gs_diag_set(d, GS_EARG, "fragment program link: no instructions");
  if (size % 8)
    return gs_diag_set(d, GS_EARG, "fragment program link: %zu bytes of code; QPU instructions are 8 bytes each",
                       size);
  size_t n = size / 8;
  uint64_t *words = malloc(n * sizeof *words);
  if (!words) return gs_diag_set(d, GS_ENOMEM, "fragment program link: host out of memory");
  gs_get_le64s(words, code, n);
  linker l = {0};
  int rc = link_words(words, n, s, info, &l, d);
  free(words);
  if (rc == GS_OK && !(*out = malloc(8 * l.nout)))
    rc = gs_diag_set(d, GS_ENOMEM, "fragment program link: host out of memory");
  if (rc < 0) {
    free(l.out);
    return rc;
  }
  gs_put_le64s(*out, l.out, l.nout);
  *out_size = 8 * l.nout;
  free(l.out);
  return GS_OK;
}
