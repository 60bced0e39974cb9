/* test_tmu.c — the TMU model (src/v3d/tmu.c) and the memory layouts
 * (src/v3d/tiling.c): T/LT/raster offsets worked out by hand from the rules
 * of reference/vc4.md §5.5, each texture format's decode, texel addressing
 * through real lookups, mip levels (§5.4), nearest and bilinear filters and
 * wrap modes with values computed by hand under the 8-bit weight scheme of
 * docs/v3d-units.md, direct lookups, uniform consumption, the result FIFO
 * and faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isa/qpu/qpu.h"
#include "v3d/tiling.h"
#include "v3d/tmu.h"
#include "v3d/v3d.h"

/* ---- layouts -------------------------------------------------------------- */

typedef struct offset_case {
  tiling_layout layout;
  uint32_t x, y, width;
  unsigned cpp;
  uint32_t offset;
} offset_case;

/* By hand. 32 bpp: micro-tile 4x4 (16-byte rows), sub-tile 16x16 px (1 KB),
 * tile 32x32 px (4 KB); a 64-wide image has 2 tiles per row. Sub-tile order
 * BL, TL, TR, BR (0..3 KB) on even tile rows, TR, BR, BL, TL on odd ones;
 * odd tile rows run right to left. */
static const offset_case offset_cases[] = {
    {TILING_T, 0, 0, 64, 4, 0},
    {TILING_T, 3, 0, 64, 4, 12},      /* pixel 3 of the first utile row */
    {TILING_T, 0, 1, 64, 4, 16},      /* second row of the utile */
    {TILING_T, 4, 0, 64, 4, 64},      /* next utile */
    {TILING_T, 0, 4, 64, 4, 256},     /* utile row 1 of the sub-tile: 4 utiles on */
    {TILING_T, 5, 6, 64, 4, 356},     /* 256 + 64 + 2*16 + 1*4 */
    {TILING_T, 0, 16, 64, 4, 1024},   /* TL sub-tile */
    {TILING_T, 16, 16, 64, 4, 2048},  /* TR */
    {TILING_T, 16, 0, 64, 4, 3072},   /* BR */
    {TILING_T, 31, 31, 64, 4, 3068},  /* TR + utile (3,3) 960 + (3,3) in it 60 */
    {TILING_T, 32, 0, 64, 4, 4096},   /* second tile of row 0 */
    {TILING_T, 0, 32, 64, 4, 14336},  /* row 1 runs right to left: tile 3; BL is at 2 KB */
    {TILING_T, 32, 32, 64, 4, 10240}, /* tile 2, BL at 2 KB */
    {TILING_T, 63, 63, 64, 4, 9212},  /* tile 2, TR at 0 KB, 960 + 60 */
    {TILING_T, 48, 40, 64, 4, 9728},  /* tile 2, BR at 1 KB, utile (0,2) = 512 */
    /* 16 bpp: utile 8x4 (16-byte rows), tile 64x32 px; one tile per row */
    {TILING_T, 9, 5, 64, 2, 338},     /* utile (1,1) = 320, + 1*16 + 1*2 */
    {TILING_T, 0, 32, 64, 2, 6144},   /* tile row 1 (odd): tile 1, BL at 2 KB */
    /* 8 bpp: utile 8x8 (8-byte rows) */
    {TILING_T, 3, 9, 64, 1, 267},     /* utile (0,1) = 256, + 1*8 + 3 */
    /* LT: utiles in raster order */
    {TILING_LT, 5, 6, 16, 4, 356},    /* 4 utiles per row: 256 + 64 + 36 */
    {TILING_LT, 13, 2, 16, 4, 228},   /* utile 3 = 192, + 2*16 + 1*4 */
    {TILING_LT, 2, 13, 16, 4, 792},   /* utile row 3 = 768, + 1*16 + 2*4 */
    {TILING_LT, 17, 5, 20, 4, 596},   /* 5 utiles per row: 320 + 256 + 20 */
    {TILING_RASTER, 3, 2, 64, 4, 524},
};

static void test_tiling_offsets(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof offset_cases / sizeof offset_cases[0]; i++) {
    const offset_case *c = &offset_cases[i];
    uint32_t got = tiling_offset(c->layout, c->x, c->y, c->width, c->cpp);
    if (got != c->offset)
      fail_msg("layout %d, (%u, %u) of width %u at %u bpp: offset %u, want %u", c->layout, c->x, c->y, c->width,
               c->cpp * 8, got, c->offset);
  }
}

