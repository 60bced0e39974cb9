/* test_ptb.c — the primitive tile binner (src/v3d/ptb*.c): primitive
 * assembly of every mode, face culling under both clockwise settings,
 * clipping against near, far, W > 0 and the guard band (clipped vertices,
 * their barycentric coefficients and record values worked out by hand),
 * exact tile coverage with the fill rule (tile corners, edges on tile
 * boundaries, slivers, full-screen pairs, the clip window), points and
 * lines on tile edges, list order, storage limits and the benchmark hook.
 * Every expected value below comes from the rules in docs/binning.md,
 * computed by hand in the comments, not from the implementation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "v3d/pse.h"
#include "v3d/ptb.h"

#define PX(p) ((int32_t)((p) * 16)) /* pixels to 12.4 (exact for multiples of 1/16) */

/* ---- fixture: a 4x4-tile (256x256) frame ------------------------------------- */

typedef struct fixture {
  ptb_tile tiles[16];
  ptb_prim prims[64];
  ptb_clip_record clips[32];
  ptb_ref refs[512];
  ptb_bins bins;
  ptb_state st;
  ptb_vertex v[32];
} fixture;

static fixture fx;

/* Empties the lists and resets the state; the vertices stay. */
/* A 4x4 grid of tiles of record 112's flags, `samples` sample points per pixel. */
static void fixture_reset_grid(uint32_t prim_cap, uint32_t clip_cap, uint32_t ref_cap, bool ms, bool c64,
                               unsigned samples) {
  memset(&fx, 0, offsetof(fixture, v));
  ptb_buffers buf = {fx.tiles, 16, fx.prims, prim_cap, fx.clips, clip_cap, fx.refs, ref_cap};
  ptb_grid g;
  ptb_grid_make(&g, 4, 4, ms, c64);
  g.samples = samples;
  assert_int_equal(ptb_bins_init(&fx.bins, &g, &buf), PTB_OK);
  ptb_state_init(&fx.st);
}

static void fixture_reset(uint32_t prim_cap, uint32_t clip_cap, uint32_t ref_cap) {
  fixture_reset_grid(prim_cap, clip_cap, ref_cap, false, false, 1);
}

static int setup(void **state) {
  (void)state;
  fixture_reset(64, 32, 512);
  return 0;
}

/* A vertex at absolute 12.4 screen position (X, Y) with viewport offset 0. */
static void screen_vertex(ptb_vertex *v, int32_t X, int32_t Y) {
  memset(v, 0, sizeof *v);
  v->xs = (int16_t)X, v->ys = (int16_t)Y;
  v->wc = 1.0f, v->inv_wc = 1.0f;
}

/* Bins vertices fx.v[0..count-1] as one vertex-array draw of `mode`. */
static ptb_result draw_array(ptb_mode mode, uint32_t count, uint32_t tag) {
  ptb_vertices vs = {fx.v, 0, 32};
  ptb_draw d = {.mode = mode, .index_type = PTB_INDEX_NONE, .count = count, .first = 0, .tag = tag};
  return ptb_bin_draw(&fx.bins, &fx.st, &vs, &d, NULL);
}

/* Bit ty*4+tx set for each tile whose list holds primitive `prim`. */
static uint32_t tiles_of(uint32_t prim) {
  uint32_t mask = 0;
  for (uint32_t ty = 0; ty < 4; ty++)
    for (uint32_t tx = 0; tx < 4; tx++) {
      uint32_t list[64];
      uint32_t n = ptb_tile_prims(&fx.bins, tx, ty, list, 64);
      for (uint32_t i = 0; i < n; i++)
        if (list[i] == prim)
          mask |= 1u << (ty * 4 + tx);
    }
  return mask;
}

#define T(tx, ty) (1u << ((ty) * 4 + (tx)))

/* Bins one triangle given in pixels and returns its tile mask (0 if it was
 * not stored). */
static uint32_t triangle_tiles(double x0, double y0, double x1, double y1, double x2, double y2) {
  fixture_reset(64, 32, 512);
  screen_vertex(&fx.v[0], PX(x0), PX(y0));
  screen_vertex(&fx.v[1], PX(x1), PX(y1));
  screen_vertex(&fx.v[2], PX(x2), PX(y2));
  assert_int_equal(draw_array(PTB_TRIANGLES, 3, 0), PTB_OK);
  return fx.bins.prim_count ? tiles_of(0) : 0;
}

/* ---- primitive assembly ---------------------------------------------------- */

typedef struct assembly_case {
  ptb_mode mode;
  unsigned count;
  uint32_t expect[8][3];
  unsigned prims;
} assembly_case;

static void check_assembly(const ptb_draw *d, const assembly_case *c) {
  unsigned nv = ptb_mode_vertices(c->mode);
  assert_int_equal(ptb_prim_count(c->mode, c->count), c->prims);
  for (unsigned k = 0; k < c->prims; k++) {
    uint32_t idx[3] = {0};
    assert_int_equal(ptb_assemble(d, k, idx), nv);
    for (unsigned i = 0; i < nv; i++)
      assert_int_equal(idx[i], c->expect[k][i]);
  }
  uint32_t idx[3];
  assert_int_equal(ptb_assemble(d, c->prims, idx), 0); /* past the end */
}

