/* test_agx_audit.c — issue 11's test list (§3), the parts the other AGX
 * tests did not have, each value worked out by hand:
 *
 * - (every worked and verified encoding of the public sources is in
 *   test_agx_asm.c's test_worked_encodings);
 * - the 8-bit float immediates: all 256 codes against the formula (sign 7,
 *   exponent 6-4, mantissa 3-0: e = 0 gives m/64, else (16 + m) 2^(e-7)),
 *   printed as C's %g with ".0" when integral, read back, and executed;
 * - the r0l nesting counter step by step: nested if/else with pop chains,
 *   a loop inside an if (push_exec 2, continue as `ldimm r0l, 2` +
 *   `pop_exec 0`, reactivation by `while 0.0, 0.0, 2, feq`, break_if as
 *   `while i, lim, 2, ult`, jmp_any, pop_exec 2), a loop with break
 *   (`ldimm r0l, 2` + `pop_exec 0`), and jmp_none over an empty then-block: each lane's r0l, the exec mask and the instruction
 *   after every step, through both interpreters;
 * - random fragment programs (iter, iterproj, ldcf, get_sr of the pixel,
 *   facing and coverage, dfdx/dfdy, sample_mask, zs_emit, st_var/no_var,
 *   with the ALU and control flow): the fast interpreter leaves exactly the
 *   reference's state, result and message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include "isa/agx/agx.h"
#include "isa/agx/exec.h"
#include "isa/agx/num.h"
#include "isa/agx/table.h"

/* ---- the 8-bit float immediates ------------------------------------------------- */

static double mini(unsigned c) {
  unsigned e = (c >> 4) & 7, m = c & 15;
  double v = e ? ldexp(16.0 + m, (int)e - 7) : m / 64.0;
  return (c & 0x80) ? -v : v;
}

