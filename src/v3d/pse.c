/* pse.c — primitive setup: edge functions with the fill-rule bias, face
 * classification and culling, the bounding rectangle inside the clip window,
 * and the planes of Z, 1/W and every varying FIFO entry; then, per 4×4
 * block, the fragment shader's inputs (Z, W, VP and C). Coverage itself is
 * in raster.c. Conventions and every choice: docs/rasterization.md.
 *
 * All positions are absolute 12.4 fixed point (1/16 pixel): Xs + the
 * viewport offset. Vertex coordinates are 16-bit, so a difference of two is
 * below 2^16 in magnitude; edge and weight coefficients are such differences
 * (or twice a half size below 2^15), and every product and sum below stays
 * under 2^40, far inside int64_t.
 *
 * Interpolation weights are exact: λ1, λ2 are ratios of integer plane
 * values (numerators below 2^40, converted to double exactly) to the
 * primitive's integer denominator, so at a vertex they are exactly 0 or 1.
 */
#include "v3d/pse.h"

#include <assert.h>
#include "core/clones.h"
#include "core/fpmode.h"
#include <float.h>
#include <math.h>
#include <string.h>
#include <time.h>

enum { PSE_KIND_POINT = 1, PSE_KIND_LINE = 2, PSE_KIND_TRIANGLE = 3 };

/* ---- host rounding --------------------------------------------------- */

/* Sets round-to-nearest and returns the caller's mode for pse_round_end:
 * the renderer may call in while a shader unit's rounding mode is set. */
static int pse_round_begin(void) {
  int mode = gs_fp_round_get();
  gs_fp_round_set(GS_FP_NEAREST);
  return mode;
}

static void pse_round_end(int mode) { gs_fp_round_set(mode); }

/* ---- state ------------------------------------------------------------ */

const uint8_t pse_sample_x[PSE_MS_SAMPLES] = {6, 14, 2, 10};
const uint8_t pse_sample_y[PSE_MS_SAMPLES] = {2, 6, 10, 14};
static const uint8_t pse_centre[1] = {PSE_CENTRE};

unsigned pse_sample_points(unsigned samples, const uint8_t **x, const uint8_t **y) {
  if (samples == PSE_MS_SAMPLES) {
    *x = pse_sample_x, *y = pse_sample_y;
    return PSE_MS_SAMPLES;
  }
  *x = *y = pse_centre;
  return 1;
}

/* The smallest and largest of pse_sample_x and pse_sample_y: 2 and 14
 * (test_ms_sample_pattern works them out from the tables); the binner and
 * the setup ask for every primitive. */
void pse_sample_range(unsigned samples, int *lo, int *hi) {
  if (samples == PSE_MS_SAMPLES) *lo = 2, *hi = 14;
  else *lo = *hi = PSE_CENTRE;
}

void pse_state_init(pse_state *st, uint16_t width, uint16_t height) {
  memset(st, 0, sizeof *st);
  st->config = PSE_CFG_FORWARD | PSE_CFG_REVERSE;
  st->clip_width = width;
  st->clip_height = height;
  st->point_size = 1.0f;
  st->line_width = 1.0f;
  st->samples = 1;
  st->tile_w = st->tile_h = PSE_TILE_SIZE;
  for (int i = 0; i < PSE_MAX_VARYINGS; i++) {
    st->interp[i] = PSE_INTERP_PERSPECTIVE;
    st->src[i] = (int8_t)i;
    st->dflt[i] = 0;
  }
}

void pse_state_set_flat_flags(pse_state *st, uint32_t flags) {
  for (int i = 0; i < st->nvary && i < PSE_MAX_VARYINGS; i++)
    st->interp[i] = (flags >> i & 1u) ? PSE_INTERP_CONSTANT : PSE_INTERP_PERSPECTIVE;
}

static float pse_bits_to_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

