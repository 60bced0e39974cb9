/* test_pse.c — primitive setup and rasterisation (src/v3d/pse.c, raster.c):
 * the fill rule on shared edges (diagonal, horizontal, vertical, a jittered
 * mesh), tiny and huge triangles, pixel counts worked out by hand, face
 * culling with both CW settings, the clip window and tiles, the lane order
 * of the 4×4 masks, Z and its 24-bit rounding, depth offset, the varying
 * planes of every interpolation mode on a quad with w = 1 and w = 4 at its
 * two ends, points and lines. Every expected value is derived by hand (the
 * arithmetic is in the comments) or by a per-pixel oracle written here from
 * the rules of docs/rasterization.md, never taken from the implementation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "v3d/pse.h"
#include "fill_rule.h"

/* ---- helpers ---------------------------------------------------------- */

#define SUB(px) ((int16_t)lround((px) * 16.0)) /* pixels -> 12.4 */

static pse_vertex vtx(double x, double y) {
  pse_vertex v;
  memset(&v, 0, sizeof v);
  v.xs = SUB(x);
  v.ys = SUB(y);
  v.inv_wc = 1.0f;
  return v;
}

static pse_vertex vtx16(int32_t x, int32_t y) { /* 12.4 units directly */
  pse_vertex v;
  memset(&v, 0, sizeof v);
  v.xs = (int16_t)x;
  v.ys = (int16_t)y;
  v.inv_wc = 1.0f;
  return v;
}

typedef struct grid {
  int w, h;
  uint8_t *c;
} grid;

static grid grid_new(int w, int h) {
  grid g = {w, h, calloc((size_t)w * (size_t)h, 1)};
  assert_non_null(g.c);
  return g;
}

static int popcount16(unsigned m) {
  int n = 0;
  for (; m; m &= m - 1) n++;
  return n;
}

static uint8_t at(const grid *g, int x, int y) { return g->c[(size_t)y * (size_t)g->w + (size_t)x]; }

/* Rasterises p in every tile of the grid, adding 1 per covered sample, and
 * checks the block invariants (aligned, inside its tile, inside p's rect).
 * Returns the number of covered samples. */
static long raster_into(const pse_prim *p, grid *g) {
  static pse_coverage cov; /* test-only scratch; tests run serially */
  long n = 0;
  for (int row = 0; row * PSE_TILE_SIZE < g->h; row++) {
    for (int col = 0; col * PSE_TILE_SIZE < g->w; col++) {
      int count = pse_rasterize_tile(p, col, row, &cov);
      assert_int_equal(count, cov.count);
      for (int i = 0; i < count; i++) {
        const pse_block *b = &cov.block[i];
        assert_int_equal(b->x % 4, 0);
        assert_int_equal(b->y % 4, 0);
        assert_true(b->x >= col * 64 && b->x < col * 64 + 64);
        assert_true(b->y >= row * 64 && b->y < row * 64 + 64);
        assert_true(b->mask != 0);
        for (int e = 0; e < 16; e++) {
          if (!(b->mask >> e & 1)) continue;
          int x = b->x + PSE_LANE_DX(e), y = b->y + PSE_LANE_DY(e);
          assert_true(x >= p->x0 && x < p->x1 && y >= p->y0 && y < p->y1);
          assert_true(x < g->w && y < g->h);
          g->c[(size_t)y * (size_t)g->w + (size_t)x]++;
          n++;
        }
      }
    }
  }
  return n;
}

static long draw_triangle(const pse_state *st, pse_vertex a, pse_vertex b, pse_vertex c, grid *g) {
  pse_prim p;
  pse_result r = pse_setup_triangle(st, &a, &b, &c, &p);
  if (r != PSE_DRAW) return -(long)r;
  return raster_into(&p, g);
}

/* The block containing pixel (x, y) and the lane of that pixel. */
static pse_block block_of(int x, int y, int *lane) {
  pse_block b = {(uint16_t)(x & ~3), (uint16_t)(y & ~3), 0xFFFF, 0};
  for (int e = 0; e < 16; e++)
    if (PSE_LANE_DX(e) == (x & 3) && PSE_LANE_DY(e) == (y & 3)) *lane = e;
  return b;
}

/* Is pixel (x, y) covered by p? (rasterises its tile) */
static bool covered(const pse_prim *p, int x, int y) {
  static pse_coverage cov;
  int n = pse_rasterize_tile(p, x / 64, y / 64, &cov);
  int lane = -1;
  block_of(x, y, &lane);
  for (int i = 0; i < n; i++)
    if (cov.block[i].x == (x & ~3) && cov.block[i].y == (y & ~3)) return cov.block[i].mask >> lane & 1;
  return false;
}

/* What the QPU computes from a FIFO entry: fmul t, vary, ra15; fadd v, t, r5
 * (float arithmetic; the tests allow a few ulps for the QPU's rounding). */
static float qpu_varying(const pse_batch *b, int k, int lane) {
  volatile float t = b->vp[k][lane] * b->w[lane];
  volatile float v = t + b->c[k];
  return v;
}

static void assert_close(double got, double want, double rel) {
  double tol = rel * fmax(1.0, fabs(want));
  if (!(fabs(got - want) <= tol)) fail_msg("got %.9g, want %.9g (tolerance %.3g)", got, want, tol);
}

/* ---- lane order --------------------------------------------------------- */

static void test_lane_order(void **state) {
  (void)state;
  /* element e = 4·quad + i; i bit 0 = x, bit 1 = y; quads (0,0) (2,0) (0,2) (2,2) */
  static const int dx[16] = {0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3};
  static const int dy[16] = {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3};
  for (int e = 0; e < 16; e++) {
    assert_int_equal(PSE_LANE_DX(e), dx[e]);
    assert_int_equal(PSE_LANE_DY(e), dy[e]);
  }
  /* A point of size 1 centred on a pixel covers that pixel alone: its mask
   * has exactly the bit of the pixel's element. */
  static const struct { int x, y; uint16_t mask; } cases[] = {
      {8, 4, 1u << 0},  {9, 4, 1u << 1},   {8, 5, 1u << 2},   {9, 5, 1u << 3},
      {10, 4, 1u << 4}, {11, 4, 1u << 5},  {10, 5, 1u << 6},  {8, 6, 1u << 8},
      {9, 7, 1u << 11}, {10, 6, 1u << 12}, {11, 7, 1u << 15}, {71, 67, 1u << 15},
  };
  pse_state st;
  pse_state_init(&st, 128, 128);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pse_vertex v = vtx(cases[i].x + 0.5, cases[i].y + 0.5);
    pse_prim p;
    assert_int_equal(pse_setup_point(&st, &v, &p), PSE_DRAW);
    pse_coverage cov;
    assert_int_equal(pse_rasterize_tile(&p, cases[i].x / 64, cases[i].y / 64, &cov), 1);
    assert_int_equal(cov.block[0].x, cases[i].x & ~3);
    assert_int_equal(cov.block[0].y, cases[i].y & ~3);
    assert_int_equal(cov.block[0].mask, cases[i].mask);
  }
}

/* ---- fill rule ---------------------------------------------------------- */

/* Legs of 8 along the axes: the hypotenuse x + y = 8 passes through the
 * centres with x + y = 7 (0.5 + 0.5 + 7 = 8). Edge (8,0)->(0,8) of the
 * counter-clockwise triangle has its interior at smaller x: not a left
 * edge, so those centres are out: covered iff x + y <= 6, 7+6+...+1 = 28.
 * The other half of the square owns x + y >= 7: 64 - 28 = 36. */
static void test_right_triangles_by_hand(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  grid g = grid_new(64, 64);
  assert_int_equal(draw_triangle(&st, vtx(0, 0), vtx(8, 0), vtx(0, 8), &g), 28);
  for (int y = 0; y < 16; y++)
    for (int x = 0; x < 16; x++) assert_int_equal(at(&g, x, y), (x + y <= 6) ? 1 : 0);
  /* the other half, given clockwise: 36, and together each pixel once */
  assert_int_equal(draw_triangle(&st, vtx(8, 8), vtx(8, 0), vtx(0, 8), &g), 36);
  for (int y = 0; y < 16; y++)
    for (int x = 0; x < 16; x++) assert_int_equal(at(&g, x, y), (x < 8 && y < 8) ? 1 : 0);
  free(g.c);
}

/* A 16×16 square split along its diagonal, which runs through the 16
 * centres (k+0.5, k+0.5): 256 pixels, each once, for either winding. */
static void test_shared_diagonal(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  for (int winding = 0; winding < 4; winding++) {
    grid g = grid_new(64, 64);
    pse_vertex a = vtx(2, 2), b = vtx(18, 2), c = vtx(18, 18), d = vtx(2, 18);
    long n1 = (winding & 1) ? draw_triangle(&st, a, c, b, &g) : draw_triangle(&st, a, b, c, &g);
    long n2 = (winding & 2) ? draw_triangle(&st, a, d, c, &g) : draw_triangle(&st, a, c, d, &g);
    /* lower-right half: x > y strictly (120) plus the diagonal if it owns it */
    assert_int_equal(n1 + n2, 256);
    for (int y = 0; y < 32; y++)
      for (int x = 0; x < 32; x++) assert_int_equal(at(&g, x, y), (x >= 2 && x < 18 && y >= 2 && y < 18) ? 1 : 0);
    /* the diagonal's centres: the edge A->C of the lower-right triangle
     * has its interior at larger x (a left edge), so it owns them */
    assert_int_equal(n1, 120 + 16);
    assert_int_equal(n2, 120);
    free(g.c);
  }
}

/* Two triangles on either side of the horizontal line y = 4.5, which holds
 * the centres of row 4 from x = 0.5 to 7.5: the upper triangle (interior at
 * larger y: the edge is its low edge) owns all 8. */
static void test_shared_horizontal_edge(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  grid lower = grid_new(64, 64), upper = grid_new(64, 64), both = grid_new(64, 64);
  pse_vertex l = vtx(0, 4.5), r = vtx(8, 4.5), bottom = vtx(4, 0), top = vtx(4, 9);
  draw_triangle(&st, l, r, bottom, &lower);
  draw_triangle(&st, l, r, top, &upper);
  draw_triangle(&st, l, r, bottom, &both);
  draw_triangle(&st, r, l, top, &both);
  for (int x = 0; x < 8; x++) {
    assert_int_equal(at(&upper, x, 4), 1);
    assert_int_equal(at(&lower, x, 4), 0);
  }
  for (int y = 0; y < 16; y++)
    for (int x = 0; x < 16; x++) assert_int_equal(at(&both, x, y), at(&lower, x, y) + at(&upper, x, y));
  for (size_t i = 0; i < 64 * 64; i++) assert_true(both.c[i] <= 1);
  free(lower.c);
  free(upper.c);
  free(both.c);
}

/* Two triangles either side of the vertical line x = 4.5 (centres of column
 * 4, y = 0.5..7.5): the right one (interior at larger x: a left edge) owns
 * all 8. */
static void test_shared_vertical_edge(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  grid left = grid_new(64, 64), right = grid_new(64, 64);
  pse_vertex lo = vtx(4.5, 0), hi = vtx(4.5, 8);
  draw_triangle(&st, lo, hi, vtx(0, 4), &left);
  draw_triangle(&st, hi, lo, vtx(9, 4), &right);
  for (int y = 0; y < 8; y++) {
    assert_int_equal(at(&right, 4, y), 1);
    assert_int_equal(at(&left, 4, y), 0);
  }
  for (size_t i = 0; i < 64 * 64; i++) assert_true(left.c[i] + right.c[i] <= 1);
  free(left.c);
  free(right.c);
}

static uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/* A 9×7 grid of vertices over the rectangle [3, 67) × [5, 53) pixels —
 * interior vertices jittered by up to 1.5 pixels, every third one exactly on
 * a pixel centre, boundary vertices slid along the boundary — cut into 96
 * triangles of mixed winding. Their union is the rectangle: each of its
 * 64 × 48 pixels is covered exactly once and nothing outside it. */
static void test_mesh_covers_each_pixel_once(void **state) {
  (void)state;
  enum { NX = 9, NY = 7 };
  pse_state st;
  pse_state_init(&st, 128, 128);
  int32_t vx[NY][NX], vy[NY][NX];
  for (int j = 0; j < NY; j++) {
    for (int i = 0; i < NX; i++) {
      uint32_t h = hash32((uint32_t)(j * NX + i) + 77u);
      int32_t jx = (int32_t)(h % 49) - 24, jy = (int32_t)(h / 49 % 49) - 24;
      if ((j * NX + i) % 3 == 0) jx = jy = 8; /* centre of a pixel */
      int32_t x = (3 + 8 * i) * 16, y = (5 + 8 * j) * 16;
      vx[j][i] = (i == 0 || i == NX - 1) ? x : x + jx;
      vy[j][i] = (j == 0 || j == NY - 1) ? y : y + jy;
    }
  }
  grid g = grid_new(128, 128);
  long total = 0;
  for (int j = 0; j + 1 < NY; j++) {
    for (int i = 0; i + 1 < NX; i++) {
      pse_vertex a = vtx16(vx[j][i], vy[j][i]), b = vtx16(vx[j][i + 1], vy[j][i + 1]);
      pse_vertex c = vtx16(vx[j + 1][i + 1], vy[j + 1][i + 1]), d = vtx16(vx[j + 1][i], vy[j + 1][i]);
      bool flip = hash32((uint32_t)(i * 31 + j)) & 1;
      if ((i + j) & 1) { /* diagonal a-c */
        total += flip ? draw_triangle(&st, a, c, b, &g) : draw_triangle(&st, a, b, c, &g);
        total += draw_triangle(&st, a, c, d, &g);
      } else { /* diagonal b-d */
        total += draw_triangle(&st, a, b, d, &g);
        total += flip ? draw_triangle(&st, b, d, c, &g) : draw_triangle(&st, b, c, d, &g);
      }
    }
  }
  assert_int_equal(total, 64 * 48);
  for (int y = 0; y < 128; y++)
    for (int x = 0; x < 128; x++) assert_int_equal(at(&g, x, y), (x >= 3 && x < 67 && y >= 5 && y < 53) ? 1 : 0);
  free(g.c);
}

/* ---- an independent per-pixel oracle ------------------------------------ */

/* The rule of docs/rasterization.md, written directly: orient the triangle
 * counter-clockwise (y up); the centre is covered if it is strictly inside
 * every edge, or on an edge that runs downward (its interior at larger x)
 * or, horizontal, runs toward +x (its interior at larger y). */
static bool oracle_covered(const int32_t t[3][2], int px, int py) {
  int64_t sx = 16 * (int64_t)px + 8, sy = 16 * (int64_t)py + 8;
  int64_t area = (int64_t)(t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (int64_t)(t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
  int order[3] = {0, 1, 2};
  if (area < 0) order[1] = 2, order[2] = 1;
  for (int k = 0; k < 3; k++) {
    const int32_t *a = t[order[k]], *b = t[order[(k + 1) % 3]];
    int64_t cross = (int64_t)(b[0] - a[0]) * (sy - a[1]) - (int64_t)(b[1] - a[1]) * (sx - a[0]);
    if (cross < 0) return false;
    if (cross == 0 && !(b[1] < a[1] || (b[1] == a[1] && b[0] > a[0]))) return false;
  }
  return true;
}

/* 300 random triangles (some tiny, some long and thin, some with vertices on
 * centres) against the oracle over a 128×128 area, clip window 100×90. */
static void test_random_triangles_match_oracle(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 100, 90);
  grid g = grid_new(128, 128);
  for (uint32_t n = 0; n < 300; n++) {
    int32_t t[3][2];
    uint32_t span = (n % 3 == 0) ? 40 : (n % 3 == 1) ? 400 : 2400; /* 1/16 px */
    int32_t ox = (int32_t)(hash32(n * 7 + 1) % 1800), oy = (int32_t)(hash32(n * 7 + 2) % 1800);
    for (int k = 0; k < 3; k++) {
      t[k][0] = ox + (int32_t)(hash32(n * 7 + 3 + (uint32_t)k) % span);
      t[k][1] = oy + (int32_t)(hash32(n * 7 + 6 + (uint32_t)k * 11) % span);
      if (n % 5 == 0) t[k][0] = t[k][0] / 16 * 16 + 8, t[k][1] = t[k][1] / 16 * 16 + 8;
    }
    memset(g.c, 0, 128 * 128);
    long got = draw_triangle(&st, vtx16(t[0][0], t[0][1]), vtx16(t[1][0], t[1][1]), vtx16(t[2][0], t[2][1]), &g);
    long want = 0;
    for (int y = 0; y < 128; y++) {
      for (int x = 0; x < 128; x++) {
        bool in = x < 100 && y < 90 && oracle_covered(t, x, y);
        want += in;
        if (at(&g, x, y) != (in ? 1 : 0)) fail_msg("triangle %u pixel (%d, %d): got %d want %d", n, x, y, at(&g, x, y), in);
      }
    }
    if (got < 0) assert_int_equal(want, 0); /* degenerate or outside */
  }
  free(g.c);
}

/* ---- tiny, huge, counted ------------------------------------------------ */

static void test_tiny_triangles(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  grid g = grid_new(64, 64);
  /* around the centre (10.5, 20.5) = (168, 328): covers that pixel only */
  assert_int_equal(draw_triangle(&st, vtx16(166, 326), vtx16(170, 326), vtx16(168, 331), &g), 1);
  assert_int_equal(at(&g, 10, 20), 1);
  /* the same shape moved off the centre by 1/16: its bounding box, x in
   * [169, 173], holds no centre (168 or 184): rejected at setup */
  memset(g.c, 0, 64 * 64);
  assert_int_equal(draw_triangle(&st, vtx16(169, 329), vtx16(173, 329), vtx16(171, 334), &g), -(long)PSE_OUTSIDE);
  /* a sliver (160,321) (176,337) (176,336): its bounding box holds the one
   * centre (168, 328), but at x = 168 it spans y in [328.5, 329] only: set
   * up, no sample covered */
  assert_int_equal(draw_triangle(&st, vtx16(160, 321), vtx16(176, 337), vtx16(176, 336), &g), 0);
  for (size_t i = 0; i < 64 * 64; i++) assert_int_equal(g.c[i], 0);
  /* vertices on centres (0.5,0.5) (2.5,0.5) (0.5,2.5): the low and left
   * edges own their centres, the hypotenuse x + y = 3 does not: (0,0),
   * (1,0), (0,1) — three pixels, not (2,0), (1,1), (0,2) */
  memset(g.c, 0, 64 * 64);
  assert_int_equal(draw_triangle(&st, vtx(0.5, 0.5), vtx(2.5, 0.5), vtx(0.5, 2.5), &g), 3);
  assert_int_equal(at(&g, 0, 0) + at(&g, 1, 0) + at(&g, 0, 1), 3);
  /* a triangle no bigger than 1/16 pixel on a centre: (8,8) (9,8) (8,9) holds
   * only the centre (0.5, 0.5) itself, at its vertex on two owning edges */
  memset(g.c, 0, 64 * 64);
  assert_int_equal(draw_triangle(&st, vtx16(8, 8), vtx16(9, 8), vtx16(8, 9), &g), 1);
  assert_int_equal(at(&g, 0, 0), 1);
  /* zero area: collinear and coincident vertices */
  pse_prim p;
  pse_vertex a = vtx(1, 1), b = vtx(5, 3), c = vtx(9, 5);
  assert_int_equal(pse_setup_triangle(&st, &a, &b, &c, &p), PSE_DEGENERATE);
  assert_int_equal(pse_setup_triangle(&st, &a, &a, &b, &p), PSE_DEGENERATE);
  free(g.c);
}

/* The whole 12.4 range: Xs, Ys from -32768 to 32767. */
static void test_huge_triangles(void **state) {
  (void)state;
  pse_state st;
  /* Viewport offset 1024 px: absolute corners (-16384,-16384),
   * (49151,-16384), (-16384,49151); hypotenuse x + y = 32767. Centre sums
   * 16(x+y)+16 < 32767 iff x + y <= 2046: 2047·2048/2 = 2096128 pixels. */
  pse_state_init(&st, 2048, 2048);
  st.vp_x = st.vp_y = 16384;
  grid g = grid_new(2048, 2048);
  long n = draw_triangle(&st, vtx16(-32768, -32768), vtx16(32767, -32768), vtx16(-32768, 32767), &g);
  assert_int_equal(n, 2096128);
  for (int y = 0; y < 2048; y += 7)
    for (int x = 0; x < 2048; x += 5) assert_int_equal(at(&g, x, y), (x + y <= 2046) ? 1 : 0);
  free(g.c);

  /* Viewport offset 32767 (2047.9375 px): absolute (65534,65534),
   * (-1,65534), (65534,-1); hypotenuse x + y = 65533; covered iff
   * 16(x+y)+16 > 65533, i.e. x + y >= 4095, in the 4096×4096 target:
   * 4096·4097/2 = 8390656 pixels. Counted tile by tile. */
  pse_state_init(&st, 4096, 4096);
  st.vp_x = st.vp_y = 32767;
  pse_vertex a = vtx16(32767, 32767), b = vtx16(-32768, 32767), c = vtx16(32767, -32768);
  pse_prim p;
  assert_int_equal(pse_setup_triangle(&st, &a, &b, &c, &p), PSE_DRAW);
  long total = 0;
  static pse_coverage cov;
  for (int row = 0; row < 64; row++) {
    for (int col = 0; col < 64; col++) {
      int k = pse_rasterize_tile(&p, col, row, &cov);
      for (int i = 0; i < k; i++) {
        for (int e = 0; e < 16; e++) {
          int x = cov.block[i].x + PSE_LANE_DX(e), y = cov.block[i].y + PSE_LANE_DY(e);
          bool in = x + y >= 4095;
          assert_int_equal((cov.block[i].mask >> e) & 1, in ? 1 : 0);
          total += in;
        }
      }
    }
  }
  assert_int_equal(total, 8390656);
}

/* Pixel counts equal exact areas where the edges avoid the centres. */
static void test_counts_against_areas(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 256, 256);
  grid g = grid_new(256, 256);
  /* a 37×23 rectangle from two triangles (corners on pixel corners) */
  long n = draw_triangle(&st, vtx(5, 7), vtx(42, 7), vtx(42, 30), &g);
  n += draw_triangle(&st, vtx(5, 7), vtx(42, 30), vtx(5, 30), &g);
  assert_int_equal(n, 37 * 23);
  /* (0,0) (64,0) (0,1): row 0 samples at y = 0.5 where the slanted edge is
   * at x = 32; centres x + 0.5 < 32: 32 pixels = the area, 32 */
  memset(g.c, 0, 256 * 256);
  assert_int_equal(draw_triangle(&st, vtx(0, 0), vtx(64, 0), vtx(0, 1), &g), 32);
  /* a triangle across four tiles: (0,0) (200,0) (0,100); covered centres
   * have (x+0.5)/200 + (y+0.5)/100 < 1, i.e. x + 0.5 < 199 − 2y (equality
   * is impossible: half-integer against integer), x <= 198 − 2y: 199 − 2y
   * pixels in row y <= 99, Σ = 100·199 − 2·4950 = 10000 = the area. */
  memset(g.c, 0, 256 * 256);
  assert_int_equal(draw_triangle(&st, vtx(0, 0), vtx(200, 0), vtx(0, 100), &g), 10000);
  free(g.c);
}

