/* test_tlb.c — the tile buffer: depth and stencil tests, colour writes and
 * loads with coverage, multisample resolve, and stores/loads to frame
 * buffers in raster and T-format, RGBA8888 and BGR565; the four tile
 * sizes, the colour registers' sample order, 64-bit colour (clear, writes,
 * RGBA16F stores, loads, dumps) and decimation rounding; expected values
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
  tlb_init(&tlb, 0, 0);
  tlb_set_clear(&tlb, 0, 0, 0x800000, 0);
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
    assert_int_equal(tlb.zs[tlb_zs_at(&tlb, i, 5, 0)] >> 8, want);
  }
  /* Z writes disabled: the test still culls, the buffer keeps its values */
  tlb_set_depth(&tlb, TLB_GREATER, 0);
  for (int i = 0; i < 16; i++) cov[i] = 1;
  tlb_z_write(&tlb, x, y, z, rev, cov, 0xffff);
  for (int i = 0; i < 16; i++) {
    assert_int_equal(cov[i], i < 8 ? 0 : 1);
    assert_int_equal(tlb.zs[tlb_zs_at(&tlb, i, 5, 0)] >> 8, i < 8 ? 0x400000u : 0x800000u);
  }
}

static void test_stencil(void **s) {
  (void)s;
  uint32_t x[16], y[16], z[16], rev[16], cov[16];
  tlb_init(&tlb, 0, 0);
  tlb_set_clear(&tlb, 0, 0, 0x100, 3);
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
    uint32_t st = tlb.zs[tlb_zs_at(&tlb, i, 0, 0)] & 0xff;
    if (i & 1) { /* back: fails, 3 + 1 = 4 but only bit 0 writable: (3 & ~1) | (4 & 1) = 2 */
      assert_int_equal(cov[i], 0);
      assert_int_equal(st, 2);
    } else {
      assert_int_equal(cov[i], 1);
      assert_int_equal(st, 9);
    }
    assert_int_equal(tlb.zs[tlb_zs_at(&tlb, i, 0, 0)] >> 8, 0x100); /* Z writes off */
  }
  /* a new batch starts with stencil disabled: everything passes, nothing changes */
  tlb_begin_batch(&tlb);
  for (int i = 0; i < 16; i++) cov[i] = 1;
  tlb_z_write(&tlb, x, y, z, rev, cov, 0xffff);
  for (int i = 0; i < 16; i++) assert_int_equal(cov[i], 1);
  assert_int_equal(tlb.zs[tlb_zs_at(&tlb, 1, 0, 0)] & 0xff, 2);
}