static void test_assembly_8bit(void **state) {
  (void)state;
  static const uint8_t ix[] = {10, 11, 12, 13, 14, 15, 16};
  static const assembly_case cases[] = {
      {PTB_POINTS, 3, {{10}, {11}, {12}}, 3},
      {PTB_LINES, 5, {{10, 11}, {12, 13}}, 2}, /* index 14 dropped */
      {PTB_LINE_LOOP, 3, {{10, 11}, {11, 12}, {12, 10}}, 3},
      {PTB_LINE_LOOP, 2, {{10, 11}, {11, 10}}, 2},
      {PTB_LINE_LOOP, 1, {{0}}, 0},
      {PTB_LINE_STRIP, 4, {{10, 11}, {11, 12}, {12, 13}}, 3},
      {PTB_LINE_STRIP, 1, {{0}}, 0},
      {PTB_TRIANGLES, 7, {{10, 11, 12}, {13, 14, 15}}, 2}, /* 16 dropped */
      {PTB_TRIANGLE_STRIP, 6, {{10, 11, 12}, {12, 11, 13}, {12, 13, 14}, {14, 13, 15}}, 4},
      {PTB_TRIANGLE_STRIP, 2, {{0}}, 0},
      {PTB_TRIANGLE_FAN, 5, {{10, 11, 12}, {10, 12, 13}, {10, 13, 14}}, 3},
      {PTB_TRIANGLE_FAN, 2, {{0}}, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ptb_draw d = {.mode = cases[i].mode, .index_type = PTB_INDEX_8, .indices = ix, .count = cases[i].count};
    check_assembly(&d, &cases[i]);
  }
}

static void test_assembly_16bit_and_arrays(void **state) {
  (void)state;
  /* little-endian 16-bit: 0x0100, 0x0002, 0xfffe, 0x1234, 5, 6, 7, 8 */
  static const uint8_t ix[] = {0x00, 0x01, 0x02, 0x00, 0xfe, 0xff, 0x34, 0x12, 5, 0, 6, 0, 7, 0, 8, 0};
  assembly_case tris = {PTB_TRIANGLES, 8, {{256, 2, 65534}, {0x1234, 5, 6}}, 2};
  ptb_draw d = {.mode = PTB_TRIANGLES, .index_type = PTB_INDEX_16, .indices = ix, .count = 8};
  check_assembly(&d, &tris);
  assembly_case loop = {PTB_LINE_LOOP, 3, {{256, 2}, {2, 65534}, {65534, 256}}, 3};
  d.mode = PTB_LINE_LOOP, d.count = 3;
  check_assembly(&d, &loop);
  /* Vertex arrays: indices first, first+1, ... */
  assembly_case strip = {PTB_TRIANGLE_STRIP, 5, {{100, 101, 102}, {102, 101, 103}, {102, 103, 104}}, 3};
  ptb_draw a = {.mode = PTB_TRIANGLE_STRIP, .index_type = PTB_INDEX_NONE, .count = 5, .first = 100};
  check_assembly(&a, &strip);
  assembly_case fan = {PTB_TRIANGLE_FAN, 4, {{7, 8, 9}, {7, 9, 10}}, 2};
  a.mode = PTB_TRIANGLE_FAN, a.count = 4, a.first = 7;
  check_assembly(&a, &fan);
  assembly_case pts = {PTB_POINTS, 2, {{7}, {8}}, 2};
  a.mode = PTB_POINTS, a.count = 2;
  check_assembly(&a, &pts);
  /* unknown mode */
  a.mode = (ptb_mode)7;
  uint32_t idx[3];
  assert_int_equal(ptb_prim_count(a.mode, 10), 0);
  assert_int_equal(ptb_assemble(&a, 0, idx), 0);
}

/* A zig-zag strip: every triangle has the same (positive) area sign, and a
 * fan around a centre keeps its winding too. */
static void test_strip_and_fan_winding(void **state) {
  (void)state;
  /* strip vertices: (0,0) (16,0) (0,16) (16,16) (0,32) (16,32) */
  static const int32_t sx[] = {0, 16, 0, 16, 0, 16}, sy[] = {0, 0, 16, 16, 32, 32};
  ptb_draw d = {.mode = PTB_TRIANGLE_STRIP, .index_type = PTB_INDEX_NONE, .count = 6};
  for (uint32_t k = 0; k < 4; k++) {
    uint32_t idx[3];
    int32_t x[3], y[3];
    assert_int_equal(ptb_assemble(&d, k, idx), 3);
    for (int i = 0; i < 3; i++)
      x[i] = sx[idx[i]], y[i] = sy[idx[i]];
    /* each is a right triangle with legs of 16: |A| = 256 */
    assert_int_equal(ptb_area(x, y), 256);
  }
  /* fan: centre (0,0), then (16,0) (16,16) (0,16) (-16,16) */
  static const int32_t fxs[] = {0, 16, 16, 0, -16}, fys[] = {0, 0, 16, 16, 16};
  d.mode = PTB_TRIANGLE_FAN, d.count = 5;
  for (uint32_t k = 0; k < 3; k++) {
    uint32_t idx[3];
    int32_t x[3], y[3];
    assert_int_equal(ptb_assemble(&d, k, idx), 3);
    for (int i = 0; i < 3; i++)
      x[i] = fxs[idx[i]], y[i] = fys[idx[i]];
    assert_int_equal(ptb_area(x, y), 256);
  }
}

/* ---- shaded vertex decoding ------------------------------------------------- */

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static void test_vertex_unpack(void **state) {
  (void)state;
  /* Xs = -16 (0xfff0), Ys = 32 (0x0020) */
  uint32_t rows[8] = {bits_of(1.5f), bits_of(-2.0f), bits_of(0.25f), bits_of(4.0f), 0x0020fff0u,
                      bits_of(0.75f), bits_of(0.25f), bits_of(3.0f)};
  ptb_vertex v;
  ptb_vertex_unpack(&v, rows, true);
  assert_true(v.xc == 1.5f && v.yc == -2.0f && v.zc == 0.25f && v.wc == 4.0f);
  assert_int_equal(v.xs, -16);
  assert_int_equal(v.ys, 32);
  assert_true(v.zs == 0.75f && v.inv_wc == 0.25f && v.point_size == 3.0f);
  rows[4] = 0x80007fffu; /* Ys = -32768, Xs = 32767 */
  ptb_vertex_unpack(&v, rows, false);
  assert_int_equal(v.xs, 32767);
  assert_int_equal(v.ys, -32768);
  assert_true(v.point_size == 0.0f);
}

/* ---- face culling -------------------------------------------------------------- */

static void test_cull_functions(void **state) {
  (void)state;
  ptb_state st;
  ptb_state_init(&st);
  /* (0,0) (16,0) (0,16): A = 16*16 - 0*0 = 256, counter-clockwise (y up) */
  int32_t x[3] = {0, 16, 0}, y[3] = {0, 0, 16};
  assert_int_equal(ptb_area(x, y), 256);
  int32_t xr[3] = {0, 0, 16}, yr[3] = {0, 16, 0};
  assert_int_equal(ptb_area(xr, yr), -256);
  assert_true(ptb_forward_facing(&st, 256));
  assert_false(ptb_forward_facing(&st, -256));
  assert_false(ptb_forward_facing(&st, 0));
  st.clockwise = true;
  assert_false(ptb_forward_facing(&st, 256));
  assert_true(ptb_forward_facing(&st, -256));
  /* enables: only reverse faces drawn */
  st.enable_forward = false, st.enable_reverse = true;
  assert_true(ptb_culled(&st, -256));  /* clockwise: A < 0 is forward */
  assert_false(ptb_culled(&st, 256));
  st.clockwise = false;
  assert_false(ptb_culled(&st, -256));
  assert_true(ptb_culled(&st, 256));
  st.enable_forward = st.enable_reverse = true;
  assert_true(ptb_culled(&st, 0)); /* zero area never drawn */
}

/* The same counter-clockwise triangle through the binner under both
 * clockwise settings. */
static void test_cull_in_binner(void **state) {
  (void)state;
  for (int cw = 0; cw <= 1; cw++) {
    for (int fwd = 0; fwd <= 1; fwd++) {
      fixture_reset(64, 32, 512);
      fx.st.clockwise = cw, fx.st.enable_forward = fwd, fx.st.enable_reverse = !fwd;
      screen_vertex(&fx.v[0], PX(10), PX(10));
      screen_vertex(&fx.v[1], PX(30), PX(10));
      screen_vertex(&fx.v[2], PX(10), PX(30));
      assert_int_equal(draw_array(PTB_TRIANGLES, 3, 0), PTB_OK);
      /* A > 0: forward when cw = 0, reverse when cw = 1 */
      bool forward = !cw;
      bool drawn = forward ? fwd : !fwd;
      assert_int_equal(fx.bins.prim_count, drawn ? 1 : 0);
      assert_int_equal(fx.bins.stats.culled, drawn ? 0 : 1);
      if (drawn)
        assert_int_equal(tiles_of(0), T(0, 0));
    }
  }
  /* points and lines are never culled by facing */
  fixture_reset(64, 32, 512);
  fx.st.enable_forward = fx.st.enable_reverse = false;
  screen_vertex(&fx.v[0], PX(10), PX(10));
  screen_vertex(&fx.v[1], PX(30), PX(10));
  assert_int_equal(draw_array(PTB_POINTS, 2, 0), PTB_OK);
  assert_int_equal(draw_array(PTB_LINES, 2, 0), PTB_OK);
  assert_int_equal(fx.bins.prim_count, 3);
}

/* ---- clipping ---------------------------------------------------------------- */

/* A 128x128-pixel viewport centred at (64, 64): XY scale 64*16 = 1024,
 * offset 1024; depth range [0, 1] (Z planes -W <= Z <= W). */
static void clip_state(ptb_state *st) {
  ptb_state_init(st);
  st->clip_enable = true;
  st->xy_scale_x = st->xy_scale_y = 1024.0f;
  st->viewport_x = st->viewport_y = 1024;
}

/* A clip-space vertex with the Xs/Ys/Zs/1/Wc a coordinate shader would
 * write for it under clip_state (only meaningful where Wc > 0). */
static void clip_vertex(ptb_vertex *v, float xc, float yc, float zc, float wc) {
  memset(v, 0, sizeof *v);
  v->xc = xc, v->yc = yc, v->zc = zc, v->wc = wc;
  if (wc > 0) {
    v->xs = (int16_t)(xc * 1024.0f / wc), v->ys = (int16_t)(yc * 1024.0f / wc);
    v->zs = zc * 0.5f / wc + 0.5f, v->inv_wc = 1.0f / wc;
  }
}

static void assert_point(const ptb_clip_point *p, double x, double y, double z, double w, double b0, double b1,
                         double b2, int orig) {
  assert_true(fabs(p->c[0] - x) < 1e-9 && fabs(p->c[1] - y) < 1e-9);
  assert_true(fabs(p->c[2] - z) < 1e-9 && fabs(p->c[3] - w) < 1e-9);
  assert_true(fabs(p->b[0] - b0) < 1e-9 && fabs(p->b[1] - b1) < 1e-9 && fabs(p->b[2] - b2) < 1e-9);
  assert_int_equal(p->orig, orig);
}

static void test_planes(void **state) {
  (void)state;
  ptb_state st;
  ptb_planes pl;
  clip_state(&st);
  ptb_planes_init(&pl, &st);
  const double in[4] = {0, 0, 0, 1}, near_out[4] = {0, 0, -1.5, 1}, far_out[4] = {0, 0, 1.5, 1};
  const double on_near[4] = {0, 0, -1, 1}, behind[4] = {0, 0, 0, -1};
  /* Xs = 40*1024 = 40960 > 32752: beyond the right guard band */
  const double right[4] = {40, 0, 0, 1}, edge[4] = {31.984375, 0, 0, 1}; /* Xs = 32752 exactly */
  assert_int_equal(ptb_outcode(&pl, in), 0);
  assert_int_equal(ptb_outcode(&pl, near_out), 1u << PTB_PLANE_NEAR);
  assert_int_equal(ptb_outcode(&pl, far_out), 1u << PTB_PLANE_FAR);
  assert_int_equal(ptb_outcode(&pl, on_near), 0);
  assert_int_equal(ptb_outcode(&pl, right), 1u << PTB_PLANE_RIGHT);
  assert_int_equal(ptb_outcode(&pl, edge), 0);
  /* W = -1, X = Y = Z = 0: behind W = 0 and outside near (0.5*0 + 0.5*-1
   * < 0), far (0.5*-1 - 0 < 0) and all four guard planes (G*W < 0) */
  assert_int_equal(ptb_outcode(&pl, behind), 0x7f);
  /* NaN in any coordinate: 0 * NaN is NaN, so every plane says outside */
  const double nan[4] = {NAN, 0, 0, 1};
  assert_int_equal(ptb_outcode(&pl, nan), 0x7f);
  /* Records 104/106 other than the default: Zs = Zc/Wc*0.25 + 0.5 kept in
   * [0.4, 0.6] means Zc/Wc in [-0.4, 0.4]. */
  st.z_scale = 0.25f, st.z_offset = 0.5f, st.z_min = 0.4f, st.z_max = 0.6f;
  ptb_planes_init(&pl, &st);
  const double z35[4] = {0, 0, 0.35, 1}, z45[4] = {0, 0, 0.45, 1}, zm45[4] = {0, 0, -0.9, 2};
  assert_int_equal(ptb_outcode(&pl, z35), 0);
  assert_int_equal(ptb_outcode(&pl, z45), 1u << PTB_PLANE_FAR);
  assert_int_equal(ptb_outcode(&pl, zm45), 1u << PTB_PLANE_NEAR);
}

/* V0 = (0,0,-3,1) is in front of the near plane (Z >= -W fails: near
 * distance 0.5*Z + 0.5*W = -1); V1 = (0.5,0,0,1) and V2 = (0,0.5,0,1) have
 * distance 0.5. Edge V1->V0 is cut at t = 0.5/(0.5+1) = 1/3 from V1:
 * Pa = (1/3, 0, -1, 1), weights (1/3, 2/3, 0); edge V2->V0 likewise at
 * Pb = (0, 1/3, -1, 1), weights (1/3, 0, 2/3). The polygon is
 * Pa, V1, V2, Pb (walked from V0's outgoing edge), fanned into
 * (Pa, V1, V2) and (Pa, V2, Pb). */
static void test_clip_near(void **state) {
  (void)state;
  ptb_state st;
  ptb_planes pl;
  ptb_vertex v[3];
  ptb_clip_poly poly;
  clip_state(&st);
  ptb_planes_init(&pl, &st);
  clip_vertex(&v[0], 0, 0, -3, 1);
  clip_vertex(&v[1], 0.5f, 0, 0, 1);
  clip_vertex(&v[2], 0, 0.5f, 0, 1);
  const ptb_vertex *vp[3] = {&v[0], &v[1], &v[2]};
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_CLIPPED);
  assert_int_equal(poly.n, 4);
  assert_point(&poly.p[0], 1.0 / 3, 0, -1, 1, 1.0 / 3, 2.0 / 3, 0, -1);
  assert_point(&poly.p[1], 0.5, 0, 0, 1, 0, 1, 0, 1);
  assert_point(&poly.p[2], 0, 0.5, 0, 1, 0, 0, 1, 2);
  assert_point(&poly.p[3], 0, 1.0 / 3, -1, 1, 1.0 / 3, 0, 2.0 / 3, -1);
  /* Record values of Pa: Xs = trunc(1/3 * 1024) = 341, Ys = 0,
   * Zs = -1*0.5/1 + 0.5 = 0 (on the near plane Zs = z_min), 1/Wc = 1. */
  ptb_clip_vertex cv;
  ptb_clip_vertex_make(&cv, &st, vp, &poly.p[0]);
  assert_int_equal(cv.xs, 341);
  assert_int_equal(cv.ys, 0);
  assert_true(fabsf(cv.zs) < 1e-6f && cv.inv_wc == 1.0f);
  assert_true(fabsf(cv.coef[0] - 1.0f / 3) < 1e-6f && fabsf(cv.coef[1] - 2.0f / 3) < 1e-6f && cv.coef[2] == 0);
  /* an original vertex keeps the coordinate shader's values */
  ptb_clip_vertex_make(&cv, &st, vp, &poly.p[1]);
  assert_int_equal(cv.xs, 512);
  assert_true(cv.zs == 0.5f && cv.coef[1] == 1.0f && cv.coef[0] == 0 && cv.coef[2] == 0);

  /* Through the binner: two fan triangles with clip records. Fan 1
   * (Pa, V1, V2): only slot 0 is new, mask 001. Fan 2 (Pa, V2, Pb): V2 sits
   * in slot 1, not its own slot 2, so every slot comes from the record:
   * mask 111. Both keep the original indices (0, 1, 2). Absolute corners:
   * Pa (1024+341, 1024), V1 (1536, 1024), V2 (1024, 1536), Pb (1024, 1365)
   * in 12.4, i.e. pixels 64..96: all in tile (1, 1). */
  fixture_reset(64, 32, 512);
  clip_state(&fx.st);
  fx.v[0] = v[0], fx.v[1] = v[1], fx.v[2] = v[2];
  assert_int_equal(draw_array(PTB_TRIANGLES, 3, 9), PTB_OK);
  assert_int_equal(fx.bins.stats.clipped, 1);
  assert_int_equal(fx.bins.prim_count, 2);
  assert_int_equal(fx.bins.clip_count, 2);
  for (uint32_t i = 0; i < 2; i++) {
    const ptb_prim *p = &fx.bins.prims[i];
    assert_int_equal(p->nverts, 3);
    assert_int_equal(p->index[0], 0);
    assert_int_equal(p->index[1], 1);
    assert_int_equal(p->index[2], 2);
    assert_int_equal(p->tag, 9);
    assert_int_equal(p->clip, i);
    assert_int_equal(tiles_of(i), T(1, 1));
  }
  assert_int_equal(fx.bins.prims[0].clip_mask, 1);
  assert_int_equal(fx.bins.prims[1].clip_mask, 7);
  /* fan 2's record: Pa, then V2 (the shader's Xs 0, Ys 512, weight 1 on
   * vertex 2), then Pb (0, 341) */
  const ptb_clip_record *r = &fx.bins.clips[1];
  assert_int_equal(r->v[0].xs, 341);
  assert_int_equal(r->v[1].xs, 0);
  assert_int_equal(r->v[1].ys, 512);
  assert_true(r->v[1].coef[2] == 1.0f && r->v[1].coef[0] == 0 && r->v[1].coef[1] == 0);
  assert_int_equal(r->v[2].xs, 0);
  assert_int_equal(r->v[2].ys, 341);
}