/* ---- faces -------------------------------------------------------------- */

static void test_face_culling(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  pse_vertex a = vtx(1, 1), b = vtx(9, 1), c = vtx(1, 9); /* A = 8·8·256 > 0 */
  pse_prim p;
  static const struct { uint32_t config; bool ccw_drawn, ccw_rev, cw_drawn, cw_rev; } cases[] = {
      /* CW bit clear: A > 0 is forward */
      {PSE_CFG_FORWARD | PSE_CFG_REVERSE, true, false, true, true},
      {PSE_CFG_FORWARD, true, false, false, false},
      {PSE_CFG_REVERSE, false, false, true, true},
      {0, false, false, false, false},
      /* CW bit set: A < 0 is forward */
      {PSE_CFG_CLOCKWISE | PSE_CFG_FORWARD | PSE_CFG_REVERSE, true, true, true, false},
      {PSE_CFG_CLOCKWISE | PSE_CFG_FORWARD, false, false, true, false},
      {PSE_CFG_CLOCKWISE | PSE_CFG_REVERSE, true, true, false, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    st.config = cases[i].config;
    pse_result r = pse_setup_triangle(&st, &a, &b, &c, &p);
    assert_int_equal(r, cases[i].ccw_drawn ? PSE_DRAW : PSE_CULLED);
    if (r == PSE_DRAW) {
      assert_int_equal(p.reverse, cases[i].ccw_rev);
      pse_block blk = {0, 0, 0xFFFF, 0};
      pse_batch bt;
      pse_batch_setup(&p, &blk, &bt);
      assert_int_equal(bt.reverse, cases[i].ccw_rev);
    }
    r = pse_setup_triangle(&st, &a, &c, &b, &p);
    assert_int_equal(r, cases[i].cw_drawn ? PSE_DRAW : PSE_CULLED);
    if (r == PSE_DRAW) assert_int_equal(p.reverse, cases[i].cw_rev);
  }
  /* points and lines ignore faces */
  st.config = 0;
  assert_int_equal(pse_setup_point(&st, &a, &p), PSE_DRAW);
  assert_int_equal(pse_setup_line(&st, &a, &b, &p), PSE_DRAW);
  assert_int_equal(p.reverse, 0);
}

/* ---- clip window and tiles ---------------------------------------------- */

static void test_clip_window_and_tiles(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 256, 256);
  pse_vertex a = vtx(0, 0), b = vtx(128, 0), c = vtx(128, 128), d = vtx(0, 128);
  pse_prim p1, p2;
  /* tile clipping: tile (1, 0) of the 128×128 square holds exactly its
   * 64×64 pixels, all inside the tile */
  assert_int_equal(pse_setup_triangle(&st, &a, &b, &c, &p1), PSE_DRAW);
  assert_int_equal(pse_setup_triangle(&st, &a, &c, &d, &p2), PSE_DRAW);
  pse_coverage cov;
  long n = 0;
  for (int pass = 0; pass < 2; pass++) {
    int k = pse_rasterize_tile(pass ? &p2 : &p1, 1, 0, &cov);
    for (int i = 0; i < k; i++) {
      assert_true(cov.block[i].x >= 64 && cov.block[i].x < 128 && cov.block[i].y < 64);
      n += popcount16(cov.block[i].mask);
    }
  }
  assert_int_equal(n, 64 * 64);

  /* clip window (10, 20, 5, 3): 15 pixels. Block (8, 20) keeps columns
   * 2, 3 and rows 0..2: lanes {4,5,6,7,12,13} = 0x30F0; block (12, 20)
   * columns 0..2, rows 0..2: lanes {0,1,2,3,4,6,8,9,12} = 0x135F. */
  st.clip_left = 10;
  st.clip_bottom = 20;
  st.clip_width = 5;
  st.clip_height = 3;
  grid g = grid_new(256, 256);
  n = draw_triangle(&st, a, b, c, &g) + draw_triangle(&st, a, c, d, &g);
  assert_int_equal(n, 15);
  for (int y = 0; y < 64; y++)
    for (int x = 0; x < 64; x++) assert_int_equal(at(&g, x, y), (x >= 10 && x < 15 && y >= 20 && y < 23) ? 1 : 0);
  pse_vertex big0 = vtx(0, 0), big1 = vtx(200, 0), big2 = vtx(0, 200); /* covers the window */
  assert_int_equal(pse_setup_triangle(&st, &big0, &big1, &big2, &p1), PSE_DRAW);
  assert_int_equal(pse_rasterize_tile(&p1, 0, 0, &cov), 2);
  assert_int_equal(cov.block[0].x, 8);
  assert_int_equal(cov.block[0].y, 20);
  assert_int_equal(cov.block[0].mask, 0x30F0);
  assert_int_equal(cov.block[1].x, 12);
  assert_int_equal(cov.block[1].mask, 0x135F);

  /* a window across the corner of four tiles: 16 pixels in each */
  st.clip_left = st.clip_bottom = 60;
  st.clip_width = st.clip_height = 8;
  assert_int_equal(pse_setup_triangle(&st, &big0, &big1, &big2, &p1), PSE_DRAW);
  for (int t = 0; t < 4; t++) {
    int k = pse_rasterize_tile(&p1, t & 1, t >> 1, &cov);
    long m = 0;
    for (int i = 0; i < k; i++) m += popcount16(cov.block[i].mask);
    assert_int_equal(m, 16);
  }
  /* a window that misses the primitive */
  st.clip_left = 150;
  st.clip_bottom = 150;
  assert_int_equal(pse_setup_triangle(&st, &a, &b, &d, &p1), PSE_OUTSIDE);
  free(g.c);
}

/* ---- Z ------------------------------------------------------------------ */

static void test_z_rounding(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  /* Z24 = round(Zs × (2^24 − 1)), halves up, clamped:
   *   0.5  -> 8388607.5   -> 8388608      0.25 -> 4194303.75 -> 4194304
   *   0.75 -> 12582911.25 -> 12582911     1/3 (float 0.333333343) ->
   *   5592405.1667 -> 5592405; 1 -> 16777215; 2 -> clamp; -1, NaN -> 0 */
  static const struct { float z; uint32_t z24; } cases[] = {
      {0.0f, 0},        {0.5f, 8388608},   {0.25f, 4194304}, {0.75f, 12582911},
      {1.0f / 3.0f, 5592405}, {1.0f, 16777215}, {2.0f, 16777215}, {-1.0f, 0},
  };
  pse_block blk = {0, 0, 0xFFFF, 0};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0] + 1; i++) {
    float z = i < sizeof cases / sizeof cases[0] ? cases[i].z : NAN;
    uint32_t want = i < sizeof cases / sizeof cases[0] ? cases[i].z24 : 0;
    pse_vertex a = vtx(0, 0), b = vtx(8, 0), c = vtx(0, 8);
    a.zs = b.zs = c.zs = z;
    pse_prim p;
    assert_int_equal(pse_setup_triangle(&st, &a, &b, &c, &p), PSE_DRAW);
    uint32_t zz[16];
    pse_block_depth(&p, &blk, zz);
    for (int e = 0; e < 16; e++) assert_int_equal(zz[e], want);
  }
}

/* Z across a triangle: A = (0.5,0.5) z 0, B = (64.5,0.5) z 1, C = (64.5,8.5)
 * z 1. At (32.5, 2.5): λB = E_CA/Area = 32768/131072 = 0.25 and λC = 0.25
 * (12.4 arithmetic), so Z = 0.5 -> 8388607.5 -> 8388608. At A: 0; at B and
 * C: 16777215. Depth offset (factor 1.0, units 2.0): the slope is
 * 16777215/64 = 262143.984375 per pixel in x, 0 in y, so every Z grows by
 * 262145.984375: A -> 262146, (32.5,2.5) -> 8650753.484375 -> 8650753;
 * units -2 with factor 0 clamps A to 0. */
