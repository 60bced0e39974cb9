/* test_vcd.c — attribute fetch into the VPM: two interleaved arrays in the
 * layout of seed 004's example (stream size/stride/VPM offset), an index
 * list, partial words and faults; expected positions worked out by hand.
 * And the VCD DMA load's extended memory pitch (setup ID 9, MPITCHB): 14
 * bits, as programs that ran on hardware need (docs/v3d-units.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/gpu.h"
#include "isa/qpu/qpu.h"
#include "v3d/v3d.h"
#include "v3d/vcd.h"
#include "v3d/vpm.h"

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
  vcd_attr at[2] = {{a0, 12, 12, 0, 0}, {a1, 6, 8, 12, 1}};
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

/* Loads 16 rows of 16 words with the extended pitch `mpitchb` (the ID-9
 * word, then a basic setup with MPITCH = 0: 32-bit horizontal, 16 x 16 from
 * VPM row 0, VPITCH 1) from memory whose every word holds its own word
 * index, and checks that VPM row r word j came from byte r * pitch + 4j. */
static void check_pitch(uint32_t mpitchb, uint32_t pitch) {
  gs_gpu *g = gs_gpu_new(NULL);
  gs_qpu *q = qpu_cluster_of(g)->qpu[0];
  qpu_reset(q, 0, 0x1000, 0, 1000);
  uint32_t bytes = 16 * 16384; /* room for any 14-bit pitch */
  gs_addr a;
  assert_int_equal(gs_mem_alloc(g->mem, bytes, 4096, &a, NULL), GS_OK);
  uint32_t *m = gs_mem_ptr(g->mem, a, bytes);
  for (uint32_t i = 0; i < bytes / 4; i++) m[i] = i;
  memset(g->vpm.words, 0xee, sizeof g->vpm.words);
  assert_int_equal(qpu_vpm_read_setup(g, q, 0x90000000u | mpitchb), GS_OK);
  assert_int_equal(qpu_vpm_read_setup(g, q, 0x80001000u), GS_OK);
  assert_int_equal(qpu_vpm_dma_load(g, q, a), GS_OK);
  for (uint32_t r = 0; r < 16; r++)
    for (uint32_t j = 0; j < 16; j++)
      if (g->vpm.words[r * 16 + j] != (r * pitch + 4 * j) / 4)
        fail_msg("MPITCHB 0x%x: VPM row %u word %u = %u, want the word at byte %u (pitch %u)", mpitchb, r, j,
                 g->vpm.words[r * 16 + j], r * pitch + 4 * j, pitch);
  gs_gpu_free(g);
}

/* py-videocore's sgemm example (C is 96 x 3072 floats) loads C's rows with
 * MPITCHB = 3072 * 4 = 12288 = 0x3000, which needs bit 13: the rows land at
 * 12288-byte steps (a 13-bit field would give 0x1000 = 4096). */
static void test_dma_pitch_12288(void **s) {
  (void)s;
  check_pitch(12288, 12288);
  check_pitch(0x3fff & ~3u, 0x3ffc); /* the largest word-aligned pitch */
}

/* Pitches with bit 14 or above set, which failed on hardware (qmkl issue
 * #42), wrap to their low 14 bits: 18432 = 0x4800 -> 0x0800 = 2048, 61440 =
 * 0xf000 -> 0x3000 = 12288; bits 27:14 of the setup word are ignored. */
static void test_dma_pitch_wraps_at_14_bits(void **s) {
  (void)s;
  check_pitch(18432, 2048);
  check_pitch(61440, 12288);
  check_pitch(0x0fffc000u | 64, 64);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_fetch), cmocka_unit_test(test_dma_pitch_12288),
                                     cmocka_unit_test(test_dma_pitch_wraps_at_14_bits)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