/* Far plane: V0 = (0,0,3,1), far distance 0.5*W - 0.5*Z = -1; the cuts are
 * again at 1/3 from V1 and V2: Pa = (1/3, 0, 1, 1), Zs = 0.5 + 0.5 = 1. */
static void test_clip_far(void **state) {
  (void)state;
  ptb_state st;
  ptb_planes pl;
  ptb_vertex v[3];
  ptb_clip_poly poly;
  clip_state(&st);
  ptb_planes_init(&pl, &st);
  clip_vertex(&v[0], 0, 0, 3, 1);
  clip_vertex(&v[1], 0.5f, 0, 0, 1);
  clip_vertex(&v[2], 0, 0.5f, 0, 1);
  const ptb_vertex *vp[3] = {&v[0], &v[1], &v[2]};
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_CLIPPED);
  assert_int_equal(poly.n, 4);
  assert_point(&poly.p[0], 1.0 / 3, 0, 1, 1, 1.0 / 3, 2.0 / 3, 0, -1);
  assert_point(&poly.p[3], 0, 1.0 / 3, 1, 1, 1.0 / 3, 0, 2.0 / 3, -1);
  ptb_clip_vertex cv;
  ptb_clip_vertex_make(&cv, &st, vp, &poly.p[3]);
  assert_int_equal(cv.xs, 0);
  assert_int_equal(cv.ys, 341);
  assert_true(fabsf(cv.zs - 1.0f) < 1e-6f);
  /* Two vertices beyond far: V0 = (0,0,3,1), V1 = (0.5,0,3,1), V2 inside.
   * Cuts at 1/3 of the way from V2 to each: a triangle of 3 vertices,
   * (V2's cut towards V0 comes before V2's cut towards V1 in the walk). */
  clip_vertex(&v[1], 0.5f, 0, 3, 1);
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_CLIPPED);
  assert_int_equal(poly.n, 3);
  /* walk: V0 out, V1 out (nothing), V1->V2 enters: cut from V2 towards V1
   * at t = 0.5/1.5: (1/6, 1/3, 1, 1), weights (0, 1/3, 2/3); V2; V2->V0
   * leaves: (0, 1/3, 1, 1), weights (1/3, 0, 2/3). */
  assert_point(&poly.p[0], 1.0 / 6, 1.0 / 3, 1, 1, 0, 1.0 / 3, 2.0 / 3, -1);
  assert_point(&poly.p[1], 0, 0.5, 0, 1, 0, 0, 1, 2);
  assert_point(&poly.p[2], 0, 1.0 / 3, 1, 1, 1.0 / 3, 0, 2.0 / 3, -1);
}

/* One vertex behind the eye: V0 = (0, 0, -3, -1). The W plane is applied
 * first, then near (0.5*Z + 0.5*W >= 0: V0 gives -2, V1 and V2 0.5); V0 is
 * also outside all four guard planes but the near cut already removes
 * it. The exact result is the near cut of edges V1->V0 and V2->V0 at
 * t = 0.5 / 2.5 = 0.2: P = (0.4, 0, -0.6, 0.6), weights (0.2, 0.8, 0) and
 * P' = (0, 0.4, -0.6, 0.6), weights (0.2, 0, 0.8). Record: 1/Wc = 1/0.6,
 * Xs = trunc(0.4*1024/0.6) = trunc(682.67) = 682, Zs = -0.6*0.5/0.6 +
 * 0.5 = 0. */
static void test_clip_behind_eye(void **state) {
  (void)state;
  ptb_state st;
  ptb_planes pl;
  ptb_vertex v[3];
  ptb_clip_poly poly;
  clip_state(&st);
  ptb_planes_init(&pl, &st);
  clip_vertex(&v[0], 0, 0, -3, -1);
  clip_vertex(&v[1], 0.5f, 0, 0, 1);
  clip_vertex(&v[2], 0, 0.5f, 0, 1);
  const ptb_vertex *vp[3] = {&v[0], &v[1], &v[2]};
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_CLIPPED);
  assert_int_equal(poly.n, 4);
  /* The route through the W plane rounds differently: 1e-9 is plenty. */
  assert_point(&poly.p[0], 0.4, 0, -0.6, 0.6, 0.2, 0.8, 0, -1);
  assert_point(&poly.p[1], 0.5, 0, 0, 1, 0, 1, 0, 1);
  assert_point(&poly.p[2], 0, 0.5, 0, 1, 0, 0, 1, 2);
  assert_point(&poly.p[3], 0, 0.4, -0.6, 0.6, 0.2, 0, 0.8, -1);
  ptb_clip_vertex cv;
  ptb_clip_vertex_make(&cv, &st, vp, &poly.p[0]);
  assert_int_equal(cv.xs, 682);
  assert_int_equal(cv.ys, 0);
  assert_true(fabsf(cv.zs) < 1e-6f);
  assert_true(fabsf(cv.inv_wc - 1.0f / 0.6f) < 1e-5f);

  /* Only W = 0 cuts (Z planes made irrelevant by a huge depth range):
   * V0 = (0,0,0,-1), V1 = (1,0,0,1), V2 = (0,1,0,1). The W cut lands at
   * W = 2^-20, where Xs would be ~2^29: the guard band then cuts at
   * Xs = +-32752. Whatever the route, every vertex must have W > 0, Xs/Ys
   * within the guard band, weights summing to 1 that reproduce the
   * position, and no NaN. */
  st.z_min = -1e30f, st.z_max = 1e30f;
  ptb_planes_init(&pl, &st);
  clip_vertex(&v[0], 0, 0, 0, -1);
  clip_vertex(&v[1], 1, 0, 0, 1);
  clip_vertex(&v[2], 0, 1, 0, 1);
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_CLIPPED);
  assert_true(poly.n >= 3);
  for (unsigned k = 0; k < poly.n; k++) {
    const ptb_clip_point *p = &poly.p[k];
    assert_true(p->c[3] >= PTB_CLIP_W_MIN);
    assert_true(fabs(p->b[0] + p->b[1] + p->b[2] - 1) < 1e-9);
    /* sum b_k V_k = (b1, b2, 0, -b0 + b1 + b2) */
    double x = p->b[1], y = p->b[2], w = -p->b[0] + p->b[1] + p->b[2];
    assert_true(fabs(p->c[0] - x) < 1e-6 && fabs(p->c[1] - y) < 1e-6 && fabs(p->c[3] - w) < 1e-6);
    ptb_clip_vertex_make(&cv, &st, vp, p);
    assert_true(cv.xs >= -PTB_GUARD_BAND - 1 && cv.xs <= PTB_GUARD_BAND + 1);
    assert_true(cv.ys >= -PTB_GUARD_BAND - 1 && cv.ys <= PTB_GUARD_BAND + 1);
    assert_true(isfinite(cv.zs) && isfinite(cv.inv_wc) && cv.inv_wc > 0);
  }
}

