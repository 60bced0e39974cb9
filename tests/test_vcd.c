/* test_vcd.c — attribute fetch into the VPM: two interleaved arrays in the
 * layout of seed 004's example (stream size/stride/VPM offset), an index
 * list, partial words and faults; expected positions worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/gpu.h"
#include "v3d/v3d.h"
#include "v3d/vcd.h"

static void test_fetch(void **s) {
  (void)s;
  gs_gpu *g = gs_gpu_new(NULL);
  gs_addr a0, a1;
  /* stream 0: 12 bytes per vertex, stride 12; stream 1: 6 bytes of each 8 */
  assert_int_equal(gs_mem_alloc(g->mem, 12 * 20, 16, &a0, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(g->mem, 8 * 20, 16, &a1, NULL), GS_OK);
  uint8_t *p0 = gs_mem_ptr(g->mem, a0, 12 * 20), *p1 = gs_mem_ptr(g->mem, a1, 8 * 20);
  for (int i = 0; i < 12 * 20; i++) p0[i] = (uint8_t)i;
  for (int i = 0; i < 8 * 20; i++) p1[i] = (uint8_t)(0x80 + i);
  vcd_attr at[2] = {{a0, 12, 12, 0}, {a1, 6, 8, 12}};
  uint32_t idx[3] = {5, 0, 19};
  assert_int_equal(vcd_fetch(g, &g->vpm, 40, at, 2, idx, 3, NULL), GS_OK);
  /* vertex 0 (index 5): bytes 60..71 of stream 0 in rows 40..42, column 0 */
  assert_int_equal(g->vpm.words[40 * 16 + 0], 0x3f3e3d3cu);
  assert_int_equal(g->vpm.words[42 * 16 + 0], 0x47464544u);
  /* vertex 2 (index 19), stream 1: bytes 152..157 at rows 43..44, column 2;
   * holding (0x80 + 152..157) mod 256 = 0x18..0x1d; the last word holds 2
   * bytes and zeros */
  assert_int_equal(g->vpm.words[43 * 16 + 2], 0x1b1a1918u);
  assert_int_equal(g->vpm.words[44 * 16 + 2], 0x00001d1cu);
  /* vertex 1 (index 0), stream 1 row 0 */
  assert_int_equal(g->vpm.words[43 * 16 + 1], 0x83828180u);
  /* a vertex beyond the array: an error naming it, the VPM untouched */
  gs_diag d;
  uint32_t bad[2] = {1, 20};
  g->vpm.words[40 * 16 + 0] = 0;
  assert_int_equal(vcd_fetch(g, &g->vpm, 40, at, 2, bad, 2, &d), GS_EFAULT);
  assert_non_null(strstr(d.msg, "vertex 20"));
  assert_int_equal(g->vpm.words[40 * 16 + 0], 0);
  gs_gpu_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_fetch)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
