/* test_seed004.c — seed 004's coordinate-shader test, run as a user program.
 *
 * The seed (a bare-metal VideoCore IV write-up) lists the 64-bit words of a
 * program that reads a screen position from uniforms, converts it to clip
 * space (x·2/639 − 1, y·2/479 − 1), writes the seven PTB coordinate rows into
 * the VPM and stores them with a VDW DMA to the address in the last uniform.
 * On real hardware it printed 0xBF665C24, 0x3F5EDD42, 0x00000000,
 * 0x3F800000 and 0x1C000200 in all 16 lanes. We run the same words on both
 * interpreters; with other uniforms the expected values are worked out here
 * with exact double arithmetic truncated toward zero, independently of the
 * interpreter's host-rounding mechanism. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/qpu.h"

/* VPM_VCD_COORDINATE_SHADER_TEST_1 of seed 004 (hi << 32 | lo). */
static const uint64_t seed_program[] = {
    UINT64_C(0x100009e7009e7000), UINT64_C(0x1002002715827df7), UINT64_C(0x1002006715827df7),
    UINT64_C(0x100200a715827df7), UINT64_C(0xe0021c6717bc1ac2), UINT64_C(0xe0020c2700000000),
    UINT64_C(0xe0020c273f800000), UINT64_C(0x10020c2715027df7), UINT64_C(0x10020c2715067df7),
    UINT64_C(0x10020c27150a7df7), UINT64_C(0xd20208270e004dc0), UINT64_C(0xd40208670e004dc0),
    UINT64_C(0x10022827080001f7), UINT64_C(0x10022867080003f7), UINT64_C(0xe00208a73b4d1ed9),
    UINT64_C(0xe00208e73b88d181), UINT64_C(0x100079e020000dc2), UINT64_C(0x100079e120000dcb),
    UINT64_C(0xd0020827020201c0), UINT64_C(0xd0020867020203c0), UINT64_C(0xe0021c6717bc1ac0),
    UINT64_C(0x10020c27159e7000), UINT64_C(0x10020c27159e7249), UINT64_C(0xe0021c6783904000),
    UINT64_C(0xd0021ca715800df7), UINT64_C(0x500009e7009e7000), UINT64_C(0x300009e7009e7000),
    UINT64_C(0x100009e7009e7000), UINT64_C(0x100009e7009e7000),
};
#define NWORDS (sizeof seed_program / sizeof seed_program[0])

static float bits_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* The float nearest to d in the direction of zero (d is exact). */
static float toward_zero(double d) {
  float f = (float)d;
  if (fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);
  return f;
}

/* Clip coordinate the program computes from a 12.4 screen coordinate held in
 * a 16-bit half: sign-extend (unpack 16a/16b), logical shift right 4 (shr),
 * itof, multiply by the scale, subtract 1 — each rounding toward zero. */
static uint32_t expected_clip(uint16_t half, uint32_t scale_bits) {
  uint32_t shifted = (uint32_t)(int32_t)(int16_t)half >> 4;
  float as_float = toward_zero((double)(int32_t)shifted);
  float scaled = toward_zero((double)as_float * (double)bits_f(scale_bits));
  return f_bits(toward_zero((double)scaled - 1.0));
}

/* Runs the seed program with the given uniforms (the fourth, the store
 * address, is filled in) and returns the 7 × 16 stored words in out. */
static void run_seed(int interp, uint32_t xy, uint32_t zs, uint32_t inv_w, uint32_t out[7][16]) {
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  gs_addr code, unif, dest;
  assert_int_equal(gs_mem_alloc(m, sizeof seed_program, 8, &code, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(m, 16, 4, &unif, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(m, 7 * 64, 16, &dest, NULL), GS_OK);
  uint32_t u[4] = {xy, zs, inv_w, dest};
  gs_mem_write(m, code, seed_program, sizeof seed_program, NULL);
  gs_mem_write(m, unif, u, sizeof u, NULL);
  gs_gpu_config_of(g)->interpreter = interp;
  gs_qpu_program p = {code, unif};
  gs_qpu_status st;
  if (gs_qpu_run_user(g, &p, 1, &st) != GS_OK) fail_msg("run failed: %s", gs_gpu_error(g));
  assert_true(st.ended);
  assert_int_equal(st.instructions, NWORDS);
  assert_int_equal(gs_mem_read(m, dest, out, 7 * 64, NULL), GS_OK);
  gs_gpu_free(g);
}

static void check_rows(uint32_t out[7][16], const uint32_t want[7]) {
  for (int row = 0; row < 7; row++)
    for (int lane = 0; lane < 16; lane++)
      if (out[row][lane] != want[row])
        fail_msg("row %d lane %d: got 0x%08x, want 0x%08x", row, lane, out[row][lane], want[row]);
}

static void seed_values(int interp) {
  uint32_t out[7][16];
  run_seed(interp, 0x1C000200u, 0x00000000u, 0x3f800000u, out);
  const uint32_t want[7] = {0xBF665C24u, 0x3F5EDD42u, 0x00000000u, 0x3F800000u,
                            0x1C000200u, 0x00000000u, 0x3f800000u};
  check_rows(out, want);
}

static void test_seed_values_fast(void **s) { (void)s; seed_values(GS_INTERP_FAST); }
static void test_seed_values_reference(void **s) { (void)s; seed_values(GS_INTERP_REFERENCE); }

/* The hand computation reproduces the seed's hardware values, so it can be
 * trusted for other inputs. */
static void test_hand_computation_matches_hardware(void **s) {
  (void)s;
  assert_int_equal(expected_clip(0x0200, 0x3B4D1ED9u), 0xBF665C24u);
  assert_int_equal(expected_clip(0x1C00, 0x3B88D181u), 0x3F5EDD42u);
}

static void other_uniforms(int interp) {
  static const uint32_t positions[] = {0x0FA00640u, 0x00000000u, 0x12340010u, 0x7FF07FF0u, 0xFF00FFF0u};
  for (size_t k = 0; k < sizeof positions / sizeof positions[0]; k++) {
    uint32_t xy = positions[k], out[7][16];
    run_seed(interp, xy, 0x3f000000u, 0x40400000u, out);
    const uint32_t want[7] = {expected_clip((uint16_t)(xy & 0xffff), 0x3B4D1ED9u),
                              expected_clip((uint16_t)(xy >> 16), 0x3B88D181u),
                              0x00000000u, 0x3F800000u, xy, 0x3f000000u, 0x40400000u};
    check_rows(out, want);
  }
}

static void test_other_uniforms_fast(void **s) { (void)s; other_uniforms(GS_INTERP_FAST); }
static void test_other_uniforms_reference(void **s) { (void)s; other_uniforms(GS_INTERP_REFERENCE); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hand_computation_matches_hardware),
      cmocka_unit_test(test_seed_values_fast),
      cmocka_unit_test(test_seed_values_reference),
      cmocka_unit_test(test_other_uniforms_fast),
      cmocka_unit_test(test_other_uniforms_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