static void test_z_plane_and_depth_offset(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 128, 128);
  pse_vertex a = vtx(0.5, 0.5), b = vtx(64.5, 0.5), c = vtx(64.5, 8.5);
  a.zs = 0.0f;
  b.zs = c.zs = 1.0f;
  static const struct { uint16_t factor, units; bool enable; uint32_t za, zmid, zb; } cases[] = {
      {0, 0, false, 0, 8388608, 16777215},
      {0x3F80, 0x4000, false, 0, 8388608, 16777215},       /* record set, bit clear */
      {0x3F80, 0x4000, true, 262146, 8650753, 16777215},   /* 1.0, 2.0 */
      {0x0000, 0xC000, true, 0, 8388606, 16777213},        /* units -2 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    st.config = PSE_CFG_FORWARD | PSE_CFG_REVERSE | (cases[i].enable ? PSE_CFG_DEPTH_OFFSET : 0);
    st.depth_offset_factor = cases[i].factor;
    st.depth_offset_units = cases[i].units;
    pse_prim p;
    assert_int_equal(pse_setup_triangle(&st, &a, &b, &c, &p), PSE_DRAW);
    int lane;
    pse_block blk = block_of(0, 0, &lane);
    uint32_t z[16];
    pse_block_depth(&p, &blk, z);
    assert_int_equal(z[lane], cases[i].za);
    blk = block_of(32, 2, &lane);
    pse_block_depth(&p, &blk, z);
    assert_int_equal(z[lane], cases[i].zmid);
    blk = block_of(64, 0, &lane);
    pse_block_depth(&p, &blk, z);
    assert_int_equal(z[lane], cases[i].zb);
  }
}

/* ---- varyings ----------------------------------------------------------- */

/* The quad A (0.5,0.5), B (64.5,0.5), C (64.5,8.5), D (0.5,8.5) as ABC and
 * ACD, with 1/W = 1 on the left (A, D) and 1/4 on the right (B, C).
 * Varying 0 (Perspective) and 1 (ScreenLinear) are 0 on the left, 1 on the
 * right; varying 2 (Constant) is 10, 20, 30, 40 at A, B, C, D; varying 3
 * (Perspective) is 7 everywhere; varying 4 is unused. With s = (x − 0.5)/64
 * the screen position, 1/W = 1 − 0.75 s, and
 *   ScreenLinear = s,   Perspective = 0.25 s / (1 − 0.75 s).
 *   pixel (32, 2): s = 0.5   W = 1.6        P = 0.2     SL = 0.5
 *   pixel (48, 1): s = 0.75  W = 1/0.4375   P = 3/7     SL = 0.75
 *   pixel (16, 6): s = 0.25  W = 1/0.8125   P = 1/13    SL = 0.25  (in ACD)
 *   pixel (0, 0) = A: W = 1, P = SL = 0; the centre (64.5, 0.5) = B
 *   (outside, right edge, but its lane is still shaded): W = 4, P = SL = 1. */
static void test_varying_modes(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 128, 128);
  st.nvary = 5;
  st.interp[0] = PSE_INTERP_PERSPECTIVE;
  st.interp[1] = PSE_INTERP_SCREEN_LINEAR;
  st.interp[2] = PSE_INTERP_CONSTANT;
  st.interp[3] = PSE_INTERP_PERSPECTIVE;
  st.interp[4] = PSE_INTERP_UNUSED;
  pse_vertex a = vtx(0.5, 0.5), b = vtx(64.5, 0.5), c = vtx(64.5, 8.5), d = vtx(0.5, 8.5);
  a.inv_wc = d.inv_wc = 1.0f;
  b.inv_wc = c.inv_wc = 0.25f;
  a.vary[0] = a.vary[1] = d.vary[0] = d.vary[1] = 0.0f;
  b.vary[0] = b.vary[1] = c.vary[0] = c.vary[1] = 1.0f;
  a.vary[2] = 10.0f, b.vary[2] = 20.0f, c.vary[2] = 30.0f, d.vary[2] = 40.0f;
  a.vary[3] = b.vary[3] = c.vary[3] = d.vary[3] = 7.0f;
  a.vary[4] = b.vary[4] = c.vary[4] = d.vary[4] = 5.0f;

  static const struct { int x, y; bool acd; double w, persp, lin; } px[] = {
      {32, 2, false, 1.6, 0.2, 0.5},
      {48, 1, false, 1.0 / 0.4375, 3.0 / 7.0, 0.75},
      {16, 6, true, 1.0 / 0.8125, 1.0 / 13.0, 0.25},
      {0, 0, false, 1.0, 0.0, 0.0},
      {64, 0, false, 4.0, 1.0, 1.0},
  };
  for (int first = 0; first < 2; first++) {
    st.provoking_first = first;
    pse_prim abc, acd;
    assert_int_equal(pse_setup_triangle(&st, &a, &b, &c, &abc), PSE_DRAW);
    assert_int_equal(pse_setup_triangle(&st, &a, &c, &d, &acd), PSE_DRAW);
    assert_int_equal(abc.nfifo, 5);
    for (size_t i = 0; i < sizeof px / sizeof px[0]; i++) {
      const pse_prim *p = px[i].acd ? &acd : &abc;
      if (px[i].x < 64) assert_true(covered(p, px[i].x, px[i].y));
      int lane;
      pse_block blk = block_of(px[i].x, px[i].y, &lane);
      pse_batch bt;
      pse_batch_setup(p, &blk, &bt);
      assert_int_equal(bt.nfifo, 5);
      assert_int_equal(bt.x[lane], px[i].x);
      assert_int_equal(bt.y[lane], px[i].y);
      assert_close(bt.w[lane], px[i].w, 1e-6);
      assert_close(qpu_varying(&bt, 0, lane), px[i].persp, 1e-6);
      assert_close(qpu_varying(&bt, 1, lane), px[i].lin, 1e-6);
      /* flat: the last vertex (C of ABC, D of ACD) or the first (A) */
      float flat = first ? 10.0f : (px[i].acd ? 40.0f : 30.0f);
      assert_true(qpu_varying(&bt, 2, lane) == flat);
      assert_true(bt.vp[2][lane] == 0.0f && bt.c[2] == flat);
      /* a constant attribute is exact in every mode: VP = 0 */
      assert_true(qpu_varying(&bt, 3, lane) == 7.0f);
      assert_true(qpu_varying(&bt, 4, lane) == 0.0f);
      /* the hardware's plane: C = the value at vertex 0 (A) */
      assert_true(bt.c[0] == 0.0f && bt.c[1] == 0.0f);
    }
  }
  /* At the exact vertices the powers of two make everything exact. */
  pse_prim abc;
  assert_int_equal(pse_setup_triangle(&st, &a, &b, &c, &abc), PSE_DRAW);
  int lane;
  pse_block blk = block_of(64, 0, &lane);
  pse_batch bt;
  pse_batch_setup(&abc, &blk, &bt);
  assert_true(bt.w[lane] == 4.0f);
  assert_true(bt.vp[0][lane] == 0.25f); /* (1 − 0)·(1/4): the plane of a/w */
  assert_true(bt.vp[1][lane] == 0.25f); /* (1 − 0)/W */
  assert_true(qpu_varying(&bt, 0, lane) == 1.0f);
  assert_true(qpu_varying(&bt, 1, lane) == 1.0f);
}

/* Perspective's VP is the hardware's screen-linear plane of (a − a0)/w:
 * along a row of ABC, VP steps by the same amount per pixel. */
static void test_perspective_vp_is_a_plane(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 128, 128);
  st.nvary = 1;
  pse_vertex a = vtx(0.5, 0.5), b = vtx(64.5, 0.5), c = vtx(64.5, 8.5);
  a.inv_wc = 1.0f, b.inv_wc = c.inv_wc = 0.25f;
  a.vary[0] = 0.0f, b.vary[0] = c.vary[0] = 1.0f;
  pse_prim p;
  assert_int_equal(pse_setup_triangle(&st, &a, &b, &c, &p), PSE_DRAW);
  /* VP = λB·(1·0.25) + λC·(1·0.25) = 0.25·s with s = (x + 0.5 − 0.5)/64:
   * x = 32 -> 0.125, x = 36 -> 0.140625 (exact in float) */
  int lane;
  pse_block blk = block_of(32, 0, &lane);
  pse_batch bt;
  pse_batch_setup(&p, &blk, &bt);
  assert_true(bt.vp[0][lane] == 0.125f);
  blk = block_of(36, 0, &lane);
  pse_batch_setup(&p, &blk, &bt);
  assert_true(bt.vp[0][lane] == 0.140625f);
}

/* The results do not depend on the caller's rounding mode. */
static void test_rounding_mode_independent(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 128, 128);
  st.nvary = 2;
  st.interp[1] = PSE_INTERP_SCREEN_LINEAR;
  pse_vertex a = vtx(0.3, 0.7), b = vtx(50.1, 3.3), c = vtx(20.2, 40.9);
  a.inv_wc = 0.9f, b.inv_wc = 0.3f, c.inv_wc = 0.13f;
  a.zs = 0.1f, b.zs = 0.7f, c.zs = 0.33f;
  a.vary[0] = 0.1f, b.vary[0] = 3.7f, c.vary[0] = -2.2f;
  a.vary[1] = 1.1f, b.vary[1] = 0.7f, c.vary[1] = 9.2f;
  pse_batch out[2];
  memset(out, 0, sizeof out); /* entries past nfifo stay untouched */
  int modes[2] = {FE_TONEAREST, FE_TOWARDZERO};
  for (int m = 0; m < 2; m++) {
    fesetround(modes[m]);
    pse_prim p;
    assert_int_equal(pse_setup_triangle(&st, &a, &b, &c, &p), PSE_DRAW);
    pse_block blk = {12, 8, 0xFFFF, 0};
    pse_batch_setup(&p, &blk, &out[m]);
    assert_int_equal(fegetround(), modes[m]);
    fesetround(FE_TONEAREST);
  }
  assert_memory_equal(&out[0], &out[1], sizeof out[0]);
}

/* ---- per-block values against a plain reference ------------------------- */

/* pse_batch_setup written the plain way, from the prim's public fields and
 * docs/rasterization.md: per lane, each weight plane evaluated in int64 at
 * the lane's centre, converted (exactly) and divided by the denominator;
 * Z = z0 + λ1·dz1 + λ2·dz2 rounded halves up and clamped; W the float of
 * 1 / (iw0 + λ1·diw1 + λ2·diw2), +∞ for 0; VP per entry kind. pse.c may
 * compute these any faster way, but every bit must agree. */
static uint32_t ref_round_z(double zf) {
  if (!(zf > 0.0)) return 0;
  if (zf >= 16777215.0) return 0xFFFFFF;
  double whole = floor(zf);
  uint32_t z = (uint32_t)whole + (zf - whole >= 0.5 ? 1u : 0u);
  return z > 0xFFFFFFu ? 0xFFFFFFu : z;
}

static void ref_batch(const pse_prim *p, const pse_block *b, pse_batch *out) {
  out->mask = b->mask;
  out->reverse = p->reverse;
  out->nfifo = p->nfifo;
  for (int e = 0; e < 16; e++) {
    int64_t px = 16 * ((int64_t)b->x + PSE_LANE_DX(e)) + 8, py = 16 * ((int64_t)b->y + PSE_LANE_DY(e)) + 8;
    double l1 = (double)(p->lambda[0].u * px + p->lambda[0].v * py + p->lambda[0].w) / p->den;
    double l2 = (double)(p->lambda[1].u * px + p->lambda[1].v * py + p->lambda[1].w) / p->den;
    out->x[e] = (uint16_t)(b->x + PSE_LANE_DX(e));
    out->y[e] = (uint16_t)(b->y + PSE_LANE_DY(e));
    out->z[e] = ref_round_z(p->z0 + l1 * p->dz1 + l2 * p->dz2);
    double iw = p->iw0 + l1 * p->diw1 + l2 * p->diw2;
    out->w[e] = iw == 0.0 ? INFINITY : (float)(1.0 / iw);
    for (int k = 0; k < p->nfifo; k++) {
      const pse_fifo_entry *f = &p->fifo[k];
      double plane = l1 * f->q1 + l2 * f->q2;
      out->c[k] = f->c;
      out->vp[k][e] = f->kind == PSE_VP_PLANE          ? (float)plane
                      : f->kind == PSE_VP_PLANE_OVER_W ? (float)(plane / (double)out->w[e])
                      : signbit(f->c)                  ? -0.0f
                                                       : 0.0f;
    }
  }
}

/* Which NaN a sum of two NaNs gives (payload, and sign when they differ)
 * is the first operand's on x86, and C lets the compiler order the
 * operands of a commutative `+` as it likes, in the reference as in the
 * PSE: with NaN or infinite varyings or 1/Wc at two vertices, W and VP may
 * be either NaN. So any two NaNs compare equal here. (The QPU reads a NaN
 * as the infinity of its sign, docs/determinism.md.) */
static void ref_canonical_nans(pse_batch *b) {
  for (int e = 0; e < 16; e++) {
    if (isnan(b->w[e])) b->w[e] = NAN;
    for (int k = 0; k < b->nfifo; k++)
      if (isnan(b->vp[k][e])) b->vp[k][e] = NAN;
  }
}

