/* test_uop.c — the lane micro-op layer (src/isa/uop/) on its own: programs
 * built by hand, run by gs_uop_run16 and gs_uop_run32 over a register file
 * of 16- and 32-lane vectors with masks. Every expected value is worked out
 * by hand from IEEE 754 binary32 and the kinds' definitions in uop.h (the
 * no-NaN model: docs/determinism.md), never taken from the program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/fpmode.h"
#include "isa/uop/uop.h"

#define NREGS 8
#define ONE 0x3f800000u
#define MONE 0xbf800000u
#define PINF 0x7f800000u
#define QNAN 0x7fc00000u
/* 1.5 × 2^-24 = 0.75 of 1.0's ulp (2^-23): 1 + it lies between 1.0 and
 * 1 + 2^-23, nearer the latter. */
#define THREEQ_ULP 0x33c00000u

typedef int (*run_fn)(gs_uop_machine *, const gs_uop *);

typedef struct fixture {
  int n;         /* lanes */
  run_fn run;
  uint32_t *regs; /* NREGS × n words, 64-byte aligned */
  gs_uop_machine m;
} fixture;

static void fixture_init(fixture *f, int n) {
  memset(f, 0, sizeof *f);
  f->n = n;
  f->run = n == 16 ? gs_uop_run16 : gs_uop_run32;
  f->regs = aligned_alloc(64, (size_t)NREGS * n * 4);
  assert_non_null(f->regs);
  memset(f->regs, 0, (size_t)NREGS * n * 4);
  f->m.regs = f->regs;
}
static void fixture_free(fixture *f) { free(f->regs); }

static uint32_t *reg(fixture *f, int r) { return f->regs + r * f->n; }
static void fill(fixture *f, int r, uint32_t v) {
  for (int i = 0; i < f->n; i++) reg(f, r)[i] = v;
}
/* A micro-op on registers d, a, b (numbers; the layer wants byte offsets). */
static gs_uop op3(fixture *f, unsigned kind, unsigned cond, int d, int a, int b) {
  return (gs_uop){.kind = (uint8_t)kind, .cond = (uint8_t)cond, .d = (uint16_t)(d * 4 * f->n),
                  .a = (uint16_t)(a * 4 * f->n), .b = (uint16_t)(b * 4 * f->n)};
}
static gs_uop end_op(void) { return (gs_uop){.kind = GS_UOP_END}; }

/* Runs prog with rounding `mode` and denormals flushed or not, restoring
 * the caller's environment. */
static int run_in(fixture *f, const gs_uop *prog, int mode, int flush) {
  gs_fp_env saved = gs_fp_env_get();
  gs_fp_env_set(gs_fp_env_with(saved, mode, flush));
  int rc = f->run(&f->m, prog);
  gs_fp_env_set(saved);
  return rc;
}

static void each_width(void (*body)(fixture *)) {
  for (int n = 16; n <= 32; n += 16) {
    fixture f;
    fixture_init(&f, n);
    body(&f);
    fixture_free(&f);
  }
}

/* IEEE fadd in the environment the ISA sets: 1 + 0.75 ulp is 1.0 toward
 * zero and 1 + 2^-23 (0x3f800001) to nearest; -1 - 0.75 ulp likewise with
 * the sign. Lane i alternates the sign. */