static void test_tiling_choice_and_size(void **state) {
  (void)state;
  assert_int_equal(tiling_choose(16, 64, 4), TILING_LT); /* 16 <= 4 utiles of 4 */
  assert_int_equal(tiling_choose(64, 16, 4), TILING_LT);
  assert_int_equal(tiling_choose(17, 17, 4), TILING_T);
  assert_int_equal(tiling_choose(32, 16, 2), TILING_LT); /* utile 8x4: 32 <= 32 */
  assert_int_equal(tiling_choose(40, 20, 2), TILING_T);
  assert_int_equal(tiling_choose(33, 32, 1), TILING_LT); /* utile 8x8: 32 <= 32 */
  assert_int_equal(tiling_choose(33, 33, 1), TILING_T);
  assert_int_equal(tiling_size(TILING_T, 64, 64, 4), 16384);
  assert_int_equal(tiling_size(TILING_T, 40, 20, 2), 4096); /* one 64x32 tile */
  assert_int_equal(tiling_size(TILING_T, 33, 33, 4), 4 * 4096);
  assert_int_equal(tiling_size(TILING_LT, 20, 8, 4), 640);
  assert_int_equal(tiling_size(TILING_LT, 5, 3, 4), 128); /* 8x4 pixels */
  assert_int_equal(tiling_size(TILING_RASTER, 5, 3, 4), 60);
}

/* ---- fixture and helpers ----------------------------------------------------- */

typedef struct fixture {
  gs_gpu *g;
  gs_qpu *q;
  gs_addr unif;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  f->g = gs_gpu_new(NULL);
  assert_non_null(f->g);
  f->q = qpu_cluster_of(f->g)->qpu[0];
  assert_int_equal(gs_mem_alloc(f->g->mem, 256, 16, &f->unif, NULL), GS_OK);
  qpu_reset(f->q, 0, 0x1000, f->unif, 1000);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  gs_gpu_free(f->g);
  free(f);
  return 0;
}

static gs_addr alloc_zero(fixture *f, uint32_t size, uint32_t align) {
  gs_addr a;
  assert_int_equal(gs_mem_alloc(f->g->mem, size, align, &a, NULL), GS_OK);
  return a;
}

static uint32_t cfg0(gs_addr base, unsigned type, unsigned flipy, unsigned miplvls) {
  return base | (type & 15) << 4 | flipy << 8 | miplvls;
}
enum { MAG_LINEAR = 0, MAG_NEAREST = 1 };
enum { REPEAT = 0, CLAMP = 1, MIRROR = 2, BORDER = 3 };
static uint32_t cfg1(unsigned type, unsigned w, unsigned h, unsigned mag, unsigned min, unsigned wrap_s,
                     unsigned wrap_t) {
  return (type >> 4) << 31 | (h & 0x7ff) << 20 | (w & 0x7ff) << 8 | mag << 7 | min << 4 | wrap_t << 2 | wrap_s;
}

static gs_vec splat(uint32_t v) {
  gs_vec r;
  for (int i = 0; i < QPU_LANES; i++) r.u[i] = v;
  return r;
}
static uint32_t fbits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}

/* Optional parameters of a lookup. */
typedef struct lookup_args {
  int has_r, has_b;
  uint32_t r;
  float b;
} lookup_args;

/* A texture lookup on TMU0 at (s, t) in every lane: writes T, [R], [B], then
 * S, with the config words as the uniforms they pop, and returns the result
 * (checking that every lane agrees). */