void pse_vertex_unpack(const uint32_t *col, size_t stride, bool has_point_size,
                       int nvary, pse_vertex *v) {
  assert(nvary >= 0 && nvary <= PSE_MAX_VARYINGS);
  memset(v, 0, sizeof *v);
  uint32_t xy = col[0];
  /* Two's complement halves, without implementation-defined conversions. */
  v->xs = (int16_t)((int32_t)(xy & 0xFFFFu) - (int32_t)((xy & 0x8000u) << 1));
  v->ys = (int16_t)((int32_t)(xy >> 16) - (int32_t)((xy >> 31) << 16));
  v->zs = pse_bits_to_float(col[stride]);
  v->inv_wc = pse_bits_to_float(col[2 * stride]);
  size_t row = 3;
  if (has_point_size) v->point_size = pse_bits_to_float(col[row++ * stride]);
  for (int k = 0; k < nvary; k++) v->vary[k] = pse_bits_to_float(col[(row + (size_t)k) * stride]);
}

/* ---- integer helpers -------------------------------------------------- */

static int64_t pse_floor_div(int64_t n, int64_t d) {
  int64_t q = n / d;
  if (n % d != 0 && (n < 0) != (d < 0)) q--;
  return q;
}

static int64_t pse_ceil_div(int64_t n, int64_t d) { return -pse_floor_div(-n, d); }

static int64_t pse_min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t pse_max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* ---- edges and the covered rectangle ---------------------------------- */

/* The edge from (xa, ya) to (xb, yb) of a positively oriented polygon
 * (signed area > 0 with y up: counter-clockwise when row 0 is drawn at the
 * bottom), whose interior is where E > 0:
 *   E(p) = (xb − xa)(py − ya) − (yb − ya)(px − xa).
 * A sample exactly on the edge (E = 0) is covered only if the edge is a
 * "left" edge (∂E/∂x = a > 0: the interior lies at larger x) or a "low"
 * horizontal edge (a = 0, ∂E/∂y = b > 0: the interior lies at larger y).
 * Other edges get c − 1, so that E ≥ 0 is the whole test. */
static pse_edge pse_make_edge(int32_t xa, int32_t ya, int32_t xb, int32_t yb) {
  pse_edge e;
  e.a = ya - yb;
  e.b = xb - xa;
  e.c = -(int64_t)e.a * xa - (int64_t)e.b * ya;
  bool owns_samples_on_it = e.a > 0 || (e.a == 0 && e.b > 0);
  if (!owns_samples_on_it) e.c -= 1;
  return e;
}

/* Twice the signed area of polygon pt[0..n-1] (shoelace formula). */
static int64_t pse_polygon_area2(const int32_t pt[][2], int n) {
  int64_t s = 0;
  for (int i = 0; i < n; i++) {
    const int32_t *a = pt[i], *b = pt[(i + 1) % n];
    s += (int64_t)a[0] * b[1] - (int64_t)b[0] * a[1];
  }
  return s;
}

/* Sets p's edges from a convex polygon given in either orientation (its
 * area must not be zero): reversed first if negatively oriented (`reversed`:
 * its signed area, pse_polygon_area2 or a triangle's own, is negative). */
static void pse_set_edges(pse_prim *p, const int32_t pt[][2], int n, bool reversed) {
  p->nedges = (uint8_t)n;
  for (int i = 0; i < n; i++) {
    int ia = reversed ? n - 1 - i : i;
    int ib = reversed ? (2 * n - 2 - i) % n : (i + 1) % n;
    p->edge[i] = pse_make_edge(pt[ia][0], pt[ia][1], pt[ib][0], pt[ib][1]);
  }
}

/* Sets p's pixel rectangle: the pixels with a sample (the centre, or one of
 * the 4 multisample points) in the bounding box of pt[0..n-1], inside the
 * clip window. Returns false if none. */