static void test_colour_and_multisample(void **s) {
  (void)s;
  uint32_t x[16], y[16], c[16], cov[16], out[16];
  tlb_init(&tlb, 1, 0); /* 32x32 pixels, 4 samples */
  assert_int_equal(tlb.width, 32);
  tlb_set_clear(&tlb, 0x11223344u, 0x11223344u, 0, 0);
  tlb_clear(&tlb, 1, 1);
  tlb_begin_tile(&tlb, 0, 0);
  row(3, 2, x, y);
  for (int i = 0; i < 16; i++) c[i] = 0xff000000u | (uint32_t)i, cov[i] = (uint32_t)i & 0xf;
  tlb_colour_write(&tlb, x, y, c, cov, 0xffff, -1, 0);
  for (int i = 0; i < 16; i++)
    for (int smp = 0; smp < 4; smp++) {
      uint32_t want = (cov[i] >> smp & 1) ? c[i] : 0x11223344u;
      assert_int_equal(tlb.colour[tlb_colour_at(&tlb, 3 + i, 2, smp, 0)], want);
    }
  tlb_colour_load(&tlb, x, y, out, 0xffff, 2, 0);
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
  tlb_init(&tlb, 0, 0);
  tlb_begin_tile(&tlb, 1, 1); /* pixels x 64..127, y 64..127: only 36 x 6 are inside 100x70 */
  for (uint32_t yy = 0; yy < 64; yy++)
    for (uint32_t xx = 0; xx < 64; xx++) tlb.colour[tlb_colour_at(&tlb, xx, yy, 0, 0)] = (yy << 8 | xx) | 0xff000000u;
  tlb_frame f = {fb, 100, 70, TLB_RGBA8888, TILING_RASTER, TLB_SAMPLE0};
  assert_int_equal(tlb_store_colour(&tlb, m, &f, NULL), GS_OK);
  uint32_t px;
  gs_mem_read(m, fb + (69 * 100 + 99) * 4, &px, 4, NULL); /* tile-local (35, 5) */
  assert_int_equal(px, 0xff000523u);
  gs_mem_read(m, fb + (64 * 100 + 63) * 4, &px, 4, NULL); /* left of the tile: untouched */
  assert_int_equal(px, 0);
  /* BGR565: R 0xff -> 0xf800, G 0xff -> 0x07e0, B 0xff -> 0x001f */
  tlb.colour[tlb_colour_at(&tlb, 0, 0, 0, 0)] = 0x000000ffu;
  tlb.colour[tlb_colour_at(&tlb, 1, 0, 0, 0)] = 0x0000ff00u;
  tlb.colour[tlb_colour_at(&tlb, 2, 0, 0, 0)] = 0x00ff0000u;
  tlb.colour[tlb_colour_at(&tlb, 3, 0, 0, 0)] = 0x00804020u; /* R 0x20 -> 4, G 0x40 -> 16, B 0x80 -> 16 */
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
  assert_int_equal(tlb.colour[tlb_colour_at(&tlb, 3, 0, 0, 0)], 0xff844121u); /* B 16 -> 0x84, G 16 -> 0x41, R 4 -> 0x21 */
  /* T-format 64x64: pixel (20, 3) of tile (0,0) is in sub-tile BR (3 KB, even
   * tile row), micro-tile (1, 0) (+64), row 3 col 0 inside (+48): 3184 */
  tlb_begin_tile(&tlb, 0, 0);
  tlb.colour[tlb_colour_at(&tlb, 20, 3, 0, 0)] = 0xdeadbeefu;
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
  tlb_init(&tlb, 1, 0);
  for (uint32_t i = 0; i < TLB_WORDS; i++) tlb.colour[i] = 0xc0000000u | i, tlb.zs[i] = 0x5a000000u | i;
  assert_int_equal(tlb_store_full(&tlb, m, dump, 1, 1, NULL), GS_OK);
  static const uint32_t probes[][3] = {{0, 0, 0}, {1, 0, 3}, {0, 1, 1}, {5, 2, 2}, {31, 31, 3}, {16, 7, 0}};
  for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
    uint32_t x = probes[k][0], y = probes[k][1], smp = probes[k][2], c, z;
    uint32_t off = (y & ~1u) * 32 * 4 * 4 + (x & ~1u) * 2 * 4 * 4 + ((y & 1) * 8 | (x & 1) * 4) + smp * 16;
    uint32_t index = tlb_zs_at(&tlb, x, y, smp); /* the word the loop above filled with it */
    assert_int_equal(tlb_colour_at(&tlb, x, y, smp, 0), index);
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

/* Tile sizes (reference/vc4.md §3.7): 64x64, 32x32 with 4x multisampling,
 * 64x32 with 64-bit colour, 32x16 with both; every mode fills the same
 * 4096 colour words. */
static void test_tile_sizes(void **s) {
  (void)s;
  static const unsigned want[4][5] = {/* ms, c64, w, h, words */
                                      {0, 0, 64, 64, 4096}, {1, 0, 32, 32, 4096}, {0, 1, 64, 32, 4096}, {1, 1, 32, 16, 4096}};
  for (int i = 0; i < 4; i++) {
    tlb_init(&tlb, (int)want[i][0], (int)want[i][1]);
    assert_int_equal(tlb.width, want[i][2]);
    assert_int_equal(tlb.height, want[i][3]);
    assert_int_equal(tlb.width * tlb.height * tlb.samples * tlb.halves, want[i][4]);
    tlb_begin_tile(&tlb, 3, 2);
    assert_int_equal(tlb.x0, 3 * want[i][2]);
    assert_int_equal(tlb.y0, 2 * want[i][3]);
    /* Block-major (docs/tile-buffer.md): every word once, and a 4x4
     * block's 16 pixels, in the PSE's lane order (lane l at x = bits 0 and
     * 2 of l, y = bits 1 and 3), one run of 16 words per sample and word. */
    static uint8_t seen_c[TLB_WORDS], seen_z[TLB_WORDS];
    memset(seen_c, 0, sizeof seen_c), memset(seen_z, 0, sizeof seen_z);
    for (uint32_t by = 0; by < tlb.height; by += 4)
      for (uint32_t bx = 0; bx < tlb.width; bx += 4)
        for (unsigned smp = 0; smp < tlb.samples; smp++)
          for (unsigned h = 0; h < tlb.halves; h++)
            for (uint32_t l = 0; l < 16; l++) {
              uint32_t x = bx + ((l & 1) | (l >> 1 & 2)), y = by + ((l >> 1 & 1) | (l >> 2 & 2));
              uint32_t c = tlb_colour_at(&tlb, x, y, smp, h), z = tlb_zs_at(&tlb, x, y, smp);
              assert_true(c < TLB_WORDS && z < TLB_WORDS);
              assert_int_equal(c, tlb_colour_at(&tlb, bx, by, smp, h) + l);
              assert_int_equal(z, tlb_zs_at(&tlb, bx, by, smp) + l);
              seen_c[c]++;
              if (h == 0) seen_z[z]++;
            }
    for (uint32_t k = 0; k < TLB_WORDS; k++) {
      assert_int_equal(seen_c[k], 1);
      assert_int_equal(seen_z[k], k < TLB_WORDS / tlb.halves ? 1 : 0);
    }
  }
}

/* The colour registers' fixed order in a 4x multisample tile: the k-th
 * TLB_COLOUR_MS write goes to sample k (if MS_FLAGS has it), the k-th loadc
 * reads sample k, TLB_COLOUR_ALL writes every covered sample; a new batch
 * starts the order again. */
static void test_colour_register_order(void **s) {
  (void)s;
  uint32_t x[16], y[16], c[16], cov[16], out[16];
  tlb_init(&tlb, 1, 0);
  tlb_set_clear(&tlb, 0xee, 0xee, 0, 0);
  tlb_clear(&tlb, 1, 1);
  tlb_begin_tile(&tlb, 1, 0); /* pixels x 32..63 */
  row(40, 3, x, y);
  for (int i = 0; i < 16; i++) cov[i] = (uint32_t)i; /* lane i covers the samples of its bits */
  tlb_begin_batch(&tlb);
  for (uint32_t k = 0; k < 4; k++) {
    for (int i = 0; i < 16; i++) c[i] = 0x100u * k + (uint32_t)i;
    tlb_colour_ms(&tlb, x, y, c, cov, 0xffff);
  }
  for (int i = 0; i < 16; i++)
    for (uint32_t smp = 0; smp < 4; smp++)
      assert_int_equal(tlb.colour[tlb_colour_at(&tlb, 8 + i, 3, smp, 0)], (i >> smp & 1) ? 0x100u * smp + (uint32_t)i : 0xeeu);
  for (uint32_t k = 0; k < 4; k++) {
    tlb_loadc(&tlb, x, y, out, 0xffff);
    assert_int_equal(out[5], (5 >> k & 1) ? 0x100u * k + 5 : 0xeeu); /* lane 5: samples 0 and 2 */
  }
  tlb_begin_batch(&tlb); /* the order starts again at sample 0 */
  tlb_loadc(&tlb, x, y, out, 0xffff);
  assert_int_equal(out[1], 0x001u);
  for (int i = 0; i < 16; i++) c[i] = 0xabcd0000u;
  tlb_colour_all(&tlb, x, y, c, cov, 0x00ff); /* lanes 0..7 only */
  for (int i = 0; i < 16; i++)
    for (uint32_t smp = 0; smp < 4; smp++) {
      uint32_t w = tlb.colour[tlb_colour_at(&tlb, 8 + i, 3, smp, 0)];
      if (i < 8 && (i >> smp & 1)) assert_int_equal(w, 0xabcd0000u);
      else assert_int_not_equal(w, 0xabcd0000u);
    }
}

/* 64-bit colour: the clear value is record 114's 64 bits (RG16F low, BA16F
 * high); TLB_COLOUR_ALL writes RG then BA; with 4 samples TLB_COLOUR_MS and
 * loadc go s0.RG, s0.BA, s1.RG, ...; a store writes 8 bytes per pixel,
 * R, G, B, A halves, and a load brings them back to every sample. */
static void test_colour64(void **s) {
  (void)s;
  uint32_t x[16], y[16], c[16], cov[16], out[16];
  tlb_init(&tlb, 0, 1); /* 64x32 pixels */
  tlb_set_clear(&tlb, 0x40003c00u, 0x3c003800u, 0, 0); /* R 1.0 G 2.0 B 0.5 A 1.0 */
  tlb_clear(&tlb, 1, 1);
  assert_int_equal(tlb.colour[tlb_colour_at(&tlb, 0, 0, 0, 0)], 0x40003c00u);
  assert_int_equal(tlb.colour[tlb_colour_at(&tlb, 0, 0, 0, 1)], 0x3c003800u);
  tlb_begin_tile(&tlb, 1, 1); /* pixels (64..127, 32..63) */
  row(70, 40, x, y);
  for (int i = 0; i < 16; i++) cov[i] = i != 3;
  tlb_begin_batch(&tlb);
  for (int i = 0; i < 16; i++) c[i] = 0x00010000u * (uint32_t)i; /* RG: R 0, G = i (a denormal, as bits) */
  tlb_colour_all(&tlb, x, y, c, cov, 0xffff);
  for (int i = 0; i < 16; i++) c[i] = 0x3c000000u | (uint32_t)i; /* BA: B = i, A 1.0 */
  tlb_colour_all(&tlb, x, y, c, cov, 0xffff);
  /* tile-local (6 + i, 8): lane i */
  assert_int_equal(tlb.colour[tlb_colour_at(&tlb, 6 + 5, 8, 0, 0)], 0x00050000u);
  assert_int_equal(tlb.colour[tlb_colour_at(&tlb, 6 + 5, 8, 0, 1)], 0x3c000005u);
  assert_int_equal(tlb.colour[tlb_colour_at(&tlb, 6 + 3, 8, 0, 0)], 0x40003c00u); /* lane 3 not covered */
  tlb_loadc(&tlb, x, y, out, 0xffff);
  assert_int_equal(out[7], 0x00070000u);
  tlb_loadc(&tlb, x, y, out, 0xffff);
  assert_int_equal(out[7], 0x3c000007u);
  tlb_loadc(&tlb, x, y, out, 0xffff); /* one sample: the order wraps to RG */
  assert_int_equal(out[7], 0x00070000u);
  /* store: 8 bytes per pixel at (y·width + x)·8 of a 100x70 raster frame */
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  gs_addr fb;
  assert_int_equal(gs_mem_alloc(m, 100 * 70 * 8, 64, &fb, NULL), GS_OK);
  tlb_frame f = {fb, 100, 70, TLB_RGBA16F, TILING_RASTER, TLB_SAMPLE0};
  assert_int_equal(tlb_store_colour(&tlb, m, &f, NULL), GS_OK);
  uint8_t px[8], want[8] = {0x00, 0x00, 0x05, 0x00, 0x05, 0x00, 0x00, 0x3c}; /* R 0, G 5, B 5, A 1.0 */
  gs_mem_read(m, fb + (40 * 100 + 75) * 8, px, 8, NULL);
  assert_memory_equal(px, want, 8);
  uint8_t clear[8] = {0x00, 0x3c, 0x00, 0x40, 0x00, 0x38, 0x00, 0x3c}; /* 1.0, 2.0, 0.5, 1.0 */
  gs_mem_read(m, fb + (63 * 100 + 99) * 8, px, 8, NULL); /* the tile's last pixel inside the frame */
  assert_memory_equal(px, clear, 8);
  gs_mem_read(m, fb + (64 * 100 + 99) * 8, px, 8, NULL); /* row 64: the next tile row, untouched */
  uint8_t zero[8] = {0};
  assert_memory_equal(px, zero, 8);
  /* T-format with 8-byte pixels: micro-tiles of 2x4 pixels, 4 KB tiles of
   * 16x32 pixels. Tile-local (5, 9) of tile (0, 0): micro-tile (2, 2), in
   * sub-tile 0 (even tile row: first), micro-tile 2·4 + 2 = 10 (+640), row
   * 1 col 1 inside (+16 + 8): 664. (20, 3): micro-tile (10, 0) is in 4 KB
   * tile 1 (+4096), sub-tile 0, micro-tile 2 (+128), row 3 (+48): 4272. */
  gs_addr fbt;
  assert_int_equal(gs_mem_alloc(m, 64 * 32 * 8, 4096, &fbt, NULL), GS_OK);
  tlb_begin_tile(&tlb, 0, 0);
  tlb.colour[tlb_colour_at(&tlb, 5, 9, 0, 0)] = 0x11112222u, tlb.colour[tlb_colour_at(&tlb, 5, 9, 0, 1)] = 0x33334444u;
  tlb.colour[tlb_colour_at(&tlb, 20, 3, 0, 0)] = 0x55556666u, tlb.colour[tlb_colour_at(&tlb, 20, 3, 0, 1)] = 0x77778888u;
  tlb_frame ft = {fbt, 64, 32, TLB_RGBA16F, TILING_T, TLB_SAMPLE0};
  assert_int_equal(tlb_store_colour(&tlb, m, &ft, NULL), GS_OK);
  uint32_t w2[2];
  gs_mem_read(m, fbt + 664, w2, 8, NULL);
  assert_true(w2[0] == 0x11112222u && w2[1] == 0x33334444u);
  gs_mem_read(m, fbt + 4272, w2, 8, NULL);
  assert_true(w2[0] == 0x55556666u && w2[1] == 0x77778888u);
  tlb_begin_tile(&tlb, 1, 1);
  /* a 32-bit format for a 64-bit tile buffer: an error, nothing written */
  gs_diag d;
  tlb_frame wrong = {fb, 100, 70, TLB_RGBA8888, TILING_RASTER, TLB_SAMPLE0};
  assert_int_equal(tlb_store_colour(&tlb, m, &wrong, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "64-bit"));
  /* load into a 4x multisample 64-bit tile: every sample gets both words */
  tlb_init(&tlb, 1, 1); /* 32x16 */
  tlb_begin_tile(&tlb, 2, 2); /* pixels (64..95, 32..47) */
  assert_int_equal(tlb_load_colour(&tlb, m, &f, NULL), GS_OK);
  for (unsigned smp = 0; smp < 4; smp++) { /* pixel (75, 40): tile-local (11, 8) */
    assert_int_equal(tlb.colour[tlb_colour_at(&tlb, 11, 8, smp, 0)], 0x00050000u);
    assert_int_equal(tlb.colour[tlb_colour_at(&tlb, 11, 8, smp, 1)], 0x3c000005u);
  }
  /* TLB_COLOUR_MS: s0.RG, s0.BA, s1.RG, s1.BA, ... */
  tlb_begin_batch(&tlb);
  for (uint32_t k = 0; k < 8; k++) {
    for (int i = 0; i < 16; i++) c[i] = 0xc0de0000u | k, cov[i] = 0xf;
    tlb_colour_ms(&tlb, x, y, c, cov, 0xffff);
  }
  for (uint32_t k = 0; k < 8; k++) assert_int_equal(tlb.colour[tlb_colour_at(&tlb, 11, 8, k / 2, k % 2)], 0xc0de0000u | k);
  gs_gpu_free(g);
}

/* Decimation by hand. 8-bit channels: (sum + 2) / 4, halves up. 16-bit
 * floats: the exact mean rounded once to the nearest half, ties to even. */
static void test_decimate(void **s) {
  (void)s;
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  gs_addr fb;
  assert_int_equal(gs_mem_alloc(m, 32 * 16 * 8, 64, &fb, NULL), GS_OK);
  /* 8888: bytes (1,0,0,0) -> 3/4 = 0; (1,1,0,0) -> 4/4 = 1; (3,0,0,0) -> 5/4 = 1; (255,255,255,254) -> 1021/4 = 255 */
  tlb_init(&tlb, 1, 0);
  uint32_t smp8[4] = {0xff030101u, 0xff000100u, 0xff000000u, 0xfe000000u};
  for (unsigned k = 0; k < 4; k++) tlb.colour[tlb_colour_at(&tlb, 0, 0, k, 0)] = smp8[k]; /* pixel (0, 0) */
  tlb_frame f = {fb, 32, 32, TLB_RGBA8888, TILING_RASTER, TLB_DECIMATE4};
  assert_int_equal(tlb_store_colour(&tlb, m, &f, NULL), GS_OK);
  uint32_t px;
  gs_mem_read(m, fb, &px, 4, NULL);
  assert_int_equal(px, 0xff010100u);
  f.decimate = TLB_SAMPLE0;
  assert_int_equal(tlb_store_colour(&tlb, m, &f, NULL), GS_OK);
  gs_mem_read(m, fb, &px, 4, NULL);
  assert_int_equal(px, 0xff030101u);
  /* 16-bit floats, channel by channel (R, G | B, A):
   * R: 1.0, 0, 0, 0                    -> 0.25          = 0x3400
   * G: 1+2^-10 twice, 1.0 twice        -> 1 + 2^-11, a tie between 0x3c00 and 0x3c01 -> even 0x3c00
   * B: 1+2^-10 twice, 1+2^-9 twice     -> 1 + 1.5·2^-10, a tie -> even 0x3c02
   * A: -1.0, 0, 2^-24, 2^-24           -> (-1 + 2^-23) / 4 = -0.25 + 2^-25: nearest half -0.25 = 0xb400 */
  tlb_init(&tlb, 1, 1);
  uint32_t smp16[8] = {0x3c013c00u, 0xbc003c01u, 0x3c010000u, 0x00003c02u,
                       0x3c000000u, 0x00013c02u, 0x3c000000u, 0x00013c01u};
  for (unsigned k = 0; k < 8; k++) tlb.colour[tlb_colour_at(&tlb, 0, 0, k / 2, k % 2)] = smp16[k]; /* s0.RG, s0.BA, ... */
  /* subnormals and infinity at pixel (1, 0): R 2^-24 twice + 0 twice -> 2^-25, a tie -> even 0;
   * G 2^-24 three times -> 0.75·2^-24 -> 0x0001; B Inf + 1.0·3 -> Inf; A 65504 four times -> 65504 */
  uint32_t smp16b[8] = {0x00010001u, 0x7bff7c00u, 0x00010001u, 0x7bff3c00u,
                        0x00010000u, 0x7bff3c00u, 0x00000000u, 0x7bff3c00u};
  for (unsigned k = 0; k < 8; k++) tlb.colour[tlb_colour_at(&tlb, 1, 0, k / 2, k % 2)] = smp16b[k];
  tlb_frame f16 = {fb, 32, 16, TLB_RGBA16F, TILING_RASTER, TLB_DECIMATE4};
  assert_int_equal(tlb_store_colour(&tlb, m, &f16, NULL), GS_OK);
  uint16_t h[8];
  gs_mem_read(m, fb, h, 16, NULL);
  static const uint16_t want[8] = {0x3400, 0x3c00, 0x3c02, 0xb400, 0x0000, 0x0001, 0x7c00, 0x7bff};
  for (int i = 0; i < 8; i++)
    if (h[i] != want[i]) fail_msg("half %d: 0x%04x, want 0x%04x", i, h[i], want[i]);
  gs_gpu_free(g);
}

/* Full-resolution dumps of a 64-bit 4x multisample tile (32x16 pixels):
 * the same 2x2-quad order with 8-byte entries, so sample s of pixel (x, y)
 * is at (y/2)·16·128 + (x/2)·128 + s·32 + ((y&1)·2 + (x&1))·8 (16 KB);
 * the depth-stencil part follows at 16 KB with 4-byte entries (8 KB). */
static void test_full_dump_64bit(void **s) {
  (void)s;
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  gs_addr dump;
  assert_int_equal(gs_mem_alloc(m, TLB_FULL_BYTES + TLB_FULL_BYTES / 2, 16, &dump, NULL), GS_OK);
  tlb_init(&tlb, 1, 1);
  for (uint32_t i = 0; i < TLB_WORDS; i++) tlb.colour[i] = 0xc0000000u | i, tlb.zs[i] = 0x5a000000u | i;
  assert_int_equal(tlb_store_full(&tlb, m, dump, 1, 1, NULL), GS_OK);
  static const uint32_t probes[][3] = {{0, 0, 0}, {1, 0, 3}, {0, 1, 1}, {5, 2, 2}, {31, 15, 3}, {16, 7, 0}};
  for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
    uint32_t x = probes[k][0], y = probes[k][1], smp = probes[k][2], c[2], z;
    uint32_t quad = (y / 2) * 16 + x / 2, in = (y & 1) * 2 + (x & 1);
    gs_mem_read(m, dump + quad * 128 + smp * 32 + in * 8, c, 8, NULL);
    gs_mem_read(m, dump + TLB_FULL_BYTES + quad * 64 + smp * 16 + in * 4, &z, 4, NULL);
    assert_int_equal(c[0], 0xc0000000u | tlb_colour_at(&tlb, x, y, smp, 0)); /* the words the loop above filled */
    assert_int_equal(c[1], 0xc0000000u | tlb_colour_at(&tlb, x, y, smp, 1));
    assert_int_equal(z, 0x5a000000u | tlb_zs_at(&tlb, x, y, smp));
  }
  tlb_clear(&tlb, 1, 1);
  assert_int_equal(tlb_load_full(&tlb, m, dump, 1, 1, NULL), GS_OK);
  assert_int_equal(tlb.colour[4095], 0xc0000000u | 4095);
  assert_int_equal(tlb.zs[2047], 0x5a000000u | 2047);
  gs_diag d; /* the depth-stencil part is 8 KB: 1 byte more is outside */
  assert_int_equal(tlb_store_full(&tlb, m, dump + 16, 1, 1, &d), GS_EFAULT);
  assert_int_equal(tlb_store_full(&tlb, m, dump, 0, 1, &d), GS_OK);
  gs_gpu_free(g);
}