static void fadd_rounding(fixture *f) {
  for (int i = 0; i < f->n; i++) {
    reg(f, 1)[i] = i & 1 ? MONE : ONE;
    reg(f, 2)[i] = (i & 1 ? 0x80000000u : 0) | THREEQ_ULP;
  }
  gs_uop prog[] = {op3(f, GS_UOP_FADD, 1, 3, 1, 2), op3(f, GS_UOP_FSUB, 1, 4, 1, 2), end_op()};
  assert_int_equal(run_in(f, prog, GS_FP_TOWARD_ZERO, 1), 0);
  for (int i = 0; i < f->n; i++) {
    assert_int_equal(reg(f, 3)[i], i & 1 ? MONE : ONE);
    /* 1 - 0.75 ulp(1) = 1 - 1.5 × 2^-24: below 1 the ulp is 2^-24, so the
     * exact 1 - 1.5 × 2^-24 lies between 1 - 2^-23 (0x3f7ffffe) and 1 - 2^-24
     * (0x3f7fffff); toward zero gives the smaller magnitude. */
    assert_int_equal(reg(f, 4)[i], i & 1 ? 0xbf7ffffeu : 0x3f7ffffeu);
  }
  assert_int_equal(run_in(f, prog, GS_FP_NEAREST, 1), 0);
  for (int i = 0; i < f->n; i++) {
    assert_int_equal(reg(f, 3)[i], i & 1 ? 0xbf800001u : 0x3f800001u);
    /* nearest: a tie between 0x3f7ffffe and 0x3f7fffff goes to the even one */
    assert_int_equal(reg(f, 4)[i], i & 1 ? 0xbf7ffffeu : 0x3f7ffffeu);
  }
}
static void test_fadd_rounding(void **state) {
  (void)state;
  each_width(fadd_rounding);
}

/* The no-NaN model. All lanes normal (the host's fast path): toward zero as
 * above. Then specials in a few lanes (the model's own loop for the whole
 * vector): a denormal reads as 0, NaN as Inf, Inf - Inf gives +Inf, 0 × Inf
 * a signed 0, denormal results flush to 0. */
static void float_nn(fixture *f) {
  fill(f, 1, ONE);
  fill(f, 2, THREEQ_ULP);
  gs_uop prog[] = {op3(f, GS_UOP_FADD_NN, 1, 3, 1, 2), op3(f, GS_UOP_FSUB_NN, 1, 4, 1, 1),
                   op3(f, GS_UOP_FMUL_NN, 1, 5, 1, 2), end_op()};
  assert_int_equal(run_in(f, prog, GS_FP_TOWARD_ZERO, 1), 0);
  for (int i = 0; i < f->n; i++) {
    assert_int_equal(reg(f, 3)[i], ONE);
    assert_int_equal(reg(f, 4)[i], 0); /* 1 - 1 = +0 */
    assert_int_equal(reg(f, 5)[i], THREEQ_ULP);
  }
  /* lane 0: denormal + 1 = 1; lane 1: NaN + 1 = +Inf (NaN reads as Inf);
   * lane 2: Inf - Inf = +Inf (invalid); lane 3: 2^-126 × 0.5 = 2^-127, a
   * denormal: +0; lane n-1: -0 × Inf = -0. */
  fill(f, 1, ONE);
  fill(f, 2, ONE);
  reg(f, 1)[0] = 0x00000001u;
  reg(f, 1)[1] = QNAN;
  reg(f, 1)[2] = PINF, reg(f, 2)[2] = PINF;
  reg(f, 1)[3] = 0x00800000u, reg(f, 2)[3] = 0x3f000000u;
  reg(f, 1)[f->n - 1] = 0x80000000u, reg(f, 2)[f->n - 1] = PINF;
  assert_int_equal(run_in(f, prog, GS_FP_TOWARD_ZERO, 1), 0);
  assert_int_equal(reg(f, 3)[0], ONE);      /* 0 + 1 */
  assert_int_equal(reg(f, 3)[1], PINF);     /* Inf + 1 */
  assert_int_equal(reg(f, 4)[2], PINF);     /* Inf - Inf */
  assert_int_equal(reg(f, 5)[3], 0);        /* 2^-127 flushed */
  assert_int_equal(reg(f, 5)[f->n - 1], 0x80000000u); /* -0 × Inf */
  assert_int_equal(reg(f, 5)[1], PINF);     /* Inf × 1 */
  assert_int_equal(reg(f, 3)[5], 0x40000000u); /* ordinary lanes: 1 + 1 */
}
static void test_float_nn(void **state) {
  (void)state;
  each_width(float_nn);
}

/* ftoi truncates, |x| >= 2^31 gives 0; itof of -3 is -3.0; fmin's ties give
 * operand b (-0 vs +0), fmaxabs compares magnitudes. */