/* Guard band alone, with XY scale 16 (Xs = 16 Xc / Wc) so the numbers are
 * exact: V0 = (-4094, 0, 0, 1) has Xs = -65504 = -2G; left-plane distance
 * 16X + 32752W is -32752 for V0 and +32752 for V1 = (0,0,0,1) and
 * V2 = (0,1,0,1): both cuts at t = 1/2. Pa = (-2047, 0, 0, 1), Xs = -32752;
 * Pb = (-2047, 0.5, 0, 1), Xs = -32752, Ys = 8. */
static void test_clip_guard_band(void **state) {
  (void)state;
  ptb_state st;
  ptb_planes pl;
  ptb_vertex v[3];
  ptb_clip_poly poly;
  ptb_state_init(&st);
  st.clip_enable = true;
  st.xy_scale_x = st.xy_scale_y = 16.0f;
  ptb_planes_init(&pl, &st);
  memset(v, 0, sizeof v);
  v[0].xc = -4094, v[0].wc = 1;
  v[1].wc = 1;
  v[2].yc = 1, v[2].wc = 1, v[2].ys = 16;
  const ptb_vertex *vp[3] = {&v[0], &v[1], &v[2]};
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_CLIPPED);
  assert_int_equal(poly.n, 4);
  assert_point(&poly.p[0], -2047, 0, 0, 1, 0.5, 0.5, 0, -1);
  assert_point(&poly.p[3], -2047, 0.5, 0, 1, 0.5, 0, 0.5, -1);
  ptb_clip_vertex cv;
  ptb_clip_vertex_make(&cv, &st, vp, &poly.p[3]);
  assert_int_equal(cv.xs, -32752);
  assert_int_equal(cv.ys, 8);
  assert_true(cv.zs == 0.5f && cv.inv_wc == 1.0f);
  /* all three beyond the right guard band: discarded */
  v[0].xc = 3000, v[1].xc = 2100, v[2].xc = 2500;
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_OUTSIDE);
  /* beyond different planes each (left, right, top) but not all outside
   * one: clipped, not discarded */
  v[0].xc = -3000, v[0].yc = 0;
  v[1].xc = 3000, v[1].yc = 0;
  v[2].xc = 0, v[2].yc = 3000;
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_CLIPPED);
}

static void test_clip_degenerate(void **state) {
  (void)state;
  ptb_state st;
  ptb_planes pl;
  ptb_vertex v[3];
  ptb_clip_poly poly;
  clip_state(&st);
  ptb_planes_init(&pl, &st);
  const ptb_vertex *vp[3] = {&v[0], &v[1], &v[2]};
  /* wholly in front of the near plane */
  clip_vertex(&v[0], 0, 0, -2, 1);
  clip_vertex(&v[1], 0.5f, 0, -3, 1);
  clip_vertex(&v[2], 0, 0.5f, -1.5f, 1);
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_OUTSIDE);
  /* touching the near plane at one vertex only (Z = -W): the clipped
   * polygon is that single point */
  clip_vertex(&v[0], 0, 0, -1, 1);
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_OUTSIDE);
  /* entirely behind the eye, and W = 0 everywhere */
  clip_vertex(&v[0], 0, 0, 0, -1);
  clip_vertex(&v[1], 1, 0, 0, -2);
  clip_vertex(&v[2], 0, 1, 0, -1);
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_OUTSIDE);
  clip_vertex(&v[0], 0, 0, 0, 0);
  clip_vertex(&v[1], 1, 0, 0, 0);
  clip_vertex(&v[2], 0, 1, 0, 0);
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_OUTSIDE);
  /* not finite */
  clip_vertex(&v[0], 0, 0, 0, 1);
  clip_vertex(&v[1], 0.5f, 0, 0, 1);
  clip_vertex(&v[2], 0, 0.5f, 0, 1);
  v[1].zc = NAN;
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_OUTSIDE);
  v[1].zc = 0, v[2].wc = INFINITY;
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_OUTSIDE);
  /* inside: unchanged */
  v[2].wc = 1;
  assert_int_equal(ptb_clip(&pl, vp, 3, &poly), PTB_CLIP_INSIDE);
  assert_int_equal(poly.n, 3);
  /* a zero-area triangle (all on the X axis) crossing near: clipped, but
   * its fan pieces have zero area and are culled in the binner */
  fixture_reset(64, 32, 512);
  clip_state(&fx.st);
  clip_vertex(&fx.v[0], 0, 0, -3, 1);
  clip_vertex(&fx.v[1], 0.5f, 0, 0, 1);
  clip_vertex(&fx.v[2], 0.25f, 0, 0, 1);
  assert_int_equal(draw_array(PTB_TRIANGLES, 3, 0), PTB_OK);
  assert_int_equal(fx.bins.stats.clipped, 1);
  assert_int_equal(fx.bins.prim_count, 0);
  assert_int_equal(fx.bins.stats.culled, 2);
  /* a discarded triangle in the binner */
  clip_vertex(&fx.v[0], 0, 0, -2, 1);
  clip_vertex(&fx.v[1], 0.5f, 0, -3, 1);
  clip_vertex(&fx.v[2], 0, 0.5f, -1.5f, 1);
  assert_int_equal(draw_array(PTB_TRIANGLES, 3, 0), PTB_OK);
  assert_int_equal(fx.bins.stats.discarded, 1);
  assert_int_equal(fx.bins.prim_count, 0);
}

/* Lines: V0 = (0,0,-3,1) to V1 = (0.5,0,0,1) is cut at 1/3 from V1:
 * (1/3, 0, -1, 1), weights (2/3... of V1): b = (1/3, 2/3, 0). Points are
 * kept or discarded whole. */
static void test_clip_lines_points(void **state) {
  (void)state;
  ptb_state st;
  ptb_planes pl;
  ptb_vertex v[2];
  ptb_clip_poly poly;
  clip_state(&st);
  ptb_planes_init(&pl, &st);
  clip_vertex(&v[0], 0, 0, -3, 1);
  clip_vertex(&v[1], 0.5f, 0, 0, 1);
  const ptb_vertex *vp[2] = {&v[0], &v[1]};
  assert_int_equal(ptb_clip(&pl, vp, 2, &poly), PTB_CLIP_CLIPPED);
  assert_int_equal(poly.n, 2);
  assert_point(&poly.p[0], 1.0 / 3, 0, -1, 1, 1.0 / 3, 2.0 / 3, 0, -1);
  assert_point(&poly.p[1], 0.5, 0, 0, 1, 0, 1, 0, 1);
  /* Through the binner: endpoint 0 replaced (mask 01); absolute ends
   * (1024+341, 1024) and (1536, 1024) 12.4 = pixels 85.3..96 at y = 64, a
   * 1-pixel line covering samples of row 63.5 (y in [63.5, 64.5)):
   * tile (1, 0) only. */
  fixture_reset(64, 32, 512);
  clip_state(&fx.st);
  fx.v[0] = v[0], fx.v[1] = v[1];
  assert_int_equal(draw_array(PTB_LINES, 2, 0), PTB_OK);
  assert_int_equal(fx.bins.prim_count, 1);
  assert_int_equal(fx.bins.prims[0].clip_mask, 1);
  assert_int_equal(fx.bins.clips[0].v[0].xs, 341);
  assert_int_equal(fx.bins.clips[0].v[1].xs, 512);
  assert_true(fx.bins.clips[0].v[0].coef[2] == 0 && fx.bins.clips[0].v[1].coef[1] == 1);
  assert_int_equal(tiles_of(0), T(1, 0));
  /* both ends outside: discarded */
  clip_vertex(&v[1], 0.5f, 0, -2, 1);
  assert_int_equal(ptb_clip(&pl, vp, 2, &poly), PTB_CLIP_OUTSIDE);
  /* points */
  fixture_reset(64, 32, 512);
  clip_state(&fx.st);
  clip_vertex(&fx.v[0], 0, 0, -3, 1); /* outside near */
  clip_vertex(&fx.v[1], 0, 0, 0, 1);  /* centre: (64, 64) px */
  clip_vertex(&fx.v[2], 0, 0, 0, -1); /* behind */
  assert_int_equal(draw_array(PTB_POINTS, 3, 0), PTB_OK);
  assert_int_equal(fx.bins.stats.discarded, 2);
  assert_int_equal(fx.bins.prim_count, 1);
  assert_int_equal(fx.bins.prims[0].index[0], 1);
}

/* ---- tile coverage: triangles ----------------------------------------------- */

static void test_bin_corner(void **state) {
  (void)state;
  /* inside tile (0, 0) */
  assert_int_equal(triangle_tiles(1, 1, 20, 1, 1, 20), T(0, 0));
  /* Around the corner (64, 64): x >= 60, y >= 60, x + y <= 130. Samples
   * (63.5, 63.5), (64.5, 60.5), (60.5, 64.5), (64.5, 64.5) (sum 129) are
   * inside: all four tiles. */
  assert_int_equal(triangle_tiles(60, 60, 70, 60, 60, 70), T(0, 0) | T(1, 0) | T(0, 1) | T(1, 1));
  /* x + y <= 128: the nearest sample of tile (1, 1), (64.5, 64.5), sums to
   * 129, so that tile is skipped although the bounding box reaches it. */
  assert_int_equal(triangle_tiles(60, 60, 68, 60, 60, 68), T(0, 0) | T(1, 0) | T(0, 1));
  /* the same triangle wound clockwise covers the same samples */
  assert_int_equal(triangle_tiles(60, 60, 60, 68, 68, 60), T(0, 0) | T(1, 0) | T(0, 1));
}