/* ---- fragment access against a plain model ------------------------------ */

/* The tests, writes and loads without stencil written the plain way, lane
 * by lane and sample by sample (docs/tile-buffer.md), on a copy of the
 * buffers in row-major order (sample s of pixel (x, y) at (y·width + x)·
 * samples + s, colour word h at that · halves + h): the TLB may take any
 * faster route for a 4×4 block, but every word must be the same. */
static uint32_t ref_zs[TLB_WORDS], ref_colour[TLB_WORDS];

/* Where the model's words are in the TLB (tlb_zs_at, tlb_colour_at), for
 * the current mode: set by same_as_model(1). */
static uint32_t where_zs[TLB_WORDS], where_colour[TLB_WORDS];

/* Whether the TLB's words are the model's; with `load`, first makes them so. */
static int same_as_model(int load) {
  if (load)
    for (uint32_t y = 0; y < tlb.height; y++)
      for (uint32_t x = 0; x < tlb.width; x++)
        for (unsigned s = 0; s < tlb.samples; s++) {
          uint32_t i = (y * tlb.width + x) * tlb.samples + s;
          tlb.zs[where_zs[i] = tlb_zs_at(&tlb, x, y, s)] = ref_zs[i];
          for (unsigned h = 0; h < tlb.halves; h++)
            tlb.colour[where_colour[i * tlb.halves + h] = tlb_colour_at(&tlb, x, y, s, h)] = ref_colour[i * tlb.halves + h];
        }
  uint32_t diff = 0, nz = TLB_WORDS / tlb.halves;
  for (uint32_t i = 0; i < nz; i++) diff |= tlb.zs[where_zs[i]] ^ ref_zs[i];
  for (uint32_t i = 0; i < TLB_WORDS; i++) diff |= tlb.colour[where_colour[i]] ^ ref_colour[i];
  return diff == 0;
}