static bool pse_set_rect(const pse_state *st, pse_prim *p, const int32_t pt[][2], int n) {
  int64_t xmin = pt[0][0], xmax = pt[0][0], ymin = pt[0][1], ymax = pt[0][1];
  for (int i = 1; i < n; i++) {
    xmin = pse_min64(xmin, pt[i][0]);
    xmax = pse_max64(xmax, pt[i][0]);
    ymin = pse_min64(ymin, pt[i][1]);
    ymax = pse_max64(ymax, pt[i][1]);
  }
  /* pixel x has a sample 16x + o, lo <= o <= hi, in [xmin, xmax] */
  int lo, hi;
  pse_sample_range(st->samples, &lo, &hi);
  int64_t x0 = pse_ceil_div(xmin - hi, 16), x1 = pse_floor_div(xmax - lo, 16) + 1;
  int64_t y0 = pse_ceil_div(ymin - hi, 16), y1 = pse_floor_div(ymax - lo, 16) + 1;
  int64_t bx0 = x0, by0 = y0, bx1 = x1, by1 = y1;
  x0 = pse_max64(pse_max64(x0, st->clip_left), 0);
  y0 = pse_max64(pse_max64(y0, st->clip_bottom), 0);
  x1 = pse_min64(pse_min64(x1, (int64_t)st->clip_left + st->clip_width), 65536);
  y1 = pse_min64(pse_min64(y1, (int64_t)st->clip_bottom + st->clip_height), 65536);
  p->rect_clipped = x0 != bx0 || y0 != by0 || x1 != bx1 || y1 != by1;
  p->x0 = (int32_t)x0;
  p->y0 = (int32_t)y0;
  p->x1 = (int32_t)x1;
  p->y1 = (int32_t)y1;
  return x0 < x1 && y0 < y1;
}

/* ---- planes ----------------------------------------------------------- */

/* The weight plane of edge function E_ab without bias: the numerator of
 * the barycentric weight of the vertex opposite that edge. */
static pse_plane pse_edge_plane(int32_t xa, int32_t ya, int32_t xb, int32_t yb) {
  pse_plane pl;
  pl.u = (int64_t)ya - yb;
  pl.v = (int64_t)xb - xa;
  pl.w = -pl.u * xa - pl.v * ya;
  return pl;
}

static double pse_plane_at(const pse_plane *pl, int64_t px, int64_t py) {
  return (double)(pl->u * px + pl->v * py + pl->w);
}

/* Z, 1/W and the shader record's varyings of vertices v[0..nv-1], appended
 * to the FIFO after the extras already in p. Vertex 0 is the reference of
 * every plane; weights λ1, λ2 belong to v[1], v[2]. */
static void pse_setup_values(const pse_state *st, pse_prim *p, const pse_vertex *const v[], int nv) {
  double z[3] = {0, 0, 0}, iw[3] = {0, 0, 0};
  for (int i = 0; i < nv; i++) {
    z[i] = (double)v[i]->zs * 16777215.0; /* exact: 24 × 24 bits */
    iw[i] = v[i]->inv_wc;
  }
  p->z0 = z[0];
  p->dz1 = nv > 1 ? z[1] - z[0] : 0.0;
  p->dz2 = nv > 2 ? z[2] - z[0] : 0.0;
  p->iw0 = iw[0];
  p->diw1 = nv > 1 ? iw[1] - iw[0] : 0.0;
  p->diw2 = nv > 2 ? iw[2] - iw[0] : 0.0;

  int provoking = st->provoking_first ? 0 : nv - 1;
  assert(st->nvary <= PSE_MAX_VARYINGS);
  for (int k = 0; k < st->nvary; k++) {
    p->imap[p->nfifo] = st->interp[k];
    pse_fifo_entry *e = &p->fifo[p->nfifo++];
    int r = st->src[k];
    e->q1 = e->q2 = 0.0;
    if (r < 0 || r >= st->nvary) { /* not written by the previous stage: its default, whatever the mode */
      e->kind = PSE_VP_ZERO;
      e->c = pse_bits_to_float(st->dflt[k]);
      continue;
    }
    double a0 = v[0]->vary[r];
    double d1 = nv > 1 ? (double)v[1]->vary[r] - a0 : 0.0;
    double d2 = nv > 2 ? (double)v[2]->vary[r] - a0 : 0.0;
    e->c = v[0]->vary[r];
    switch (st->interp[k]) {
    case PSE_INTERP_PERSPECTIVE: /* VP = Σ λi (ai − a0)/wi, the hardware plane */
      e->kind = PSE_VP_PLANE;
      e->q1 = d1 * iw[1];
      e->q2 = d2 * iw[2];
      break;
    case PSE_INTERP_SCREEN_LINEAR: /* VP = Σ λi (ai − a0) / W */
      e->kind = PSE_VP_PLANE_OVER_W;
      e->q1 = d1;
      e->q2 = d2;
      break;
    case PSE_INTERP_CONSTANT:
      e->kind = PSE_VP_ZERO;
      e->c = v[provoking]->vary[r];
      break;
    default: /* unused: 0.0 */
      e->kind = PSE_VP_ZERO;
      e->c = 0.0f;
      break;
    }
  }
}