static uint32_t fb(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static void test_minifloat_table(void **state) {
  (void)state;
  /* a few by hand first: the formula itself */
  assert_true(mini(0x00) == 0 && mini(0x01) == 1.0 / 64 && mini(0x0f) == 0.234375 && mini(0x10) == 0.25);
  assert_true(mini(0x30) == 1 && mini(0x3f) == 1.9375 && mini(0x40) == 2 && mini(0x7f) == 31 && mini(0x87) == -0.109375);
  for (unsigned c = 0; c < 256; c++) {
    double v = mini(c);
    float got = agx_minifloat(c);
    if ((double)got != v || (signbit(got) != 0) != ((c & 0x80) != 0)) fail_msg("0x%02x: %g, want %g", c, (double)got, v);
    assert_int_equal(agx_minifloat_encode(v), (int)c);
    /* printed as %g with .0 when integral, in an fmul r0, r1, <imm> */
    char num[32], want[64], text[64], got_text[64];
    snprintf(num, sizeof num, "%g", v);
    if (v == floor(v) && !strchr(num, 'e')) strcat(num, ".0");
    snprintf(text, sizeof text, "fmul r0, r1, %s", num);
    snprintf(want, sizeof want, "fmul     r0, r1, %s", num); /* Mesa pads the mnemonic to 8 columns */
    gs_isa_binary bin;
    gs_diag d = {0};
    if (agx_asm(text, "m.s", &bin, &d)) fail_msg("'%s': %s", text, d.msg);
    agx_instr I;
    unsigned len;
    char why[120];
    assert_int_equal(agx_decode(bin.bytes, bin.size, &I, &len, why, sizeof why), (int)bin.size);
    assert_int_equal(I.src[1].kind, AGX_K_FIMM);
    assert_int_equal(I.src[1].value, c);
    agx_print(&I, got_text, sizeof got_text);
    if (strcmp(got_text, want)) fail_msg("0x%02x: '%s', want '%s'", c, got_text, want);
    /* executed: r0 = 1.0 x imm, exact (the value is a small dyadic number) */
    I.src[0].kind = AGX_K_FIMM, I.src[0].value = 0x30, I.src[0].hint = 0;
    agx_instr prog[2] = {I, {0}};
    prog[1].op = AGX_STOP, prog[1].len = 2;
    static agx_state s;
    agx_state_init(&s, 1);
    agx_program p = {prog, 2};
    gs_diag dg;
    assert_int_equal(agx_run_ref(&s, &p, 0, 10, &dg), 0);
    assert_int_equal(agx_reg32(&s, 0, 0), fb((float)v));
    gs_isa_binary_free(&bin);
  }
  /* not a minifloat: refused, naming the column */
  gs_isa_binary bin;
  gs_diag d = {0};
  assert_int_not_equal(agx_asm("fmul r0, r1, 32.0", "m.s", &bin, &d), 0);
  assert_non_null(strstr(d.msg, "m.s:1:14:"));
}

/* ---- the nesting counter, step by step --------------------------------------------- */

/* A program assembled from text and decoded back. */
typedef struct prog {
  agx_instr insn[64];
  uint32_t at[64]; /* byte address of each instruction */
  size_t n;
} prog;
static void build(prog *p, const char *text) {
  gs_isa_binary bin;
  gs_diag d = {0};
  if (agx_asm(text, "r.s", &bin, &d)) fail_msg("%s", d.msg);
  p->n = 0;
  for (size_t off = 0; off < bin.size; p->n++) {
    unsigned len;
    char why[160];
    int r = agx_decode(bin.bytes + off, bin.size - off, &p->insn[p->n], &len, why, sizeof why);
    if (r <= 0) fail_msg("offset %zu: %s", off, why);
    p->at[p->n] = (uint32_t)off;
    off += (size_t)r;
  }
  gs_isa_binary_free(&bin);
}
static long index_at(const prog *p, uint32_t pc) {
  for (size_t k = 0; k < p->n; k++)
    if (p->at[k] == pc) return (long)k;
  return -1;
}

/* One step of a trace: the instruction run, then each lane's r0l and the
 * exec mask. */
typedef struct step {
  int insn;
  uint16_t r0l[4];
  uint32_t exec;
} step;

/* Runs p from a state with 4 lanes whose r1 = init_r1[lane], after every
 * step k: the instruction that ran (the pc before it), r0l, exec, through
 * the reference interpreter with a budget of k instructions, and the fast
 * one must leave the same state. Returns the final state in *out. */
static void trace(const prog *p, const uint32_t init_r1[4], const step *t, size_t nsteps, agx_state *out) {
  static agx_state a, b;
  agx_program pr = {p->insn, p->n};
  agx_fast *f = NULL;
  gs_diag d;
  assert_int_equal(agx_fast_compile(&pr, &f, &d), 0);
  uint32_t pc_before = 0;
  for (size_t k = 1; k <= nsteps; k++) {
    agx_state_init(&a, 4);
    for (unsigned l = 0; l < 4; l++) agx_set_reg32(&a, l, 1, init_r1[l]);
    memcpy(&b, &a, sizeof a);
    int ra = agx_run_ref(&a, &pr, 0, k, &d);
    int rb = agx_run_fast(&b, f, 0, k, &d);
    const step *s = &t[k - 1];
    assert_int_equal(ra, rb);
    if (memcmp(&a, &b, sizeof a)) fail_msg("step %zu: the fast interpreter's state differs", k);
    if (index_at(p, pc_before) != s->insn)
      fail_msg("step %zu ran instruction %ld, want %d", k, index_at(p, pc_before), s->insn);
    for (unsigned l = 0; l < 4; l++)
      if (a.r[l][0] != s->r0l[l])
        fail_msg("step %zu (instruction %d): lane %u r0l = %u, want %u", k, s->insn, l, a.r[l][0], s->r0l[l]);
    if (a.exec != s->exec) fail_msg("step %zu (instruction %d): exec 0x%x, want 0x%x", k, s->insn, a.exec, s->exec);
    assert_int_equal(a.steps, k);
    assert_int_equal(ra, k == nsteps ? 0 : GS_EWATCHDOG);
    pc_before = a.pc;
  }
  assert_true(a.stopped);
  agx_fast_free(f);
  memcpy(out, &a, sizeof a);
}

/* Nested if/else as Mesa emits them (if, unconditional else, pop_exec 1),
 * lanes 0-3 with r1 = the lane:
 *   if (lane < 2) { if (lane < 1) r2++; else r3++; } else { if (lane < 3) r4++; }
 * The counters worked out from the rules: if: r0l != 0 -> +n, else cond ?
 * 0 : 1; else: 0 -> n, 1 -> cond ? 0 : 1, else kept; pop_exec: - n. */
static const char *const nested_text =
    "ldimm r0l, 0\n"             /* 0 */
    "if r1, 2, 1, ult\n"         /* 1 */
    "if r1, 1, 1, ult\n"         /* 2 */
    "iadd r2, r2, 1\n"           /* 3 */
    "else 0.0, 0.0, 1, feq\n"    /* 4 */
    "iadd r3, r3, 1\n"           /* 5 */
    "pop_exec 1\n"               /* 6 */
    "else 0.0, 0.0, 1, feq\n"    /* 7 */
    "if r1, 3, 1, ult\n"         /* 8 */
    "iadd r4, r4, 1\n"           /* 9 */
    "pop_exec 1\n"               /* 10 */
    "pop_exec 1\n"               /* 11 */
    "stop\n";                    /* 12 */
static const step nested_steps[] = {
    {0, {0, 0, 0, 0}, 0xF},  {1, {0, 0, 1, 1}, 0x3}, {2, {0, 1, 2, 2}, 0x1},  {3, {0, 1, 2, 2}, 0x1},
    {4, {1, 0, 2, 2}, 0x2},  {5, {1, 0, 2, 2}, 0x2}, {6, {0, 0, 1, 1}, 0x3},  {7, {1, 1, 0, 0}, 0xC},
    {8, {2, 2, 0, 1}, 0x4},  {9, {2, 2, 0, 1}, 0x4}, {10, {1, 1, 0, 0}, 0xC}, {11, {0, 0, 0, 0}, 0xF},
    {12, {0, 0, 0, 0}, 0xF},
};

/* A loop inside an if, with continue and a loop condition, lanes with lim
 * r1 = 0, 1, 2, 3:
 *   if (lim != 0) { i = 0; do { i++; if (i & 1) continue; sum += i; } while (i < lim); }  r6++
 * push_exec 2 parks the lanes outside the if two deeper; continue parks at
 * 2 (one if and the loop body), the if's pop leaves 1, `while 0.0, 0.0, 2,
 * feq` brings every lane below 2 back; the loop condition `while i, lim,
 * 2, ult` parks the leaving lanes at 2, which the continue step does not
 * touch; after jmp_any, pop_exec 2 and the if's pop_exec 1. Results: i =
 * 0, 1, 2, 3, sum = 0, 0, 2, 2. */
static const char *const loop_text =
    "ldimm r0l, 0\n"              /* 0 */
    "if r1, 0, 1, ine\n"          /* 1 */
    "push_exec r0l, 2\n"          /* 2: applegpu's spelling of if 0.0, 0.0, 2, feq */
    "top: iadd r2, r2, 1\n"       /* 3 */
    "and r5, r2, 1\n"             /* 4 */
    "if r5, 0, 1, ine\n"          /* 5 */
    "ldimm r0l, 2\n"              /* 6: continue */
    "pop_exec 0\n"                /* 7 */
    "pop_exec 1\n"                /* 8 */
    "iadd r3, r3, r2\n"           /* 9 */
    "while 0.0, 0.0, 2, feq\n"    /* 10 */
    "while r2, r1, 2, ult\n"      /* 11 */
    "jmp_any top\n"               /* 12 */
    "pop_exec 2\n"                /* 13 */
    "pop_exec 1\n"                /* 14 */
    "iadd r6, r6, 1\n"            /* 15 */
    "stop\n";                     /* 16 */
static const step loop_steps[] = {
    {0, {0, 0, 0, 0}, 0xF},  {1, {1, 0, 0, 0}, 0xE},  {2, {3, 0, 0, 0}, 0xE},
    /* i = 1 in lanes 1-3: odd, all continue */
    {3, {3, 0, 0, 0}, 0xE},  {4, {3, 0, 0, 0}, 0xE},  {5, {4, 0, 0, 0}, 0xE},  {6, {4, 2, 2, 2}, 0xE},
    {7, {4, 2, 2, 2}, 0x0},  {8, {3, 1, 1, 1}, 0x0},  {9, {3, 1, 1, 1}, 0x0},  {10, {3, 0, 0, 0}, 0xE},
    {11, {3, 2, 0, 0}, 0xC}, {12, {3, 2, 0, 0}, 0xC},
    /* i = 2 in lanes 2-3: even, sum += 2; lane 2 leaves */
    {3, {3, 2, 0, 0}, 0xC},  {4, {3, 2, 0, 0}, 0xC},  {5, {4, 3, 1, 1}, 0x0},  {6, {4, 3, 1, 1}, 0x0},
    {7, {4, 3, 1, 1}, 0x0},  {8, {3, 2, 0, 0}, 0xC},  {9, {3, 2, 0, 0}, 0xC},  {10, {3, 2, 0, 0}, 0xC},
    {11, {3, 2, 2, 0}, 0x8}, {12, {3, 2, 2, 0}, 0x8},
    /* i = 3 in lane 3: odd, continue; it leaves */
    {3, {3, 2, 2, 0}, 0x8},  {4, {3, 2, 2, 0}, 0x8},  {5, {4, 3, 3, 0}, 0x8},  {6, {4, 3, 3, 2}, 0x8},
    {7, {4, 3, 3, 2}, 0x0},  {8, {3, 2, 2, 1}, 0x0},  {9, {3, 2, 2, 1}, 0x0},  {10, {3, 2, 2, 0}, 0x8},
    {11, {3, 2, 2, 2}, 0x0}, {12, {3, 2, 2, 2}, 0x0},
    /* out of the loop and the if */
    {13, {1, 0, 0, 0}, 0xE}, {14, {0, 0, 0, 0}, 0xF}, {15, {0, 0, 0, 0}, 0xF}, {16, {0, 0, 0, 0}, 0xF},
};

/* break as Mesa emits it (ldimm r0l to the depth it parks at, pop_exec 0
 * to apply it), lanes with lim r1 = 0, 1, 2, 3:
 *   i = 0; loop { i++; if (i > lim) break; sum += i; }
 * A breaking lane parks at 2 (the if and the loop), the if's pop leaves
 * it at 1, where nothing in the loop brings it back, and every later if
 * adds 1 and its pop takes it off; the loop's pop_exec 1 ends it. Results:
 * i = 1, 2, 3, 4, sum = 0, 1, 3, 6; the group goes round four times. */
static const char *const break_text =
    "ldimm r0l, 0\n"              /* 0 */
    "top: iadd r2, r2, 1\n"       /* 1 */
    "if r2, r1, 1, ugt\n"         /* 2 */
    "ldimm r0l, 2\n"              /* 3: break */
    "pop_exec 0\n"                /* 4 */
    "pop_exec 1\n"                /* 5 */
    "iadd r3, r3, r2\n"           /* 6 */
    "jmp_any top\n"               /* 7 */
    "pop_exec 1\n"                /* 8 */
    "stop\n";                     /* 9 */
static const step break_steps[] = {
    {0, {0, 0, 0, 0}, 0xF},
    /* i = 1: lane 0 breaks */
    {1, {0, 0, 0, 0}, 0xF}, {2, {0, 1, 1, 1}, 0x1}, {3, {2, 1, 1, 1}, 0x1}, {4, {2, 1, 1, 1}, 0x0},
    {5, {1, 0, 0, 0}, 0xE}, {6, {1, 0, 0, 0}, 0xE}, {7, {1, 0, 0, 0}, 0xE},
    /* i = 2: lane 1 breaks */
    {1, {1, 0, 0, 0}, 0xE}, {2, {2, 0, 1, 1}, 0x2}, {3, {2, 2, 1, 1}, 0x2}, {4, {2, 2, 1, 1}, 0x0},
    {5, {1, 1, 0, 0}, 0xC}, {6, {1, 1, 0, 0}, 0xC}, {7, {1, 1, 0, 0}, 0xC},
    /* i = 3: lane 2 breaks */
    {1, {1, 1, 0, 0}, 0xC}, {2, {2, 2, 0, 1}, 0x4}, {3, {2, 2, 2, 1}, 0x4}, {4, {2, 2, 2, 1}, 0x0},
    {5, {1, 1, 1, 0}, 0x8}, {6, {1, 1, 1, 0}, 0x8}, {7, {1, 1, 1, 0}, 0x8},
    /* i = 4: lane 3 breaks; nobody is left and jmp_any falls through */
    {1, {1, 1, 1, 0}, 0x8}, {2, {2, 2, 2, 0}, 0x8}, {3, {2, 2, 2, 2}, 0x8}, {4, {2, 2, 2, 2}, 0x0},
    {5, {1, 1, 1, 1}, 0x0}, {6, {1, 1, 1, 1}, 0x0}, {7, {1, 1, 1, 1}, 0x0},
    {8, {0, 0, 0, 0}, 0xF}, {9, {0, 0, 0, 0}, 0xF},
};

/* jmp_none over a then-block no lane runs (Mesa's agx_opt_jmp_none), and
 * the one after the else that every lane runs (not taken). */
static const char *const skip_text =
    "ldimm r0l, 0\n"                  /* 0 */
    "if r1, 9, 1, ugt\n"              /* 1: no lane: all 1 */
    "jmp_none else_\n"                /* 2: taken */
    "iadd r2, r2, 1\n"                /* 3 */
    "else_: else 0.0, 0.0, 1, feq\n"  /* 4: 1 -> 0 */
    "jmp_none end\n"                  /* 5: not taken */
    "iadd r3, r3, 1\n"                /* 6 */
    "end: pop_exec 1\n"               /* 7 */
    "stop\n";                         /* 8 */
static const step skip_steps[] = {
    {0, {0, 0, 0, 0}, 0xF}, {1, {1, 1, 1, 1}, 0x0}, {2, {1, 1, 1, 1}, 0x0}, {4, {0, 0, 0, 0}, 0xF},
    {5, {0, 0, 0, 0}, 0xF}, {6, {0, 0, 0, 0}, 0xF}, {7, {0, 0, 0, 0}, 0xF}, {8, {0, 0, 0, 0}, 0xF},
};

static void test_r0l_traces(void **state) {
  (void)state;
  static const uint32_t lanes[4] = {0, 1, 2, 3};
  static prog p;
  static agx_state s;
  build(&p, nested_text);
  assert_int_equal(p.n, 13);
  trace(&p, lanes, nested_steps, sizeof nested_steps / sizeof nested_steps[0], &s);
  for (unsigned l = 0; l < 4; l++) {
    assert_int_equal(agx_reg32(&s, l, 2), l == 0);
    assert_int_equal(agx_reg32(&s, l, 3), l == 1);
    assert_int_equal(agx_reg32(&s, l, 4), l == 2);
  }
  build(&p, loop_text);
  assert_int_equal(p.n, 17);
  trace(&p, lanes, loop_steps, sizeof loop_steps / sizeof loop_steps[0], &s);
  static const uint32_t sum[4] = {0, 0, 2, 2};
  for (unsigned l = 0; l < 4; l++) {
    assert_int_equal(agx_reg32(&s, l, 2), l);
    assert_int_equal(agx_reg32(&s, l, 3), sum[l]);
    assert_int_equal(agx_reg32(&s, l, 6), 1);
  }
  build(&p, break_text);
  trace(&p, lanes, break_steps, sizeof break_steps / sizeof break_steps[0], &s);
  static const uint32_t bsum[4] = {0, 1, 3, 6};
  for (unsigned l = 0; l < 4; l++) {
    assert_int_equal(agx_reg32(&s, l, 2), l + 1);
    assert_int_equal(agx_reg32(&s, l, 3), bsum[l]);
  }
  build(&p, skip_text);
  trace(&p, lanes, skip_steps, sizeof skip_steps / sizeof skip_steps[0], &s);
  for (unsigned l = 0; l < 4; l++) {
    assert_int_equal(agx_reg32(&s, l, 2), 0);
    assert_int_equal(agx_reg32(&s, l, 3), 1);
  }
}

/* ---- random fragment programs, fast against reference ---------------------------- */

static uint64_t rng = 0x243f6a8885a308d3u;
static uint32_t rnd(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (uint32_t)(rng >> 11);
}
static uint32_t pick(uint32_t n) { return rnd() % n; }

/* The pixel, facing and coverage of a lane (a 4 x 8 block at a random
 * place: quads for dfdx/dfdy). */
typedef struct frag_ctx {
  uint32_t x0, y0, back, cov[AGX_LANES];
} frag_ctx;
static int frag_sr(void *ctx, unsigned lane, unsigned sr, uint32_t *v) {
  const frag_ctx *c = ctx;
  switch (sr) {
    case 80: *v = c->x0 + (lane & 1) + 2 * ((lane >> 2) & 1) + 4 * (lane >> 3); return 0;
    case 81: *v = c->y0 + ((lane >> 1) & 1); return 0;
    case 62: *v = c->back; return 0;
    case 60: case 124: *v = c->cov[lane]; return 0;
    default: return 1;
  }
}

static const char *const srs[] = {"thread_in_grid_x", "thread_in_grid_y", "backfacing", "internal_coverage_mask",
                                  "input_sample_mask", "thread_index_in_simdgroup", "is_active_thread",
                                  "total_active_threads_in_simdgroup"};
static const char *const conds[] = {"ieq", "ult", "ugt", "ine", "ugte", "slt", "sgt"};

/* One random line (r1-r15 and their halves; r0l by the control flow). */
static void random_line(char *out, size_t size, unsigned k, unsigned n) {
  unsigned d = 1 + pick(15), a = 1 + pick(15), b = 1 + pick(15);
  unsigned r = pick(100);
  static const char *const fimm[] = {"0.5", "1.0", "-0.0", "2.0", "0.25"};
  if (r < 12) {
    unsigned c = pick(8), cnt = 1 + pick(4), w = pick(3);
    char run[64] = "";
    if (pick(3)) { /* 32-bit run */
      if (d + cnt > 16) d = 16 - cnt;
      for (unsigned i = 0; i < cnt; i++) snprintf(run + strlen(run), sizeof run - strlen(run), "%sr%u", i ? "_" : "", d + i);
    } else {
      for (unsigned i = 0; i < cnt; i++)
        snprintf(run + strlen(run), sizeof run - strlen(run), "%sr%u%c", i ? "_" : "", d + i / 2, i & 1 ? 'h' : 'l');
    }
    snprintf(out, size, "iter %s, cf%u%s%s", run, c, w ? ", cf0" : "", pick(4) ? "" : ", centroid");
  } else if (r < 16) {
    if (d > 13) d = 13;
    snprintf(out, size, "ldcf r%u_r%u_r%u, cf%u", d, d + 1, d + 2, pick(8));
  } else if (r < 24) {
    snprintf(out, size, "mov r%u%s, %s", d, pick(3) ? "" : "l", srs[pick(sizeof srs / sizeof srs[0])]);
  } else if (r < 28) {
    snprintf(out, size, "%s r%u, r%u", pick(2) ? "dfdx" : "dfdy", d, a);
  } else if (r < 33) {
    if (pick(2)) snprintf(out, size, "sample_mask %u, %u", pick(256), pick(256));
    else snprintf(out, size, "sample_mask r%u%c, r%u%c", a, pick(2) ? 'l' : 'h', b, pick(2) ? 'l' : 'h');
  } else if (r < 36) {
    static const char *const zs[] = {"r2", "r2l_r2h_r3l", "r3l"};
    snprintf(out, size, "zs_emit %u, %s", pick(3) ? 255 : pick(256), zs[pick(3)]);
  } else if (r < 40) {
    if (pick(4)) snprintf(out, size, "st_var r%u, %u%s", a, pick(8), pick(3) ? "" : ", last");
    else snprintf(out, size, "no_var");
  } else if (r < 55) {
    static const char *const ops[] = {"fadd", "fmul"};
    snprintf(out, size, "%s r%u, r%u, %s", ops[pick(2)], d, a, pick(2) ? fimm[pick(5)] : "r2");
  } else if (r < 62) {
    snprintf(out, size, "ffma r%u, r%u, r%u, r%u", d, a, b, 1 + pick(15));
  } else if (r < 70) {
    snprintf(out, size, "iadd r%u, r%u, %u", d, a, pick(256));
  } else if (r < 76) {
    snprintf(out, size, "if r%u, %u, %u, %s", a, pick(64), pick(4), conds[pick(7)]);
  } else if (r < 79) {
    snprintf(out, size, "else 0.0, 0.0, %u, feq", pick(4));
  } else if (r < 82) {
    snprintf(out, size, "while r%u, r%u, %u, %s", a, b, pick(4), conds[pick(7)]);
  } else if (r < 88) {
    snprintf(out, size, "pop_exec %u", pick(4));
  } else if (r < 90) {
    snprintf(out, size, "ldimm r0l, %u", pick(3));
  } else if (r < 95 && k + 2 < n) {
    snprintf(out, size, "jmp_none L%u", k + 1 + pick(n - k - 1));
  } else if (k > 0) {
    snprintf(out, size, "jmp_any L%u", pick(k));
  } else {
    snprintf(out, size, "pop_exec 1");
  }
}

/* 2000 random programs of 4-30 lines over a 32-lane fragment group with
 * random coefficient planes (specials among them), pixels, facing and
 * coverage: fast and reference end alike, state, result and message. The
 * assembler must take every line (the generator's operands are all legal). */
static void test_random_fragment_programs(void **state) {
  (void)state;
  static agx_state a, b;
  static const uint32_t sp[] = {0, 0x80000000u, 0x3f800000u, 0x00000001u, 0x7f800000u, 0x7fc00000u, 0x3e800000u,
                                0xc1200000u, 0x00800000u, 0x7f7fffffu};
  unsigned errors = 0, frag_ops = 0;
  for (int iter = 0; iter < 2000; iter++) {
    unsigned n = 4 + pick(27);
    char text[4096] = "";
    for (unsigned k = 0; k < n; k++) {
      char line[128];
      if (k + 1 == n) snprintf(line, sizeof line, "stop");
      else random_line(line, sizeof line, k, n);
      snprintf(text + strlen(text), sizeof text - strlen(text), "L%u: %s\n", k, line);
    }
    static prog p;
    build(&p, text);
    frag_ctx fc = {pick(200), pick(200), pick(2), {0}};
    agx_state_init(&a, 32);
    for (unsigned l = 0; l < AGX_LANES; l++) {
      fc.cov[l] = pick(16);
      for (unsigned r = 1; r < 16; r++) agx_set_reg32(&a, l, r, pick(3) ? sp[pick(10)] : rnd());
      a.r[l][0] = (uint16_t)(pick(3) ? 0 : pick(3));
    }
    a.exec = 0;
    for (unsigned l = 0; l < AGX_LANES; l++)
      if (!a.r[l][0]) a.exec |= 1u << l;
    for (unsigned c = 0; c < 8; c++)
      for (unsigned k = 0; k < 3; k++) a.cf[c][k] = pick(2) ? sp[pick(10)] : fb((float)((int)pick(64) - 32) / 8);
    a.sr = frag_sr, a.sr_ctx = &fc;
    memcpy(&b, &a, sizeof a);
    agx_program pr = {p.insn, p.n};
    agx_fast *f = NULL;
    gs_diag d1, d2;
    gs_diag_clear(&d1), gs_diag_clear(&d2);
    assert_int_equal(agx_fast_compile(&pr, &f, &d2), 0);
    int r1 = agx_run_ref(&a, &pr, 0, 1000, &d1);
    int r2 = agx_run_fast(&b, f, 0, 1000, &d2);
    agx_fast_free(f);
    if (r1 != r2 || strcmp(d1.msg, d2.msg) || memcmp(&a, &b, sizeof a))
      fail_msg("program %d: ref %d '%s', fast %d '%s', exec %08x/%08x pc %x/%x\n%s", iter, r1, d1.msg, r2, d2.msg,
               a.exec, b.exec, a.pc, b.pc, text);
    errors += r1 != 0;
    for (size_t k = 0; k < p.n; k++) {
      unsigned op = p.insn[k].op;
      frag_ops += op == AGX_ITER || op == AGX_ITERPROJ || op == AGX_LDCF || op == AGX_SAMPLE_MASK || op == AGX_ZS_EMIT;
    }
  }
  /* both endings, and the fragment instructions among the lines */
  assert_true(errors > 100 && errors < 1900);
  assert_true(frag_ops > 5000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_minifloat_table),
      cmocka_unit_test(test_r0l_traces),
      cmocka_unit_test(test_random_fragment_programs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
