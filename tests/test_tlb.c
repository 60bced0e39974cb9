/* test_tlb.c — the tile buffer: depth and stencil tests, colour writes and
 * loads with coverage, multisample resolve, and stores/loads to frame
 * buffers in raster and T-format, RGBA8888 and BGR565; expected values
 * worked out by hand from reference/vc4.md §3.6–3.8 and §5.5. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/gpu.h"
#include "v3d/tlb.h"

static gs_tlb tlb; /* large: keep it off the stack */

/* 16 fragments in a row starting at pixel (x, y). */
static void row(uint32_t x, uint32_t y, uint32_t *xs, uint32_t *ys) {
  for (int i = 0; i < 16; i++) {
    xs[i] = x + (uint32_t)i;
    ys[i] = y;
  }
}

static void test_depth(void **s) {
  (void)s;
  uint32_t x[16], y[16], z[16], rev[16] = {0}, cov[16];
  tlb_init(&tlb, 0);
  tlb_set_clear(&tlb, 0, 0x800000, 0);
  tlb_clear(&tlb, 1, 1);
  tlb_begin_tile(&tlb, 0, 0);
  tlb_set_depth(&tlb, TLB_LESS, 1);
  row(0, 5, x, y);
  for (int i = 0; i < 16; i++) {
    z[i] = i < 8 ? 0x400000u : 0x900000u; /* first half nearer than the clear depth */
    cov[i] = 1;
  }
  tlb_z_write(&tlb, x, y, z, rev, cov, 0x7fff); /* lane 15 not active */
  for (int i = 0; i < 16; i++) {
    assert_int_equal(cov[i], i < 8 || i == 15 ? 1 : 0);
    uint32_t want = i < 8 ? 0x400000u : 0x800000u;
    assert_int_equal(tlb.zs[5 * 64 + i] >> 8, want);
  }
  /* Z writes disabled: the test still culls, the buffer keeps its values */
  tlb_set_depth(&tlb, TLB_GREATER, 0);
  for (int i = 0; i < 16; i++) cov[i] = 1;
  tlb_z_write(&tlb, x, y, z, rev, cov, 0xffff);
  for (int i = 0; i < 16; i++) {
    assert_int_equal(cov[i], i < 8 ? 0 : 1);
    assert_int_equal(tlb.zs[5 * 64 + i] >> 8, i < 8 ? 0x400000u : 0x800000u);
  }
}

static void test_stencil(void **s) {
  (void)s;
  uint32_t x[16], y[16], z[16], rev[16], cov[16];
  tlb_init(&tlb, 0);
  tlb_set_clear(&tlb, 0, 0x100, 3);
  tlb_clear(&tlb, 1, 1);
  tlb_begin_tile(&tlb, 1, 1); /* pixels 64..127 */
  tlb_set_depth(&tlb, TLB_ALWAYS, 0);
  row(64, 64, x, y);
  for (int i = 0; i < 16; i++) z[i] = 0, rev[i] = (uint32_t)i & 1, cov[i] = 1;
  tlb_begin_batch(&tlb);
  /* front: always pass, z-pass REPLACE with ref 9, write mask code 3 (0xff):
   * WSEL 1 (31:30), mask code 3 (29:28), zfail KEEP (27:25), zpass REPLACE
   * (24:22), fail KEEP (21:19), func ALWAYS (18:16), ref 9, value mask 0xff */
  uint32_t front = 1u << 30 | 3u << 28 | 1u << 25 | 2u << 22 | 1u << 19 | 7u << 16 | 9u << 8 | 0xffu;
  /* back: func EQUAL ref 4 (fails against 3), fail op INCR_SAT, write mask 0x01 */
  uint32_t back = 2u << 30 | 0u << 28 | 1u << 25 | 1u << 22 | 3u << 19 | 2u << 16 | 4u << 8 | 0xffu;
  tlb_stencil_setup(&tlb, front);
  tlb_stencil_setup(&tlb, back);
  tlb_z_write(&tlb, x, y, z, rev, cov, 0xffff);
  for (int i = 0; i < 16; i++) {
    uint32_t st = tlb.zs[0 * 64 + i] & 0xff;
    if (i & 1) { /* back: fails, 3 + 1 = 4 but only bit 0 writable: (3 & ~1) | (4 & 1) = 2 */
      assert_int_equal(cov[i], 0);
      assert_int_equal(st, 2);
    } else {
      assert_int_equal(cov[i], 1);
      assert_int_equal(st, 9);
    }
    assert_int_equal(tlb.zs[i] >> 8, 0x100); /* Z writes off */
  }
  /* a new batch starts with stencil disabled: everything passes, nothing changes */
  tlb_begin_batch(&tlb);
  for (int i = 0; i < 16; i++) cov[i] = 1;
  tlb_z_write(&tlb, x, y, z, rev, cov, 0xffff);
  for (int i = 0; i < 16; i++) assert_int_equal(cov[i], 1);
  assert_int_equal(tlb.zs[1] & 0xff, 2);
}