/* An extra FIFO entry whose value is the weight λ1 (q1 = 1) or λ2 (q2 = 1)
 * itself, screen-linear, with C = 0. */
static void pse_add_weight_entry(pse_prim *p, double q1, double q2) {
  p->imap[p->nfifo] = PSE_INTERP_SCREEN_LINEAR;
  pse_fifo_entry *e = &p->fifo[p->nfifo++];
  e->kind = PSE_VP_PLANE_OVER_W;
  e->c = 0.0f;
  e->q1 = q1;
  e->q2 = q2;
}

/* A float in the Depth Offset record's 1-8-7 format (the upper half of an
 * IEEE float32). */
static double pse_float187(uint16_t h) { return pse_bits_to_float((uint32_t)h << 16); }

/* Adds the depth offset to the Z plane of a triangle (config bit 3):
 * factor × max(|∂Z/∂x|, |∂Z/∂y|) + units, with Z in 24-bit units and the
 * slopes per pixel (OpenGL's polygon offset with r = one 24-bit unit). */
static void pse_apply_depth_offset(const pse_state *st, pse_prim *p) {
  double dzdx = 16.0 * ((double)p->lambda[0].u * p->dz1 + (double)p->lambda[1].u * p->dz2) / p->den;
  double dzdy = 16.0 * ((double)p->lambda[0].v * p->dz1 + (double)p->lambda[1].v * p->dz2) / p->den;
  double slope = fmax(fabs(dzdx), fabs(dzdy));
  p->z0 += pse_float187(st->depth_offset_factor) * slope + pse_float187(st->depth_offset_units);
}

static void pse_prim_init(pse_prim *p, const pse_state *st, int kind) {
  /* everything before the FIFO; its entries past nfifo are never read and
     the per-block shortcuts after it are all set by pse_finish_setup */
  memset(p, 0, offsetof(pse_prim, fifo));
  p->kind = (uint8_t)kind;
  p->den = 1.0;
  p->samples = st->samples == PSE_MS_SAMPLES ? PSE_MS_SAMPLES : 1;
  p->tile_w = st->tile_w, p->tile_h = st->tile_h;
}

/* Clamps a point size or line width (pixels) and returns half of it in
 * 1/16 pixel, at least 1; 0 for a size that draws nothing (≤ 0 or NaN). */
static int32_t pse_half_size(float size) {
  if (!(size > 0.0f)) return 0;
  if (size > PSE_MAX_SIZE) size = PSE_MAX_SIZE;
  double h = floor((double)size * 8.0 + 0.5);
  return h < 1.0 ? 1 : (int32_t)h;
}

/* The offsets of lane e's centre from lane 0's, in 12.4: 16·PSE_LANE_DX(e)
 * and 16·PSE_LANE_DY(e). */
#define PSE_L16(m) {16 * m(0), 16 * m(1), 16 * m(2), 16 * m(3), 16 * m(4), 16 * m(5), 16 * m(6), 16 * m(7), \
                    16 * m(8), 16 * m(9), 16 * m(10), 16 * m(11), 16 * m(12), 16 * m(13), 16 * m(14), 16 * m(15)}
static const double pse_lane_dx16[16] = PSE_L16(PSE_LANE_DX), pse_lane_dy16[16] = PSE_L16(PSE_LANE_DY);

static uint32_t pse_round_z(double zf);

/* The per-block shortcuts of pse_prim (pse.h), in the setup's rounding:
 * the weights' integer lane steps (u·16dx + v·16dy: |u|, |v| < 2^17 and
 * 16dx, 16dy <= 48, so below 2^24, exact in int64 and in double); whether
 * Z and W are flat, and their one value then, which is what a block's lanes
 * get from z0 + λ1·dz1 + λ2·dz2 with dz1 = dz2 = 0 (a NaN delta is not 0):
 * λ is finite, λ·0 is ±0, and adding ±0 changes no value but a zero's sign,
 * which pse_round_z and W's test for 1/W = 0 ignore; and which FIFO entries
 * make VP from the weights. */