static void float_misc(fixture *f) {
  fill(f, 1, 0xc02ccccdu); /* -2.7 */
  reg(f, 1)[1] = 0x4f32d05eu; /* 3.0e9 */
  fill(f, 2, (uint32_t)-3);
  fill(f, 4, 0x80000000u); /* -0 */
  fill(f, 5, 0);           /* +0 */
  gs_uop prog[] = {op3(f, GS_UOP_FTOI_NN, 1, 3, 1, 0), op3(f, GS_UOP_ITOF, 1, 6, 2, 0),
                   op3(f, GS_UOP_FMIN_NN, 1, 7, 4, 5), end_op()};
  assert_int_equal(run_in(f, prog, GS_FP_TOWARD_ZERO, 1), 0);
  assert_int_equal(reg(f, 3)[0], (uint32_t)-2);
  assert_int_equal(reg(f, 3)[1], 0);
  assert_int_equal(reg(f, 6)[f->n - 1], 0xc0400000u); /* -3.0 */
  assert_int_equal(reg(f, 7)[2], 0);                  /* tie: b, +0 */
  fill(f, 1, 0xc0000000u); /* -2 */
  fill(f, 2, ONE);
  gs_uop p2[] = {op3(f, GS_UOP_FMAXABS_NN, 1, 3, 1, 2), op3(f, GS_UOP_FMINABS_NN, 1, 4, 1, 2), end_op()};
  assert_int_equal(run_in(f, p2, GS_FP_TOWARD_ZERO, 1), 0);
  assert_int_equal(reg(f, 3)[0], 0x40000000u); /* |-2| */
  assert_int_equal(reg(f, 4)[f->n - 1], ONE);
}
/* The IEEE kinds' min, max and saturating ftoi: a NaN operand loses to a
 * number, two NaNs give the default NaN, -0 is below +0; ftoi truncates,
 * saturates at 2^31 - 1 and -2^31, NaN gives 0. */
static void float_ieee(fixture *f) {
  static const uint32_t a[8] = {ONE, QNAN, QNAN, 0x80000000u, 0, 0xc0000000u, 0x4f000000u, 0xcf800000u};
  static const uint32_t b[8] = {0x40000000u, MONE, 0xffc00001u, 0, 0x80000000u, PINF, ONE, ONE};
  /* min: 1; -1 (NaN loses); default NaN; -0; -0; -2 */
  static const uint32_t want_min[6] = {ONE, MONE, 0x7fc00000u, 0x80000000u, 0x80000000u, 0xc0000000u};
  /* max: 2; -1; default NaN; +0; +0; +Inf */
  static const uint32_t want_max[6] = {0x40000000u, MONE, 0x7fc00000u, 0, 0, PINF};
  /* ftoi of a: 1; NaN 0; NaN 0; -0 0; 0; -2; 2^31 saturates to 0x7fffffff;
   * -2^32 to 0x80000000 */
  static const uint32_t want_ftoi[8] = {1, 0, 0, 0, 0, (uint32_t)-2, 0x7fffffffu, 0x80000000u};
  for (int i = 0; i < f->n; i++) reg(f, 1)[i] = a[i % 8], reg(f, 2)[i] = b[i % 8];
  gs_uop prog[] = {op3(f, GS_UOP_FMIN, 1, 3, 1, 2), op3(f, GS_UOP_FMAX, 1, 4, 1, 2),
                   op3(f, GS_UOP_FTOI_SAT, 1, 5, 1, 0), end_op()};
  assert_int_equal(run_in(f, prog, GS_FP_NEAREST, 0), 0);
  for (int i = 0; i < f->n; i++) {
    if (i % 8 < 6) {
      assert_int_equal(reg(f, 3)[i], want_min[i % 8]);
      assert_int_equal(reg(f, 4)[i], want_max[i % 8]);
    }
    assert_int_equal(reg(f, 5)[i], want_ftoi[i % 8]);
  }
}
static void test_float_ieee(void **state) {
  (void)state;
  each_width(float_ieee);
}

static void test_float_misc(void **state) {
  (void)state;
  each_width(float_misc);
}

