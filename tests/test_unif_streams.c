/* test_unif_streams.c — the uniform streams a driver-built frame lists
 * (gs_drv_frame.unif_streams: each stream's address and length, sorted by
 * address), and the executor's checks of the option that takes them. What
 * a shader reading past its stream gets is tested from Lua
 * (tests/lua/draw_errors.lua), with the draw's line, shader and pc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/driver.h"
#include "gpusim/gpu.h"
#include "gpusim/v3d.h"

/* Two draws with streams of 4, 4, 1 and 0, 2, 3 uniforms (vertex,
 * coordinate, fragment): the frame lists six streams, sorted, each with
 * its length, and each holding the words the draw gave. */
static void test_frame_lists_streams(void **state) {
  (void)state;
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  gs_driver *drv = gs_driver_new(m);
  gs_drv_target t = {64, 64, GS_DRV_RGBA8888, false, 0, 0, 1};
  assert_int_equal(gs_drv_target_alloc(m, &t, NULL), GS_OK);
  gs_addr vb;
  assert_int_equal(gs_mem_alloc(m, 3 * 16, 16, &vb, NULL), GS_OK);
  gs_drv_attr attr = {vb, 16, 16};
  gs_drv_shader sh = {0x00800000u, 0x00800100u, 0x00800200u, 0, 0, false, 0, NULL};
  gs_drv_uniform u[4];
  for (uint32_t i = 0; i < 4; i++) u[i] = (gs_drv_uniform){GS_DRV_U_CONSTANT, 0x1000u + i};
  gs_drv_draw dr;
  memset(&dr, 0, sizeof dr);
  dr.mode = GS_DRV_TRIANGLES;
  dr.shader = &sh;
  dr.attrs = &attr;
  dr.nattrs = 1;
  dr.count = 3;
  gs_diag d;
  assert_int_equal(gs_driver_begin_frame(drv, &t, &d), GS_OK);
  const size_t n[2][3] = {{4, 4, 1}, {0, 2, 3}};
  for (int k = 0; k < 2; k++) {
    for (int s = 0; s < 3; s++) dr.uniforms[s] = (gs_drv_uniforms){u, n[k][s]};
    assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_OK);
  }
  /* a draw that fails adds no stream */
  dr.first = 1;
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_EFAULT);
  gs_drv_frame f;
  assert_int_equal(gs_driver_end_frame(drv, &f, &d), GS_OK);
  assert_int_equal(f.n_unif_streams, 6);
  unsigned count[5] = {0};
  for (unsigned i = 0; i < f.n_unif_streams; i++) {
    const gs_v3d_unif_stream *st = &f.unif_streams[i];
    if (i) assert_true(st->addr > f.unif_streams[i - 1].addr);
    assert_true(st->words <= 4);
    count[st->words]++;
    uint32_t w[4];
    if (st->words) assert_int_equal(gs_mem_read(m, st->addr, w, 4 * st->words, NULL), GS_OK);
    for (uint32_t k = 0; k < st->words; k++) assert_int_equal(w[k], 0x1000u + k);
  }
  assert_int_equal(count[0], 1);
  assert_int_equal(count[1], 1);
  assert_int_equal(count[2], 1);
  assert_int_equal(count[3], 1);
  assert_int_equal(count[4], 2);
  gs_driver_free(drv);
  gs_drv_target_release(m, &t);
  gs_gpu_free(g);
}

/* The option must be an array sorted by address. */
static void test_option_checked(void **state) {
  (void)state;
  gs_gpu *g = gs_gpu_new(NULL);
  gs_v3d_options o = {0};
  o.n_unif_streams = 1;
  assert_int_equal(gs_v3d_run(g, 0, 0, 0, 0, &o), GS_EARG);
  assert_non_null(strstr(gs_gpu_error(g), "unif_streams entries but no array"));
  const gs_v3d_unif_stream unsorted[3] = {{0x1000, 1}, {0x2000, 1}, {0x1800, 1}};
  o.unif_streams = unsorted;
  o.n_unif_streams = 3;
  assert_int_equal(gs_v3d_run(g, 0, 0, 0, 0, &o), GS_EARG);
  assert_non_null(strstr(gs_gpu_error(g), "not sorted by address (entry 2, 0x00001800)"));
  o.n_unif_streams = 2; /* the sorted prefix: nothing to run, no error */
  assert_int_equal(gs_v3d_run(g, 0, 0, 0, 0, &o), GS_OK);
  gs_gpu_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_frame_lists_streams),
      cmocka_unit_test(test_option_checked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