static GS_CLONE_INLINE void pse_finish_setup(pse_prim *p) {
  /* in double, which holds each product and sum exactly: a vector loop */
  double u1 = (double)p->lambda[0].u, v1 = (double)p->lambda[0].v;
  double u2 = (double)p->lambda[1].u, v2 = (double)p->lambda[1].v;
  for (int e = 0; e < 16; e++) {
    p->step1[e] = u1 * pse_lane_dx16[e] + v1 * pse_lane_dy16[e];
    p->step2[e] = u2 * pse_lane_dx16[e] + v2 * pse_lane_dy16[e];
  }
  p->z_flat = p->dz1 == 0.0 && p->dz2 == 0.0;
  p->zc = pse_round_z(p->z0);
  p->w_flat = p->diw1 == 0.0 && p->diw2 == 0.0;
  p->wc = p->iw0 == 0.0 ? INFINITY : (float)(1.0 / p->iw0);
  p->vp_planes = 0;
  for (int k = 0; k < p->nfifo; k++)
    if (p->fifo[k].kind != PSE_VP_ZERO) p->vp_planes |= UINT64_C(1) << k;
}

/* ---- setup entry points ----------------------------------------------- */

GS_CLONES pse_result pse_setup_triangle(const pse_state *st, const pse_vertex *v0,
                              const pse_vertex *v1, const pse_vertex *v2,
                              pse_prim *p) {
  const pse_vertex *const v[3] = {v0, v1, v2};
  int32_t pt[3][2];
  for (int i = 0; i < 3; i++) {
    pt[i][0] = (int32_t)v[i]->xs + st->vp_x;
    pt[i][1] = (int32_t)v[i]->ys + st->vp_y;
  }
  int64_t area2 = (int64_t)(pt[1][0] - pt[0][0]) * (pt[2][1] - pt[0][1]) -
                  (int64_t)(pt[2][0] - pt[0][0]) * (pt[1][1] - pt[0][1]);
  if (area2 == 0) return PSE_DEGENERATE;
  bool forward = (st->config & PSE_CFG_CLOCKWISE) ? area2 < 0 : area2 > 0;
  if (!(st->config & (forward ? PSE_CFG_FORWARD : PSE_CFG_REVERSE))) return PSE_CULLED;

  pse_prim_init(p, st, PSE_KIND_TRIANGLE);
  p->reverse = !forward;
  if (!pse_set_rect(st, p, pt, 3)) return PSE_OUTSIDE;
  pse_set_edges(p, pt, 3, area2 < 0);
  /* λ1 = E_20 / A, λ2 = E_01 / A (A = area2, original vertex order) */
  p->lambda[0] = pse_edge_plane(pt[2][0], pt[2][1], pt[0][0], pt[0][1]);
  p->lambda[1] = pse_edge_plane(pt[0][0], pt[0][1], pt[1][0], pt[1][1]);
  p->den = (double)area2;

  int mode = pse_round_begin();
  pse_setup_values(st, p, v, 3);
  if (st->config & PSE_CFG_DEPTH_OFFSET) pse_apply_depth_offset(st, p);
  pse_finish_setup(p);
  pse_round_end(mode);
  return PSE_DRAW;
}