static void test_bin_fill_rule_on_tile_boundary(void **state) {
  (void)state;
  /* Column 64 (first of tile column 1) is sampled at x = 64.5. A sliver
   * whose left edge lies on x = 64.5 (inclusive: a left edge) covers those
   * samples and only those (65.5 is beyond x = 65.25). */
  assert_int_equal(triangle_tiles(64.5, 10, 65.25, 10, 64.5, 30), T(1, 0));
  /* The mirror sliver, right edge on x = 64.5 (exclusive), left corner at
   * 63.75 > 63.5: no sample at all. */
  assert_int_equal(triangle_tiles(63.75, 10, 64.5, 10, 64.5, 30), 0);
  assert_int_equal(fx.bins.stats.no_tiles, 1);
  /* A triangle ending exactly on x = 64.5 from the left: tile 0 only; one
   * starting there to the right: tile 1 only. */
  assert_int_equal(triangle_tiles(40, 10, 64.5, 10, 64.5, 30), T(0, 0));
  assert_int_equal(triangle_tiles(64.5, 10, 90, 10, 64.5, 30), T(1, 0));
  /* Row 64 (first of tile row 1) is sampled at y = 64.5. An edge along
   * y = 64.5 with the interior above (larger y) is inclusive, one with the
   * interior below is not. */
  assert_int_equal(triangle_tiles(10, 64.5, 30, 64.5, 10, 65.25), T(0, 1));
  assert_int_equal(triangle_tiles(30, 64.5, 10, 64.5, 10, 63.75), 0);
  assert_int_equal(triangle_tiles(10, 40, 30, 64.5, 10, 64.5), T(0, 0));
  /* A corner exactly on the sample (64.5, 64.5), the triangle reaching
   * down-left: its upper edge (64.5,64.5)->(40,64.5) has the interior
   * below (exclusive) and its right edge (64.5,40)->(64.5,64.5) runs up
   * (exclusive), so row 64 and column 64 stay out: tile (0, 0) only. */
  assert_int_equal(triangle_tiles(64.5, 64.5, 40, 64.5, 64.5, 40), T(0, 0));
}

/* Sample-exact ownership along a shared diagonal: the square with corners
 * on samples (10.5, 10.5)-(20.5, 20.5), split into two triangles, covers
 * each pixel 10..19 x 10..19 exactly once, and nothing else (left and
 * lower edges inclusive, right and upper exclusive). A 1x1 window turns
 * the tile test into a per-pixel query. */
static void test_bin_shared_edge(void **state) {
  (void)state;
  const int32_t ax[3] = {PX(10.5), PX(20.5), PX(20.5)}, ay[3] = {PX(10.5), PX(10.5), PX(20.5)};
  const int32_t bx[3] = {PX(10.5), PX(20.5), PX(10.5)}, by[3] = {PX(10.5), PX(20.5), PX(20.5)};
  ptb_grid g;
  ptb_grid_make(&g, 4, 4, false, false);
  for (int32_t py = 7; py < 24; py++)
    for (int32_t px = 7; px < 24; px++) {
      ptb_window w = {px, py, px, py};
      uint32_t n = ptb_cover_polygon(ax, ay, 3, &w, &g, NULL, NULL) + ptb_cover_polygon(bx, by, 3, &w, &g, NULL, NULL);
      uint32_t want = px >= 10 && px <= 19 && py >= 10 && py <= 19;
      assert_int_equal(n, want);
    }
}

static void test_bin_slivers(void **state) {
  (void)state;
  /* between two sample rows (100.5 and 101.5): nothing */
  assert_int_equal(triangle_tiles(0, 100.625, 250, 100.625, 250, 100.875), 0);
  /* Along the diagonal y = x, above it: (0.5,0.5) (200.5,200.5)
   * (0.5,0.875). The diagonal is the edge with the interior on its left
   * going up: exclusive; the other long edge stays within 0.375 of the
   * diagonal where samples differ by whole pixels: no sample, though a
   * tile-corner test would bin every diagonal tile. */
  assert_int_equal(triangle_tiles(0.5, 0.5, 200.5, 200.5, 0.5, 0.875), 0);
  /* Below it: (0.5,0.5) (0.875,0.5) (200.5,200.5). The diagonal is walked
   * downwards (inclusive); E of edge (0.875,0.5)->(200.5,200.5) at sample
   * (k.5, k.5) is 199.625k - 200(k - 0.375) = 75 - 0.375k > 0 for k < 200:
   * pixels (k, k), k = 0..199, i.e. the four diagonal tiles and no other. */
  assert_int_equal(triangle_tiles(0.5, 0.5, 0.875, 0.5, 200.5, 200.5), T(0, 0) | T(1, 1) | T(2, 2) | T(3, 3));
  /* A long thin sliver (0,130.25) (256,130.25) (0,130.75): only row 130.5
   * is inside, and there the long edge is at x = 256 - 256*0.25/0.5 = 128
   * (exclusive): samples 0.5..127.5, tiles (0, 2) and (1, 2). */
  assert_int_equal(triangle_tiles(0, 130.25, 256, 130.25, 0, 130.75), T(0, 2) | T(1, 2));
}

/* Two triangles covering the frame: (0,0) (256,0) (256,256) holds the
 * samples with y < x plus the diagonal (its diagonal edge runs downwards,
 * inclusive): tiles with tx >= ty; the other the samples with y > x: tiles
 * with ty >= tx. Diagonal tiles list both, in submission order. */
static void test_bin_full_screen_pair(void **state) {
  (void)state;
  fixture_reset(64, 32, 512);
  screen_vertex(&fx.v[0], 0, 0);
  screen_vertex(&fx.v[1], PX(256), 0);
  screen_vertex(&fx.v[2], PX(256), PX(256));
  screen_vertex(&fx.v[3], 0, 0);
  screen_vertex(&fx.v[4], PX(256), PX(256));
  screen_vertex(&fx.v[5], 0, PX(256));
  assert_int_equal(draw_array(PTB_TRIANGLES, 6, 0), PTB_OK);
  uint32_t lower = 0, upper = 0;
  for (uint32_t ty = 0; ty < 4; ty++)
    for (uint32_t tx = 0; tx < 4; tx++) {
      if (tx >= ty)
        lower |= T(tx, ty);
      if (ty >= tx)
        upper |= T(tx, ty);
    }
  assert_int_equal(tiles_of(0), lower);
  assert_int_equal(tiles_of(1), upper);
  assert_int_equal(fx.bins.stats.tile_refs, 20);
  for (uint32_t t = 0; t < 4; t++) {
    uint32_t list[4];
    assert_int_equal(ptb_tile_prims(&fx.bins, t, t, list, 4), 2);
    assert_int_equal(list[0], 0);
    assert_int_equal(list[1], 1);
  }
  /* Clip window x 70..169, y 0..59: tiles (1, 0) and (2, 0); there y < x,
   * so the upper triangle covers nothing. */
  fixture_reset(64, 32, 512);
  fx.st.clip_left = 70, fx.st.clip_bottom = 0, fx.st.clip_width = 100, fx.st.clip_height = 60;
  for (int i = 0; i < 6; i++)
    screen_vertex(&fx.v[i], i == 1 || i == 2 || i == 4 ? PX(256) : 0, i == 2 || i == 4 || i == 5 ? PX(256) : 0);
  assert_int_equal(draw_array(PTB_TRIANGLES, 6, 0), PTB_OK);
  assert_int_equal(fx.bins.prim_count, 1);
  assert_int_equal(tiles_of(0), T(1, 0) | T(2, 0));
  assert_int_equal(fx.bins.stats.no_tiles, 1);
  /* a window of zero width bins nothing */
  fixture_reset(64, 32, 512);
  fx.st.clip_width = 0;
  for (int i = 0; i < 3; i++)
    screen_vertex(&fx.v[i], i == 1 || i == 2 ? PX(256) : 0, i == 2 ? PX(256) : 0);
  assert_int_equal(draw_array(PTB_TRIANGLES, 3, 0), PTB_OK);
  assert_int_equal(fx.bins.prim_count, 0);
}

/* A large triangle far beyond the frame on three sides (guard band, no
 * clipping) still lands in exactly the frame's tiles it covers. Viewport
 * offset (128, 128) px: Xs relative to it. (-1900,-1900) (1900,-1900)
 * (-1900, 1900) relative, i.e. x + y <= 256 + ... absolute: x + y <= 256
 * (x_rel + y_rel <= 0): tiles with tx + ty <= 3, plus none beyond. */
static void test_bin_guard_band_triangle(void **state) {
  (void)state;
  fixture_reset(64, 32, 512);
  fx.st.viewport_x = fx.st.viewport_y = PX(128);
  screen_vertex(&fx.v[0], PX(-1900), PX(-1900));
  screen_vertex(&fx.v[1], PX(1900), PX(-1900));
  screen_vertex(&fx.v[2], PX(-1900), PX(1900));
  assert_int_equal(draw_array(PTB_TRIANGLES, 3, 0), PTB_OK);
  /* Covered: samples with x + y < 256 (the hypotenuse runs up-left,
   * dy > 0: exclusive), x + y = 256 excluded. Tile (tx, ty)'s smallest
   * sample sum is 64(tx + ty) + 1: covered iff 64(tx+ty) + 1 < 256, i.e.
   * tx + ty <= 3. */
  uint32_t want = 0;
  for (uint32_t ty = 0; ty < 4; ty++)
    for (uint32_t tx = 0; tx < 4; tx++)
      if (tx + ty <= 3)
        want |= T(tx, ty);
  assert_int_equal(tiles_of(0), want);
}

/* The coverage rule of docs/binning.md evaluated the plain way, sample by
 * sample, for a counter-clockwise polygon: the oracle for the row-span
 * method of ptb_cover_polygon. */
static bool oracle_covers(const int32_t *x, const int32_t *y, unsigned n, int64_t X, int64_t Y) {
  for (unsigned i = 0; i < n; i++) {
    unsigned j = (i + 1) % n;
    int64_t dx = (int64_t)x[j] - x[i], dy = (int64_t)y[j] - y[i];
    if (dx == 0 && dy == 0)
      continue;
    int64_t e = dx * (Y - y[i]) - dy * (X - x[i]);
    bool inclusive = dy < 0 || (dy == 0 && dx > 0);
    if (e < 0 || (e == 0 && !inclusive))
      return false;
  }
  return true;
}