static uint32_t lookup(fixture *f, uint32_t p0, uint32_t p1, float s, float t, const lookup_args *a) {
  uint32_t cfg[4] = {p0, p1, 0, 0};
  unsigned n = 2 + (a && a->has_r) + (a && a->has_b);
  memcpy(gs_mem_ptr(f->g->mem, f->unif, 16), cfg, sizeof cfg);
  f->q->unif_addr = f->unif;
  gs_vec v = splat(fbits(t));
  assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_T, &v, 0xffff), GS_OK);
  if (a && a->has_r) {
    v = splat(a->r);
    assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_R, &v, 0xffff), GS_OK);
  }
  if (a && a->has_b) {
    v = splat(fbits(a->b));
    assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_B, &v, 0xffff), GS_OK);
  }
  v = splat(fbits(s));
  int rc = qpu_tmu_write(f->g, f->q, 0, QPU_TMU_S, &v, 0xffff);
  if (rc != GS_OK) fail_msg("lookup: %s", gs_gpu_error(f->g));
  assert_int_equal(f->q->unif_addr, f->unif + 4 * n);
  gs_vec out;
  assert_int_equal(qpu_tmu_pop(f->g, f->q, 0, &out), GS_OK);
  for (int i = 1; i < QPU_LANES; i++) assert_int_equal(out.u[i], out.u[0]);
  return out.u[0];
}

/* ---- formats ------------------------------------------------------------------ */

/* A 1x1 texture (LT format: its texel is at offset 0) of each type; the
 * expected words are worked out by hand, 4/5/6-bit channels widened by
 * replicating their top bits. */
static void test_formats(void **state) {
  fixture *f = *state;
  static const struct {
    unsigned type;
    uint32_t texel, want;
  } cases[] = {
      {0, 0x80402010u, 0x80402010u},  /* RGBA8888: unchanged */
      {1, 0x00402010u, 0xff402010u},  /* RGBX8888: A = 255 */
      {2, 0x1234u, 0x44332211u},      /* RGBA4444: R=1 G=2 B=3 A=4 -> 0x11.. */
      {2, 0xf0a5u, 0x55aa00ffu},      /* R=f G=0 B=a A=5 */
      {3, 0xf821u, 0xff8400ffu},      /* RGBA5551: R=31 G=0 B=16 (->0x84) A=1 */
      {3, 0xf820u, 0x008400ffu},      /* A=0 */
      {4, 0x0c1fu, 0xffff8208u},      /* RGB565: R=1 (->8) G=32 (->0x82) B=31 */
      {5, 0x7bu, 0xff7b7b7bu},        /* LUMINANCE */
      {6, 0x7bu, 0x7b000000u},        /* ALPHA */
      {7, 0x9a7bu, 0x9a7b7b7bu},      /* LUMALPHA: L low byte, A high */
      {16, 0x11223344u, 0x11223344u}, /* RGBA32R (raster) */
  };
  gs_addr tex = alloc_zero(f, 4096, 4096);
  uint8_t *m = gs_mem_ptr(f->g->mem, tex, 4);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    for (int k = 0; k < 4; k++) m[k] = (uint8_t)(cases[i].texel >> (8 * k));
    uint32_t got = lookup(f, cfg0(tex, cases[i].type, 0, 0), cfg1(cases[i].type, 1, 1, MAG_NEAREST, 1, 0, 0), 0.5f,
                          0.5f, NULL);
    if (got != cases[i].want)
      fail_msg("type %u texel 0x%x: got 0x%08x, want 0x%08x", cases[i].type, cases[i].texel, got, cases[i].want);
  }
}

static void test_unmodelled_type(void **state) {
  fixture *f = *state;
  gs_addr tex = alloc_zero(f, 4096, 4096);
  uint32_t cfg[2] = {cfg0(tex, 8, 0, 0), cfg1(8, 4, 4, MAG_NEAREST, 1, 0, 0)};
  memcpy(gs_mem_ptr(f->g->mem, f->unif, 8), cfg, 8);
  gs_vec v = splat(0);
  assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_T, &v, 0xffff), GS_OK);
  assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_S, &v, 0xffff), GS_EINVAL);
  assert_non_null(strstr(gs_gpu_error(f->g), "ETC1"));
}

/* ---- addressing through lookups ---------------------------------------------- */

/* A 64x64 RGBA8888 texture (T-format) whose every word holds its own byte
 * offset: a nearest lookup of texel (x, y) returns where the TMU read it. */
