/* test_sass_fast.c — the fast SASS interpreter (exec_fast.c) against the
 * reference interpreter (exec_ref.c).
 *
 * Thousands of random programs run through both from the same warp state;
 * everything must agree bit for bit: every register, predicate and CC flag
 * of every lane, the active, exited and killed lanes, the convergence
 * stack, the pc, the instructions run, and the return code and message,
 * through both copies of the fast loop (the build's and the AVX2 one).
 * A program is text for the assembler: ALU, predicate and conversion
 * instructions are random words of the instruction table's rows (every
 * modifier field random, so every rounding mode, .FTZ/.FMZ/.SAT, |x|, -x,
 * compare, boolean op, .CC and .X; guards random; registers R0-R11 and RZ;
 * constants from two small banks; immediates random) printed by the
 * disassembler, between control flow written around them: if/else under
 * SSY/SYNC on a random predicate, loops under PBK/BRK with a counter that
 * bounds them, a random BRK or EXIT per lane inside, an EXIT of every lane
 * of a branch or loop (the stack's entries go on). Registers start rich in
 * NaNs, ±0, denormals, ±Inf, INT_MIN and rounding boundaries; predicates
 * and CC random. Then the errors: the budget, a constant past the end of
 * its buffer (and not an error when the guard selects no lane), running off
 * the end of the code. test_random_programs_native runs such programs
 * compiled to native code (src/isa/uop/jit.h) at their first run against
 * the reference in the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "isa/isa.h"
#include "isa/sass/exec.h"
#include "isa/sass/solo.h"
#include "isa/sass/table.h"
#include "isa/uop/jit.h"

typedef struct rng { uint64_t s; } rng;
static uint32_t next(rng *r) {
  r->s = r->s * 6364136223846793005u + 1442695040888963407u;
  return (uint32_t)(r->s >> 32);
}
static uint64_t next64(rng *r) { return (uint64_t)next(r) << 32 | next(r); }
static uint32_t pick(rng *r, uint32_t n) { return next(r) % n; }

static const uint32_t special_values[] = {
    0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x80800000, 0x3f800000, 0xbf800000,
    0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x7f7fffff, 0xff7fffff, 0x4b000000,
    0x4b800001, 0x33800000, 0x3f800001, 0x7fffffff, 0x80000001, 0x000000ff, 0x0000ffff, 0xffffffff,
    0x12345678, 0x3effffff, 0x3f000001, 0x4f000000, 0xcf000000, 0x00000020, 0x00001010, 0x3fc00000};

static uint32_t random_value(rng *r) {
  unsigned k = pick(r, 8);
  if (k < 4) return special_values[pick(r, sizeof special_values / sizeof special_values[0])];
  if (k < 6) return pick(r, 64);
  return next(r);
}

/* ---- random instructions --------------------------------------------------------- */

/* The rows a random instruction is drawn from: the ALU, predicate and
 * conversion instructions. */
static int alu_row(const sass_row *r) {
  switch (r->op) {
    case SASS_OP_MOV: case SASS_OP_MOV32I: case SASS_OP_F2F: case SASS_OP_F2I: case SASS_OP_I2F: case SASS_OP_I2I:
    case SASS_OP_SEL: case SASS_OP_P2R: case SASS_OP_R2P: case SASS_OP_FADD: case SASS_OP_FMUL: case SASS_OP_FFMA:
    case SASS_OP_FADD32I: case SASS_OP_FMUL32I: case SASS_OP_FFMA32I: case SASS_OP_FMNMX: case SASS_OP_FSET:
    case SASS_OP_FSETP: case SASS_OP_FCMP: case SASS_OP_MUFU: case SASS_OP_RRO: case SASS_OP_IADD: case SASS_OP_IADD3:
    case SASS_OP_IADD32I: case SASS_OP_ISCADD: case SASS_OP_ISCADD32I: case SASS_OP_IMNMX: case SASS_OP_ISETP:
    case SASS_OP_ISET: case SASS_OP_ICMP: case SASS_OP_LOP: case SASS_OP_LOP32I: case SASS_OP_LOP3: case SASS_OP_SHL:
    case SASS_OP_SHR: case SASS_OP_BFE: case SASS_OP_BFI: case SASS_OP_XMAD: case SASS_OP_IMUL: case SASS_OP_IMUL32I:
    case SASS_OP_FLO: case SASS_OP_POPC: case SASS_OP_PSETP: case SASS_OP_PSET: case SASS_OP_S2R: case SASS_OP_NOP:
      return 1;
    default:
      return 0;
  }
}