/* Integer kinds, lane by lane: shift counts modulo 32 against saturated,
 * signed against unsigned min/max, clz, mul24 and mul32's low words. */
static void integer(fixture *f) {
  for (int i = 0; i < f->n; i++) {
    reg(f, 1)[i] = i & 1 ? 0x80000000u : 1u;
    reg(f, 2)[i] = (uint32_t)(i + 20); /* counts 20 .. n + 19: from 32 up for i >= 12 */
  }
  gs_uop prog[] = {op3(f, GS_UOP_SHL, 1, 3, 1, 2), op3(f, GS_UOP_SHL_SAT, 1, 4, 1, 2),
                   op3(f, GS_UOP_ASR, 1, 5, 1, 2), op3(f, GS_UOP_ASR_SAT, 1, 6, 1, 2), end_op()};
  assert_int_equal(run_in(f, prog, GS_FP_TOWARD_ZERO, 1), 0);
  for (int i = 0; i < f->n; i++) {
    uint32_t c = (uint32_t)(i + 20), x = reg(f, 1)[i];
    uint32_t shl = x << (c & 31), shl_sat = c > 31 ? 0 : x << c;
    /* asr of 1: 1 by 0, else 0; of 0x80000000 by s < 31: s + 1 leading
     * ones; by 31 or more (saturated): all ones */
    uint32_t s = c & 31, asr, asr_sat;
    asr = x == 1 ? (s == 0) : (s == 31 ? 0xffffffffu : ~(0xffffffffu >> (s + 1)));
    asr_sat = x == 1 ? 0 : (c >= 31 ? 0xffffffffu : ~(0xffffffffu >> (c + 1)));
    assert_int_equal(reg(f, 3)[i], shl);
    assert_int_equal(reg(f, 4)[i], shl_sat);
    assert_int_equal(reg(f, 5)[i], asr);
    assert_int_equal(reg(f, 6)[i], asr_sat);
  }
  /* hand-computed spot values: lane 13 (count 33): 1 shifted 33 = 2 mod 32,
   * 0 saturated; lane 12 (count 32, x = 1): shl gives 1, saturated 0 */
  assert_int_equal(reg(f, 3)[13], 0); /* x = 0x80000000 << 1 = 0 */
  assert_int_equal(reg(f, 3)[12], 1);
  assert_int_equal(reg(f, 4)[12], 0);
  assert_int_equal(reg(f, 6)[13], 0xffffffffu);
  assert_int_equal(reg(f, 5)[13], 0xc0000000u); /* count 33 -> 1 */

  fill(f, 1, 0xffffffffu);
  fill(f, 2, 1);
  reg(f, 2)[0] = 0;
  gs_uop p2[] = {op3(f, GS_UOP_IMIN, 1, 3, 1, 2), op3(f, GS_UOP_UMIN, 1, 4, 1, 2),
                 op3(f, GS_UOP_IMAX, 1, 5, 1, 2), op3(f, GS_UOP_UMAX, 1, 6, 1, 2),
                 op3(f, GS_UOP_CLZ, 1, 7, 2, 0), end_op()};
  assert_int_equal(run_in(f, p2, GS_FP_TOWARD_ZERO, 1), 0);
  assert_int_equal(reg(f, 3)[1], 0xffffffffu); /* -1 < 1 */
  assert_int_equal(reg(f, 4)[1], 1);
  assert_int_equal(reg(f, 5)[1], 1);
  assert_int_equal(reg(f, 6)[1], 0xffffffffu);
  assert_int_equal(reg(f, 7)[0], 32); /* clz 0 */
  assert_int_equal(reg(f, 7)[1], 31); /* clz 1 */

  fill(f, 1, 0x01000003u); /* mul24 reads 3 */
  fill(f, 2, 0x00010002u);
  gs_uop p3[] = {op3(f, GS_UOP_MUL24, 1, 3, 1, 2), op3(f, GS_UOP_MUL32, 1, 4, 1, 2),
                 op3(f, GS_UOP_ROR, 1, 5, 2, 2), end_op()};
  assert_int_equal(run_in(f, p3, GS_FP_TOWARD_ZERO, 1), 0);
  assert_int_equal(reg(f, 3)[0], 0x00030006u); /* 3 × 0x10002 */
  /* 0x01000003 × 0x00010002 = 0x0100_0000_0000 + 0x0200_0000 + 0x3_0000 + 6 */
  assert_int_equal(reg(f, 4)[f->n - 1], 0x02030006u);
  /* 0x00010002 rotated right by 2 (count & 31): 0x80004000 */
  assert_int_equal(reg(f, 5)[3], 0x80004000u);
}
static void test_integer(void **state) {
  (void)state;
  each_width(integer);
}