static void test_t_format_addressing(void **state) {
  fixture *f = *state;
  gs_addr tex = alloc_zero(f, 16384, 4096);
  uint32_t *w = gs_mem_ptr(f->g->mem, tex, 16384);
  for (uint32_t i = 0; i < 4096; i++) w[i] = 4 * i;
  for (size_t i = 0; i < sizeof offset_cases / sizeof offset_cases[0]; i++) {
    const offset_case *c = &offset_cases[i];
    if (c->layout != TILING_T || c->cpp != 4) continue;
    float s = ((float)c->x + 0.5f) / 64, t = ((float)c->y + 0.5f) / 64;
    uint32_t got = lookup(f, cfg0(tex, 0, 0, 0), cfg1(0, 64, 64, MAG_NEAREST, 1, 0, 0), s, t, NULL);
    if (got != c->offset) fail_msg("texel (%u, %u) read at offset %u, want %u", c->x, c->y, got, c->offset);
  }
}

/* The same with 16-bit LUMALPHA texels holding their half-word index
 * (returned as L | A << 8) in a 64x64 T-format texture. */
static void test_t_format_addressing_16bit(void **state) {
  fixture *f = *state;
  gs_addr tex = alloc_zero(f, 8192, 4096);
  uint16_t *h = gs_mem_ptr(f->g->mem, tex, 8192);
  for (uint32_t i = 0; i < 4096; i++) h[i] = (uint16_t)i;
  uint32_t got = lookup(f, cfg0(tex, 7, 0, 0), cfg1(7, 64, 64, MAG_NEAREST, 1, 0, 0), 9.5f / 64, 5.5f / 64, NULL);
  assert_int_equal((got & 0xff) | (got >> 24) << 8, 338 / 2);
  got = lookup(f, cfg0(tex, 7, 0, 0), cfg1(7, 64, 64, MAG_NEAREST, 1, 0, 0), 0.5f / 64, 32.5f / 64, NULL);
  assert_int_equal((got & 0xff) | (got >> 24) << 8, 6144 / 2);
}

/* A 3x2 raster (RGBA32R) texture: NPOT rows are addressed as 4 texels
 * apart (erratum HW-2898). */
static void test_raster_addressing(void **state) {
  fixture *f = *state;
  gs_addr tex = alloc_zero(f, 4096, 4096);
  uint32_t *w = gs_mem_ptr(f->g->mem, tex, 64);
  for (uint32_t i = 0; i < 16; i++) w[i] = 4 * i;
  uint32_t got = lookup(f, cfg0(tex, 16, 0, 0), cfg1(16, 3, 2, MAG_NEAREST, 1, 0, 0), 2.5f / 3, 1.5f / 2, NULL);
  assert_int_equal(got, 1 * 16 + 2 * 4);
}

/* ---- mip levels ---------------------------------------------------------------- */

/* 64x64 RGBA8888 with MIPLVLS = 2: level 0 (T, 16 KB) at BASE, level 1 32x32
 * (T, 4 KB) at BASE - 4096, level 2 16x16 (LT, 1 KB) at BASE - 5120. Each
 * level is filled with one colour. */