pse_result pse_setup_line(const pse_state *st, const pse_vertex *v0,
                          const pse_vertex *v1, pse_prim *p) {
  const pse_vertex *const v[2] = {v0, v1};
  int32_t x0 = (int32_t)v0->xs + st->vp_x, y0 = (int32_t)v0->ys + st->vp_y;
  int32_t x1 = (int32_t)v1->xs + st->vp_x, y1 = (int32_t)v1->ys + st->vp_y;
  int32_t dx = x1 - x0, dy = y1 - y0;
  int32_t hw = pse_half_size(st->line_width);
  if ((dx == 0 && dy == 0) || hw == 0) return PSE_DEGENERATE;

  pse_prim_init(p, st, PSE_KIND_LINE);
  bool x_major = (dx < 0 ? -dx : dx) >= (dy < 0 ? -dy : dy);
  /* The parallelogram: the segment moved by ±hw along the minor axis. */
  int32_t ox = x_major ? 0 : hw, oy = x_major ? hw : 0;
  int32_t pt[4][2] = {{x0 - ox, y0 - oy}, {x1 - ox, y1 - oy}, {x1 + ox, y1 + oy}, {x0 + ox, y0 + oy}};
  if (!pse_set_rect(st, p, pt, 4)) return PSE_OUTSIDE;
  pse_set_edges(p, pt, 4, pse_polygon_area2(pt, 4) < 0);
  /* λ1 = position along the major axis: 0 at v0, 1 at v1 */
  p->lambda[0].u = x_major ? 1 : 0;
  p->lambda[0].v = x_major ? 0 : 1;
  p->lambda[0].w = x_major ? -(int64_t)x0 : -(int64_t)y0;
  p->den = x_major ? dx : dy;

  int mode = pse_round_begin();
  pse_add_weight_entry(p, 1.0, 0.0); /* the line coordinate */
  pse_setup_values(st, p, v, 2);
  pse_finish_setup(p);
  pse_round_end(mode);
  return PSE_DRAW;
}

pse_result pse_setup_point(const pse_state *st, const pse_vertex *v, pse_prim *p) {
  const pse_vertex *const vv[1] = {v};
  int32_t hs = pse_half_size(st->per_vertex_point_size ? v->point_size : st->point_size);
  if (hs == 0) return PSE_DEGENERATE;
  int32_t x = (int32_t)v->xs + st->vp_x, y = (int32_t)v->ys + st->vp_y;

  pse_prim_init(p, st, PSE_KIND_POINT);
  int32_t pt[4][2] = {{x - hs, y - hs}, {x + hs, y - hs}, {x + hs, y + hs}, {x - hs, y + hs}};
  if (!pse_set_rect(st, p, pt, 4)) return PSE_OUTSIDE;
  pse_set_edges(p, pt, 4, pse_polygon_area2(pt, 4) < 0);
  /* s = (px − x + hs) / 2hs grows with x; t = (y + hs − py) / 2hs shrinks
   * as y (the memory row) grows (docs/rasterization.md, point sprites). */
  p->lambda[0].u = 1;
  p->lambda[0].w = (int64_t)hs - x;
  p->lambda[1].v = -1;
  p->lambda[1].w = (int64_t)y + hs;
  p->den = 2.0 * hs;

  int mode = pse_round_begin();
  pse_add_weight_entry(p, 1.0, 0.0); /* s */
  pse_add_weight_entry(p, 0.0, 1.0); /* t */
  pse_setup_values(st, p, vv, 1);
  pse_finish_setup(p);
  pse_round_end(mode);
  return PSE_DRAW;
}

/* ---- per-block values ------------------------------------------------- */

/* The weights λ1, λ2 at the centres of the 16 lanes of block b.
 *
 * Each plane is evaluated once, in int64, at lane 0's centre, and stepped
 * to the other lanes by the primitive's integer lane steps (pse_prim.step1,
 * step2): every numerator is an integer below 2^41, so each sum is exact,
 * the very double pse_plane_at would give at the lane, in any rounding
 * mode. What rounds is the one division per weight, as always. The loops
 * over the 16 lanes have no branches, so the compiler vectorises them. */
static GS_CLONE_INLINE void pse_block_weights(const pse_prim *p, const pse_block *b, pse_weights *wt) {
  int64_t px = 16 * (int64_t)b->x + 8, py = 16 * (int64_t)b->y + 8;
  double den = p->den;
  double base1 = pse_plane_at(&p->lambda[0], px, py), base2 = pse_plane_at(&p->lambda[1], px, py);
  double s1[16], s2[16], l1[16], l2[16];
  memcpy(s1, p->step1, sizeof s1);
  memcpy(s2, p->step2, sizeof s2);
  for (int e = 0; e < 16; e++) {
    l1[e] = (base1 + s1[e]) / den;
    l2[e] = (base2 + s2[e]) / den;
  }
  memcpy(wt->l1, l1, sizeof l1);
  memcpy(wt->l2, l2, sizeof l2);
  wt->valid = 1;
}