static uint32_t ref_rand(uint32_t *s) { /* xorshift32 */
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* A float from random bits of every kind: zeros, denormals, normals of any
 * size, sometimes an infinity or NaN. */
static float ref_rand_float(uint32_t *s) {
  uint32_t r = ref_rand(s), k = r & 15;
  float f;
  if (k == 0) return (r >> 4 & 1) ? -0.0f : 0.0f;
  if (k == 1) r &= 0x807FFFFFu;                                    /* denormal */
  else if (k == 2) r = (r & 0x80000000u) | 0x7F800000u | (r >> 9 & 1); /* infinity or NaN */
  else if (k < 8) r = (r & 0x807FFFFFu) | (uint32_t)(100 + (r >> 4) % 56) << 23; /* around 1 */
  memcpy(&f, &r, sizeof f);
  return f;
}

static void ref_rand_vertex(uint32_t *s, int spread, int16_t ax, int16_t ay, pse_vertex *v) {
  memset(v, 0, sizeof *v);
  v->xs = (int16_t)(ax + (int32_t)(ref_rand(s) % (uint32_t)(2 * spread + 1)) - spread);
  v->ys = (int16_t)(ay + (int32_t)(ref_rand(s) % (uint32_t)(2 * spread + 1)) - spread);
  uint32_t k = ref_rand(s) % 8;
  v->zs = k == 0 ? ref_rand_float(s) : (float)((int32_t)(ref_rand(s) % 3000) - 1000) / 1000.0f;
  v->inv_wc = k == 1 ? 0.0f : k == 2 ? ref_rand_float(s) : (float)(1 + ref_rand(s) % 1000) / 97.0f;
  v->point_size = (float)(ref_rand(s) % 400) / 16.0f;
  for (int i = 0; i < PSE_MAX_VARYINGS; i++)
    v->vary[i] = (ref_rand(s) & 3) ? (float)((int32_t)(ref_rand(s) % 20001) - 10000) / 1000.0f : ref_rand_float(s);
}

/* Sets up a triangle of v[0..2], a line of v[0..1] or a point of v[0],
 * at random (*kind: 3, 2 or 1). */
static pse_result ref_setup_any(uint32_t *s, const pse_state *st, const pse_vertex v[3], pse_prim *p, int *kind) {
  *kind = (int)(ref_rand(s) % 3) + 1;
  return *kind == 3 ? pse_setup_triangle(st, &v[0], &v[1], &v[2], p)
         : *kind == 2 ? pse_setup_line(st, &v[0], &v[1], p)
                      : pse_setup_point(st, &v[0], p);
}

/* Random triangles, lines and points (every interpolation mode, depth
 * offset, both provoking vertices, large and tiny, on and off the frame),
 * each at blocks covered or not, near and far: pse_batch_setup and
 * pse_block_depth give the reference's bytes exactly. */
static void test_batch_matches_reference(void **state) {
  (void)state;
  uint32_t s = 0x2545F491u;
  static pse_batch got, want;
  int checked = 0;
  for (int n = 0; n < 4000; n++) {
    pse_state st;
    pse_state_init(&st, 4096, 4096);
    st.vp_x = (int16_t)(ref_rand(&s) % 2 ? 0 : ref_rand(&s) % 32768);
    st.vp_y = (int16_t)(ref_rand(&s) % 2 ? 0 : ref_rand(&s) % 32768);
    st.nvary = (uint8_t)(ref_rand(&s) % (PSE_MAX_VARYINGS + 1));
    for (int i = 0; i < PSE_MAX_VARYINGS; i++) st.interp[i] = (uint8_t)(ref_rand(&s) % 4);
    st.provoking_first = ref_rand(&s) & 1;
    st.per_vertex_point_size = ref_rand(&s) & 1;
    st.line_width = (float)(1 + ref_rand(&s) % 64) / 8.0f;
    if (ref_rand(&s) & 1) {
      st.config |= PSE_CFG_DEPTH_OFFSET;
      st.depth_offset_factor = (uint16_t)ref_rand(&s);
      st.depth_offset_units = (uint16_t)ref_rand(&s);
    }
    int spread = (ref_rand(&s) & 1) ? 16 * 20 : 32767;
    int16_t ax = (int16_t)ref_rand(&s), ay = (int16_t)ref_rand(&s);
    pse_vertex v[3];
    for (int k = 0; k < 3; k++) ref_rand_vertex(&s, spread, ax, ay, &v[k]);
    pse_prim p;
    int kind;
    if (ref_setup_any(&s, &st, v, &p, &kind) != PSE_DRAW) continue;
    for (int k = 0; k < 8; k++) {
      pse_block b;
      uint32_t bx, by;
      if (k < 6) { /* in or around the primitive's rectangle */
        bx = (uint32_t)p.x0 + ref_rand(&s) % (uint32_t)(p.x1 - p.x0 + 64);
        by = (uint32_t)p.y0 + ref_rand(&s) % (uint32_t)(p.y1 - p.y0 + 64);
      } else { /* anywhere: values extrapolated from the planes */
        bx = ref_rand(&s) % 65536, by = ref_rand(&s) % 65536;
      }
      b.x = (uint16_t)((bx > 65532 ? 65532 : bx) & ~3u), b.y = (uint16_t)((by > 65532 ? 65532 : by) & ~3u);
      b.mask = (uint16_t)ref_rand(&s), b.samples = 0;
      memset(&got, 0x5A, sizeof got);
      memset(&want, 0x5A, sizeof want);
      pse_batch_setup(&p, &b, &got);
      ref_batch(&p, &b, &want);
      ref_canonical_nans(&got);
      ref_canonical_nans(&want);
      if (memcmp(&got, &want, sizeof got) != 0) {
        for (int e = 0; e < 16; e++)
          if (got.z[e] != want.z[e] || memcmp(&got.w[e], &want.w[e], 4))
            fail_msg("prim %d (kind %d) block (%u, %u) lane %d: z %u / %u, w %a / %a", n, kind, b.x, b.y, e,
                     got.z[e], want.z[e], (double)got.w[e], (double)want.w[e]);
        for (int k = 0; k < want.nfifo; k++)
          for (int e = 0; e < 16; e++)
            if (memcmp(&got.vp[k][e], &want.vp[k][e], 4) || memcmp(&got.c[k], &want.c[k], 4))
              fail_msg("prim %d (kind %d) block (%u, %u) entry %d lane %d: VP %a / %a, C %a / %a", n, kind, b.x,
                       b.y, k, e, (double)got.vp[k][e], (double)want.vp[k][e], (double)got.c[k], (double)want.c[k]);
        fail_msg("prim %d (kind %d) block (%u, %u): the batches differ", n, kind, b.x, b.y);
      }
      uint32_t z[16];
      pse_block_depth(&p, &b, z);
      assert_memory_equal(z, want.z, sizeof z);
      checked++;
    }
  }
  assert_true(checked > 10000);
}

/* A float for a vertex's Zs or 1/Wc in the extremes test: the special
 * values a flat plane must carry through (zeros of both signs, infinities,
 * NaN, a denormal, 0 and 1 in Z) or an ordinary one. */
static float ref_special_float(uint32_t *s) {
  static const uint32_t bits[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                  0x00000001u, 0x3F800000u, 0x3F7FFFFFu, 0x3F000000u, 0x4B800000u};
  uint32_t r = ref_rand(s) % 16;
  if (r >= sizeof bits / sizeof bits[0]) return (float)(ref_rand(s) % 100001) / 100000.0f;
  float f;
  memcpy(&f, &bits[r], sizeof f);
  return f;
}

/* A 12.4 coordinate at the ends of its range or anywhere. */
static int16_t ref_extreme_coord(uint32_t *s) {
  static const int16_t ends[] = {-32768, -32767, -32766, -1, 0, 1, 32766, 32767};
  uint32_t r = ref_rand(s) % 12;
  return r < 8 ? ends[r] : (int16_t)ref_rand(s);
}

/* The extremes the random test above rarely reaches: vertices at the ends
 * of the 12.4 range (the largest triangles there are, up to 4096 pixels a
 * side, with the viewport offset at either end too), and Z or 1/Wc equal
 * at every vertex (flat planes, which the PSE fills without the weights)
 * with the special values: zeros of either sign, infinities, NaN. Blocks in
 * the primitive's rectangle, at its corners and at the ends of the
 * 16-bit block coordinates. Both ways to a batch (pse_batch_setup, and the
 * renderer's early-Z path pse_block_depth_keep then pse_batch_setup_kept)
 * give the plain reference's bytes. */
static void test_batch_extremes_match_reference(void **state) {
  (void)state;
  uint32_t s = 0x9E3779B9u;
  static pse_batch got, want;
  int checked = 0, zflat = 0, wflat = 0, big = 0;
  for (int n = 0; n < 3000; n++) {
    pse_state st;
    pse_state_init(&st, 4096, 4096);
    static const int16_t vps[] = {0, 0, 1, 16 * 2048, 32767, -32768};
    st.vp_x = vps[ref_rand(&s) % 6], st.vp_y = vps[ref_rand(&s) % 6];
    st.nvary = (uint8_t)(ref_rand(&s) % 4 ? ref_rand(&s) % 4 : ref_rand(&s) % (PSE_MAX_VARYINGS + 1));
    for (int i = 0; i < PSE_MAX_VARYINGS; i++) st.interp[i] = (uint8_t)(ref_rand(&s) % 4);
    st.provoking_first = ref_rand(&s) & 1;
    st.line_width = (float)(1 + ref_rand(&s) % 64) / 8.0f;
    st.point_size = (float)(1 + ref_rand(&s) % 4096) / 2.0f;
    if (ref_rand(&s) % 4 == 0) {
      st.config |= PSE_CFG_DEPTH_OFFSET;
      st.depth_offset_factor = (uint16_t)ref_rand(&s);
      st.depth_offset_units = (uint16_t)ref_rand(&s);
    }
    pse_vertex v[3];
    float z = ref_special_float(&s), iw = ref_special_float(&s);
    uint32_t flat = ref_rand(&s) % 4; /* bit 0: one Z, bit 1: one 1/Wc */
    for (int k = 0; k < 3; k++) {
      ref_rand_vertex(&s, 16, 0, 0, &v[k]);
      v[k].xs = ref_extreme_coord(&s), v[k].ys = ref_extreme_coord(&s);
      v[k].zs = (flat & 1) ? z : ref_special_float(&s);
      v[k].inv_wc = (flat & 2) ? iw : ref_special_float(&s);
    }
    pse_prim p;
    int kind;
    if (ref_setup_any(&s, &st, v, &p, &kind) != PSE_DRAW) continue;
    zflat += p.z_flat, wflat += p.w_flat;
    big += (p.x1 - p.x0) >= 2048 && (p.y1 - p.y0) >= 2048;
    for (int k = 0; k < 8; k++) {
      pse_block b;
      uint32_t bx, by;
      if (k < 4) {
        bx = (uint32_t)p.x0 + ref_rand(&s) % (uint32_t)(p.x1 - p.x0);
        by = (uint32_t)p.y0 + ref_rand(&s) % (uint32_t)(p.y1 - p.y0);
      } else if (k < 6) { /* the rectangle's corners */
        bx = (uint32_t)((k & 1) ? p.x1 - 1 : p.x0), by = (uint32_t)(ref_rand(&s) & 1 ? p.y1 - 1 : p.y0);
      } else { /* the ends of the block coordinates */
        bx = (ref_rand(&s) & 1) ? 65532 : 0, by = (ref_rand(&s) & 1) ? 65532 : 0;
      }
      b.x = (uint16_t)((bx > 65532 ? 65532 : bx) & ~3u), b.y = (uint16_t)((by > 65532 ? 65532 : by) & ~3u);
      b.mask = (uint16_t)ref_rand(&s), b.samples = 0;
      memset(&want, 0x5A, sizeof want);
      ref_batch(&p, &b, &want);
      ref_canonical_nans(&want);
      for (int way = 0; way < 2; way++) {
        memset(&got, 0x5A, sizeof got);
        if (way == 0) pse_batch_setup(&p, &b, &got);
        else {
          uint32_t zk[16];
          pse_weights wt;
          memset(&wt, 0xA5, sizeof wt);
          pse_block_depth_keep(&p, &b, &wt, zk);
          assert_memory_equal(zk, want.z, sizeof zk);
          pse_batch_setup_kept(&p, &b, &wt, zk, &got);
        }
        ref_canonical_nans(&got);
        if (memcmp(&got, &want, sizeof got) != 0) {
          for (int e = 0; e < 16; e++)
            if (got.z[e] != want.z[e] || memcmp(&got.w[e], &want.w[e], 4))
              fail_msg("way %d prim %d (kind %d) block (%u, %u) lane %d: z %u / %u, w %a / %a", way, n, kind, b.x,
                       b.y, e, got.z[e], want.z[e], (double)got.w[e], (double)want.w[e]);
          fail_msg("way %d prim %d (kind %d) block (%u, %u): the batches differ", way, n, kind, b.x, b.y);
        }
      }
      checked++;
    }
  }
  /* the cases this test is for did occur */
  assert_true(checked > 5000);
  assert_true(zflat > 500 && wflat > 500 && big > 100);
}

/* ---- points ------------------------------------------------------------- */

static long draw_point(const pse_state *st, pse_vertex v, grid *g) {
  pse_prim p;
  pse_result r = pse_setup_point(st, &v, &p);
  if (r != PSE_DRAW) return -(long)r;
  return raster_into(&p, g);
}

static void test_points(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  grid g = grid_new(64, 64);
  static const struct { double x, y; float size; long n; int x0, y0, side; } cases[] = {
      {10.5, 10.5, 1.0f, 1, 10, 10, 1},  /* [10,11)²: one centre */
      {10.5, 10.5, 3.0f, 9, 9, 9, 3},    /* [9,12)² */
      {10.0, 10.0, 2.0f, 4, 9, 9, 2},    /* [9,11]²: 9.5, 10.5 */
      {10.5, 10.5, 2.0f, 4, 9, 9, 2},    /* [9.5,11.5]: 9.5 (low/left edge, in), 10.5; 11.5 out */
      {10.5, 10.5, 4.0f, 16, 8, 8, 4},   /* [8.5,12.5]: 8.5 in .. 11.5; 12.5 out */
      {10.5, 10.5, 1.5f, 1, 10, 10, 1},  /* [9.75,11.25]: 10.5 only */
      {10.5, 10.5, 0.125f, 1, 10, 10, 1},/* half = 1/16: the centre on the low-left corner */
      {0.0, 0.0, 2.0f, 1, 0, 0, 1},      /* [-1,1]² inside the target: (0.5,0.5) only */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    memset(g.c, 0, 64 * 64);
    st.point_size = cases[i].size;
    assert_int_equal(draw_point(&st, vtx(cases[i].x, cases[i].y), &g), cases[i].n);
    for (int y = 0; y < cases[i].side; y++)
      for (int x = 0; x < cases[i].side; x++) assert_int_equal(at(&g, cases[i].x0 + x, cases[i].y0 + y), 1);
  }
  /* per-vertex size overrides the record; zero and NaN draw nothing */
  st.point_size = 1.0f;
  st.per_vertex_point_size = true;
  pse_vertex v = vtx(10.5, 10.5);
  v.point_size = 3.0f;
  memset(g.c, 0, 64 * 64);
  assert_int_equal(draw_point(&st, v, &g), 9);
  v.point_size = 0.0f;
  assert_int_equal(draw_point(&st, v, &g), -(long)PSE_DEGENERATE);
  v.point_size = NAN;
  assert_int_equal(draw_point(&st, v, &g), -(long)PSE_DEGENERATE);
  free(g.c);
}

/* Point sprites: size 4 at (10.5, 10.5) spans [8.5, 12.5]. s = (x − 8.5)/4
 * grows with x; t = (12.5 − y)/4 shrinks as the row grows: pixel (8, 8)
 * centre (8.5, 8.5): s = 0, t = 1; pixel (11, 9): s = 0.75, t = 0.75;
 * pixel (10, 11): s = 0.5, t = 0.25. The FIFO starts with s, t, then the
 * varyings (all three modes give the vertex's own value). */
static void test_point_sprite_coordinates(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  st.point_size = 4.0f;
  st.nvary = 3;
  st.interp[1] = PSE_INTERP_SCREEN_LINEAR;
  st.interp[2] = PSE_INTERP_CONSTANT;
  pse_vertex v = vtx(10.5, 10.5);
  v.inv_wc = 0.5f; /* W = 2 */
  v.vary[0] = 3.0f, v.vary[1] = -1.5f, v.vary[2] = 8.0f;
  pse_prim p;
  assert_int_equal(pse_setup_point(&st, &v, &p), PSE_DRAW);
  assert_int_equal(p.nfifo, 5);
  static const struct { int x, y; float s, t; } cases[] = {{8, 8, 0.0f, 1.0f}, {11, 9, 0.75f, 0.75f}, {10, 11, 0.5f, 0.25f}};
  for (size_t i = 0; i < 3; i++) {
    int lane;
    pse_block blk = block_of(cases[i].x, cases[i].y, &lane);
    pse_batch bt;
    pse_batch_setup(&p, &blk, &bt);
    assert_true(bt.w[lane] == 2.0f);
    assert_true(qpu_varying(&bt, 0, lane) == cases[i].s);
    assert_true(qpu_varying(&bt, 1, lane) == cases[i].t);
    assert_true(qpu_varying(&bt, 2, lane) == 3.0f);
    assert_true(qpu_varying(&bt, 3, lane) == -1.5f);
    assert_true(qpu_varying(&bt, 4, lane) == 8.0f);
  }
}

/* ---- lines -------------------------------------------------------------- */

static long draw_line(const pse_state *st, pse_vertex a, pse_vertex b, grid *g) {
  pse_prim p;
  pse_result r = pse_setup_line(st, &a, &b, &p);
  if (r != PSE_DRAW) return -(long)r;
  return raster_into(&p, g);
}

static void test_lines(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  grid g = grid_new(64, 64);
  /* horizontal, centre to centre: (2.5,10.5)-(12.5,10.5), width 1: the
   * rectangle [2.5,12.5] × [10,11]: x = 2..11 (12.5 is on the end, out) */
  assert_int_equal(draw_line(&st, vtx(2.5, 10.5), vtx(12.5, 10.5), &g), 10);
  for (int x = 2; x < 12; x++) assert_int_equal(at(&g, x, 10), 1);
  /* reversed: the same pixels — the caps are vertical and the one at
   * x = 2.5 is a left edge whichever way the line runs */
  memset(g.c, 0, 64 * 64);
  assert_int_equal(draw_line(&st, vtx(12.5, 10.5), vtx(2.5, 10.5), &g), 10);
  for (int x = 2; x < 12; x++) assert_int_equal(at(&g, x, 10), 1);
  /* between two rows: y = 10.0 spans [9.5, 10.5]; the low edge owns 9.5:
   * row 9 only */
  memset(g.c, 0, 64 * 64);
  assert_int_equal(draw_line(&st, vtx(2.5, 10.0), vtx(12.5, 10.0), &g), 10);
  for (int x = 2; x < 12; x++) assert_int_equal(at(&g, x, 9), 1);
  /* vertical (y-major): (20.5,3.5)-(20.5,9.5): x in [20,21], y 3.5..8.5 */
  memset(g.c, 0, 64 * 64);
  assert_int_equal(draw_line(&st, vtx(20.5, 3.5), vtx(20.5, 9.5), &g), 6);
  for (int y = 3; y < 9; y++) assert_int_equal(at(&g, 20, y), 1);
  /* slope 1/2, x-major: (0.5,0.5)-(8.5,4.5). Column x has the line at
   * yl = 0.5 + x/2 and covers (yl − 0.5, yl + 0.5] (its lower edge runs up
   * to the right: not a left edge; the upper one is): one pixel a column:
   * (0,0) (1,1) (2,1) (3,2) (4,2) (5,3) (6,3) (7,4) */
  memset(g.c, 0, 64 * 64);
  assert_int_equal(draw_line(&st, vtx(0.5, 0.5), vtx(8.5, 4.5), &g), 8);
  static const int ys[8] = {0, 1, 1, 2, 2, 3, 3, 4};
  for (int x = 0; x < 8; x++) assert_int_equal(at(&g, x, ys[x]), 1);
  /* width 3: (2.5,20.5)-(10.5,20.5) spans y [19, 22]: rows 19, 20, 21 */
  st.line_width = 3.0f;
  memset(g.c, 0, 64 * 64);
  assert_int_equal(draw_line(&st, vtx(2.5, 20.5), vtx(10.5, 20.5), &g), 24);
  for (int y = 19; y < 22; y++)
    for (int x = 2; x < 10; x++) assert_int_equal(at(&g, x, y), 1);
  /* a strip turning at (10.5, 5.5): the shared vertex pixel once */
  st.line_width = 1.0f;
  memset(g.c, 0, 64 * 64);
  long n = draw_line(&st, vtx(2.5, 2.5), vtx(10.5, 5.5), &g) + draw_line(&st, vtx(10.5, 5.5), vtx(18.5, 3.5), &g);
  assert_int_equal(n, 16);
  for (size_t i = 0; i < 64 * 64; i++) assert_true(g.c[i] <= 1);
  assert_int_equal(at(&g, 10, 5), 1);
  /* zero length, zero width: nothing */
  assert_int_equal(draw_line(&st, vtx(3, 3), vtx(3, 3), &g), -(long)PSE_DEGENERATE);
  st.line_width = 0.0f;
  assert_int_equal(draw_line(&st, vtx(3, 3), vtx(9, 3), &g), -(long)PSE_DEGENERATE);
  free(g.c);
}

/* Line values: (0.5,0.5) w = 1 to (16.5,0.5) w = 4 (1/W = 0.25), varying
 * Perspective 0 -> 1. The line coordinate is the major-axis position
 * s = (x + 0.5 − 0.5)/16, screen-linear; at pixel 8, s = 0.5: 1/W = 0.625,
 * W = 1.6, coordinate 0.5, Perspective 0.125/0.625 = 0.2; Constant takes
 * the last vertex (v1). */
static void test_line_values(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  st.nvary = 2;
  st.interp[1] = PSE_INTERP_CONSTANT;
  pse_vertex a = vtx(0.5, 0.5), b = vtx(16.5, 0.5);
  a.inv_wc = 1.0f, b.inv_wc = 0.25f;
  a.vary[0] = 0.0f, b.vary[0] = 1.0f;
  a.vary[1] = 5.0f, b.vary[1] = 6.0f;
  a.zs = 0.0f, b.zs = 1.0f;
  pse_prim p;
  assert_int_equal(pse_setup_line(&st, &a, &b, &p), PSE_DRAW);
  assert_int_equal(p.nfifo, 3);
  int lane;
  pse_block blk = block_of(8, 0, &lane);
  pse_batch bt;
  pse_batch_setup(&p, &blk, &bt);
  assert_close(bt.w[lane], 1.6, 1e-6);
  assert_close(qpu_varying(&bt, 0, lane), 0.5, 1e-6);
  assert_close(qpu_varying(&bt, 1, lane), 0.2, 1e-6);
  assert_true(qpu_varying(&bt, 2, lane) == 6.0f);
  assert_int_equal(bt.z[lane], 8388608); /* 0.5 × (2^24 − 1) = 8388607.5, up */
  blk = block_of(0, 0, &lane);
  pse_batch_setup(&p, &blk, &bt);
  assert_true(qpu_varying(&bt, 0, lane) == 0.0f);
  assert_true(bt.w[lane] == 1.0f);
}

/* ---- VPM layout --------------------------------------------------------- */

static void test_vertex_unpack(void **state) {
  (void)state;
  /* a VPM column: stride 16; Xs = -5.5 px = -88 = 0xFFA8, Ys = 300.25 px =
   * 4804 = 0x12C4; Zs 0.5, 1/Wc 0.25, point size 3, varyings 1, -2 */
  uint32_t vpm[7 * 16];
  memset(vpm, 0xEE, sizeof vpm);
  uint32_t words[7] = {0x12C4FFA8u, 0x3F000000u, 0x3E800000u, 0x40400000u, 0x3F800000u, 0xC0000000u, 0};
  for (int k = 0; k < 7; k++) vpm[k * 16 + 3] = words[k];
  pse_vertex v;
  pse_vertex_unpack(&vpm[3], 16, true, 2, &v);
  assert_int_equal(v.xs, -88);
  assert_int_equal(v.ys, 4804);
  assert_true(v.zs == 0.5f && v.inv_wc == 0.25f && v.point_size == 3.0f);
  assert_true(v.vary[0] == 1.0f && v.vary[1] == -2.0f);
  /* without the point size row the varyings start at row 3; Ys negative */
  vpm[3] = 0x8000FFFFu; /* Ys = -32768, Xs = -1 */
  pse_vertex_unpack(&vpm[3], 16, false, 1, &v);
  assert_int_equal(v.xs, -1);
  assert_int_equal(v.ys, -32768);
  assert_true(v.vary[0] == 3.0f);
}

static void test_flat_flags(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 8, 8);
  st.nvary = 4;
  pse_state_set_flat_flags(&st, 0x5u);
  assert_int_equal(st.interp[0], PSE_INTERP_CONSTANT);
  assert_int_equal(st.interp[1], PSE_INTERP_PERSPECTIVE);
  assert_int_equal(st.interp[2], PSE_INTERP_CONSTANT);
  assert_int_equal(st.interp[3], PSE_INTERP_PERSPECTIVE);
}