static void test_mip_levels(void **state) {
  fixture *f = *state;
  enum { RED = 0xff0000ffu, GREEN = 0xff00ff00u, BLUE = 0xffff0000u };
  gs_addr region = alloc_zero(f, 8192 + 16384, 4096), base = region + 8192;
  uint32_t *w = gs_mem_ptr(f->g->mem, region, 8192 + 16384);
  for (uint32_t i = 0; i < 4096; i++) w[(8192 + 4 * i) / 4] = RED;
  for (uint32_t i = 0; i < 1024; i++) w[(4096 + 4 * i) / 4] = GREEN;
  for (uint32_t i = 0; i < 256; i++) w[(3072 + 4 * i) / 4] = BLUE;
  static const struct {
    unsigned minfilt;
    int has_b;
    float b;
    uint32_t want;
  } cases[] = {
      {2, 0, 0, RED},             /* B not written: level 0 */
      {2, 1, -1.0f, RED},         /* LOD <= 0 magnifies */
      {2, 1, 1.0f, GREEN},        /* nearest-mip-nearest */
      {2, 1, 2.0f, BLUE},
      {2, 1, 5.0f, BLUE},         /* clamped to MIPLVLS */
      {2, 1, 1.5f, GREEN},        /* halves round down */
      {2, 1, 1.53125f, BLUE},
      {1, 1, 2.0f, RED},          /* MINFILT 1: level 0 only */
      {5, 1, 1.5f, 0xff808000u},  /* linear-mip-linear: G, B = (255*128 + 128) / 256 = 128 */
      {5, 1, 1.25f, 0xff40bf00u}, /* weight 64: G = (255*192 + 128)/256 = 191, B = 64 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lookup_args a = {0, cases[i].has_b, 0, cases[i].b};
    uint32_t got = lookup(f, cfg0(base, 0, 0, 2), cfg1(0, 64, 64, MAG_NEAREST, cases[i].minfilt, 0, 0), 0.3f, 0.6f, &a);
    if (got != cases[i].want)
      fail_msg("MINFILT %u, B %g: got 0x%08x, want 0x%08x", cases[i].minfilt, cases[i].b, got, cases[i].want);
  }
}

/* ---- filters and wrap modes ------------------------------------------------------ */

/* A 4x1 RGBA8888 texture (LT: texel x at offset 4x) with R = 0, 64, 128,
 * 255, G = B = 0, A = 255. Bilinear: u = s*4*256 - 128 in 1/256 texels,
 * weights fx and 256 - fx, result rounded to nearest. */
static void test_filters_and_wraps_1d(void **state) {
  fixture *f = *state;
  gs_addr tex = alloc_zero(f, 4096, 4096);
  uint32_t *w = gs_mem_ptr(f->g->mem, tex, 16);
  static const uint32_t reds[4] = {0, 64, 128, 255};
  for (int i = 0; i < 4; i++) w[i] = 0xff000000u | reds[i];
  static const struct {
    unsigned mag, wrap;
    float s;
    uint32_t want_r;
  } cases[] = {
      {MAG_NEAREST, CLAMP, 0.3f, 64},   /* u = 1.2 */
      {MAG_NEAREST, CLAMP, 0.25f, 64},  /* exactly on the edge of texel 1 */
      {MAG_NEAREST, CLAMP, 0.99f, 255},
      {MAG_NEAREST, CLAMP, 1.7f, 255},
      {MAG_NEAREST, CLAMP, -3.0f, 0},
      {MAG_NEAREST, REPEAT, 1.3f, 64},  /* texel 5 -> 1 */
      {MAG_NEAREST, REPEAT, -0.1f, 255}, /* texel -1 -> 3 */
      {MAG_NEAREST, MIRROR, 1.1f, 255}, /* texel 4 -> 3 */
      {MAG_NEAREST, MIRROR, 1.3f, 128}, /* texel 5 -> 2 */
      {MAG_NEAREST, MIRROR, -0.1f, 0},  /* texel -1 -> 0 */
      {MAG_NEAREST, MIRROR, -0.3f, 64}, /* texel -2 -> 1 */
      {MAG_LINEAR, CLAMP, 0.375f, 64},  /* on the centre of texel 1 */
      {MAG_LINEAR, CLAMP, 0.5f, 96},    /* halfway between 64 and 128 */
      {MAG_LINEAR, CLAMP, 0.4375f, 80}, /* fx = 64: 64*3/4 + 128/4 */
      {MAG_LINEAR, CLAMP, 0.3f, 45},    /* u = 307 - 128 = 179: 64*179/256 = 44.75 */
      {MAG_LINEAR, CLAMP, 0.0f, 0},     /* texels -1 and 0 both clamp to 0 */
      {MAG_LINEAR, CLAMP, 1.0f, 255},
      {MAG_LINEAR, REPEAT, 0.0f, 128},  /* texels 3 and 0: 127.5 rounds up */
      {MAG_LINEAR, MIRROR, 0.0f, 0},    /* texel -1 mirrors to 0 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint32_t got = lookup(f, cfg0(tex, 0, 0, 0), cfg1(0, 4, 1, cases[i].mag, 1, cases[i].wrap, CLAMP), cases[i].s,
                          0.5f, NULL);
    if (got != (0xff000000u | cases[i].want_r))
      fail_msg("case %zu (filter %u wrap %u s %g): got 0x%08x, want R %u", i, cases[i].mag, cases[i].wrap,
               cases[i].s, got, cases[i].want_r);
  }
  /* border: texels outside take R's element 0 as an RGBA8888 word */
  lookup_args border = {1, 0, 0x12345678u, 0};
  assert_int_equal(lookup(f, cfg0(tex, 0, 0, 0), cfg1(0, 4, 1, MAG_NEAREST, 1, BORDER, CLAMP), 1.3f, 0.5f, &border),
                   0x12345678u);
  assert_int_equal(lookup(f, cfg0(tex, 0, 0, 0), cfg1(0, 4, 1, MAG_NEAREST, 1, BORDER, CLAMP), 0.6f, 0.5f, &border),
                   0xff000080u);
  /* bilinear at s = 0: half border (0x12345678), half texel 0 (0xff000000):
   * R 120/2 = 60, G 86/2 = 43, B 52/2 = 26, A (18 + 255)/2 = 136.5 -> 137 */
  assert_int_equal(lookup(f, cfg0(tex, 0, 0, 0), cfg1(0, 4, 1, MAG_LINEAR, 1, BORDER, CLAMP), 0.0f, 0.5f, &border),
                   0x891a2b3cu);
}

/* A 2x2 RGBA8888 texture (LT: texel (x, y) at 16y + 4x) with R = 0, 100 in
 * row 0 and 200, 40 in row 1. */
static void test_bilinear_2d_and_flipy(void **state) {
  fixture *f = *state;
  gs_addr tex = alloc_zero(f, 4096, 4096);
  uint32_t *w = gs_mem_ptr(f->g->mem, tex, 32);
  w[0] = 0xff000000u | 0;
  w[1] = 0xff000000u | 100;
  w[4] = 0xff000000u | 200;
  w[5] = 0xff000000u | 40;
  /* centre: (0 + 100 + 200 + 40) / 4 = 85 */
  assert_int_equal(lookup(f, cfg0(tex, 0, 0, 0), cfg1(0, 2, 2, MAG_LINEAR, 0, CLAMP, CLAMP), 0.5f, 0.5f, NULL),
                   0xff000000u | 85);
  /* s = 0.625: fx = 192; t = 0.375: fy = 64. Weights 64*192, 192*192,
   * 64*64, 192*64: (100*36864 + 200*4096 + 40*12288) / 65536 = 76.25 */
  assert_int_equal(lookup(f, cfg0(tex, 0, 0, 0), cfg1(0, 2, 2, MAG_LINEAR, 0, CLAMP, CLAMP), 0.625f, 0.375f, NULL),
                   0xff000000u | 76);
  /* FLIPY: t near 0 reads the last row in memory */
  assert_int_equal(lookup(f, cfg0(tex, 0, 0, 0), cfg1(0, 2, 2, MAG_NEAREST, 1, CLAMP, CLAMP), 0.2f, 0.1f, NULL),
                   0xff000000u | 0);
  assert_int_equal(lookup(f, cfg0(tex, 0, 1, 0), cfg1(0, 2, 2, MAG_NEAREST, 1, CLAMP, CLAMP), 0.2f, 0.1f, NULL),
                   0xff000000u | 200);
}

/* ---- requests, lanes, FIFO ------------------------------------------------------ */

/* Direct lookups: S alone is a byte address per lane; the aligned word is
 * returned; no uniform is consumed; lanes outside the write's mask give 0. */
static void test_direct_lookup(void **state) {
  fixture *f = *state;
  gs_addr a = alloc_zero(f, 64, 16);
  uint32_t *w = gs_mem_ptr(f->g->mem, a, 64);
  for (uint32_t i = 0; i < 16; i++) w[i] = 0xc0de0000u + i;
  gs_vec s;
  for (int i = 0; i < QPU_LANES; i++) s.u[i] = a + 4 * (15 - (uint32_t)i) + (uint32_t)(i & 3);
  f->q->unif_addr = 0; /* a uniform pop would fault */
  assert_int_equal(qpu_tmu_write(f->g, f->q, 1, QPU_TMU_S, &s, 0x00ff), GS_OK);
  gs_vec out;
  assert_int_equal(qpu_tmu_pop(f->g, f->q, 1, &out), GS_OK);
  for (int i = 0; i < QPU_LANES; i++) assert_int_equal(out.u[i], i < 8 ? 0xc0de0000u + 15 - (uint32_t)i : 0);
  /* outside memory: names the address */
  s.u[3] = a + 64;
  assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_S, &s, 0xffff), GS_EFAULT);
  char want[64];
  snprintf(want, sizeof want, "TMU0 direct read of 0x%08x (element 3)", a + 64);
  if (!strstr(gs_gpu_error(f->g), want)) fail_msg("\"%s\" lacks \"%s\"", gs_gpu_error(f->g), want);
}

/* Results come back in request order; the ninth outstanding result and a
 * pop with nothing queued are errors that say what happened. */
static void test_fifo_order_and_overflow(void **state) {
  fixture *f = *state;
  gs_addr a = alloc_zero(f, 64, 16);
  uint32_t *w = gs_mem_ptr(f->g->mem, a, 64);
  for (uint32_t i = 0; i < 16; i++) w[i] = 100 + i;
  gs_vec out;
  assert_int_equal(qpu_tmu_pop(f->g, f->q, 0, &out), GS_EHANG);
  assert_non_null(strstr(gs_gpu_error(f->g), "ldtmu0 with no TMU0 result pending"));
  for (uint32_t r = 0; r < 2; r++) {
    if (r == 1) { /* move the FIFO's head so that the second round wraps around */
      gs_vec s = splat(a);
      assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_S, &s, 0xffff), GS_OK);
      assert_int_equal(qpu_tmu_pop(f->g, f->q, 0, &out), GS_OK);
    }
    for (uint32_t k = 0; k < QPU_TMU_FIFO_DEPTH; k++) {
      gs_vec s = splat(a + 4 * ((k + r) % 16));
      assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_S, &s, 0xffff), GS_OK);
    }
    gs_vec s = splat(a);
    assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_S, &s, 0xffff), GS_EHANG);
    assert_non_null(strstr(gs_gpu_error(f->g), "TMU0 result FIFO overflow"));
    assert_int_equal(qpu_tmu_pop(f->g, f->q, 1, &out), GS_EHANG); /* TMU1 has its own FIFO */
    for (uint32_t k = 0; k < QPU_TMU_FIFO_DEPTH; k++) {
      assert_int_equal(qpu_tmu_pop(f->g, f->q, 0, &out), GS_OK);
      assert_int_equal(out.u[7], 100 + (k + r) % 16);
    }
  }
}