static unsigned alu_rows[512], n_alu_rows;
/* how many rows of each op, so that ops with many rows do not crowd out the rest */
static unsigned op_rows[SASS_OP_COUNT];

static void find_rows(void) {
  if (n_alu_rows) return;
  for (unsigned i = 0; i < sass_table_len; i++)
    if (alu_row(&sass_table[i]) && n_alu_rows < 512) alu_rows[n_alu_rows++] = i, op_rows[sass_table[i].op]++;
}

/* A register for a random operand: R0-R11, RZ now and then. */
static unsigned random_reg(rng *r) { return pick(r, 10) ? pick(r, 12) : SASS_RZ; }

/* Whether the reference runs in at all (it refuses what gpusim does not
 * model, such as 64-bit conversions, whatever the lanes): in, then EXIT. */
static int runs(const sass_insn *in) {
  static sass_warp w;
  sass_insn code[3];
  gs_diag d;
  code[0] = *in;
  assert_int_equal(sass_decode(0xE30000000007000Full, 0x7e0, 16, &code[1], &d), 0); /* EXIT */
  code[2] = code[1];
  sass_program p;
  memset(&p, 0, sizeof p);
  p.insn = code, p.n = 3, p.size = 32;
  sass_io io;
  memset(&io, 0, sizeof io);
  io.gates = GS_GATE_ALL;
  static uint8_t cb[64];
  io.cb[0] = io.cb[1] = cb, io.cb_size[0] = io.cb_size[1] = sizeof cb;
  sass_warp_reset(&w, 1, 8, NULL, 0);
  return sass_run_ref(&w, &p, &io, 10, "probe", &d) != GS_EINVAL;
}

/* A random word of row r that the decoder takes (0 if none after many tries):
 * random bits where the row has fields, MUST fields at their values,
 * registers R0-R11/RZ, constants c[0..1][0..0x3c]. */