/* Masks: a move under mask 1 changes only its lanes (and under cond 3, its
 * complement only); a compare fills mask 2 in the lanes of its condition
 * and keeps the others; select picks per lane. cond 0 moves nothing. */
static void masks(fixture *f) {
  uint32_t m1 = f->n == 32 ? 0xf00f0f01u : 0xf0f1u;
  for (int i = 0; i < f->n; i++) {
    reg(f, 1)[i] = 100u + (uint32_t)i;
    reg(f, 2)[i] = 7;
    reg(f, 3)[i] = 7;
    reg(f, 4)[i] = 7;
    reg(f, 5)[i] = (uint32_t)i;
  }
  f->m.masks[1] = m1;
  f->m.masks[2] = 0x5u; /* lanes 0 and 2 already set */
  gs_uop prog[] = {op3(f, GS_UOP_MOVE, 2, 2, 1, 0), op3(f, GS_UOP_MOVE, 3, 3, 1, 0),
                   op3(f, GS_UOP_MOVE, 0, 4, 1, 0),
                   /* mask 2 = (lane < 8) in the lanes of mask 1 */
                   op3(f, GS_UOP_CMP_ILT, 2, 2, 5, 6), op3(f, GS_UOP_SELECT, 4, 6, 1, 5), end_op()};
  for (int i = 0; i < f->n; i++) reg(f, 6)[i] = 8;
  prog[3].d = 2; /* a compare's d is a mask number */
  assert_int_equal(run_in(f, prog, GS_FP_TOWARD_ZERO, 1), 0);
  /* mask 2: lanes of m1 below 8 -> set, lanes of m1 from 8 -> clear, others
   * kept (0 and 2 set before): m1 = ...0f01 / f0f1 */
  uint32_t want2 = ((m1 & 0xffu) & m1) | (0x5u & ~m1);
  assert_int_equal(f->m.masks[2], want2);
  for (int i = 0; i < f->n; i++) {
    int in = (int)(m1 >> i & 1);
    assert_int_equal(reg(f, 2)[i], in ? 100u + (uint32_t)i : 7u);
    assert_int_equal(reg(f, 3)[i], in ? 7u : 100u + (uint32_t)i);
    assert_int_equal(reg(f, 4)[i], 7u);
    assert_int_equal(reg(f, 6)[i], (want2 >> i & 1) ? 100u + (uint32_t)i : (uint32_t)i);
  }
  /* lane 0 is in m1 and below 8 (set); lane 2 is outside m1 and kept set */
  assert_true(f->m.masks[2] & 1);
  assert_true(f->m.masks[2] & 4);
}
static void test_masks(void **state) {
  (void)state;
  each_width(masks);
}