/* Each parameter write pops one uniform in write order; a texture lookup
 * only looks up the lanes of the S write; reads outside memory name the
 * address; a parameter written twice is an error. */
static void test_request_rules(void **state) {
  fixture *f = *state;
  gs_addr tex = alloc_zero(f, 4096, 4096);
  *(uint32_t *)gs_mem_ptr(f->g->mem, tex, 4) = 0x01020304u;
  uint32_t cfg[4] = {cfg0(tex, 0, 0, 0), cfg1(0, 1, 1, MAG_NEAREST, 1, 0, 0), 0, 0};
  memcpy(gs_mem_ptr(f->g->mem, f->unif, 16), cfg, 16);
  gs_vec v = splat(0);
  /* B first, then S: p0 goes with B, p1 with S */
  assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_B, &v, 0xffff), GS_OK);
  assert_int_equal(f->q->unif_addr, f->unif + 4);
  assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_S, &v, 0x8001), GS_OK);
  assert_int_equal(f->q->unif_addr, f->unif + 8);
  gs_vec out;
  assert_int_equal(qpu_tmu_pop(f->g, f->q, 0, &out), GS_OK);
  for (int i = 0; i < QPU_LANES; i++) assert_int_equal(out.u[i], i == 0 || i == 15 ? 0x01020304u : 0);
  /* T twice */
  assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_T, &v, 0xffff), GS_OK);
  assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_T, &v, 0xffff), GS_EINVAL);
  assert_non_null(strstr(gs_gpu_error(f->g), "TMU0 T written twice"));
  /* a texture whose base is not allocated */
  qpu_reset(f->q, 0, 0x1000, f->unif, 1000);
  cfg[0] = cfg0(0x7f000000u, 0, 0, 0);
  memcpy(gs_mem_ptr(f->g->mem, f->unif, 16), cfg, 16);
  assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_T, &v, 0xffff), GS_OK);
  assert_int_equal(qpu_tmu_write(f->g, f->q, 0, QPU_TMU_S, &v, 0xffff), GS_EFAULT);
  assert_non_null(strstr(gs_gpu_error(f->g), "TMU0 texture read of 0x7f000000"));
}