static uint64_t random_word(rng *g, const sass_row *r) {
  for (int tries = 0; tries < 64; tries++) {
    uint64_t m = sass_row_bits(r) & ~((uint64_t)r->mask << 48);
    uint64_t w = ((uint64_t)r->key << 48) | (next64(g) & m);
    for (unsigned k = 0; k < SASS_MOD_MAX; k++) {
      const sass_field *f = &r->fld[k];
      if (f->print && pick(g, 3) == 0) w &= ~sass_field_mask(f); /* zero: the common case */
      if (f->print == SASS_P_MUST) w = (w & ~sass_field_mask(f)) | sass_field_put(f, 0, f->def);
    }
    for (unsigned k = 0; k < SASS_OPND_MAX && r->opnd[k].kind; k++)
      if (r->opnd[k].kind == SASS_O_R)
        w = (w & ~((uint64_t)0xFF << r->opnd[k].pos)) | (uint64_t)random_reg(g) << r->opnd[k].pos;
    if (r->form == SASS_FORM_REG)
      w = (w & ~sass_field_mask(&sass_f_rb)) | sass_field_put(&sass_f_rb, 0, random_reg(g));
    if (r->form == SASS_FORM_REG || r->form == SASS_FORM_CBUF || r->form == SASS_FORM_IMM || r->form == SASS_FORM_CR)
      if (sass_field_mask(&sass_f_rc) & sass_row_bits(r))
        w = (w & ~sass_field_mask(&sass_f_rc)) | sass_field_put(&sass_f_rc, 0, random_reg(g));
    if (r->form == SASS_FORM_RC)
      w = (w & ~sass_field_mask(&sass_f_rc)) | sass_field_put(&sass_f_rc, 0, random_reg(g));
    if (r->form == SASS_FORM_CBUF || r->form == SASS_FORM_CR || r->form == SASS_FORM_RC) {
      w = (w & ~sass_field_mask(&sass_f_cb_bank)) | sass_field_put(&sass_f_cb_bank, 0, pick(g, 2));
      w = (w & ~sass_field_mask(&sass_f_cb_word)) | sass_field_put(&sass_f_cb_word, 0, pick(g, 16));
    }
    /* guards: mostly PT, else a random predicate */
    uint32_t guard = pick(g, 3) ? SASS_PT : pick(g, 8);
    w = (w & ~sass_field_mask(&sass_f_guard)) | sass_field_put(&sass_f_guard, 0, guard);
    w = (w & ~sass_field_mask(&sass_f_guard_neg)) | sass_field_put(&sass_f_guard_neg, 0, pick(g, 2));
    sass_insn in;
    gs_diag d;
    if (sass_decode(w, 0x7e0, 8, &in, &d) < 0) continue;
    if (&sass_table[in.entry] != r) continue;
    char text[160];
    if (sass_disasm_insn(w, 8, text, sizeof text) < 0) continue;
    if (!runs(&in)) continue;
    return w;
  }
  return 0;
}

/* ---- random programs as text -------------------------------------------------------- */

typedef struct text {
  char *s;
  size_t n, cap;
  unsigned labels;
} text;

