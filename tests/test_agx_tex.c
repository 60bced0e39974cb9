/* test_agx_tex.c — smpf through the AGX unit's sampler (src/isa/agx/tex.c,
 * docs/agx-unit.md "Textures") and the neutral TMU sampler: programs
 * assembled from Mesa-syntax text, run by both interpreters over a group
 * whose sampler is the unit's, with texture state tsN = the TMU config
 * words at words 2N, 2N + 1 of a uniform stream. Every texel value is
 * worked out by hand: a 4 x 4 RGBA8888 texture (one LT micro-tile, texel
 * (x, y) at byte 16y + 4x: test_tmu.c's test_neutral_sampler) with R =
 * 51x, G = 51y, B = 204, A = 255, so that each channel is k / 5 (51k / 255)
 * as a float; and its mip level 1, 2 x 2, stored below it with R = 255, G
 * = 51(x + 2y), B = 0, A = 102. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/gpu.h"
#include "isa/agx/table.h"
#include "isa/agx/unit_int.h"

/* k / 5 as binary32 (k = 0..5): 0, 0.2f, 0.4f, 0.6f, 0.8f, 1.0f */
static const uint32_t fifth[6] = {0x00000000u, 0x3e4ccccdu, 0x3ecccccdu, 0x3f19999au, 0x3f4ccccdu, 0x3f800000u};
/* the same rounded to binary16: 0.2 = 1.6 x 2^-3 -> mantissa 614.4 -> 0x3266;
 * 0.4 -> 0x3666; 0.6 = 1.2 x 2^-1 -> 204.8 -> 0x38cd; 0.8 -> 0x3a66; 1.0 */
static const uint16_t fifth16[6] = {0x0000, 0x3266, 0x3666, 0x38cd, 0x3a66, 0x3c00};