/* The sampler without a QPU, as another instruction set's texture
 * instructions use it: 32 lanes and a mask, a decoded config, errors in the
 * caller's diag without any unit's prefix. A 4x4 RGBA8888 texture is one LT
 * micro-tile, texel (x, y) at byte 16y + 4x (test_tiling_offsets). */
static void test_neutral_sampler(void **state) {
  fixture *f = *state;
  gs_addr tex = alloc_zero(f, 4096, 4096);
  uint32_t *w = gs_mem_ptr(f->g->mem, tex, 64);
  for (uint32_t i = 0; i < 16; i++) w[i] = 0x7e000000u + i;
  gs_diag d = {0};
  tmu_texture t;
  uint32_t cfg[2] = {cfg0(tex, 8, 0, 0), cfg1(8, 4, 4, MAG_NEAREST, 1, 0, 0)};
  assert_int_equal(tmu_texture_decode(cfg, 2, 1, &t, &d), GS_EINVAL);
  assert_string_equal(d.msg, "TMU1: texture type 8 (ETC1) is not modelled");
  cfg[0] = cfg0(tex, 0, 0, 0);
  cfg[1] = cfg1(0, 4, 4, MAG_NEAREST, 1, 0, 0);
  assert_int_equal(tmu_texture_decode(cfg, 2, 1, &t, &d), GS_OK);
  /* lane i samples texel (i % 4, i / 8 % 4) at its centre; T only for
   * lanes given; lanes outside the mask give 0 */
  uint32_t s[TMU_MAX_LANES], tt[TMU_MAX_LANES], out[TMU_MAX_LANES];
  for (unsigned i = 0; i < TMU_MAX_LANES; i++) {
    s[i] = fbits(((float)(i % 4) + 0.5f) / 4);
    tt[i] = fbits(((float)(i / 8 % 4) + 0.5f) / 4);
  }
  uint32_t mask = 0xf00f0f01u;
  tmu_lanes l = {TMU_MAX_LANES, mask, s, tt, NULL, 0};
  assert_int_equal(tmu_sample(f->g->mem, &t, 1, &l, out, &d), GS_OK);
  for (unsigned i = 0; i < TMU_MAX_LANES; i++)
    assert_int_equal(out[i], mask >> i & 1 ? 0x7e000000u + 4 * (i / 8 % 4) + i % 4 : 0);
  /* without T every lane reads row 0 */
  l.t = NULL;
  assert_int_equal(tmu_sample(f->g->mem, &t, 1, &l, out, &d), GS_OK);
  assert_int_equal(out[31], 0x7e000003u);
  /* direct reads: lane i reads word 15 - i % 16; lane 30 is outside memory */
  uint32_t addr[TMU_MAX_LANES];
  for (unsigned i = 0; i < TMU_MAX_LANES; i++) addr[i] = tex + 4 * (15 - i % 16) + (i & 3);
  assert_int_equal(tmu_direct_read(f->g->mem, 0, TMU_MAX_LANES, 0x80010002u, addr, out, &d), GS_OK);
  for (unsigned i = 0; i < TMU_MAX_LANES; i++)
    assert_int_equal(out[i], i == 1 || i == 16 || i == 31 ? 0x7e000000u + 15 - i % 16 : 0);
  addr[30] = tex + 4096;
  assert_int_equal(tmu_direct_read(f->g->mem, 0, TMU_MAX_LANES, 0x40000000u, addr, out, &d), GS_EFAULT);
  char want[128];
  snprintf(want, sizeof want, "TMU0 direct read of 0x%08x (element 30) is outside allocated GPU memory", tex + 4096);
  assert_string_equal(d.msg, want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tiling_offsets),
      cmocka_unit_test(test_tiling_choice_and_size),
      cmocka_unit_test_setup_teardown(test_formats, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unmodelled_type, setup, teardown),
      cmocka_unit_test_setup_teardown(test_t_format_addressing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_t_format_addressing_16bit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_raster_addressing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mip_levels, setup, teardown),
      cmocka_unit_test_setup_teardown(test_filters_and_wraps_1d, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bilinear_2d_and_flipy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_direct_lookup, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fifo_order_and_overflow, setup, teardown),
      cmocka_unit_test_setup_teardown(test_request_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(test_neutral_sampler, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
