/* test_jit.c — native code from the lane micro-op layer (src/isa/uop/jit.h)
 * against the interpreter (gs_uop_run16/32, which test_uop checks against a
 * lane-by-lane reference): random streams of every neutral kind and an
 * escape, over 16 and 32 lanes, compiled once and run in both rounding
 * modes with denormals flushed and kept, registers and masks compared bit
 * for bit; and hand-worked values that only a dynamic rounding mode gives
 * (LLVM folding or rounding to nearest would give the other). Skipped
 * when the build has no native code (GS_JIT=OFF). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <cmocka.h>
#include "core/fpmode.h"
#include "isa/uop/jit.h"

#define NREGS 8
#define ONE 0x3f800000u
#define THREEQ_ULP 0x33c00000u /* 1.5 × 2^-24: 1 + it is nearer 1 + 2^-23 than 1 */

#include "uop_random.h"

/* The escape of both runs: kind GS_UOP_ISA adds imm to every lane of d and
 * goes on; GS_UOP_ISA + 1 stops the run with value imm. */
static int lanes_of_escape;
static int escape(void *ctx, gs_uop_machine *m, const gs_uop *u) {
  (void)ctx;
  if (u->kind == GS_UOP_ISA + 1) return (int)u->imm;
  uint32_t *d = (uint32_t *)((char *)m->regs + u->d);
  for (int i = 0; i < lanes_of_escape; i++) d[i] += u->imm;
  return 0;
}
static int jit_escape(void *env, char *R, const gs_uop *u, uint32_t *to) {
  (void)R, (void)to;
  int rc = escape(NULL, env, u);
  return rc ? rc : GS_JIT_NEXT;
}

static gs_jit_desc desc(int n) {
  gs_jit_desc d = {.lanes = n, .mask_bits = 32, .regs_off = -1, .escape = jit_escape, .step_kind = -1};
  d.mask_off[0] = -1;
  for (int k = 1; k < GS_UOP_MASKS; k++) d.mask_off[k] = (int32_t)(offsetof(gs_uop_machine, masks) + 4u * (unsigned)k);
  return d;
}

static int run_native(gs_jit_code *c, gs_uop_machine *m, gs_fp_env env) {
  gs_fp_env saved = gs_fp_env_get();
  gs_fp_env_set(env);
  int rc = gs_jit_entry(c)(m, m->regs, m->consts, m, 0);
  gs_fp_env_set(saved);
  return rc;
}

/* 1 + 0.75 ulp, the int 2^24 + 3 and 3 × (1/3) in both modes: each mode's
 * value worked out by hand from binary32. */
static void rounding(int n) {
  uint32_t *regs = aligned_alloc(64, (size_t)NREGS * n * 4), *k = aligned_alloc(64, (size_t)2 * n * 4);
  assert_non_null(regs);
  assert_non_null(k);
  for (int i = 0; i < n; i++) k[i] = ONE, k[n + i] = THREEQ_ULP;
  unsigned v = 4u * (unsigned)n;
  gs_uop prog[] = {
      {.kind = GS_UOP_CONST, .d = 0, .imm = 0},
      {.kind = GS_UOP_CONST, .d = (uint16_t)v, .imm = 1},
      {.kind = GS_UOP_FADD, .d = (uint16_t)(2 * v), .a = 0, .b = (uint16_t)v},      /* 1 + 0.75 ulp */
      {.kind = GS_UOP_ITOF, .d = (uint16_t)(4 * v), .a = (uint16_t)(3 * v)},         /* (float)(2^24 + 3) */
      {.kind = GS_UOP_FMUL, .d = (uint16_t)(6 * v), .a = (uint16_t)(5 * v), .b = (uint16_t)(5 * v)}, /* (1 + 2^-23)^2 */
      {.kind = GS_UOP_END},
  };
  gs_jit_desc d = desc(n);
  gs_jit_code *c = gs_jit_compile(&d, prog, 6, (const uint32_t[]){0}, 1);
  assert_non_null(c);
  gs_uop_machine m = {.regs = regs, .consts = k};
  for (int mode = 0; mode < 2; mode++) {
    for (int i = 0; i < n; i++) regs[3 * n + i] = 16777219u, regs[5 * n + i] = 0x3f800001u;
    assert_int_equal(run_native(c, &m, gs_fp_env_with(gs_fp_env_get(), mode ? GS_FP_TOWARD_ZERO : GS_FP_NEAREST, 1)), 0);
    for (int i = 0; i < n; i++) {
      /* 1 + 1.5 × 2^-24: nearest 1 + 2^-23, toward zero 1 */
      assert_int_equal(regs[2 * n + i], mode ? 0x3f800000u : 0x3f800001u);
      /* 16777219 lies between 16777218 and 16777220: nearest is the even
       * mantissa, 16777220 (0x4b800002); toward zero 16777218 */
      assert_int_equal(regs[4 * n + i], mode ? 0x4b800001u : 0x4b800002u);
      /* 1 + 2^-22 + 2^-46: nearest 1 + 2^-22 (0x3f800002), toward zero the same */
      assert_int_equal(regs[6 * n + i], 0x3f800002u);
    }
  }
  gs_jit_release(c);
  free(regs);
  free(k);
}
static void test_rounding_is_dynamic(void **state) {
  (void)state;
  if (!gs_jit_available()) skip();
  rounding(16);
  rounding(32);
}