static uint32_t fb(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* VideoCore IV TMU config parameters 0 and 1 (RG Tables 15-16): type 0 =
 * RGBA8888; MAGFILT 1 nearest; MINFILT 2 = nearest texels from the
 * nearest mip level; wrap 0 repeat, 1 clamp. */
static uint32_t cfg0(gs_addr base, unsigned miplvls) { return base | miplvls; }
static uint32_t cfg1(unsigned w, unsigned h, unsigned minfilt, unsigned wrap) {
  return h << 20 | w << 8 | 1u << 7 | minfilt << 4 | wrap << 2 | wrap;
}

typedef struct fx {
  gs_gpu *g;
  gs_addr base, unif;
  agx_tex_ctx tc;
  agx_state s;
  agx_instr code[16];
  size_t n;
  gs_diag d;
} fx;
static fx F;

static int setup(void **state) {
  (void)state;
  memset(&F, 0, sizeof F);
  F.g = gs_gpu_new(NULL);
  assert_non_null(F.g);
  gs_mem *m = gs_gpu_mem(F.g);
  gs_addr a;
  assert_int_equal(gs_mem_alloc(m, 8192, 4096, &a, NULL), GS_OK);
  F.base = a + 4096; /* level 0 (64 bytes: one LT micro-tile); level 1 the 64 bytes below */
  uint8_t *l0 = gs_mem_ptr(m, F.base, 64), *l1 = gs_mem_ptr(m, F.base - 64, 64);
  for (unsigned y = 0; y < 4; y++)
    for (unsigned x = 0; x < 4; x++) {
      uint8_t *t = l0 + 16 * y + 4 * x;
      t[0] = (uint8_t)(51 * x), t[1] = (uint8_t)(51 * y), t[2] = 204, t[3] = 255;
    }
  for (unsigned y = 0; y < 2; y++)
    for (unsigned x = 0; x < 2; x++) {
      uint8_t *t = l1 + 16 * y + 4 * x;
      t[0] = 255, t[1] = (uint8_t)(51 * (x + 2 * y)), t[2] = 0, t[3] = 102;
    }
  /* ts0: the texture with its mip level, clamped; ts1: level 0 alone, repeating */
  uint32_t words[4] = {cfg0(F.base, 1), cfg1(4, 4, 2, 1), cfg0(F.base, 0), cfg1(4, 4, 2, 0)};
  assert_int_equal(gs_mem_alloc(m, 16, 4, &F.unif, NULL), GS_OK);
  assert_int_equal(gs_mem_write(m, F.unif, words, 16, NULL), GS_OK);
  return 0;
}
static int teardown(void **state) {
  (void)state;
  gs_gpu_free(F.g);
  return 0;
}

/* Assembles text into F.code and gives a fresh group of `lanes` the unit's
 * sampler over the stream (its end at `words` words; 0: none known). */
static void prepare(const char *text, unsigned lanes, uint32_t words) {
  gs_isa_binary b;
  memset(&b, 0, sizeof b);
  if (agx_asm(text, "t.s", &b, &F.d) < 0) fail_msg("%s", F.d.msg);
  F.n = 0;
  for (size_t off = 0; off < b.size; F.n++) {
    unsigned len = 0;
    char why[128];
    assert_true(F.n < 16);
    if (agx_decode(b.bytes + off, b.size - off, &F.code[F.n], &len, why, sizeof why) <= 0) fail_msg("%s", why);
    off += len;
  }
  gs_isa_binary_free(&b);
  agx_state_init(&F.s, lanes);
  gs_stage_program p = {0, F.unif, words ? F.unif + 4 * words : 0};
  agx_tex_attach(&F.s, &F.tc, F.g, &p);
}

/* Runs F.code with both interpreters; the reference's state stays in F.s.
 * Returns the result, which must be the same, with the same message. */
static int run_both(void) {
  static agx_state b;
  memcpy(&b, &F.s, sizeof b);
  agx_program p = {F.code, F.n};
  agx_fast *f = NULL;
  gs_diag d2;
  gs_diag_clear(&F.d), gs_diag_clear(&d2);
  int r1 = agx_run_ref(&F.s, &p, 0, 1000, &F.d);
  assert_int_equal(agx_fast_compile(&p, &f, &d2), 0);
  int r2 = agx_run_fast(&b, f, 0, 1000, &d2);
  agx_fast_free(f);
  assert_int_equal(r1, r2);
  assert_string_equal(F.d.msg, d2.msg);
  assert_memory_equal(&F.s, &b, sizeof b);
  return r1;
}

static void coords(unsigned lane, float s, float t) {
  agx_set_reg32(&F.s, lane, 0, fb(s)), agx_set_reg32(&F.s, lane, 1, fb(t));
}

/* Nearest, level 0 (auto_lod): lane 4y + x at the centre of texel (x, y)
 * gets (x/5, y/5, 0.8, 1); lane 16 at (0.3, 0.55) lies in texel (1, 2);
 * lane 17 at (1.3, -0.2) is clamped to texel (3, 0). 32-bit results. */
static void test_nearest(void **state) {
  (void)state;
  prepare("smpf r4_r5_r6_r7, ts0, ss0, r0, 0, 2d, xyzw, auto_lod, a\nwait a\nstop\n", 18, 4);
  for (unsigned l = 0; l < 16; l++) coords(l, ((float)(l % 4) + 0.5f) / 4, ((float)(l / 4) + 0.5f) / 4);
  coords(16, 0.3f, 0.55f), coords(17, 1.3f, -0.2f);
  assert_int_equal(run_both(), 0);
  for (unsigned l = 0; l < 18; l++) {
    unsigned x = l < 16 ? l % 4 : l == 16 ? 1 : 3, y = l < 16 ? l / 4 : l == 16 ? 2 : 0;
    assert_int_equal(agx_reg32(&F.s, l, 4), fifth[x]);
    assert_int_equal(agx_reg32(&F.s, l, 5), fifth[y]);
    assert_int_equal(agx_reg32(&F.s, l, 6), fifth[4]);
    assert_int_equal(agx_reg32(&F.s, l, 7), fifth[5]);
  }
}

/* A 16-bit destination, channels y and w only (packed into r8l, r8h), then
 * all four into r9l..r10h: binary16 of the same values. */
static void test_half_destination(void **state) {
  (void)state;
  prepare("smpf r8l_r8h, ts0, ss0, r0, 0, 2d, yw, auto_lod, b\n"
          "smpf r9l_r9h_r10l_r10h, ts0, ss0, r0, 0, 2d, xyzw, auto_lod, b\nwait b\nstop\n", 2, 4);
  coords(0, 0.625f, 0.875f); /* texel (2, 3) */
  coords(1, 0.125f, 0.375f); /* texel (0, 1) */
  assert_int_equal(run_both(), 0);
  static const unsigned tx[2] = {2, 0}, ty[2] = {3, 1};
  for (unsigned l = 0; l < 2; l++) {
    assert_int_equal(F.s.r[l][16], fifth16[ty[l]]), assert_int_equal(F.s.r[l][17], fifth16[5]);
    assert_int_equal(F.s.r[l][18], fifth16[tx[l]]), assert_int_equal(F.s.r[l][19], fifth16[ty[l]]);
    assert_int_equal(F.s.r[l][20], fifth16[4]), assert_int_equal(F.s.r[l][21], fifth16[5]);
  }
}

/* The lod reaches the sampler: lod_min 1.0 (u0l, f16 0x3c00) and
 * auto_lod_bias 1.0 (r2l) give mip level 1 (MINFILT 2: the nearest level),
 * whose texel (1, 1) at (0.75, 0.75) is (1.0, 0.6, 0, 0.4); auto_lod gives
 * level 0's texel (3, 3) = (0.6, 0.6, 0.8, 1). */
static void test_lod(void **state) {
  (void)state;
  prepare("smpf r4_r5_r6_r7, ts0, ss0, r0, u0l, 2d, xyzw, lod_min, a\n"
          "smpf r8_r9_r10_r11, ts0, ss0, r0, r2l, 2d, xyzw, auto_lod_bias, a\n"
          "smpf r12_r13_r14_r15, ts0, ss0, r0, 0, 2d, xyzw, auto_lod, b\nwait a\nwait b\nstop\n", 1, 4);
  F.s.u[0] = 0x3c00, F.s.r[0][4] = 0x3c00;
  coords(0, 0.75f, 0.75f);
  assert_int_equal(run_both(), 0);
  static const uint32_t lv1[4] = {0x3f800000u, 0x3f19999au, 0, 0x3ecccccdu};
  for (unsigned k = 0; k < 4; k++) {
    assert_int_equal(agx_reg32(&F.s, 0, 4 + k), lv1[k]);
    assert_int_equal(agx_reg32(&F.s, 0, 8 + k), lv1[k]);
  }
  assert_int_equal(agx_reg32(&F.s, 0, 12), fifth[3]), assert_int_equal(agx_reg32(&F.s, 0, 13), fifth[3]);
  assert_int_equal(agx_reg32(&F.s, 0, 14), fifth[4]), assert_int_equal(agx_reg32(&F.s, 0, 15), fifth[5]);
}

/* ts1 is the next two stream words: the same texels with wrap repeat, so
 * s = 1.3 reads texel x = 5 mod 4 = 1 where ts0 (clamp) reads x = 3. */
static void test_texture_state(void **state) {
  (void)state;
  prepare("smpf r4, ts1, ss0, r0, 0, 2d, x, auto_lod, a\nsmpf r5, ts0, ss0, r0, 0, 2d, x, auto_lod, a\n"
          "wait a\nstop\n", 1, 4);
  coords(0, 1.3f, 0.1f);
  assert_int_equal(run_both(), 0);
  assert_int_equal(agx_reg32(&F.s, 0, 4), fifth[1]);
  assert_int_equal(agx_reg32(&F.s, 0, 5), fifth[3]);
}

/* The results wait for their group; what is not modelled is refused by
 * name, each error naming the pc. */
static void test_errors(void **state) {
  (void)state;
  prepare("smpf r4_r5_r6_r7, ts0, ss0, r0, 0, 2d, xyzw, auto_lod, b\nwait a\nfadd r8, r5, r5\nstop\n", 1, 4);
  assert_int_equal(run_both(), GS_EINVAL);
  assert_non_null(strstr(F.d.msg, "pc 0x000a: r5l is read before the wait for its load (wait b)"));
  prepare("smpf r4, ts0, ss1, r0, 0, 2d, x, auto_lod, a\nstop\n", 1, 4);
  assert_int_equal(run_both(), GS_EINVAL);
  assert_non_null(strstr(F.d.msg, "pc 0x0000: smpf ts0, ss1: sampler state ss1 is not modelled"));
  prepare("smpf r4, ts2, ss0, r0, 0, 2d, x, auto_lod, a\nstop\n", 1, 4);
  assert_int_equal(run_both(), GS_EFAULT);
  assert_non_null(strstr(F.d.msg, "pc 0x0000: smpf ts2, ss0: texture state ts2: its config words, words 4 and 5 "
                                  "of the fragment uniform stream, are past the stream's end (4 words)"));
  /* a stream of 2 words has ts0 only */
  prepare("smpf r4, ts1, ss0, r0, 0, 2d, x, auto_lod, a\nstop\n", 1, 2);
  assert_int_equal(run_both(), GS_EFAULT);
  assert_non_null(strstr(F.d.msg, "past the stream's end (2 words)"));
  /* no end known: the words must be in memory */
  prepare("smpf r4, ts200, ss0, r0, 0, 2d, x, auto_lod, a\nstop\n", 1, 0);
  F.tc.prog.uniforms = 0x7f000000u;
  assert_int_equal(run_both(), GS_EFAULT);
  assert_non_null(strstr(F.d.msg, "texture state ts200: its config words at 0x7f000640 are outside allocated GPU memory"));
  /* an unmodelled texture type from the words: the sampler's message */
  uint32_t etc1 = cfg0(F.base, 0) | 8u << 4;
  gs_mem_write(gs_gpu_mem(F.g), F.unif, &etc1, 4, NULL);
  prepare("smpf r4, ts0, ss0, r0, 0, 2d, x, auto_lod, a\nstop\n", 1, 4);
  assert_int_equal(run_both(), GS_EINVAL);
  assert_non_null(strstr(F.d.msg, "pc 0x0000: smpf ts0, ss0: TMU0: texture type 8 (ETC1) is not modelled"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_nearest, setup, teardown),
      cmocka_unit_test_setup_teardown(test_half_destination, setup, teardown),
      cmocka_unit_test_setup_teardown(test_lod, setup, teardown),
      cmocka_unit_test_setup_teardown(test_texture_state, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