static long ref_index(const gs_tlb *t, uint32_t x, uint32_t y, unsigned s) {
  uint32_t lx = x - t->x0, ly = y - t->y0;
  if (lx >= t->width || ly >= t->height || s >= t->samples) return -1;
  return (long)((ly * t->width + lx) * t->samples + s);
}

static int ref_compare(unsigned func, uint32_t a, uint32_t b) {
  static const int lt[8] = {0, 1, 0, 1, 0, 1, 0, 1}, eq[8] = {0, 0, 1, 1, 0, 0, 1, 1}, gt[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  return a < b ? lt[func] : a == b ? eq[func] : gt[func]; /* the GL order: bit 0 <, bit 1 =, bit 2 > */
}

static void ref_z(const gs_tlb *t, const uint32_t *x, const uint32_t *y, const uint32_t *z, uint32_t *cov,
                  uint16_t lanes, int write) {
  for (int l = 0; l < 16; l++)
    for (unsigned s = 0; s < t->samples; s++) {
      long i = ref_index(t, x[l], y[l], s);
      if (!(lanes >> l & 1) || i < 0 || !(cov[l] >> s & 1)) continue;
      uint32_t zin = z[l] & 0xffffffu;
      if (!ref_compare(t->z_func, zin, ref_zs[i] >> 8)) cov[l] &= ~(1u << s);
      else if (write && t->z_write) ref_zs[i] = zin << 8 | (ref_zs[i] & 0xffu);
    }
}

static uint32_t tlb_rand(uint32_t *s) { /* xorshift32 */
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* Random fragments: mostly the 16 pixels of an aligned 4×4 block in the
 * tile, in the PSE's lane order (what the renderer passes); else that
 * order unaligned, transposed or shuffled, a block of another tile, or 16
 * pixels in or around a block, some of them repeated. */
static void random_fragments(const gs_tlb *t, uint32_t *s, uint32_t *x, uint32_t *y) {
  uint32_t k = tlb_rand(s) % 10;
  uint32_t bx = t->x0 + 4 * (tlb_rand(s) % (t->width / 4)), by = t->y0 + 4 * (tlb_rand(s) % (t->height / 4));
  if (k == 8) { /* a neighbouring tile's block */
    if (tlb_rand(s) % 2) bx += tlb_rand(s) % 2 ? t->width : -t->width;
    else by += tlb_rand(s) % 2 ? t->height : -t->height;
  }
  for (int l = 0; l < 16; l++) {
    x[l] = bx + (uint32_t)((l & 1) | (l >> 1 & 2)); /* the PSE's lane order */
    y[l] = by + (uint32_t)((l >> 1 & 1) | (l >> 2 & 2));
  }
  if (k == 3) { /* the lane order, unaligned: across two or four blocks, maybe two tiles */
    uint32_t dx = tlb_rand(s) % 4, dy = dx ? tlb_rand(s) % 4 : 1 + tlb_rand(s) % 3;
    for (int l = 0; l < 16; l++) x[l] += dx, y[l] += dy;
  }
  if (k == 4) { /* the right pixels in another order: transposed, or rows 1 and 3 swapped */
    int transpose = tlb_rand(s) % 2;
    for (int l = 0; l < 16; l++) {
      uint32_t tx = x[l] - bx, ty = y[l] - by;
      if (transpose) x[l] = bx + ty, y[l] = by + tx;
      else y[l] = by + (ty & 1 ? ty ^ 2 : ty);
    }
  }
  if (k >= 5 && k < 8)
    for (int l = 15; l > 0; l--) { /* shuffled */
      int j = (int)(tlb_rand(s) % (uint32_t)(l + 1));
      uint32_t tx = x[l], ty = y[l];
      x[l] = x[j], y[l] = y[j], x[j] = tx, y[j] = ty;
    }
  if (k == 9) { /* inside the block (so repeating pixels), or around it */
    uint32_t span = tlb_rand(s) % 2 ? 4 : 8, off = span == 4 ? 0 : 2;
    for (int l = 0; l < 16; l++) x[l] = bx - off + tlb_rand(s) % span, y[l] = by - off + tlb_rand(s) % span;
  }
}

/* One random access (op 0 Z write, 1 early Z, 2 colour write, 3 colour
 * load) of fragments x, y through the entry points by lane positions, or
 * with b through the *_batch ones, checked against the plain model. */
static void access_matches_plain_model(uint32_t *s, const uint32_t *x, const uint32_t *y, const tlb_batch *b,
                                       int mode, int n) {
  uint32_t z[16], rev[16] = {0}, cov[16], want[16], out[16], out_ref[16];
  uint16_t lanes = (uint16_t)(tlb_rand(s) % 3 ? 0xFFFFu : tlb_rand(s));
  for (int l = 0; l < 16; l++) {
    long i = ref_index(&tlb, x[l], y[l], 0);
    /* often the stored Z itself, for the equal cases */
    z[l] = i >= 0 && tlb_rand(s) % 3 == 0 ? ref_zs[i] >> 8 : 0x00800000u + (tlb_rand(s) & 0x1ffff);
    z[l] |= tlb_rand(s) & 0xff000000u; /* bits above Z are ignored */
    cov[l] = want[l] = tlb_rand(s) % 2 ? 0xFu : tlb_rand(s) & 0xFu;
  }
  unsigned op = tlb_rand(s) % 4;
  tlb_begin_batch(&tlb);
  tlb_set_depth(&tlb, tlb_rand(s) % 8, (int)(tlb_rand(s) % 2));
  /* the tile port's functions, in C or (where the host has it) AVX2 */
  tlb_batch fresh = b ? *b : (tlb_batch){0};
  tlb_port port = {&tlb, &fresh, rev};
  const tlb_port_fns *fns = tlb_port_functions((int)(tlb_rand(s) % 2));
  unsigned via = tlb_rand(s) % 3;
  if (op == 0) {
    fresh.early = 0; /* tlb_z_write_early without early Z: its own single-sample path */
    if (b && via == 2) fns->z_write(&port, z, cov, lanes);
    else if (b && via == 1) tlb_z_write_early(&tlb, &fresh, z, rev, cov, lanes);
    else if (b) tlb_z_write_batch(&tlb, b, z, rev, cov, lanes);
    else tlb_z_write(&tlb, x, y, z, rev, cov, lanes);
    ref_z(&tlb, x, y, z, want, lanes, 1);
  } else if (op == 1) {
    if (b) tlb_z_test_batch(&tlb, b, z, cov, lanes);
    else tlb_z_test(&tlb, x, y, z, cov, lanes);
    ref_z(&tlb, x, y, z, want, lanes, 0);
  } else if (op == 2) {
    int sample = (int)(tlb_rand(s) % 6) - 1;
    unsigned half = tlb_rand(s) % tlb.halves;
    if (b && sample < 0 && via == 2) /* the port's colour register write */
      tlb.n_all = half, fns->colour_write(&port, 1, z, cov, lanes);
    else if (b && sample < 0 && via == 1) /* the colour register's write, its own single-sample path */
      tlb.n_all = half, tlb_colour_all_batch(&tlb, b, z, cov, lanes);
    else if (b) tlb_colour_write_batch(&tlb, b, z, cov, lanes, sample, half);
    else tlb_colour_write(&tlb, x, y, z, cov, lanes, sample, half);
    for (int l = 0; l < 16; l++)
      for (unsigned k = 0; k < tlb.samples; k++) {
        long i = ref_index(&tlb, x[l], y[l], k);
        if ((lanes >> l & 1) && (sample < 0 || (unsigned)sample == k) && (cov[l] >> k & 1) && i >= 0)
          ref_colour[(unsigned long)i * tlb.halves + half] = z[l];
      }
  } else {
    unsigned sample = tlb_rand(s) % 5, half = tlb_rand(s) % tlb.halves;
    if (b) tlb_colour_load_batch(&tlb, b, out, lanes, sample, half);
    else tlb_colour_load(&tlb, x, y, out, lanes, sample, half);
    for (int l = 0; l < 16; l++) {
      long i = (lanes >> l & 1) ? ref_index(&tlb, x[l], y[l], sample) : -1;
      out_ref[l] = i >= 0 ? ref_colour[(unsigned long)i * tlb.halves + half] : 0;
    }
    assert_memory_equal(out, out_ref, sizeof out);
  }
  assert_memory_equal(cov, want, sizeof cov);
  if (!same_as_model(0))
    fail_msg("mode %d, access %d (op %u%s): the buffers differ from the plain model", mode, n, op,
             b ? ", one tlb_batch for several accesses" : "");
}

/* Random accesses in the four tile modes. With `reuse`, each set of
 * fragments gets one tlb_batch, made before the first of its three
 * accesses, as the renderer uses one for a batch's early Z, Z write and
 * colour writes. */
static void fragments_match_plain_model(int reuse) {
  uint32_t s = 0x9E3779B9u;
  for (int mode = 0; mode < 4; mode++) {
    tlb_init(&tlb, mode & 1, mode >> 1);
    tlb_begin_tile(&tlb, 1 + tlb_rand(&s) % 3, 1 + tlb_rand(&s) % 3);
    for (unsigned i = 0; i < TLB_WORDS; i++) {
      ref_zs[i] = (tlb_rand(&s) % 4 ? 0x00800000u + (tlb_rand(&s) & 0xffff) : tlb_rand(&s)) << 8 |
                  (tlb_rand(&s) & 0xff);
      ref_colour[i] = tlb_rand(&s);
    }
    same_as_model(1);
    for (int n = 0; n < 20000; n++) {
      uint32_t x[16], y[16];
      random_fragments(&tlb, &s, x, y);
      if (!reuse) {
        access_matches_plain_model(&s, x, y, NULL, mode, n);
        continue;
      }
      tlb_batch b;
      tlb_batch_of(&tlb, x, y, &b);
      int ordered = 1; /* the lanes of a 4x4 block at (x[0], y[0]) in the PSE's order, aligned or not */
      for (int l = 0; l < 16; l++)
        ordered &= x[l] == x[0] + ((l & 1) | (l >> 1 & 2)) && y[l] == y[0] + ((l >> 1 & 1) | (l >> 2 & 2));
      if (ordered) { /* what the renderer's batches use: the same batch */
        tlb_batch known;
        tlb_batch_block(&tlb, x, y, &known);
        assert_int_equal(known.block, b.block);
        if (b.block) assert_int_equal(known.base, b.base);
        if (tlb_rand(&s) % 2) b = known;
      }
      for (int k = 0; k < 3; k++) access_matches_plain_model(&s, x, y, &b, mode, n);
    }
  }
}

static void test_fragments_match_plain_model(void **st) {
  (void)st;
  fragments_match_plain_model(0);
}

static void test_batch_accesses_match_plain_model(void **st) {
  (void)st;
  fragments_match_plain_model(1);
}

/* tlb_init_for_clear leaves the words as they are, so after a clear of
 * both buffers the tile buffer is byte for byte the one tlb_init and the
 * same clear give, in every mode, whatever the words held before. */
static gs_tlb plain;

static void test_init_for_clear(void **st) {
  (void)st;
  for (int mode = 0; mode < 4; mode++) {
    memset(&tlb, 0xAB, sizeof tlb);
    tlb_init_for_clear(&tlb, mode & 1, mode >> 1);
    tlb_init(&plain, mode & 1, mode >> 1);
    tlb_set_clear(&tlb, 0x11223344u, 0x55667788u, 0x123456u, 0x9A);
    tlb_set_clear(&plain, 0x11223344u, 0x55667788u, 0x123456u, 0x9A);
    tlb_clear(&tlb, 1, 1);
    tlb_clear(&plain, 1, 1);
    assert_memory_equal(&tlb, &plain, sizeof tlb);
  }
}

/* One depth test a batch (tlb_early_z_batch, tlb_z_write_early) against
 * two (tlb_z_test_batch, then tlb_z_write_batch, which the tests above
 * check against the plain model) on a copy of the buffer: the same
 * coverage and the same words, whether the Z write brings early Z's Z and
 * coverage or not, with a stencil test or another depth function set in
 * between, a second Z write, blocks or not, in the four tile modes. */
static gs_tlb twice;

static void test_early_z_once_matches_twice(void **st) {
  (void)st;
  uint32_t s = 0x51ED270Bu, taken = 0;
  for (int mode = 0; mode < 4; mode++) {
    tlb_init(&tlb, mode & 1, mode >> 1);
    tlb_begin_tile(&tlb, 1, 2);
    for (unsigned i = 0; i < TLB_WORDS; i++)
      tlb.zs[i] = (0x00800000u + (tlb_rand(&s) & 0xff)) << 8 | (tlb_rand(&s) & 0xff);
    for (int n = 0; n < 20000; n++) {
      uint32_t x[16], y[16], z[16], rev[16], cov[16], cov2[16];
      random_fragments(&tlb, &s, x, y);
      uint16_t lanes = (uint16_t)(tlb_rand(&s) % 3 ? 0xFFFFu : tlb_rand(&s));
      for (int l = 0; l < 16; l++) {
        z[l] = (0x00800000u + (tlb_rand(&s) & 0xff)) | (tlb_rand(&s) & 0xff000000u);
        cov[l] = tlb_rand(&s) % 2 ? (mode & 1 ? 0xFu : 1u) : tlb_rand(&s) & 0xFu;
        rev[l] = tlb_rand(&s) & 1;
      }
      tlb_begin_batch(&tlb);
      tlb_set_depth(&tlb, tlb_rand(&s) % 8, (int)(tlb_rand(&s) % 2));
      twice = tlb;
      memcpy(cov2, cov, sizeof cov);
      tlb_batch b, b2;
      tlb_batch_of(&tlb, x, y, &b);
      tlb_batch_of(&twice, x, y, &b2);
      tlb_early_z_batch(&tlb, &b, z, cov, lanes);
      tlb_z_test_batch(&twice, &b2, z, cov2, lanes);
      assert_memory_equal(cov, cov2, sizeof cov);
      /* what the shader's Z write brings: mostly early Z's Z, lanes and coverage */
      unsigned k = tlb_rand(&s) % 8;
      if (k == 0) z[tlb_rand(&s) % 16] ^= 1u << tlb_rand(&s) % 24;
      if (k == 1) cov[tlb_rand(&s) % 16] |= 1u << tlb_rand(&s) % 4, memcpy(cov2, cov, sizeof cov);
      if (k == 2) cov[tlb_rand(&s) % 16] = 0, memcpy(cov2, cov, sizeof cov);
      if (k == 3) lanes = (uint16_t)(lanes ^ 1u << tlb_rand(&s) % 16);
      if (k == 4) { /* a stencil test: front face always passes and replaces, back never passes */
        uint32_t w = tlb_rand(&s) % 2 ? 1u << 30 | 3u << 28 | 2u << 22 | 7u << 16 | 9u << 8 | 0xffu
                                      : 2u << 30 | 3u << 28 | 3u << 19 | 0u << 16 | 0xffu;
        tlb_stencil_setup(&tlb, w), tlb_stencil_setup(&twice, w);
      }
      if (k == 5) {
        unsigned f = tlb_rand(&s) % 8;
        int zw = (int)(tlb_rand(&s) % 2);
        tlb_set_depth(&tlb, f, zw), tlb_set_depth(&twice, f, zw);
      }
      /* the tile port's Z write (C or AVX2) or tlb_z_write_early */
      tlb_port port = {&tlb, &b, rev};
      unsigned via = tlb_rand(&s) % 3;
      for (int w = 0; w < (k == 6 ? 2 : 1); w++) { /* k == 6: the program writes Z twice */
        taken += b.early;
        if (via) tlb_port_functions((int)via - 1)->z_write(&port, z, cov, lanes);
        else tlb_z_write_early(&tlb, &b, z, rev, cov, lanes);
        tlb_z_write_batch(&twice, &b2, z, rev, cov2, lanes);
        assert_memory_equal(cov, cov2, sizeof cov);
      }
      if (memcmp(tlb.zs, twice.zs, sizeof tlb.zs))
        fail_msg("mode %d, batch %d (case %u): one depth test left other depth-stencil words than two", mode, n, k);
    }
  }
  assert_true(taken > 20000); /* the shortcut was tried often */
}

/* Stores of single-sample RGBA8888 tiles to raster frames of sizes that
 * cut tiles anywhere (the AVX2 store, on a host with it, takes whole 4x4
 * blocks and leaves the rest to the pixel loop), against the plain rule:
 * each pixel of the tile inside the frame is its colour word, every other
 * byte of the frame is as it was. */
static void test_raster_stores_random(void **st) {
  (void)st;
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  uint32_t seed = 99;
  for (int iter = 0; iter < 40; iter++) {
    seed = seed * 1664525u + 1013904223u;
    uint32_t fw = 1 + (seed >> 8) % 150, fh = 1 + (seed >> 20) % 150;
    gs_addr fb;
    assert_int_equal(gs_mem_alloc(m, fw * fh * 4, 4, &fb, NULL), GS_OK);
    uint32_t *px = gs_mem_ptr(m, fb, fw * fh * 4);
    for (uint32_t i = 0; i < fw * fh; i++) px[i] = 0x5a000000u ^ i;
    tlb_init(&tlb, 0, 0);
    uint32_t tx = (seed >> 4) % ((fw + 63) / 64), ty = (seed >> 12) % ((fh + 63) / 64);
    tlb_begin_tile(&tlb, tx, ty);
    for (uint32_t i = 0; i < TLB_WORDS; i++) tlb.colour[i] = (seed += 0x9e3779b9u);
    tlb_frame f = {fb, fw, fh, TLB_RGBA8888, TILING_RASTER, TLB_SAMPLE0};
    assert_int_equal(tlb_store_colour(&tlb, m, &f, NULL), GS_OK);
    for (uint32_t y = 0; y < fh; y++)
      for (uint32_t x = 0; x < fw; x++) {
        uint32_t lx = x - 64 * tx, ly = y - 64 * ty;
        uint32_t want = lx < 64 && ly < 64 ? tlb.colour[tlb_colour_at(&tlb, lx, ly, 0, 0)] : 0x5a000000u ^ (y * fw + x);
        if (px[y * fw + x] != want)
          fail_msg("%ux%u frame, tile (%u, %u): pixel (%u, %u) is 0x%08x, not 0x%08x", fw, fh, tx, ty, x, y,
                   px[y * fw + x], want);
      }
  }
  gs_gpu_free(g);
}

/* The port's AVX2 code is what tlb_port_functions(1) gives on a host with
 * AVX2 (so that the tests above check it), and apart from the C functions. */
static void test_port_functions(void **st) {
  (void)st;
  const tlb_port_fns *c = tlb_port_functions(0), *v = tlb_port_functions(1);
  assert_non_null(c->begin), assert_non_null(c->z_write), assert_non_null(c->colour_write);
  if (tlb_port_avx2()) assert_true(v->z_write != c->z_write && v->colour_write != c->colour_write);
  else assert_ptr_equal(v, c);
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
  assert_int_equal(tlb_port_avx2(), __builtin_cpu_supports("avx2") != 0);
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_depth),
      cmocka_unit_test(test_stencil),
      cmocka_unit_test(test_colour_and_multisample),
      cmocka_unit_test(test_store_and_load),
      cmocka_unit_test(test_full_resolution_dump),
      cmocka_unit_test(test_tile_sizes),
      cmocka_unit_test(test_colour_register_order),
      cmocka_unit_test(test_colour64),
      cmocka_unit_test(test_decimate),
      cmocka_unit_test(test_full_dump_64bit),
      cmocka_unit_test(test_fragments_match_plain_model),
      cmocka_unit_test(test_batch_accesses_match_plain_model),
      cmocka_unit_test(test_early_z_once_matches_twice),
      cmocka_unit_test(test_init_for_clear),
      cmocka_unit_test(test_port_functions),
      cmocka_unit_test(test_raster_stores_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