static uint32_t oracle_tiles(const int32_t *x, const int32_t *y, unsigned n, const ptb_window *w) {
  uint32_t mask = 0;
  for (int32_t py = w->y0; py <= w->y1; py++)
    for (int32_t px = w->x0; px <= w->x1; px++)
      if (oracle_covers(x, y, n, 16 * px + 8, 16 * py + 8))
        mask |= T(px / 64, py / 64);
  return mask;
}

static void collect_tile(void *ctx, uint32_t tile) { *(uint32_t *)ctx |= 1u << tile; }
static void count_tile(void *ctx, uint32_t tile) { ((uint8_t *)ctx)[tile]++; }

static uint32_t rng_next(uint32_t *s) {
  *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
  return *s;
}

/* Random triangles (of spans[iter % 3] 12.4 units: slivers, on sample
 * points) and random parallelograms against random clip windows in the
 * 256x256 frame. */
static void bin_against_oracle(uint32_t seed, int iters, const int32_t spans[3]) {
  for (int iter = 0; iter < iters; iter++) {
    int32_t x[4], y[4];
    unsigned n = iter % 4 == 3 ? 4 : 3;
    int32_t span = spans[iter % 3];
    int32_t cx = (int32_t)(rng_next(&seed) % 4800) - 400, cy = (int32_t)(rng_next(&seed) % 4800) - 400;
    for (unsigned k = 0; k < 3; k++) {
      x[k] = cx + (int32_t)(rng_next(&seed) % (uint32_t)span) - span / 2;
      y[k] = cy + (int32_t)(rng_next(&seed) % (uint32_t)span) - span / 2;
      if (iter % 5 == 1) /* snap to sample points: edges through samples */
        x[k] = x[k] / 16 * 16 + 8, y[k] = y[k] / 16 * 16 + 8;
    }
    if (iter % 7 == 2) /* sliver: third vertex next to the first edge */
      x[2] = x[1] + (int32_t)(rng_next(&seed) % 5) - 2, y[2] = y[1] + (int32_t)(rng_next(&seed) % 5) - 2;
    if (n == 4) /* parallelogram */
      x[3] = x[0] + x[2] - x[1], y[3] = y[0] + y[2] - y[1];
    int64_t area = ((int64_t)x[1] - x[0]) * ((int64_t)y[2] - y[0]) - ((int64_t)x[2] - x[0]) * ((int64_t)y[1] - y[0]);
    if (area == 0)
      continue;
    if (area < 0) { /* reverse to counter-clockwise */
      for (unsigned a = 0, b = n - 1; a < b; a++, b--) {
        int32_t t = x[a];
        x[a] = x[b], x[b] = t;
        t = y[a], y[a] = y[b], y[b] = t;
      }
    }
    ptb_window w = {0, 0, 255, 255};
    if (iter % 2) {
      w.x0 = (int32_t)(rng_next(&seed) % 200), w.y0 = (int32_t)(rng_next(&seed) % 200);
      w.x1 = w.x0 + (int32_t)(rng_next(&seed) % 100), w.y1 = w.y0 + (int32_t)(rng_next(&seed) % 100);
      w.x1 = w.x1 > 255 ? 255 : w.x1, w.y1 = w.y1 > 255 ? 255 : w.y1;
    }
    uint32_t got = 0;
    ptb_grid g;
    ptb_grid_make(&g, 4, 4, false, false);
    uint32_t count = ptb_cover_polygon(x, y, n, &w, &g, collect_tile, &got);
    uint32_t want = oracle_tiles(x, y, n, &w);
    if (got != want)
      print_message("iteration %d: got %#x want %#x\n", iter, got, want);
    assert_int_equal(got, want);
    uint32_t bits = 0;
    for (uint32_t m = want; m; m &= m - 1)
      bits++;
    assert_int_equal(count, bits);
  }
}

/* Large, small and tiny polygons. */
static void test_bin_against_oracle(void **state) {
  (void)state;
  static const int32_t spans[3] = {5000, 600, 80};
  bin_against_oracle(12345, 400, spans);
}

/* Polygons a few pixels wide, mostly inside one tile: the sample-by-sample
 * path of ptb_cover_polygon (at most 256 samples in one tile), and its
 * neighbours across tile edges. */
static void test_small_bin_against_oracle(void **state) {
  (void)state;
  static const int32_t spans[3] = {40, 120, 300};
  bin_against_oracle(777, 4000, spans);
}

/* The invariant between binner and rasteriser, against the PSE itself
 * (src/v3d/pse.c, raster.c): for random triangles, lines and points under
 * random clip windows, widths and sizes, pse_rasterize_tile finds covered
 * samples in a tile of the frame exactly when the PTB binned the primitive
 * there. */
static void bin_matches_pse(bool ms, bool c64, unsigned samples, uint32_t seed) {
  static pse_coverage cov;
  for (int iter = 0; iter < 600; iter++) {
    fixture_reset_grid(64, 32, 512, ms, c64, samples);
    pse_state ps;
    pse_state_init(&ps, 256, 256);
    ps.samples = (uint8_t)samples;
    ps.tile_w = (uint8_t)fx.bins.grid.tile_w, ps.tile_h = (uint8_t)fx.bins.grid.tile_h;
    fx.st.viewport_x = ps.vp_x = (int16_t)(rng_next(&seed) % 4096);
    fx.st.viewport_y = ps.vp_y = (int16_t)(rng_next(&seed) % 4096);
    if (iter % 3 == 0) {
      fx.st.clip_left = ps.clip_left = (uint16_t)(rng_next(&seed) % 200);
      fx.st.clip_bottom = ps.clip_bottom = (uint16_t)(rng_next(&seed) % 200);
      fx.st.clip_width = ps.clip_width = (uint16_t)(rng_next(&seed) % 150);
      fx.st.clip_height = ps.clip_height = (uint16_t)(rng_next(&seed) % 150);
    } else {
      fx.st.clip_width = ps.clip_width = 256, fx.st.clip_height = ps.clip_height = 256;
    }
    fx.st.line_width = ps.line_width = (float)(rng_next(&seed) % 64) / 8.0f;
    fx.st.point_size = ps.point_size = (float)(rng_next(&seed) % 400) / 8.0f;
    uint32_t span = iter % 2 ? 3000 : 400;
    pse_vertex pv[3];
    memset(pv, 0, sizeof pv);
    for (int k = 0; k < 3; k++) {
      int32_t xs = (int32_t)(rng_next(&seed) % span) - (int32_t)span / 2;
      int32_t ys = (int32_t)(rng_next(&seed) % span) - (int32_t)span / 2;
      if (iter % 4 == 1) /* on sample points */
        xs = xs / 16 * 16 + (samples == 4 ? pse_sample_x[k] : 8), ys = ys / 16 * 16 + (samples == 4 ? pse_sample_y[k] : 8);
      screen_vertex(&fx.v[k], xs, ys);
      pv[k].xs = (int16_t)xs, pv[k].ys = (int16_t)ys, pv[k].inv_wc = 1.0f;
    }
    ptb_mode mode = iter % 3 == 0 ? PTB_POINTS : iter % 3 == 1 ? PTB_LINES : PTB_TRIANGLES;
    assert_int_equal(draw_array(mode, ptb_mode_vertices(mode), 0), PTB_OK); /* one primitive */
    uint32_t binned = fx.bins.prim_count ? tiles_of(0) : 0;
    pse_prim prim;
    pse_result r = mode == PTB_POINTS ? pse_setup_point(&ps, &pv[0], &prim)
                   : mode == PTB_LINES ? pse_setup_line(&ps, &pv[0], &pv[1], &prim)
                                       : pse_setup_triangle(&ps, &pv[0], &pv[1], &pv[2], &prim);
    uint32_t rasterised = 0;
    if (r == PSE_DRAW)
      for (int ty = 0; ty < 4; ty++)
        for (int tx = 0; tx < 4; tx++)
          if (pse_rasterize_tile(&prim, tx, ty, &cov) > 0)
            rasterised |= T(tx, ty);
    if (binned != rasterised)
      print_message("iteration %d (mode %d): binned %#x, rasterised %#x\n", iter, mode, binned, rasterised);
    assert_int_equal(binned, rasterised);
  }
}

/* Polygons across a band of 200 tiles (more than one 64-bit word of the
 * band's marks, which ptb_cover_polygon sets a word at a time): every
 * covered tile, each once, against the sample-by-sample oracle. */
static void test_wide_bin_against_oracle(void **state) {
  (void)state;
  enum { TX = 200, TY = 3, TW = 32, TH = 16 };
  ptb_grid g = {.tiles_x = TX, .tiles_y = TY, .tile_w = TW, .tile_h = TH, .samples = 1};
  static uint8_t got[TX * TY], want[TX * TY];
  uint32_t seed = 4242;
  for (int iter = 0; iter < 60; iter++) {
    int32_t x[4], y[4];
    unsigned n = iter % 3 == 2 ? 4 : 3;
    for (unsigned k = 0; k < 3; k++) {
      x[k] = (int32_t)(rng_next(&seed) % (TX * TW * 16 + 2000)) - 1000;
      y[k] = (int32_t)(rng_next(&seed) % (TY * TH * 16 + 400)) - 200;
    }
    if (n == 4) /* parallelogram */
      x[3] = x[0] + x[2] - x[1], y[3] = y[0] + y[2] - y[1];
    int64_t area = ((int64_t)x[1] - x[0]) * ((int64_t)y[2] - y[0]) - ((int64_t)x[2] - x[0]) * ((int64_t)y[1] - y[0]);
    if (area == 0)
      continue;
    if (area < 0) /* reverse to counter-clockwise */
      for (unsigned a = 0, b = n - 1; a < b; a++, b--) {
        int32_t t = x[a];
        x[a] = x[b], x[b] = t;
        t = y[a], y[a] = y[b], y[b] = t;
      }
    ptb_window w = {0, 0, TX * TW - 1, TY * TH - 1};
    if (iter % 2)
      w.x0 = (int32_t)(rng_next(&seed) % 3000), w.x1 = w.x0 + (int32_t)(rng_next(&seed) % 4000);
    memset(got, 0, sizeof got);
    memset(want, 0, sizeof want);
    uint32_t count = 0, covered = ptb_cover_polygon(x, y, n, &w, &g, count_tile, got);
    for (int32_t py = w.y0; py <= w.y1 && py < TY * TH; py++)
      for (int32_t px = w.x0; px <= w.x1 && px < TX * TW; px++)
        if (oracle_covers(x, y, n, 16 * px + 8, 16 * py + 8))
          want[(py / TH) * TX + px / TW] = 1;
    for (int t = 0; t < TX * TY; t++) {
      if (got[t] > 1)
        fail_msg("iteration %d: tile %d visited %u times", iter, t, got[t]);
      if (got[t] != want[t])
        fail_msg("iteration %d: tile (%d, %d) %s", iter, t % TX, t / TX, want[t] ? "missed" : "not covered");
      count += want[t];
    }
    assert_int_equal(covered, count);
  }
}