static void random_streams(int n, unsigned nprogs) {
  enum { LEN = 28 };
  rng r = {(uint64_t)n * 7919u + 5};
  size_t bytes = (size_t)NREGS * n * 4;
  uint32_t *ra = aligned_alloc(64, bytes), *rb = aligned_alloc(64, bytes), *init = malloc(bytes);
  uint32_t *k = aligned_alloc(64, (size_t)2 * n * 4);
  assert_non_null(ra);
  assert_non_null(rb);
  assert_non_null(init);
  assert_non_null(k);
  uint32_t all = n == 32 ? 0xffffffffu : 0xffffu, masks[GS_UOP_MASKS];
  gs_jit_desc d = desc(n);
  lanes_of_escape = n;
  for (unsigned p = 0; p < nprogs; p++) {
    gs_uop prog[LEN + 1];
    for (int i = 0; i < LEN; i++) {
      unsigned kind = next(&r) % (GS_UOP_END + 2);
      if (kind >= GS_UOP_END) kind = GS_UOP_ISA; /* the escape that goes on */
      prog[i] = (gs_uop){.kind = (uint8_t)kind, .cond = (uint8_t)(next(&r) % (2 * GS_UOP_MASKS)),
                         .d = (uint16_t)(next(&r) % NREGS * 4 * n), .a = (uint16_t)(next(&r) % NREGS * 4 * n),
                         .b = (uint16_t)(next(&r) % NREGS * 4 * n), .imm = next(&r)};
      if (gs_uop_writes_mask(kind)) prog[i].d = (uint16_t)(1 + next(&r) % (GS_UOP_MASKS - 1));
      if (kind == GS_UOP_CONST) prog[i].imm = next(&r) % 2;
    }
    /* one program in four stops early through the escape */
    prog[LEN] = (gs_uop){.kind = GS_UOP_END};
    if (p % 4 == 3) prog[LEN - 1 - next(&r) % 8] = (gs_uop){.kind = GS_UOP_ISA + 1, .imm = 7};
    gs_jit_code *c = gs_jit_compile(&d, prog, LEN + 1, (const uint32_t[]){0}, 1);
    assert_non_null(c);
    for (int i = 0; i < NREGS * n; i++) init[i] = random_value(&r);
    for (int i = 0; i < 2 * n; i++) k[i] = random_value(&r);
    masks[0] = 0;
    for (int i = 1; i < GS_UOP_MASKS; i++) masks[i] = next(&r) & all;
    for (int env = 0; env < 4; env++) {
      gs_fp_env e = gs_fp_env_with(gs_fp_env_get(), env & 1 ? GS_FP_TOWARD_ZERO : GS_FP_NEAREST, env < 2);
      gs_uop_machine ma = {.regs = ra, .consts = k, .escape = escape}, mb = {.regs = rb, .consts = k};
      memcpy(ra, init, bytes);
      memcpy(rb, init, bytes);
      memcpy(ma.masks, masks, sizeof masks);
      memcpy(mb.masks, masks, sizeof masks);
      gs_fp_env saved = gs_fp_env_get();
      gs_fp_env_set(e);
      int want = n == 16 ? gs_uop_run16(&ma, prog) : gs_uop_run32(&ma, prog);
      gs_fp_env_set(saved);
      int got = run_native(c, &mb, e);
      if (got != want) fail_msg("%d lanes, program %u, environment %d: native returned %d, interpreter %d", n, p, env, got, want);
      for (int i = 0; i < NREGS * n; i++)
        if (ra[i] != rb[i])
          fail_msg("%d lanes, program %u, environment %d (%s, denormals %s), register %d lane %d: native 0x%08x, "
                   "interpreter 0x%08x",
                   n, p, env, env & 1 ? "toward zero" : "nearest", env < 2 ? "flushed" : "kept", i / n, i % n, rb[i],
                   ra[i]);
      for (int i = 1; i < GS_UOP_MASKS; i++)
        if (ma.masks[i] != mb.masks[i])
          fail_msg("%d lanes, program %u, environment %d: mask %d native 0x%08x, interpreter 0x%08x", n, p, env, i,
                   mb.masks[i], ma.masks[i]);
    }
    gs_jit_release(c);
  }
  free(ra);
  free(rb);
  free(init);
  free(k);
}
static void test_random_streams(void **state) {
  (void)state;
  if (!gs_jit_available()) skip();
  random_streams(16, 40);
  random_streams(32, 40);
}

/* An entry that is not one of the stream's gives GS_JIT_EXIT, running off
 * the end too, and the background compile ends in the same code. */
static void test_entries_and_background(void **state) {
  (void)state;
  if (!gs_jit_available()) skip();
  uint32_t *regs = aligned_alloc(64, (size_t)NREGS * 64);
  assert_non_null(regs);
  memset(regs, 0, (size_t)NREGS * 64);
  gs_uop prog[] = {{.kind = GS_UOP_ISA, .d = 0, .imm = 5}, {.kind = GS_UOP_ISA, .d = 64, .imm = 9}};
  gs_jit_desc d = desc(16);
  lanes_of_escape = 16;
  gs_jit_code *c = gs_jit_submit(&d, prog, 2, (const uint32_t[]){0, 1}, 2);
  assert_non_null(c);
  while (!gs_jit_entry(c)) thrd_yield();
  gs_uop_machine m = {.regs = regs};
  gs_jit_fn f = gs_jit_entry(c);
  assert_int_equal(f(&m, m.regs, NULL, &m, 1), GS_JIT_EXIT); /* micro-op 1, then the end */
  assert_int_equal(regs[0], 0);
  assert_int_equal(regs[16], 9);
  assert_int_equal(f(&m, m.regs, NULL, &m, 0), GS_JIT_EXIT);
  assert_int_equal(regs[0], 5);
  assert_int_equal(regs[16], 18);
  assert_int_equal(f(&m, m.regs, NULL, &m, 2), GS_JIT_EXIT); /* not an entry */
  assert_int_equal(regs[0], 5);
  gs_jit_release(c);
  free(regs);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rounding_is_dynamic),
      cmocka_unit_test(test_random_streams),
      cmocka_unit_test(test_entries_and_background),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