/* Z × (2^24−1) to the 24-bit Z: round to nearest, halves up, clamped to
 * [0, 2^24−1]; NaN gives 0. Exact: floor and the subtraction are. Written
 * with selects, not early returns, so that the lane loop vectorises:
 * clamping first gives the same results (0 and 2^24−1 are whole). */
static uint32_t pse_round_z(double zf) {
  double v = zf > 0.0 ? zf : 0.0; /* NaN too */
  v = v < (double)PSE_Z_MAX ? v : (double)PSE_Z_MAX;
  double whole = floor(v);
  return (uint32_t)(int32_t)whole + (v - whole >= 0.5 ? 1u : 0u);
}

/* The 24-bit Z of block b's lanes: the flat value, or from the weights
 * (computed into *wt unless it has them). */
static GS_CLONE_INLINE void pse_depth_lanes(const pse_prim *p, const pse_block *b, pse_weights *wt, uint32_t z[16]) {
  if (pse_depth_flat(p, z)) return;
  if (!wt->valid) pse_block_weights(p, b, wt);
  double z0 = p->z0, dz1 = p->dz1, dz2 = p->dz2, l1[16], l2[16];
  uint32_t zl[16];
  memcpy(l1, wt->l1, sizeof l1);
  memcpy(l2, wt->l2, sizeof l2);
  for (int e = 0; e < 16; e++) zl[e] = pse_round_z(z0 + l1[e] * dz1 + l2[e] * dz2);
  memcpy(z, zl, sizeof zl);
}

GS_CLONES void pse_block_depth_nearest(const pse_prim *p, const pse_block *b, uint32_t z[16]) {
  pse_weights wt;
  wt.valid = 0;
  pse_depth_lanes(p, b, &wt, z);
}

GS_CLONES void pse_block_depth_keep(const pse_prim *p, const pse_block *b, pse_weights *wt, uint32_t z[16]) {
  wt->valid = 0;
  pse_depth_lanes(p, b, wt, z);
}

void pse_block_depth(const pse_prim *p, const pse_block *b, uint32_t z[16]) {
  int mode = pse_round_begin();
  pse_block_depth_nearest(p, b, z);
  pse_round_end(mode);
}

void pse_batch_setup(const pse_prim *p, const pse_block *b, pse_batch *out) {
  int mode = pse_round_begin();
  pse_batch_setup_nearest(p, b, out);
  pse_round_end(mode);
}

/* Everything of block b's batch but Z: W (flat, or from the weights) and
 * each FIFO entry's VP and C; the weights come from *wt, computed there if
 * needed and missing. */
static GS_CLONE_INLINE void pse_batch_rest(const pse_prim *p, const pse_block *b, pse_weights *wt, pse_batch *out) {
  double l1[16], l2[16], w[16];
  out->mask = b->mask;
  out->reverse = p->reverse;
  out->nfifo = p->nfifo;
  for (int e = 0; e < 16; e++) {
    out->x[e] = (uint16_t)(b->x + PSE_LANE_DX(e));
    out->y[e] = (uint16_t)(b->y + PSE_LANE_DY(e));
  }
  if (!p->w_flat || p->vp_planes) {
    if (!wt->valid) pse_block_weights(p, b, wt);
    memcpy(l1, wt->l1, sizeof l1);
    memcpy(l2, wt->l2, sizeof l2);
  }
  if (p->w_flat) {
    float wc = p->wc;
    for (int e = 0; e < 16; e++) out->w[e] = wc, w[e] = wc;
  } else {
    double iw0 = p->iw0, diw1 = p->diw1, diw2 = p->diw2;
    for (int e = 0; e < 16; e++) {
      /* W = 1 / (1/W interpolated linearly in screen space); the division
       * runs for 1/W = 0 too (its +-inf is not used) so the loop has no branch */
      double iw = iw0 + l1[e] * diw1 + l2[e] * diw2;
      float wf = (float)(1.0 / iw);
      out->w[e] = iw == 0.0 ? INFINITY : wf;
      w[e] = out->w[e]; /* VP / W uses the W the fragment program multiplies by */
    }
  }
  for (int k = 0; k < p->nfifo; k++) {
    const pse_fifo_entry *f = &p->fifo[k];
    float *vp = out->vp[k];
    double q1 = f->q1, q2 = f->q2;
    out->c[k] = f->c;
    switch (f->kind) {
    case PSE_VP_PLANE:
      for (int e = 0; e < 16; e++) vp[e] = (float)(l1[e] * q1 + l2[e] * q2);
      break;
    case PSE_VP_PLANE_OVER_W:
      for (int e = 0; e < 16; e++) vp[e] = (float)((l1[e] * q1 + l2[e] * q2) / w[e]);
      break;
    default: { /* ±0 × W = ±0, and ±0 + C = C for either sign of C */
      float zero = signbit(f->c) ? -0.0f : 0.0f;
      for (int e = 0; e < 16; e++) vp[e] = zero;
      break;
    }
    }
  }
}