static void test_colour_and_multisample(void **s) {
  (void)s;
  uint32_t x[16], y[16], c[16], cov[16], out[16];
  tlb_init(&tlb, 1); /* 32x32 pixels, 4 samples */
  assert_int_equal(tlb.size, 32);
  tlb_set_clear(&tlb, 0x11223344u, 0, 0);
  tlb_clear(&tlb, 1, 1);
  tlb_begin_tile(&tlb, 0, 0);
  row(3, 2, x, y);
  for (int i = 0; i < 16; i++) c[i] = 0xff000000u | (uint32_t)i, cov[i] = (uint32_t)i & 0xf;
  tlb_colour_write(&tlb, x, y, c, cov, 0xffff, -1);
  for (int i = 0; i < 16; i++)
    for (int smp = 0; smp < 4; smp++) {
      uint32_t want = (cov[i] >> smp & 1) ? c[i] : 0x11223344u;
      assert_int_equal(tlb.colour[((2 * 32) + 3 + i) * 4 + smp], want);
    }
  tlb_colour_load(&tlb, x, y, out, 0xffff, 2);
  for (int i = 0; i < 16; i++) assert_int_equal(out[i], (i & 4) ? c[i] : 0x11223344u);
  /* decimate ×4: per-byte average of 0x..00000a x2 and 0x11223344 x2 for lane 10 (samples 1, 3) */
  gs_gpu *g = gs_gpu_new(NULL);
  gs_addr fb;
  assert_int_equal(gs_mem_alloc(gs_gpu_mem(g), 32 * 32 * 4, 64, &fb, NULL), GS_OK);
  tlb_frame f = {fb, 32, 32, TLB_RGBA8888, TILING_RASTER, TLB_DECIMATE4};
  assert_int_equal(tlb_store_colour(&tlb, gs_gpu_mem(g), &f, NULL), GS_OK);
  uint32_t px;
  gs_mem_read(gs_gpu_mem(g), fb + (2 * 32 + 13) * 4, &px, 4, NULL);
  /* bytes: (0x0a+0x0a+0x44+0x44+2)/4 = 0x27, (0+0+0x33+0x33+2)/4 = 0x1a,
   * (0x22*2+2)/4 = 0x11, (0xff*2+0x11*2+2)/4 = 0x88 */
  assert_int_equal(px, 0x88111a27u);
  gs_gpu_free(g);
}

