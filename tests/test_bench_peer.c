/* test_bench_peer.c — what `gpusim bench --peer` (src/bench/bench_peer.c)
 * builds on: the bench frames' images (gs_v3d_bench_fill_image,
 * gs_v3d_bench_triangles_image) against the test's own model of the frames,
 * and the runner's median and image comparison against figures worked out
 * by hand.
 *
 * The fill frame: every layer writes the colour 0xff336699, bytes 0x99 0x66
 * 0x33 0xff (R, G, B, A), on every pixel. The triangle frame: right
 * triangles with 6-pixel legs at the positions of the bench's LCG (seed
 * 12345, x 1664525 + 1013904223; corner at ((s >> 8) % ((W - 8) * 16),
 * (s >> 3) % ((H - 8) * 16)) sixteenths of a pixel), every covered pixel
 * that colour, every other one the clear colour 0: coverage from the fill
 * rule of docs/rasterization.md (tests/fill_rule.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "bench/bench_peer.h"
#include "gpusim/v3d.h"
#include "fill_rule.h"

static const uint8_t colour[4] = {0x99, 0x66, 0x33, 0xff};

static void test_fill_image(void **s) {
  (void)s;
  enum { W = 130, H = 70 };
  uint8_t *img = malloc(W * H * 4), *img2 = malloc(W * H * 4);
  assert_non_null(img), assert_non_null(img2);
  static const char *const isas[] = {"qpu", "sass", "agx", "pica"};
  for (int k = 0; k < 4; k++) {
    gs_v3d_bench_result r;
    gs_diag d;
    memset(img, 0, W * H * 4);
    if (gs_v3d_bench_fill_image(W, H, 3, 1, isas[k], &r, img, &d) < 0) fail_msg("%s: %s", isas[k], d.msg);
    assert_int_equal(r.fragments, W * H * 3);
    for (int i = 0; i < W * H; i++)
      if (memcmp(img + 4 * i, colour, 4)) fail_msg("%s: pixel (%d, %d) is not 99 66 33 ff", isas[k], i % W, i / W);
    memset(img2, 0, W * H * 4);
    if (gs_v3d_bench_fill_image(W, H, 3, 2, isas[k], &r, img2, &d) < 0) fail_msg("%s: %s", isas[k], d.msg);
    assert_memory_equal(img, img2, W * H * 4);
  }
  free(img);
  free(img2);
}

static void test_triangles_image(void **s) {
  (void)s;
  enum { W = 200, H = 100, N = 300 };
  uint8_t *img = malloc(W * H * 4), *img2 = malloc(W * H * 4), *want = calloc(W * H, 1);
  assert_non_null(img), assert_non_null(img2), assert_non_null(want);
  uint32_t seed = 12345;
  for (int i = 0; i < N; i++) {
    seed = seed * 1664525u + 1013904223u;
    int32_t x0 = (int32_t)((seed >> 8) % ((W - 8) * 16)), y0 = (int32_t)((seed >> 3) % ((H - 8) * 16));
    int32_t x[3] = {x0, x0 + 96, x0}, y[3] = {y0, y0, y0 + 96};
    for (int py = y0 / 16; py <= (y0 + 96) / 16 && py < H; py++)
      for (int px = x0 / 16; px <= (x0 + 96) / 16 && px < W; px++)
        if (fill_rule_covers(x, y, px, py)) want[py * W + px] = 1;
  }
  gs_v3d_bench_result r;
  gs_diag d;
  memset(img, 0x55, W * H * 4);
  if (gs_v3d_bench_triangles_image(W, H, N, 1, "qpu", &r, img, &d) < 0) fail_msg("%s", d.msg);
  static const uint8_t clear[4] = {0, 0, 0, 0};
  int covered = 0;
  for (int i = 0; i < W * H; i++) {
    if (memcmp(img + 4 * i, want[i] ? colour : clear, 4))
      fail_msg("pixel (%d, %d) is %02x %02x %02x %02x, not %s", i % W, i / W, img[4 * i], img[4 * i + 1],
               img[4 * i + 2], img[4 * i + 3], want[i] ? "the colour" : "cleared");
    covered += want[i];
  }
  assert_true(covered > N * 10); /* overlaps aside, 15 to 21 pixels each */
  if (gs_v3d_bench_triangles_image(W, H, N, 2, "qpu", &r, img2, &d) < 0) fail_msg("%s", d.msg);
  assert_memory_equal(img, img2, W * H * 4);
  /* NULL: no image, as gs_v3d_bench_triangles */
  assert_int_equal(gs_v3d_bench_triangles_image(W, H, N, 1, "qpu", &r, NULL, &d), 0);
  assert_int_equal(gs_v3d_bench_triangles_image(W, H, 0, 1, "qpu", &r, img, &d), GS_EARG);
  free(img);
  free(img2);
  free(want);
}