GS_CLONES void pse_batch_setup_nearest(const pse_prim *p, const pse_block *b, pse_batch *out) {
  pse_weights wt;
  wt.valid = 0;
  pse_depth_lanes(p, b, &wt, out->z);
  pse_batch_rest(p, b, &wt, out);
}

GS_CLONES void pse_batch_setup_kept(const pse_prim *p, const pse_block *b, pse_weights *wt, const uint32_t z[16],
                                    pse_batch *out) {
  memcpy(out->z, z, sizeof out->z);
  pse_batch_rest(p, b, wt, out);
}

/* ---- micro-benchmark -------------------------------------------------- */

static uint32_t pse_bench_rand(uint32_t *s) { /* xorshift32 */
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *s = x;
}

static double pse_bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One pass over the same ntris triangles; returns seconds. */
static double pse_bench_pass(int ntris, uint32_t seed, bool batches, pse_bench_result *r) {
  pse_state st;
  pse_state_init(&st, PSE_TILE_SIZE, PSE_TILE_SIZE);
  st.nvary = 4;
  pse_vertex v[3];
  memset(v, 0, sizeof v);
  pse_prim prim;
  pse_coverage cov;
  pse_batch batch;
  uint32_t s = seed ? seed : 1u;
  uint64_t frags = 0, blocks = 0;
  double sink = 0.0;
  double t0 = pse_bench_now();
  for (int i = 0; i < ntris; i++) {
    /* an anchor inside the tile and three corners within 12 px of it */
    int32_t ax = (int32_t)(pse_bench_rand(&s) % (52 * 16)), ay = (int32_t)(pse_bench_rand(&s) % (52 * 16));
    for (int k = 0; k < 3; k++) {
      v[k].xs = (int16_t)(ax + (int32_t)(pse_bench_rand(&s) % (12 * 16)));
      v[k].ys = (int16_t)(ay + (int32_t)(pse_bench_rand(&s) % (12 * 16)));
      v[k].zs = (float)(pse_bench_rand(&s) & 0xFFFF) / 65536.0f;
      v[k].inv_wc = 1.0f / (float)(1 + (pse_bench_rand(&s) & 3));
      for (int j = 0; j < 4; j++) v[k].vary[j] = (float)(pse_bench_rand(&s) & 0xFF) / 255.0f;
    }
    if (pse_setup_triangle(&st, &v[0], &v[1], &v[2], &prim) != PSE_DRAW) continue;
    int n = pse_rasterize_tile(&prim, 0, 0, &cov);
    blocks += (uint64_t)n;
    for (int b = 0; b < n; b++) {
      uint16_t m = cov.block[b].mask;
      while (m) {
        frags++;
        m &= (uint16_t)(m - 1);
      }
      if (batches) {
        pse_batch_setup(&prim, &cov.block[b], &batch);
        sink += batch.vp[0][0];
      }
    }
  }
  double dt = pse_bench_now() - t0;
  r->fragments = frags;
  r->blocks = blocks;
  (void)sink;
  return dt > 0.0 ? dt : 1e-9;
}

void pse_bench(int ntris, uint32_t seed, pse_bench_result *r) {
  memset(r, 0, sizeof *r);
  if (ntris <= 0) return;
  r->setup_raster_per_s = ntris / pse_bench_pass(ntris, seed, false, r);
  r->with_batches_per_s = ntris / pse_bench_pass(ntris, seed, true, r);
}