static void test_bin_matches_pse(void **state) {
  (void)state;
  bin_matches_pse(false, false, 1, 777);
}

/* The same on the multisample grids with 4 sample points (32x32 and 32x16
 * tiles), and with one (oversample off) on 32x32 tiles. */
static void test_bin_matches_pse_multisample(void **state) {
  (void)state;
  bin_matches_pse(true, false, 4, 778);
  bin_matches_pse(true, true, 4, 779);
  bin_matches_pse(true, false, 1, 780);
  bin_matches_pse(false, true, 1, 781);
}

/* A triangle whose right edge x = 32.4375 (12.4: 519, exclusive) passes
 * between pixel 32's centre (520, outside) and its samples 0 and 2 (X =
 * 518, 514, inside): with 4 samples per pixel the 32x32 grid bins it into
 * tiles (0, 0) and (1, 0), with the centre alone into (0, 0) only. Its
 * rows reach y = 25 (12.4: 400): tile row 0. */
static void test_bin_multisample_samples(void **state) {
  (void)state;
  for (unsigned samples = 1; samples <= 4; samples += 3) {
    fixture_reset_grid(64, 32, 512, true, false, samples);
    screen_vertex(&fx.v[0], 160, 64);
    screen_vertex(&fx.v[1], 519, 64);
    screen_vertex(&fx.v[2], 519, 400);
    assert_int_equal(draw_array(PTB_TRIANGLES, 3, 0), PTB_OK);
    assert_int_equal(tiles_of(0), samples == 4 ? (T(0, 0) | T(1, 0)) : T(0, 0));
  }
}

/* ---- points and lines --------------------------------------------------------- */

static uint32_t point_tiles(double x, double y, float size) {
  fixture_reset(64, 32, 512);
  fx.st.point_size = size;
  screen_vertex(&fx.v[0], PX(x), PX(y));
  assert_int_equal(draw_array(PTB_POINTS, 1, 0), PTB_OK);
  return fx.bins.prim_count ? tiles_of(0) : 0;
}

static void test_bin_points(void **state) {
  (void)state;
  /* size 1 at the tile corner (64, 64): [63.5, 64.5) on both axes holds
   * only sample 63.5: pixel (63, 63), tile (0, 0) */
  assert_int_equal(point_tiles(64, 64, 1), T(0, 0));
  /* size 2: [63, 65) holds 63.5 and 64.5: four tiles */
  assert_int_equal(point_tiles(64, 64, 2), T(0, 0) | T(1, 0) | T(0, 1) | T(1, 1));
  /* size 1 centred on sample (64.5, 10.5): tile (1, 0) */
  assert_int_equal(point_tiles(64.5, 10.5, 1), T(1, 0));
  /* size 3 at x = 64: [62.5, 65.5) -> columns 62, 63, 64 */
  assert_int_equal(point_tiles(64, 10.5, 3), T(0, 0) | T(1, 0));
  /* a tiny size still gets half a size of 1/16 pixel (as the PSE):
   * [64.4375, 64.5625) holds the sample 64.5 */
  assert_int_equal(point_tiles(64.5, 64.5, 0.01f), T(1, 1));
  /* size 0, negative or NaN: nothing (HW-2726: drivers never send these) */
  assert_int_equal(point_tiles(64.5, 64.5, 0), 0);
  assert_int_equal(point_tiles(64.5, 64.5, -1), 0);
  assert_int_equal(point_tiles(64.5, 64.5, NAN), 0);
  assert_int_equal(fx.bins.stats.culled, 1);
  /* a huge size is clamped to 2048 pixels: the whole frame */
  assert_int_equal(point_tiles(128, 128, 1e9f), 0xffff);
  /* a size-1 point between samples in x ([64, 65) contains 64.5 only) at
   * y = 64: rows [63.5, 64.5) -> 63.5 */
  assert_int_equal(point_tiles(64.5, 64, 1), T(1, 0));
  /* per-vertex point size (row 7) overrides the state */
  fixture_reset(64, 32, 512);
  fx.st.per_vertex_point_size = true;
  screen_vertex(&fx.v[0], PX(64), PX(64));
  fx.v[0].point_size = 2;
  assert_int_equal(draw_array(PTB_POINTS, 1, 0), PTB_OK);
  assert_int_equal(tiles_of(0), T(0, 0) | T(1, 0) | T(0, 1) | T(1, 1));
  /* clip window excluding pixel (63, 63) */
  fixture_reset(64, 32, 512);
  fx.st.clip_left = 64, fx.st.clip_width = 100;
  screen_vertex(&fx.v[0], PX(64), PX(64));
  assert_int_equal(draw_array(PTB_POINTS, 1, 0), PTB_OK);
  assert_int_equal(fx.bins.prim_count, 0);
}

static uint32_t line_tiles(double x0, double y0, double x1, double y1, float width) {
  fixture_reset(64, 32, 512);
  fx.st.line_width = width;
  screen_vertex(&fx.v[0], PX(x0), PX(y0));
  screen_vertex(&fx.v[1], PX(x1), PX(y1));
  assert_int_equal(draw_array(PTB_LINES, 2, 0), PTB_OK);
  return fx.bins.prim_count ? tiles_of(0) : 0;
}

static void test_bin_lines(void **state) {
  (void)state;
  /* Horizontal along the tile boundary y = 64, width 1: y in [63.5, 64.5)
   * -> row 63 only; x in [10, 100) -> tiles (0, 0), (1, 0). Either
   * direction. */
  assert_int_equal(line_tiles(10, 64, 100, 64, 1), T(0, 0) | T(1, 0));
  assert_int_equal(line_tiles(100, 64, 10, 64, 1), T(0, 0) | T(1, 0));
  /* vertical along x = 64, width 1: column 63 -> tiles (0, 0), (0, 1) */
  assert_int_equal(line_tiles(64, 10, 64, 100, 1), T(0, 0) | T(0, 1));
  /* width 3: x in [62.5, 65.5) -> columns 62..64 -> both tile columns */
  assert_int_equal(line_tiles(64, 10, 64, 100, 3), T(0, 0) | T(0, 1) | T(1, 0) | T(1, 1));
  /* ends exactly at x = 64.5 (excluded on the right, included on the
   * left) */
  assert_int_equal(line_tiles(10, 30, 64.5, 30, 1), T(0, 0));
  assert_int_equal(line_tiles(64.5, 30, 100, 30, 1), T(1, 0));
  /* x-major diagonal from (10, 10) to (200, 100), offset +-0.5
   * vertically: at sample column x the covered rows are those in
   * [c - 0.5, c + 0.5) with c = 10 + (x - 10)*9/19. Tile row 0 (y <= 63.5)
   * needs c <= 64, i.e. x <= 124 (x = 123.5: c = 63.76, row 63.5;
   * x = 124.5: c = 64.24, row 64.5); c stays below 100. So tiles (0,0)
   * (1,0) below and (1,1) (2,1) (3,1) above. */
  assert_int_equal(line_tiles(10, 10, 200, 100, 1), T(0, 0) | T(1, 0) | T(1, 1) | T(2, 1) | T(3, 1));
  /* zero length, or width 0: nothing */
  assert_int_equal(line_tiles(30, 30, 30, 30, 4), 0);
  assert_int_equal(line_tiles(10, 30, 100, 30, 0), 0);
}

/* Record 112's other tile sizes (reference §3.7): 32x32 with 4x
 * multisampling, 64x32 with 64-bit colour, 32x16 with both. The triangle
 * (10,10) (50,10) (10,50) covers samples with x + y < 60 (hypotenuse
 * exclusive) from 10.5 up: in 32x32 tiles, (0,0), (1,0) (e.g. (32.5,
 * 10.5)) and (0,1) but not (1,1) (32.5 + 32.5 = 65 > 60). */
static void test_bin_tile_sizes(void **state) {
  (void)state;
  ptb_grid g;
  ptb_grid_make(&g, 4, 4, true, false);
  assert_true(g.tile_w == 32 && g.tile_h == 32);
  ptb_grid_make(&g, 4, 4, false, true);
  assert_true(g.tile_w == 64 && g.tile_h == 32);
  ptb_grid_make(&g, 4, 4, true, true);
  assert_true(g.tile_w == 32 && g.tile_h == 16);
  const int32_t x[3] = {PX(10), PX(50), PX(10)}, y[3] = {PX(10), PX(10), PX(50)};
  ptb_window w = {0, 0, 1000, 1000}; /* clamped to the grid */
  uint32_t got = 0;
  ptb_grid_make(&g, 4, 4, true, false);
  assert_int_equal(ptb_cover_polygon(x, y, 3, &w, &g, collect_tile, &got), 3);
  assert_int_equal(got, T(0, 0) | T(1, 0) | T(0, 1));
  /* 32x16 tiles: rows 10..49 span tile rows 0..3; tile (1, 2) (x >= 32,
   * y in [32, 48)) needs 32.5 + 32.5 < 60: no; tile (1, 1) (y in [16, 32)):
   * (32.5, 16.5) sums to 49: yes; tile (1, 0): yes; tile (0, 3) (y >= 48):
   * (10.5, 48.5) sums to 59: yes. */
  got = 0;
  ptb_grid_make(&g, 4, 4, true, true);
  assert_int_equal(ptb_cover_polygon(x, y, 3, &w, &g, collect_tile, &got), 6);
  assert_int_equal(got, T(0, 0) | T(1, 0) | T(0, 1) | T(1, 1) | T(0, 2) | T(0, 3));
}