static void test_bench_runs(void **state) {
  (void)state;
  pse_bench_result r;
  pse_bench(2000, 42, &r);
  assert_true(r.setup_raster_per_s > 0 && r.with_batches_per_s > 0);
  assert_true(r.fragments > 0 && r.blocks > 0 && r.fragments <= 16 * r.blocks);
  pse_bench_result r2;
  pse_bench(2000, 42, &r2);
  assert_true(r.fragments == r2.fragments && r.blocks == r2.blocks);
}

/* ---- 4x multisampling ----------------------------------------------------- */

/* The oracle, from docs/rasterization.md alone: tests/fill_rule.h. */

/* Rasterises p over a w x h frame of p's tiles into masks[] (4 bits per
 * pixel), checking the blocks: inside their tile, lane mask = lanes with a
 * sample. */
static void ms_raster_into(const pse_prim *p, int w, int h, uint8_t *masks) {
  static pse_coverage cov;
  memset(masks, 0, (size_t)w * (size_t)h);
  for (int row = 0; row * p->tile_h < h; row++)
    for (int col = 0; col * p->tile_w < w; col++) {
      int n = pse_rasterize_tile(p, col, row, &cov);
      for (int i = 0; i < n; i++) {
        const pse_block *b = &cov.block[i];
        assert_true(b->x >= col * p->tile_w && b->x < (col + 1) * p->tile_w);
        assert_true(b->y >= row * p->tile_h && b->y < (row + 1) * p->tile_h);
        for (int e = 0; e < 16; e++) {
          unsigned m = (unsigned)(b->samples >> (4 * e)) & 15u;
          assert_int_equal(b->mask >> e & 1, m != 0);
          int x = b->x + PSE_LANE_DX(e), y = b->y + PSE_LANE_DY(e);
          if (m) masks[y * w + x] = (uint8_t)m;
        }
      }
    }
}