/* Frames of different kinds in turns, as `gpusim bench --peer` takes them:
 * each kind's context is kept for its next frame (cle_bench.c keeps the
 * last 8 kinds), and a kept context's frame is the same as a fresh one's.
 * Twelve kinds (four ISAs' fill frames at three widths) in two rounds also
 * replace kept contexts; the triangle frame between them must come out as
 * it did the first time. */
static void test_frames_in_turns(void **s) {
  (void)s;
  enum { W = 70, H = 40, N = 50 };
  static const char *const isas[] = {"qpu", "sass", "agx", "pica"};
  uint8_t *img = malloc((W + 2) * H * 4), *tri0 = malloc(W * H * 4), *tri = malloc(W * H * 4);
  assert_non_null(img), assert_non_null(tri0), assert_non_null(tri);
  for (int round = 0; round < 2; round++) {
    for (int k = 0; k < 12; k++) {
      gs_v3d_bench_result r;
      gs_diag d;
      uint32_t w = W + (uint32_t)(k / 4);
      memset(img, 0, w * H * 4);
      if (gs_v3d_bench_fill_image(w, H, 2, 1 + (unsigned)(k & 1), isas[k % 4], &r, img, &d) < 0)
        fail_msg("%s: %s", isas[k % 4], d.msg);
      assert_int_equal(r.fragments, w * H * 2);
      for (uint32_t i = 0; i < w * H; i++)
        if (memcmp(img + 4 * i, colour, 4))
          fail_msg("round %d, %s, width %u: pixel (%u, %u) is not 99 66 33 ff", round, isas[k % 4], w, i % w, i / w);
      if (k % 5 == 0) {
        memset(tri, 0x55, W * H * 4);
        if (gs_v3d_bench_triangles_image(W, H, N, 1, "qpu", &r, tri, &d) < 0) fail_msg("%s", d.msg);
        if (round == 0 && k == 0) memcpy(tri0, tri, W * H * 4);
        else assert_memory_equal(tri0, tri, W * H * 4);
      }
    }
  }
  free(img);
  free(tri0);
  free(tri);
}

static void test_spread(void **s) {
  (void)s;
  double odd[] = {5, 1, 4, 2, 3}, even[] = {10, 40, 20, 30}, one[] = {7};
  gs_bench_spread a = gs_bench_spread_of(odd, 5), b = gs_bench_spread_of(even, 4), c = gs_bench_spread_of(one, 1);
  assert_true(a.median == 3 && a.min == 1 && a.max == 5);
  assert_true(b.median == 25 && b.min == 10 && b.max == 40);
  assert_true(c.median == 7 && c.min == 7 && c.max == 7);
}

static void test_image_compare(void **s) {
  (void)s;
  uint8_t a[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, b[16];
  memcpy(b, a, 16);
  gs_bench_image_diff d = gs_bench_image_compare(a, b, 4);
  assert_true(d.differing == 0 && d.first == 4 && d.max_error == 0);
  b[6] = 17, b[12] = 0;   /* pixel 1: channel 2 off by 10; pixel 3: channel 0 off by 13 */
  d = gs_bench_image_compare(a, b, 4);
  assert_true(d.differing == 2 && d.first == 1 && d.max_error == 13);
  d = gs_bench_image_compare(b, a, 4); /* the same either way round */
  assert_true(d.differing == 2 && d.first == 1 && d.max_error == 13);
  b[15] = 255; /* pixel 3 again: alpha off by 239 */
  d = gs_bench_image_compare(a, b, 4);
  assert_true(d.differing == 2 && d.first == 1 && d.max_error == 239);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fill_image),
      cmocka_unit_test(test_triangles_image),
      cmocka_unit_test(test_frames_in_turns),
      cmocka_unit_test(test_spread),
      cmocka_unit_test(test_image_compare),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