static void put(text *t, const char *fmt, ...) {
  va_list ap;
  char line[256];
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  assert_true(n > 0 && (size_t)n < sizeof line);
  if (t->n + (size_t)n + 1 > t->cap) {
    t->cap = (t->cap + (size_t)n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    assert_non_null(t->s);
  }
  memcpy(t->s + t->n, line, (size_t)n + 1);
  t->n += (size_t)n;
}

/* One random ALU line. */
static void alu_line(rng *g, text *t) {
  for (;;) {
    const sass_row *r = &sass_table[alu_rows[pick(g, n_alu_rows)]];
    /* ops with many rows (forms) are drawn as often as the others */
    if (pick(g, op_rows[r->op]) != 0) continue;
    uint64_t w = random_word(g, r);
    if (!w) continue;
    char text[160];
    assert_true(sass_disasm_insn(w, 8, text, sizeof text) >= 0);
    /* the disassembler's text up to the ';' */
    char *semi = strchr(text, ';');
    if (semi) semi[1] = 0;
    put(t, "  %s\n", text);
    return;
  }
}

static void block(rng *g, text *t, unsigned depth, int in_loop);

/* if/else on a random predicate under SSY/SYNC */
static void if_else(rng *g, text *t, unsigned depth, int in_loop) {
  unsigned id = t->labels++;
  put(t, "  SSY join%u ;\n", id);
  put(t, "  @%sP%u BRA else%u ;\n", pick(g, 2) ? "!" : "", pick(g, 7), id);
  block(g, t, depth + 1, in_loop);
  put(t, "  SYNC ;\n");
  put(t, "else%u:\n", id);
  block(g, t, depth + 1, in_loop);
  put(t, "  SYNC ;\n");
  put(t, "join%u:\n", id);
}

/* a loop under PBK/BRK: R20 + depth counts to a random bound of 0-4 */
static void loop(rng *g, text *t, unsigned depth) {
  unsigned id = t->labels++, ctr = 20 + depth;
  put(t, "  MOV32I R%u, 0x0 ;\n", ctr);
  put(t, "  PBK done%u ;\n", id);
  put(t, "top%u:\n", id);
  put(t, "  ISETP.GE.AND P6, PT, R%u, 0x%x, PT ;\n", ctr, pick(g, 5));
  put(t, "  @P6 BRK ;\n");
  block(g, t, depth + 1, 1);
  put(t, "  IADD32I R%u, R%u, 0x1 ;\n", ctr, ctr);
  put(t, "  BRA top%u ;\n", id);
  put(t, "done%u:\n", id);
}

static void block(rng *g, text *t, unsigned depth, int in_loop) {
  unsigned n = 1 + pick(g, depth ? 5 : 10);
  for (unsigned k = 0; k < n; k++) {
    unsigned c = pick(g, 20);
    if (c == 0 && depth < 3) if_else(g, t, depth, in_loop);
    else if (c == 1 && depth < 2) loop(g, t, depth);
    else if (c == 2) put(t, "  @%sP%u EXIT ;\n", pick(g, 2) ? "!" : "", pick(g, 6));
    else if (c == 3 && in_loop) put(t, "  @%sP%u BRK ;\n", pick(g, 2) ? "!" : "", pick(g, 6));
    else if (c == 4 && depth) put(t, "  EXIT ;\n"); /* every lane here: the stack's next ones go on */
    else alu_line(g, t);
  }
}

static void random_program(rng *g, text *t) {
  t->n = 0, t->labels = 0;
  if (t->s) t->s[0] = 0;
  block(g, t, 0, 0);
  put(t, "  EXIT ;\n");
}

/* ---- running both ---------------------------------------------------------------------- */

static uint8_t cb0[64], cb1[64];

static void setup_io(sass_io *io) {
  memset(io, 0, sizeof *io);
  io->stage = GS_STAGE_VERTEX;
  io->gates = GS_GATE_ALL;
  io->cb[0] = cb0, io->cb_size[0] = sizeof cb0;
  io->cb[1] = cb1, io->cb_size[1] = sizeof cb1;
}

static void assemble(const char *src, sass_program *p) {
  gs_isa_binary b;
  gs_diag d;
  int rc = sass_asm(src, "random.s", &b, &d);
  if (rc) fprintf(stderr, "%s\n%s\n", d.msg, src);
  assert_int_equal(rc, 0);
  assert_int_equal(sass_program_init(p, b.bytes, b.size, NULL, &d), 0);
  gs_isa_binary_free(&b);
}

static sass_warp w_ref, w_fast, w_start;
static char w_msg[1100]; /* the last error */

/* Runs p from w_start through both interpreters; everything must agree.
 * Returns the return code. */
static int both(const sass_program *p, uint64_t budget, const char *src, size_t *fast_insns) {
  sass_io io;
  setup_io(&io);
  gs_diag dr, df;
  memset(&dr, 0, sizeof dr);
  memset(&df, 0, sizeof df);
  w_ref = w_start;
  w_fast = w_start;
  int rr = sass_run_ref(&w_ref, p, &io, budget, "random program", &dr);
  sass_fast *f = sass_prepare_fast(p, &df);
  assert_non_null(f);
  if (fast_insns) *fast_insns = sass_fast_coverage(f);
  int rf = sass_run_fast(&w_fast, f, &io, budget, "random program", &df);
  snprintf(w_msg, sizeof w_msg, "%s", rr ? dr.msg : "");
  sass_fast_free(f);
  int same = rr == rf && (rr == 0 || strcmp(dr.msg, df.msg) == 0) &&
             memcmp(w_ref.r, w_fast.r, sizeof w_ref.r) == 0 && memcmp(w_ref.p, w_fast.p, sizeof w_ref.p) == 0 &&
             memcmp(w_ref.cc, w_fast.cc, sizeof w_ref.cc) == 0 && w_ref.pc == w_fast.pc &&
             w_ref.active == w_fast.active && w_ref.exited == w_fast.exited && w_ref.killed == w_fast.killed &&
             w_ref.depth == w_fast.depth && w_ref.steps == w_fast.steps &&
             memcmp(w_ref.stack, w_fast.stack, w_ref.depth * sizeof w_ref.stack[0]) == 0;
  if (!same) {
    fprintf(stderr, "fast and reference differ on:\n%s\n", src);
    fprintf(stderr, "rc %d / %d, steps %llu / %llu, pc 0x%x / 0x%x, active %08x / %08x, exited %08x / %08x\n", rr, rf,
            (unsigned long long)w_ref.steps, (unsigned long long)w_fast.steps, w_ref.pc, w_fast.pc, w_ref.active,
            w_fast.active, w_ref.exited, w_fast.exited);
    if (rr) fprintf(stderr, "ref: %s\n", dr.msg);
    if (rf) fprintf(stderr, "fast: %s\n", df.msg);
    int shown = 0;
    for (unsigned r = 0; r < 256 && shown < 8; r++)
      for (unsigned l = 0; l < SASS_LANES && shown < 8; l++)
        if (w_ref.r[r][l] != w_fast.r[r][l])
          fprintf(stderr, "R%u lane %u: ref 0x%08x fast 0x%08x\n", r, l, w_ref.r[r][l], w_fast.r[r][l]), shown++;
    for (unsigned l = 0; l < SASS_LANES; l++) {
      if (w_ref.p[l] != w_fast.p[l]) fprintf(stderr, "P lane %u: ref 0x%02x fast 0x%02x\n", l, w_ref.p[l], w_fast.p[l]);
      if (w_ref.cc[l] != w_fast.cc[l]) fprintf(stderr, "CC lane %u: ref 0x%x fast 0x%x\n", l, w_ref.cc[l], w_fast.cc[l]);
    }
  }
  assert_true(same);
  return rr;
}

static void random_start(rng *g, unsigned lanes) {
  sass_warp_reset(&w_start, lanes, 8, NULL, 0);
  for (unsigned r = 0; r < 12; r++)
    for (unsigned l = 0; l < SASS_LANES; l++) w_start.r[r][l] = random_value(g);
  for (unsigned l = 0; l < SASS_LANES; l++) {
    w_start.p[l] = (uint8_t)(0x80 | pick(g, 128));
    w_start.cc[l] = (uint8_t)pick(g, 16);
  }
  for (unsigned k = 0; k < sizeof cb0 / 4; k++) {
    uint32_t v0 = random_value(g), v1 = random_value(g);
    memcpy(cb0 + 4 * k, &v0, 4);
    memcpy(cb1 + 4 * k, &v1, 4);
  }
}

/* n random programs (from seed) through both interpreters, or, when the
 * backend compiles every program at its first run (gs_jit_policy(1, 1)),
 * native code against the reference. */
static void random_programs(uint32_t seed, int PROGRAMS, int short_budgets) {
  find_rows();
  assert_true(n_alu_rows > 40);
  rng g = {seed};
  text t = {0};
  size_t fast = 0, total = 0, failed = 0;
  int avx2 = sass_fast_portable(-1);
  for (int i = 0; i < PROGRAMS; i++) {
    /* half the programs through the build's own copy of the loop (when the
     * AVX2 copy is the one taken) */
    sass_fast_portable(avx2 && (i & 1));
    random_program(&g, &t);
    sass_program p;
    assemble(t.s, &p);
    unsigned lanes = pick(&g, 4) ? 32 : 1 + pick(&g, 32);
    random_start(&g, lanes == 32 ? 0xffffffffu : (1u << lanes) - 1);
    size_t nf = 0;
    /* with short_budgets, every other program stops at a budget of 1 to 40 */
    uint64_t budget = short_budgets && (i & 1) ? 1 + pick(&g, 40) : 20000;
    if (both(&p, budget, t.s, &nf) < 0) {
      failed++;
      if (getenv("SHOW_ERRORS")) fprintf(stderr, "%s\n", w_msg);
    }
    fast += nf, total += p.n;
    sass_program_free(&p);
  }
  sass_fast_portable(0);
  free(t.s);
  /* most instructions run as micro-ops (the rest: control flow and the
   * forms with CC results or inputs), and few programs fail */
  fprintf(stderr, "%d programs: %zu of %zu instructions on micro-ops, %zu errors\n", PROGRAMS, fast, total, failed);
  assert_true(fast * 2 > total);
  assert_true(short_budgets || failed * 10 < (size_t)PROGRAMS);
}

static void test_random_programs(void **state) {
  (void)state;
  gs_jit_policy(0, 0); /* the interpreter */
  random_programs(0x5A55FA57u, 4000, 0);
}

/* The same kind of programs as native code (src/isa/uop/jit.h: the neutral
 * micro-ops as host code, the SASS ones through the escape) against the
 * reference, registers, predicates, CC, pc, stack and errors (half of them
 * stopped by a short budget); skipped in a
 * build without it (GS_JIT=OFF). */
static void test_random_programs_native(void **state) {
  (void)state;
  if (!gs_jit_available()) skip();
  unsigned before, after;
  double secs;
  gs_jit_stats(&before, &secs);
  gs_jit_policy(1, 1);
  random_programs(0x3A7E5EEDu, 64, 1);
  gs_jit_policy(0, 0);
  gs_jit_stats(&after, &secs);
  assert_int_equal(after - before, 64); /* every program ran compiled */
}

/* ---- programs worked by hand ----------------------------------------------------------- */

static void run_text(const char *src, unsigned lanes, uint64_t budget, int want_rc, const char *want_msg) {
  sass_program p;
  assemble(src, &p);
  sass_warp_reset(&w_start, lanes == 32 ? 0xffffffffu : (1u << lanes) - 1, 8, NULL, 0);
  for (unsigned l = 0; l < SASS_LANES; l++) w_start.r[1][l] = l;
  int rc = both(&p, budget, src, NULL);
  assert_int_equal(rc, want_rc);
  if (want_msg) {
    gs_diag d;
    sass_io io;
    setup_io(&io);
    w_ref = w_start;
    sass_fast *f = sass_prepare_fast(&p, &d);
    assert_non_null(f);
    assert_int_equal(sass_run_fast(&w_ref, f, &io, budget, "random program", &d), want_rc);
    sass_fast_free(f);
    if (!strstr(d.msg, want_msg)) fprintf(stderr, "%s\n", d.msg);
    assert_non_null(strstr(d.msg, want_msg));
  }
  sass_program_free(&p);
}

/* The fast path computes what the formulas say: R1 = lane, R2 = lane * 2.5 + 1
 * (exact), R3 = R2 > 20 ? 1.0 : 0 via FSETP and SEL, R4 = lane << 3 | 5. */
static void test_worked(void **state) {
  (void)state;
  find_rows();
  memset(cb0, 0, sizeof cb0);
  float k = 2.5f;
  memcpy(cb0 + 8, &k, 4);
  run_text("  I2F.F32.S32 R5, R1 ;\n"
           "  MOV32I R7, 0x3f800000 ;\n"
           "  FFMA R2, R5, c[0x0][0x8], R7 ;\n"
           "  FSETP.GT.AND P0, PT, R2, 20, PT ;\n"
           "  MOV32I R6, 0x3f800000 ;\n"
           "  SEL R3, R6, RZ, P0 ;\n"
           "  SHL R4, R1, 0x3 ;\n"
           "  LOP32I.OR R4, R4, 0x5 ;\n"
           "  EXIT ;\n",
           32, 1000, 0, NULL);
  for (unsigned l = 0; l < 32; l++) {
    float r2 = (float)l * 2.5f + 1.0f, got;
    memcpy(&got, &w_fast.r[2][l], 4);
    assert_true(got == r2);
    assert_int_equal(w_fast.r[3][l], r2 > 20.0f ? 0x3f800000u : 0);
    assert_int_equal(w_fast.r[4][l], l << 3 | 5);
  }
  assert_int_equal((int)w_fast.steps, 9);
}

/* A straight-line ALU program is on the fast path, and so is EXIT with the
 * flow test T, guarded or not; EXIT on a CC test and KIL are the
 * reference's: 7 of 9. */
static void test_coverage(void **state) {
  (void)state;
  sass_program p;
  assemble("  FADD.FTZ R2, R1, -R3 ;\n  FMUL.RZ R2, R2, 3 ;\n  IADD R4, R2, R1 ;\n  ISETP.LT.AND P1, PT, R4, RZ, PT ;\n"
           "  @P1 MOV R5, R4 ;\n  @P2 EXIT ;\n  EXIT CC.NE ;\n  KIL ;\n  EXIT ;\n",
           &p);
  gs_diag d;
  sass_fast *f = sass_prepare_fast(&p, &d);
  assert_non_null(f);
  assert_int_equal((int)sass_fast_coverage(f), 7);
  sass_fast_free(f);
  sass_program_free(&p);
}

/* The budget, counted in instructions, stops an endless loop at the same
 * step and pc; the message names the budget. */
static void test_budget(void **state) {
  (void)state;
  run_text("top:\n  IADD32I R2, R2, 0x1 ;\n  FADD R3, R3, 1 ;\n  BRA top ;\n", 32, 1000, GS_EWATCHDOG,
           "budget of 1000 instructions (at pc 0x0010");
  assert_int_equal((int)w_fast.steps, 1000);
  assert_int_equal((int)w_ref.r[2][0], 334);
  /* the budget running out on a fast instruction and on a slow one */
  run_text("top:\n  IADD32I R2, R2, 0x1 ;\n  FADD R3, R3, 1 ;\n  BRA top ;\n", 32, 1001, GS_EWATCHDOG, "at pc 0x0018");
  run_text("top:\n  IADD32I R2, R2, 0x1 ;\n  FADD R3, R3, 1 ;\n  BRA top ;\n", 32, 1002, GS_EWATCHDOG, "at pc 0x0008");
}

/* A constant past the end of its buffer is an error naming pc and operand,
 * unless the guard selects no lane; running off the end of the code too. */
static void test_cbuf_and_end(void **state) {
  (void)state;
  run_text("  MOV R2, R1 ;\n  FADD R2, R1, c[0x0][0x40] ;\n  EXIT ;\n", 32, 100, GS_EFAULT,
           "pc 0x0010 (FADD R2, R1, c[0x0][0x40]");
  assert_int_equal((int)w_ref.steps, 2);
  run_text("  FADD R2, R1, c[0x2][0x0] ;\n  EXIT ;\n", 32, 100, GS_EFAULT, "constant buffer 2 (0 bytes bound)");
  run_text("  @!PT FADD R2, R1, c[0x0][0x40] ;\n  EXIT ;\n", 32, 100, 0, NULL);
  run_text("  FFMA R2, R1, R1, c[0x1][0x3c] ;\n  EXIT ;\n", 32, 100, 0, NULL);
  run_text("  FFMA R2, R1, R2, c[0x1][0x40] ;\n  EXIT ;\n", 32, 100, GS_EFAULT, "c[0x1][0x40]");
  run_text("  MOV R2, R1 ;\n  IADD R3, R2, R1 ;\n", 32, 100, GS_EFAULT, "past the end of the program");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_worked),
      cmocka_unit_test(test_coverage),
      cmocka_unit_test(test_budget),
      cmocka_unit_test(test_cbuf_and_end),
      cmocka_unit_test(test_random_programs),
      cmocka_unit_test(test_random_programs_native),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