static void test_ms_sample_pattern(void **state) {
  (void)state;
  for (int s = 0; s < 4; s++) {
    assert_int_equal(pse_sample_x[s], fill_rule_ms_x[s]);
    assert_int_equal(pse_sample_y[s], fill_rule_ms_y[s]);
  }
  /* a rotated grid: no two samples share a row or a column */
  for (int a = 0; a < 4; a++)
    for (int b = a + 1; b < 4; b++) assert_true(fill_rule_ms_x[a] != fill_rule_ms_x[b] && fill_rule_ms_y[a] != fill_rule_ms_y[b]);
  /* pse_sample_range: the smallest and largest offset on either axis */
  int lo = 16, hi = -1, plo, phi;
  for (int s = 0; s < 4; s++) {
    int a = fill_rule_ms_x[s], b = fill_rule_ms_y[s];
    lo = a < lo ? a : lo, lo = b < lo ? b : lo, hi = a > hi ? a : hi, hi = b > hi ? b : hi;
  }
  pse_sample_range(4, &plo, &phi);
  assert_int_equal(plo, lo);
  assert_int_equal(phi, hi);
  pse_sample_range(1, &plo, &phi);
  assert_int_equal(plo, 8);
  assert_int_equal(phi, 8);
}

/* The triangle A (10.5, 5.375), B (60, 5.375), C (10.5, 50) on 32x32
 * tiles, 4 samples: its left edge x = 10.5 (12.4: 168) owns the samples
 * on it, its bottom edge y = 5.375 (86) too. Pixel (10, y) has samples at
 * X = 166, 174, 162, 170: those at X >= 168 are 1 and 3 -> 0xA. Row 5 has
 * samples at Y = 82, 86, 90, 94: sample 0 is below the bottom edge, sample
 * 1 lies on it (covered) -> pixel (20, 5) 0xE, pixel (10, 5) 1 and 3 ->
 * 0xA. Pixel (9, y): X <= 158 -> nothing; row 4: Y <= 78 -> nothing. Every
 * pixel agrees with the per-sample oracle, and the covered samples / 4 is
 * the area within the perimeter. */
static void test_ms_coverage_by_hand(void **state) {
  (void)state;
  pse_state st;
  pse_state_init(&st, 64, 64);
  st.samples = 4;
  st.tile_w = st.tile_h = 32;
  pse_vertex a = vtx(10.5, 5.375), b = vtx(60, 5.375), c = vtx(10.5, 50);
  pse_prim p;
  assert_int_equal(pse_setup_triangle(&st, &a, &b, &c, &p), PSE_DRAW);
  static uint8_t m[64 * 64];
  ms_raster_into(&p, 64, 64, m);
  assert_int_equal(m[10 * 64 + 10], 0xA);
  assert_int_equal(m[5 * 64 + 10], 0xA);
  assert_int_equal(m[5 * 64 + 11], 0xE);
  assert_int_equal(m[5 * 64 + 20], 0xE);
  assert_int_equal(m[4 * 64 + 20], 0);
  assert_int_equal(m[10 * 64 + 9], 0);
  assert_int_equal(m[20 * 64 + 20], 0xF);
  const int32_t x[3] = {168, 960, 168}, y[3] = {86, 86, 800};
  long samples = 0;
  for (int py = 0; py < 64; py++)
    for (int px = 0; px < 64; px++) {
      unsigned want = fill_rule_ms_mask(x, y, px, py);
      if (m[py * 64 + px] != want) fail_msg("pixel (%d, %d): mask 0x%x, oracle 0x%x", px, py, m[py * 64 + px], want);
      samples += popcount16(want);
    }
  double area = 0.5 * 49.5 * 44.625; /* 1104.47 pixels */
  assert_true(fabs(samples / 4.0 - area) < 2 * (49.5 + 44.625 + 66.3));
  /* one sample (oversample off): pixel (10, 10)'s centre X = 168 lies on
   * the left edge, which owns it; the lane mask says covered, no sample bits */
  st.samples = 1;
  assert_int_equal(pse_setup_triangle(&st, &a, &b, &c, &p), PSE_DRAW);
  static pse_coverage cov;
  int n = pse_rasterize_tile(&p, 0, 0, &cov);
  int found = 0;
  for (int i = 0; i < n; i++) {
    assert_true(cov.block[i].samples == 0);
    if (cov.block[i].x == 8 && cov.block[i].y == 8) found = cov.block[i].mask >> 12 & 1; /* lane 12: (2, 2) */
  }
  assert_true(found);
}

/* Random triangles on 32x32 and 32x16 tiles with viewport offsets, some
 * with corners on sample points: every pixel's sample mask equals the
 * oracle's. */
static void test_ms_random_triangles_match_oracle(void **state) {
  (void)state;
  static uint8_t m[128 * 128];
  for (uint32_t n = 0; n < 200; n++) {
    pse_state st;
    pse_state_init(&st, 128, 128);
    st.samples = 4;
    st.tile_w = 32, st.tile_h = n % 2 ? 16 : 32;
    st.vp_x = (int16_t)(hash32(n * 5 + 1) % 64), st.vp_y = (int16_t)(hash32(n * 5 + 2) % 64);
    uint32_t span = n % 3 == 0 ? 60 : 2100;
    pse_vertex v[3];
    int32_t x[3], y[3];
    for (int k = 0; k < 3; k++) {
      int32_t xs = (int32_t)(hash32(n * 11 + 3 + (uint32_t)k) % span), ys = (int32_t)(hash32(n * 13 + 7 + (uint32_t)k) % span);
      if (n % 5 == 0) xs = xs / 16 * 16 + fill_rule_ms_x[k], ys = ys / 16 * 16 + fill_rule_ms_y[(k + 1) % 4];
      v[k] = vtx16(xs, ys);
      x[k] = xs + st.vp_x, y[k] = ys + st.vp_y;
    }
    pse_prim p;
    memset(m, 0, sizeof m);
    if (pse_setup_triangle(&st, &v[0], &v[1], &v[2], &p) == PSE_DRAW) ms_raster_into(&p, 128, 128, m);
    for (int py = 0; py < 128; py++)
      for (int px = 0; px < 128; px++) {
        unsigned want = fill_rule_ms_mask(x, y, px, py);
        if (m[py * 128 + px] != want)
          fail_msg("triangle %u, pixel (%d, %d): mask 0x%x, oracle 0x%x", n, px, py, m[py * 128 + px], want);
      }
  }
}

/* The coverage of a primitive in one tile as pse.h defines it, written
 * plainly: every pixel of the tile inside p's rectangle, every sample point
 * against every edge in int64, the blocks in the documented order (16×16
 * blocks by rows, their 4×4 blocks by rows), those with coverage kept. */
static int plain_coverage(const pse_prim *p, int col, int row, pse_block *out) {
  int tw = p->tile_w, th = p->tile_h, n = 0;
  const uint8_t *sx, *sy;
  unsigned ns = pse_sample_points(p->samples, &sx, &sy);
  for (int by = 0; by < th; by += 16)
    for (int bx = 0; bx < tw; bx += 16)
      for (int y4 = by; y4 < by + 16 && y4 < th; y4 += 4)
        for (int x4 = bx; x4 < bx + 16 && x4 < tw; x4 += 4) {
          pse_block b = {(uint16_t)(col * tw + x4), (uint16_t)(row * th + y4), 0, 0};
          for (int e = 0; e < 16; e++) {
            int x = b.x + PSE_LANE_DX(e), y = b.y + PSE_LANE_DY(e);
            if (x < p->x0 || x >= p->x1 || y < p->y0 || y >= p->y1) continue;
            for (unsigned s = 0; s < ns; s++) {
              int64_t px = 16 * (int64_t)x + sx[s], py = 16 * (int64_t)y + sy[s];
              bool in = true;
              for (int i = 0; i < p->nedges; i++)
                in = in && (int64_t)p->edge[i].a * px + (int64_t)p->edge[i].b * py + p->edge[i].c >= 0;
              if (!in) continue;
              b.mask |= (uint16_t)(1u << e);
              if (ns == 4) b.samples |= UINT64_C(1) << (4 * e + s);
            }
          }
          if (b.mask) out[n++] = b;
        }
  return n;
}