/* ---- list order, storage, errors ------------------------------------------------ */

static void test_order_and_tags(void **state) {
  (void)state;
  fixture_reset(64, 32, 512);
  /* prim 0 in tiles (0,0),(1,0); prim 1 in (1,0); prim 2 in (0,0),(1,0) */
  screen_vertex(&fx.v[0], PX(50), PX(10));
  screen_vertex(&fx.v[1], PX(80), PX(10));
  screen_vertex(&fx.v[2], PX(50), PX(30));
  screen_vertex(&fx.v[3], PX(70), PX(10));
  screen_vertex(&fx.v[4], PX(90), PX(10));
  screen_vertex(&fx.v[5], PX(70), PX(30));
  assert_int_equal(draw_array(PTB_TRIANGLES, 6, 1), PTB_OK);
  /* second draw (tag 2): the first triangle again */
  assert_int_equal(draw_array(PTB_TRIANGLES, 3, 2), PTB_OK);
  uint32_t list[8];
  assert_int_equal(ptb_tile_prims(&fx.bins, 0, 0, list, 8), 2);
  assert_int_equal(list[0], 0);
  assert_int_equal(list[1], 2);
  assert_int_equal(ptb_tile_prims(&fx.bins, 1, 0, list, 8), 3);
  assert_int_equal(list[0], 0);
  assert_int_equal(list[1], 1);
  assert_int_equal(list[2], 2);
  assert_int_equal(fx.bins.prims[1].tag, 1);
  assert_int_equal(fx.bins.prims[2].tag, 2);
  assert_int_equal(fx.bins.prims[1].index[0], 3);
  /* raw list walk agrees */
  const ptb_tile *t = &fx.bins.tiles[1];
  assert_int_equal(t->count, 3);
  assert_int_equal(fx.bins.refs[t->head].prim, 0);
  assert_int_equal(fx.bins.refs[t->tail].prim, 2);
  assert_int_equal(fx.bins.refs[t->tail].next, PTB_NONE);
  /* indexed draw with 16-bit indices reaching vertex 5: strip (3, 4, 5) */
  static const uint8_t ix[] = {3, 0, 4, 0, 5, 0};
  ptb_vertices vs = {fx.v, 0, 32};
  ptb_draw d = {.mode = PTB_TRIANGLE_STRIP, .index_type = PTB_INDEX_16, .indices = ix, .count = 3, .tag = 3};
  assert_int_equal(ptb_bin_draw(&fx.bins, &fx.st, &vs, &d, NULL), PTB_OK);
  assert_int_equal(tiles_of(3), T(1, 0));
}

static void test_storage_limits(void **state) {
  (void)state;
  /* Three triangles each covering tiles (0,0) and (1,0); room for 5
   * references: the third does not fit and nothing of it is stored. */
  fixture_reset(64, 32, 5);
  for (int i = 0; i < 9; i += 3) {
    screen_vertex(&fx.v[i], PX(50), PX(10));
    screen_vertex(&fx.v[i + 1], PX(80), PX(10));
    screen_vertex(&fx.v[i + 2], PX(50), PX(30));
  }
  ptb_vertices vs = {fx.v, 0, 32};
  ptb_draw d = {.mode = PTB_TRIANGLES, .count = 9};
  uint32_t done = 99;
  assert_int_equal(ptb_bin_draw(&fx.bins, &fx.st, &vs, &d, &done), PTB_ERR_REFS_FULL);
  assert_int_equal(done, 2);
  assert_int_equal(fx.bins.prim_count, 2);
  assert_int_equal(fx.bins.ref_count, 4);
  assert_int_equal(fx.bins.tiles[0].count, 2);
  /* prims full */
  fixture_reset(1, 32, 512);
  assert_int_equal(ptb_bin_draw(&fx.bins, &fx.st, &vs, &d, &done), PTB_ERR_PRIMS_FULL);
  assert_int_equal(done, 1);
  /* a culled primitive needs no space */
  fixture_reset(0, 0, 0);
  fx.st.enable_forward = false;
  assert_int_equal(ptb_bin_draw(&fx.bins, &fx.st, &vs, &d, &done), PTB_OK);
  assert_int_equal(done, 3);
  /* clip records full: the near-clipped triangle of test_clip_near makes
   * two fan pieces; with room for one record neither is stored */
  fixture_reset(64, 1, 512);
  clip_state(&fx.st);
  clip_vertex(&fx.v[0], 0, 0, -3, 1);
  clip_vertex(&fx.v[1], 0.5f, 0, 0, 1);
  clip_vertex(&fx.v[2], 0, 0.5f, 0, 1);
  d.count = 3;
  assert_int_equal(ptb_bin_draw(&fx.bins, &fx.st, &vs, &d, &done), PTB_ERR_CLIPS_FULL);
  assert_int_equal(done, 0);
  assert_int_equal(fx.bins.prim_count, 0);
  assert_int_equal(fx.bins.clip_count, 0);
  /* clearing keeps the storage */
  ptb_bins_clear(&fx.bins);
  assert_int_equal(fx.bins.tiles[5].head, PTB_NONE);
}

static void test_errors(void **state) {
  (void)state;
  fixture_reset(64, 32, 512);
  ptb_vertices vs = {fx.v, 10, 4}; /* original indices 10..13 */
  for (int i = 0; i < 4; i++)
    screen_vertex(&fx.v[i], PX(10 + i), PX(10 + 3 * i));
  static const uint8_t ix[] = {10, 11, 12, 13, 14, 10};
  ptb_draw d = {.mode = PTB_TRIANGLES, .index_type = PTB_INDEX_8, .indices = ix, .count = 6};
  uint32_t done;
  assert_int_equal(ptb_bin_draw(&fx.bins, &fx.st, &vs, &d, &done), PTB_ERR_INDEX);
  assert_int_equal(done, 1);
  d.mode = (ptb_mode)9;
  assert_int_equal(ptb_bin_draw(&fx.bins, &fx.st, &vs, &d, &done), PTB_ERR_MODE);
  d.mode = PTB_TRIANGLES, d.index_type = (ptb_index_type)5;
  assert_int_equal(ptb_bin_draw(&fx.bins, &fx.st, &vs, &d, &done), PTB_ERR_MODE);
  /* index 9 is below first */
  static const uint8_t low[] = {9};
  ptb_draw p = {.mode = PTB_POINTS, .index_type = PTB_INDEX_8, .indices = low, .count = 1};
  assert_int_equal(ptb_bin_draw(&fx.bins, &fx.st, &vs, &p, &done), PTB_ERR_INDEX);
  /* bins_init */
  ptb_bins b;
  ptb_tile tiles[4];
  ptb_buffers buf = {tiles, 4, NULL, 0, NULL, 0, NULL, 0};
  ptb_grid g;
  ptb_grid_make(&g, 2, 2, false, false);
  assert_int_equal(ptb_bins_init(&b, &g, &buf), PTB_OK);
  ptb_grid_make(&g, 3, 2, false, false);
  assert_int_equal(ptb_bins_init(&b, &g, &buf), PTB_ERR_TILES);
  ptb_grid_make(&g, 0, 2, false, false);
  assert_int_equal(ptb_bins_init(&b, &g, &buf), PTB_ERR_TILES);
  g = (ptb_grid){2, 2, 128, 64, 1};
  assert_int_equal(ptb_bins_init(&b, &g, &buf), PTB_ERR_TILES);
  assert_int_equal(ptb_tiles_for(1920, 64), 30);
  assert_int_equal(ptb_tiles_for(1080, 64), 17);
  assert_int_equal(ptb_tiles_for(64, 64), 1);
  assert_int_equal(ptb_tiles_for(65, 32), 3);
  assert_string_equal(ptb_result_string(PTB_ERR_REFS_FULL), "tile-reference pool full");
}

static void test_bench(void **state) {
  (void)state;
  double tps = 0;
  ptb_stats st;
  assert_int_equal(ptb_bench_triangles(2000, 7, &tps, &st), PTB_OK);
  assert_true(tps > 0);
  assert_int_equal(st.assembled, 2000);
  assert_int_equal(st.discarded, 0);
  assert_int_equal(st.clipped, 0);
  assert_true(st.binned > 0 && st.binned + st.culled + st.no_tiles == 2000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_assembly_8bit),
      cmocka_unit_test(test_assembly_16bit_and_arrays),
      cmocka_unit_test(test_strip_and_fan_winding),
      cmocka_unit_test(test_vertex_unpack),
      cmocka_unit_test(test_cull_functions),
      cmocka_unit_test_setup(test_cull_in_binner, setup),
      cmocka_unit_test(test_planes),
      cmocka_unit_test(test_clip_near),
      cmocka_unit_test(test_clip_far),
      cmocka_unit_test(test_clip_behind_eye),
      cmocka_unit_test(test_clip_guard_band),
      cmocka_unit_test(test_clip_degenerate),
      cmocka_unit_test(test_clip_lines_points),
      cmocka_unit_test(test_bin_corner),
      cmocka_unit_test(test_bin_fill_rule_on_tile_boundary),
      cmocka_unit_test(test_bin_shared_edge),
      cmocka_unit_test(test_bin_slivers),
      cmocka_unit_test(test_bin_full_screen_pair),
      cmocka_unit_test(test_bin_guard_band_triangle),
      cmocka_unit_test(test_bin_against_oracle),
      cmocka_unit_test(test_small_bin_against_oracle),
      cmocka_unit_test(test_wide_bin_against_oracle),
      cmocka_unit_test(test_bin_matches_pse),
      cmocka_unit_test(test_bin_matches_pse_multisample),
      cmocka_unit_test(test_bin_multisample_samples),
      cmocka_unit_test(test_bin_tile_sizes),
      cmocka_unit_test(test_bin_points),
      cmocka_unit_test(test_bin_lines),
      cmocka_unit_test(test_order_and_tags),
      cmocka_unit_test(test_storage_limits),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_bench),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