/* Float compares and constants: NaN compares false; CONST loads a vector. */
static void compares_consts(fixture *f) {
  uint32_t *k = aligned_alloc(64, (size_t)2 * f->n * 4);
  assert_non_null(k);
  for (int i = 0; i < f->n; i++) k[i] = 0, k[f->n + i] = (uint32_t)(3 * i);
  f->m.consts = k;
  fill(f, 1, ONE);
  reg(f, 1)[1] = QNAN;
  fill(f, 2, 0x40000000u);
  gs_uop c = {.kind = GS_UOP_CONST, .d = (uint16_t)(3 * 4 * f->n), .imm = 1};
  gs_uop prog[] = {op3(f, GS_UOP_CMP_FLT, 1, 1, 1, 2), op3(f, GS_UOP_CMP_FEQ, 1, 2, 1, 1), c, end_op()};
  prog[0].d = 1, prog[1].d = 2;
  assert_int_equal(run_in(f, prog, GS_FP_NEAREST, 0), 0);
  uint32_t all = f->n == 32 ? 0xffffffffu : 0xffffu;
  assert_int_equal(f->m.masks[1], all & ~2u); /* 1 < 2 except the NaN lane */
  assert_int_equal(f->m.masks[2], all & ~2u); /* NaN != NaN */
  assert_int_equal(reg(f, 3)[f->n - 1], (uint32_t)(3 * (f->n - 1)));
  free(k);
}
static void test_compares_consts(void **state) {
  (void)state;
  each_width(compares_consts);
}

/* Escapes: an ISA kind calls back with the micro-op; 0 goes on, a positive
 * value ends the run with it, a negative one is an error returned as is. */
typedef struct esc_log {
  int calls;
  uint32_t seen_imm[4];
} esc_log;
static int escape(void *ctx, gs_uop_machine *m, const gs_uop *u) {
  esc_log *l = ctx;
  (void)m;
  l->seen_imm[l->calls++ & 3] = u->imm;
  return u->op == 1 ? 42 : u->op == 2 ? -5 : 0;
}
static void escapes(fixture *f) {
  esc_log l = {0};
  f->m.escape = escape;
  f->m.ctx = &l;
  fill(f, 1, 5);
  gs_uop prog[] = {{.kind = GS_UOP_ISA, .imm = 11}, op3(f, GS_UOP_IADD, 1, 2, 1, 1),
                   {.kind = GS_UOP_ISA + 3, .op = 1, .imm = 12}, op3(f, GS_UOP_IADD, 1, 3, 1, 1), end_op()};
  assert_int_equal(run_in(f, prog, GS_FP_TOWARD_ZERO, 1), 42);
  assert_int_equal(l.calls, 2);
  assert_int_equal(l.seen_imm[0], 11);
  assert_int_equal(l.seen_imm[1], 12);
  assert_int_equal(reg(f, 2)[f->n - 1], 10);
  assert_int_equal(reg(f, 3)[0], 0); /* after the stop: not run */
  gs_uop p2[] = {{.kind = GS_UOP_ISA, .op = 2}, end_op()};
  assert_int_equal(run_in(f, p2, GS_FP_TOWARD_ZERO, 1), -5);
}
static void test_escapes(void **state) {
  (void)state;
  each_width(escapes);
}

/* ---- random programs: the loop against a plain lane-by-lane reference ---- */

/* The reference: each micro-op lane by lane through the lane functions of
 * uop.h (whose values test_qpu_alu checks by hand for the QPU's model),
 * written with no vectors, byte offsets or host fast paths. The loop must
 * agree bit for bit: its float fast paths (the host's operation with
 * denormals flushed, the model's loop for exponent 255), operand offsets,
 * masks and both lane widths. */