/* pse_rasterize_tile (its trivial accepts and rejects, the 16-lane edge
 * masks) gives the plain walk's blocks, in its order, for random triangles
 * from sub-pixel to larger than a tile, lines and points, 1 and 4 samples,
 * each tile size, viewport offsets and clip windows. */
static void test_coverage_matches_plain_walk(void **state) {
  (void)state;
  static pse_coverage cov;
  static pse_block want[PSE_MAX_BLOCKS];
  static const uint8_t tw[4] = {64, 32, 64, 32}, th[4] = {64, 32, 32, 16};
  long blocks = 0;
  for (uint32_t n = 0; n < 3000; n++) {
    pse_state st;
    pse_state_init(&st, 300, 200);
    st.samples = n % 4 == 3 ? 4 : 1;
    st.tile_w = tw[n / 4 % 4], st.tile_h = th[n / 4 % 4];
    if (n % 7 == 0) {
      st.clip_left = (uint16_t)(hash32(n * 3 + 1) % 100), st.clip_bottom = (uint16_t)(hash32(n * 3 + 2) % 100);
      st.clip_width = (uint16_t)(hash32(n * 3 + 3) % 150), st.clip_height = (uint16_t)(hash32(n * 3 + 4) % 120);
    }
    st.vp_x = (int16_t)(hash32(n * 5 + 1) % 256), st.vp_y = (int16_t)(hash32(n * 5 + 2) % 256);
    st.line_width = 0.5f + (float)(hash32(n * 5 + 3) % 40) / 8.0f;
    st.point_size = st.line_width;
    static const uint32_t spans[5] = {20, 100, 200, 800, 6000}; /* 1/16 pixel */
    uint32_t span = spans[hash32(n * 5 + 4) % 5];
    int32_t ox = (int32_t)(hash32(n * 9 + 1) % 4200), oy = (int32_t)(hash32(n * 9 + 2) % 2800);
    pse_vertex v[3];
    for (int k = 0; k < 3; k++)
      v[k] = vtx16(ox + (int32_t)(hash32(n * 9 + 3 + (uint32_t)k) % span), oy + (int32_t)(hash32(n * 9 + 6 + (uint32_t)k) % span));
    pse_prim p;
    pse_result r = n % 11 == 5 ? pse_setup_line(&st, &v[0], &v[1], &p)
                   : n % 11 == 7 ? pse_setup_point(&st, &v[0], &p)
                                 : pse_setup_triangle(&st, &v[0], &v[1], &v[2], &p);
    if (r != PSE_DRAW) continue;
    for (int row = 0; row * st.tile_h < 200 + st.tile_h; row++)
      for (int col = 0; col * st.tile_w < 300 + st.tile_w; col++) {
        int got = pse_rasterize_tile(&p, col, row, &cov), k = plain_coverage(&p, col, row, want);
        if (got != k) fail_msg("primitive %u, tile (%d, %d): %d blocks, the plain walk %d", n, col, row, got, k);
        for (int i = 0; i < k; i++) {
          const pse_block *a = &cov.block[i], *b = &want[i];
          if (a->x != b->x || a->y != b->y || a->mask != b->mask || a->samples != b->samples)
            fail_msg("primitive %u, tile (%d, %d), block %d: (%u, %u) mask 0x%04x samples 0x%016llx; the plain walk "
                     "(%u, %u) 0x%04x 0x%016llx", n, col, row, i, a->x, a->y, a->mask, (unsigned long long)a->samples,
                     b->x, b->y, b->mask, (unsigned long long)b->samples);
        }
        blocks += k;
      }
  }
  assert_true(blocks > 20000); /* the primitives cover something */
}

/* Tiles where a primitive's rectangle covers at most 32×32 pixels (the
 * rasteriser's small walk: every block against every edge in int32, from
 * values worked out in int64 at its first block, or the general walk when
 * those do not fit) give the plain walk's blocks: triangles, lines and
 * points anywhere in the 12.4 range and of any size, each looked at in the
 * tiles at the corners of its rectangle, where a large one pokes a few
 * pixels in. Both kinds of start occur: values below 2^29 and above 2^31
 * (large right triangles whose long edge passes far from the corner). */
static void test_small_rects_match_plain_walk(void **state) {
  (void)state;
  static pse_coverage cov;
  static pse_block want[PSE_MAX_BLOCKS];
  static const uint8_t tw[4] = {64, 32, 64, 32}, th[4] = {64, 32, 32, 16};
  long small = 0, far = 0;
  for (uint32_t n = 0; n < 8000; n++) {
    pse_state st;
    pse_state_init(&st, 4096, 4096);
    st.tile_w = tw[n % 4], st.tile_h = th[n % 4];
    st.samples = n % 13 == 0 ? 4 : 1;
    st.vp_x = (int16_t)(hash32(n * 7 + 1) % 32768), st.vp_y = (int16_t)(hash32(n * 7 + 2) % 32768);
    st.line_width = 0.5f + (float)(hash32(n * 7 + 3) % 80) / 8.0f;
    st.point_size = st.line_width;
    static const uint32_t spans[4] = {40, 400, 8000, 65536}; /* 1/16 pixel */
    uint32_t span = spans[hash32(n * 7 + 4) % 4];
    int32_t ox = (int32_t)(hash32(n * 7 + 5) % 65536) - 32768, oy = (int32_t)(hash32(n * 7 + 6) % 65536) - 32768;
    pse_vertex v[3];
    for (int k = 0; k < 3; k++) {
      int32_t x = ox + (int32_t)(hash32(n * 11 + 1 + (uint32_t)k) % span);
      int32_t y = oy + (int32_t)(hash32(n * 11 + 4 + (uint32_t)k) % span);
      v[k] = vtx16(x > 32767 ? 32767 : x, y > 32767 ? 32767 : y);
    }
    if (n % 5 == 2) {
      /* a right triangle 3000 to 4000 pixels a side whose rectangle starts
         in the last 24 pixels of a tile, its right angle at the far corner:
         at the near corner its long edge is above 2^31 */
      int32_t size = 16 * (3000 + (int32_t)(hash32(n * 7 + 8) % 1000));
      int32_t x = 16 * (st.tile_w * (int32_t)(hash32(n * 7 + 9) % 2) + st.tile_w - 1 - (int32_t)(hash32(n) % 24));
      int32_t y = 16 * (st.tile_h * (int32_t)(hash32(n * 7 + 10) % 2) + st.tile_h - 1 - (int32_t)(hash32(n + 1) % 12));
      st.vp_x = st.vp_y = 32767;
      x += (int32_t)(hash32(n + 2) % 16) - 32767, y += (int32_t)(hash32(n + 3) % 16) - 32767;
      v[0] = vtx16(x, y + size), v[1] = vtx16(x + size, y), v[2] = vtx16(x + size, y + size);
      if (n % 2) {
        pse_vertex t = v[0];
        v[0] = v[1], v[1] = t;
      }
    }
    pse_prim p;
    pse_result r = n % 9 == 4 ? pse_setup_line(&st, &v[0], &v[1], &p)
                   : n % 9 == 7 ? pse_setup_point(&st, &v[0], &p)
                                : pse_setup_triangle(&st, &v[0], &v[1], &v[2], &p);
    if (r != PSE_DRAW) continue;
    int cols[2] = {p.x0 / st.tile_w, (p.x1 - 1) / st.tile_w}, rows[2] = {p.y0 / st.tile_h, (p.y1 - 1) / st.tile_h};
    for (int j = 0; j < 4; j++) {
      int col = cols[j & 1], row = rows[j >> 1];
      if (col >= 1024 || row >= 1024 || ((j & 1) && cols[1] == cols[0]) || ((j >> 1) && rows[1] == rows[0])) continue;
      int x0 = p.x0 > col * st.tile_w ? p.x0 : col * st.tile_w, x1 = p.x1 < (col + 1) * st.tile_w ? p.x1 : (col + 1) * st.tile_w;
      int y0 = p.y0 > row * st.tile_h ? p.y0 : row * st.tile_h, y1 = p.y1 < (row + 1) * st.tile_h ? p.y1 : (row + 1) * st.tile_h;
      if (x1 - x0 <= 32 && y1 - y0 <= 32 && st.samples == 1 && !p.rect_clipped) {
        small++;
        int64_t px = 16 * (int64_t)(x0 & ~3) + PSE_CENTRE, py = 16 * (int64_t)(y0 & ~3) + PSE_CENTRE;
        for (int i = 0; i < p.nedges; i++) {
          int64_t e = (int64_t)p.edge[i].a * px + (int64_t)p.edge[i].b * py + p.edge[i].c;
          if (e >= (INT64_C(1) << 31) || e < -(INT64_C(1) << 31)) {
            far++;
            break;
          }
        }
      }
      int got = pse_rasterize_tile(&p, col, row, &cov), k = plain_coverage(&p, col, row, want);
      if (got != k) fail_msg("primitive %u, tile (%d, %d): %d blocks, the plain walk %d", n, col, row, got, k);
      for (int i = 0; i < k; i++) {
        const pse_block *a = &cov.block[i], *b = &want[i];
        if (a->x != b->x || a->y != b->y || a->mask != b->mask || a->samples != b->samples)
          fail_msg("primitive %u, tile (%d, %d), block %d: (%u, %u) mask 0x%04x; the plain walk (%u, %u) 0x%04x", n,
                   col, row, i, a->x, a->y, a->mask, b->x, b->y, b->mask);
      }
    }
  }
  assert_true(small > 5000);
  assert_true(far > 250);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lane_order),
      cmocka_unit_test(test_right_triangles_by_hand),
      cmocka_unit_test(test_shared_diagonal),
      cmocka_unit_test(test_shared_horizontal_edge),
      cmocka_unit_test(test_shared_vertical_edge),
      cmocka_unit_test(test_mesh_covers_each_pixel_once),
      cmocka_unit_test(test_random_triangles_match_oracle),
      cmocka_unit_test(test_tiny_triangles),
      cmocka_unit_test(test_huge_triangles),
      cmocka_unit_test(test_counts_against_areas),
      cmocka_unit_test(test_face_culling),
      cmocka_unit_test(test_clip_window_and_tiles),
      cmocka_unit_test(test_z_rounding),
      cmocka_unit_test(test_z_plane_and_depth_offset),
      cmocka_unit_test(test_varying_modes),
      cmocka_unit_test(test_perspective_vp_is_a_plane),
      cmocka_unit_test(test_rounding_mode_independent),
      cmocka_unit_test(test_batch_matches_reference),
      cmocka_unit_test(test_batch_extremes_match_reference),
      cmocka_unit_test(test_points),
      cmocka_unit_test(test_point_sprite_coordinates),
      cmocka_unit_test(test_lines),
      cmocka_unit_test(test_line_values),
      cmocka_unit_test(test_vertex_unpack),
      cmocka_unit_test(test_flat_flags),
      cmocka_unit_test(test_bench_runs),
      cmocka_unit_test(test_ms_sample_pattern),
      cmocka_unit_test(test_ms_coverage_by_hand),
      cmocka_unit_test(test_ms_random_triangles_match_oracle),
      cmocka_unit_test(test_coverage_matches_plain_walk),
      cmocka_unit_test(test_small_rects_match_plain_walk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