static void test_store_and_load(void **s) {
  (void)s;
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  gs_addr fb, fb565, fbt;
  assert_int_equal(gs_mem_alloc(m, 100 * 70 * 4, 64, &fb, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(m, 100 * 70 * 2, 64, &fb565, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(m, 64 * 64 * 4, 4096, &fbt, NULL), GS_OK);
  tlb_init(&tlb, 0);
  tlb_begin_tile(&tlb, 1, 1); /* pixels x 64..127, y 64..127: only 36 x 6 are inside 100x70 */
  for (uint32_t yy = 0; yy < 64; yy++)
    for (uint32_t xx = 0; xx < 64; xx++) tlb.colour[yy * 64 + xx] = (yy << 8 | xx) | 0xff000000u;
  tlb_frame f = {fb, 100, 70, TLB_RGBA8888, TILING_RASTER, TLB_SAMPLE0};
  assert_int_equal(tlb_store_colour(&tlb, m, &f, NULL), GS_OK);
  uint32_t px;
  gs_mem_read(m, fb + (69 * 100 + 99) * 4, &px, 4, NULL); /* tile-local (35, 5) */
  assert_int_equal(px, 0xff000523u);
  gs_mem_read(m, fb + (64 * 100 + 63) * 4, &px, 4, NULL); /* left of the tile: untouched */
  assert_int_equal(px, 0);
  /* BGR565: R 0xff -> 0xf800, G 0xff -> 0x07e0, B 0xff -> 0x001f */
  tlb.colour[0] = 0x000000ffu;
  tlb.colour[1] = 0x0000ff00u;
  tlb.colour[2] = 0x00ff0000u;
  tlb.colour[3] = 0x00804020u; /* R 0x20 -> 4, G 0x40 -> 16, B 0x80 -> 16 */
  f.address = fb565;
  f.format = TLB_BGR565;
  assert_int_equal(tlb_store_colour(&tlb, m, &f, NULL), GS_OK);
  uint16_t v[4];
  gs_mem_read(m, fb565 + (64 * 100 + 64) * 2, v, 8, NULL);
  assert_int_equal(v[0], 0xf800);
  assert_int_equal(v[1], 0x07e0);
  assert_int_equal(v[2], 0x001f);
  assert_int_equal(v[3], 4u << 11 | 16u << 5 | 16u);
  /* and back: 5/6-bit channels widened by replication, A = 255 */
  tlb_clear(&tlb, 1, 0);
  assert_int_equal(tlb_load_colour(&tlb, m, &f, NULL), GS_OK);
  assert_int_equal(tlb.colour[3], 0xff844121u); /* B 16 -> 0x84, G 16 -> 0x41, R 4 -> 0x21 */
  /* T-format 64x64: pixel (20, 3) of tile (0,0) is in sub-tile BR (3 KB, even
   * tile row), micro-tile (1, 0) (+64), row 3 col 0 inside (+48): 3184 */
  tlb_begin_tile(&tlb, 0, 0);
  tlb.colour[3 * 64 + 20] = 0xdeadbeefu;
  tlb_frame ft = {fbt, 64, 64, TLB_RGBA8888, TILING_T, TLB_SAMPLE0};
  assert_int_equal(tlb_store_colour(&tlb, m, &ft, NULL), GS_OK);
  gs_mem_read(m, fbt + 3184, &px, 4, NULL);
  assert_int_equal(px, 0xdeadbeefu);
  /* a frame buffer outside memory: an error naming the address, nothing written */
  gs_diag d;
  tlb_frame bad = {fb + 100 * 70 * 4 - 64, 100, 70, TLB_RGBA8888, TILING_RASTER, TLB_SAMPLE0};
  assert_int_equal(tlb_store_colour(&tlb, m, &bad, &d), GS_EFAULT);
  assert_non_null(strstr(d.msg, "outside allocated GPU memory"));
  gs_mem_read(m, fb + 100 * 70 * 4 - 64, &px, 4, NULL);
  assert_int_equal(px, 0xff000514u); /* still pixel (84, 69) of the first store */
  gs_gpu_free(g);
}

/* Full-resolution dumps of a 4x multisample tile: the byte offset of sample
 * s of pixel (x, y) is (y & ~1)·32·4·4 + (x & ~1)·2·4·4 + ((y & 1)·8 | (x & 1)·4)
 * + s·16 (reference/vc4.md §3.7); Z/stencil follows 16 KB later; a reload
 * brings every sample back. */
static void test_full_resolution_dump(void **s) {
  (void)s;
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  gs_addr dump;
  assert_int_equal(gs_mem_alloc(m, 2 * TLB_FULL_BYTES, 16, &dump, NULL), GS_OK);
  tlb_init(&tlb, 1);
  for (uint32_t i = 0; i < TLB_WORDS; i++) tlb.colour[i] = 0xc0000000u | i, tlb.zs[i] = 0x5a000000u | i;
  assert_int_equal(tlb_store_full(&tlb, m, dump, 1, 1, NULL), GS_OK);
  static const uint32_t probes[][3] = {{0, 0, 0}, {1, 0, 3}, {0, 1, 1}, {5, 2, 2}, {31, 31, 3}, {16, 7, 0}};
  for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
    uint32_t x = probes[k][0], y = probes[k][1], smp = probes[k][2], c, z;
    uint32_t off = (y & ~1u) * 32 * 4 * 4 + (x & ~1u) * 2 * 4 * 4 + ((y & 1) * 8 | (x & 1) * 4) + smp * 16;
    uint32_t index = (y * 32 + x) * 4 + smp;
    gs_mem_read(m, dump + off, &c, 4, NULL);
    gs_mem_read(m, dump + TLB_FULL_BYTES + off, &z, 4, NULL);
    assert_int_equal(c, 0xc0000000u | index);
    assert_int_equal(z, 0x5a000000u | index);
  }
  tlb_clear(&tlb, 1, 1);
  assert_int_equal(tlb_load_full(&tlb, m, dump, 1, 0, NULL), GS_OK); /* colour only */
  assert_int_equal(tlb.colour[123], 0xc0000000u | 123);
  assert_int_equal(tlb.zs[123], tlb.clear_zs);
  gs_diag d;
  assert_int_equal(tlb_store_full(&tlb, m, dump + 16, 1, 1, &d), GS_EFAULT);
  assert_non_null(strstr(d.msg, "outside allocated GPU memory"));
  gs_gpu_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_depth),
      cmocka_unit_test(test_stencil),
      cmocka_unit_test(test_colour_and_multisample),
      cmocka_unit_test(test_store_and_load),
      cmocka_unit_test(test_full_resolution_dump),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