static uint32_t ref_lane(unsigned kind, uint32_t a, uint32_t b) {
  switch (kind) {
  case GS_UOP_FADD_NN: return gs_lane_fadd_nn(a, b);
  case GS_UOP_FSUB_NN: return gs_lane_fsub_nn(a, b);
  case GS_UOP_FMUL_NN: return gs_lane_fmul_nn(a, b);
  case GS_UOP_FMIN_NN: return gs_lane_fmin_nn(a, b);
  case GS_UOP_FMAX_NN: return gs_lane_fmax_nn(a, b);
  case GS_UOP_FMINABS_NN: return gs_lane_fminabs_nn(a, b);
  case GS_UOP_FMAXABS_NN: return gs_lane_fmaxabs_nn(a, b);
  case GS_UOP_FTOI_NN: return gs_lane_ftoi_nn(a);
  case GS_UOP_FADD: return gs_lane_fadd(a, b);
  case GS_UOP_FSUB: return gs_lane_fsub(a, b);
  case GS_UOP_FMUL: return gs_lane_fmul(a, b);
  case GS_UOP_FMIN: return gs_lane_fmin(a, b);
  case GS_UOP_FMAX: return gs_lane_fmax(a, b);
  case GS_UOP_FTOI_SAT: return gs_lane_ftoi_sat(a);
  case GS_UOP_ITOF: return gs_lane_itof(a);
  case GS_UOP_IADD: return a + b;
  case GS_UOP_ISUB: return a - b;
  case GS_UOP_SHR: return gs_lane_shr(a, b);
  case GS_UOP_ASR: return gs_lane_asr(a, b);
  case GS_UOP_ROR: return gs_lane_ror(a, b);
  case GS_UOP_SHL: return gs_lane_shl(a, b);
  case GS_UOP_SHR_SAT: return gs_lane_shr_sat(a, b);
  case GS_UOP_ASR_SAT: return gs_lane_asr_sat(a, b);
  case GS_UOP_SHL_SAT: return gs_lane_shl_sat(a, b);
  case GS_UOP_IMIN: return gs_lane_imin(a, b);
  case GS_UOP_IMAX: return gs_lane_imax(a, b);
  case GS_UOP_UMIN: return gs_lane_umin(a, b);
  case GS_UOP_UMAX: return gs_lane_umax(a, b);
  case GS_UOP_AND: return a & b;
  case GS_UOP_OR: return a | b;
  case GS_UOP_XOR: return a ^ b;
  case GS_UOP_NOT: return ~a;
  case GS_UOP_CLZ: return gs_lane_clz(a);
  case GS_UOP_MUL24: return gs_lane_mul24(a, b);
  case GS_UOP_MUL32: return a * b;
  case GS_UOP_CMP_IEQ: return gs_lane_ieq(a, b);
  case GS_UOP_CMP_INE: return gs_lane_ine(a, b);
  case GS_UOP_CMP_ILT: return gs_lane_ilt(a, b);
  case GS_UOP_CMP_ULT: return gs_lane_ult(a, b);
  case GS_UOP_CMP_FEQ: return gs_lane_feq(a, b);
  default: return gs_lane_flt(a, b);
  }
}

/* GS_UOP_PACK_UNORM8_NN's byte, plainly: the no-NaN model's input (zero
 * exponent 0, exponent 255 an infinity of its sign), clamped to [0, 1],
 * × 255 + 0.5 in double (exact for a binary32) and truncated. */
static uint32_t ref_unorm8(uint32_t a) {
  uint32_t e = (a >> 23) & 255;
  if (e == 0) return 0;
  if (e == 255) return (a >> 31) ? 0 : 255;
  double f = gs_lane_f(a);
  return f <= 0 ? 0 : f >= 1 ? 255 : (uint32_t)(f * 255.0 + 0.5);
}

/* Runs prog lane by lane over regs (NREGS × n words) and masks. */
static void ref_run(int n, uint32_t *regs, uint32_t *masks, const uint32_t *consts, const gs_uop *prog) {
  for (const gs_uop *u = prog; u->kind != GS_UOP_END; u++) {
    unsigned vec = 4u * (unsigned)n, d = u->d / vec, a = u->a / vec, b = u->b / vec;
    uint32_t r[32], m = 0;
    for (int i = 0; i < n; i++) {
      int in = (int)((masks[u->cond >> 1] >> i) & 1) ^ (u->cond & 1);
      uint32_t x = regs[a * n + i], y = regs[b * n + i];
      if (u->kind == GS_UOP_SELECT) r[i] = in ? x : y;
      else if (u->kind == GS_UOP_MOVE) r[i] = in ? x : regs[u->d / vec * n + i];
      else if (u->kind == GS_UOP_CONST) r[i] = consts[u->imm * n + i];
      else if (u->kind == GS_UOP_PACK_UNORM8_NN) r[i] = (y & ~u->imm) | ((ref_unorm8(x) * 0x01010101u) & u->imm);
      else if (gs_uop_writes_mask(u->kind)) {
        uint32_t old = masks[u->d] >> i & 1;
        m |= (uint32_t)(in ? ref_lane(u->kind, x, y) : old) << i;
      } else r[i] = ref_lane(u->kind, x, y);
    }
    if (gs_uop_writes_mask(u->kind)) masks[u->d] = m;
    else
      for (int i = 0; i < n; i++) regs[d * n + i] = r[i];
  }
}

#include "uop_random.h"

static void random_programs(fixture *f) {
  enum { LEN = 24, PROGS = 400 };
  rng r = {(uint64_t)f->n * 977u};
  uint32_t *ref = malloc((size_t)NREGS * f->n * 4), refm[GS_UOP_MASKS];
  uint32_t *k = aligned_alloc(64, (size_t)2 * f->n * 4);
  assert_non_null(ref);
  assert_non_null(k);
  uint32_t all = f->n == 32 ? 0xffffffffu : 0xffffu;
  f->m.consts = k;
  for (int mode = 0; mode < 2; mode++) {
    for (int p = 0; p < PROGS; p++) {
      gs_uop prog[LEN + 1];
      for (int i = 0; i < NREGS * f->n; i++) f->regs[i] = random_value(&r);
      for (int i = 0; i < 2 * f->n; i++) k[i] = random_value(&r);
      f->m.masks[0] = 0;
      for (int i = 1; i < GS_UOP_MASKS; i++) f->m.masks[i] = next(&r) & all;
      for (int i = 0; i < LEN; i++) {
        unsigned kind = next(&r) % GS_UOP_END;
        prog[i] = op3(f, kind, next(&r) % (2 * GS_UOP_MASKS), (int)(next(&r) % NREGS), (int)(next(&r) % NREGS),
                      (int)(next(&r) % NREGS));
        if (gs_uop_writes_mask(kind)) prog[i].d = (uint16_t)(1 + next(&r) % (GS_UOP_MASKS - 1));
        if (kind == GS_UOP_CONST) prog[i].imm = next(&r) % 2;
        if (kind == GS_UOP_PACK_UNORM8_NN) {
          static const uint32_t bytes[] = {0xff, 0xff00, 0xff0000, 0xff000000, 0xffffffffu};
          prog[i].imm = next(&r) % 6 ? bytes[next(&r) % 5] : next(&r);
        }
      }
      prog[LEN] = end_op();
      memcpy(ref, f->regs, (size_t)NREGS * f->n * 4);
      memcpy(refm, f->m.masks, sizeof refm);
      gs_fp_env saved = gs_fp_env_get();
      gs_fp_env_set(gs_fp_env_with(saved, mode ? GS_FP_NEAREST : GS_FP_TOWARD_ZERO, 1));
      ref_run(f->n, ref, refm, k, prog);
      gs_fp_env_set(saved);
      assert_int_equal(run_in(f, prog, mode ? GS_FP_NEAREST : GS_FP_TOWARD_ZERO, 1), 0);
      for (int i = 0; i < NREGS * f->n; i++) {
        if (f->regs[i] == ref[i]) continue;
        print_error("%d lanes, program %d (%s), register %d lane %d: 0x%08x, reference 0x%08x\n", f->n, p,
                    mode ? "nearest" : "toward zero", i / f->n, i % f->n, f->regs[i], ref[i]);
        fail();
      }
      for (int i = 0; i < GS_UOP_MASKS; i++) assert_int_equal(f->m.masks[i], refm[i]);
    }
  }
  free(ref);
  free(k);
}
/* Both copies of the loop: AVX2 (where the CPU has it) and the build's. */
static void test_random_programs(void **state) {
  (void)state;
  each_width(random_programs);
  gs_uop_portable(1);
  assert_int_equal(gs_uop_portable(-1), 0);
  each_width(random_programs);
  gs_uop_portable(0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fadd_rounding), cmocka_unit_test(test_float_nn),
      cmocka_unit_test(test_float_misc),    cmocka_unit_test(test_float_ieee),    cmocka_unit_test(test_integer),
      cmocka_unit_test(test_masks),         cmocka_unit_test(test_compares_consts),
      cmocka_unit_test(test_escapes),       cmocka_unit_test(test_random_programs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
