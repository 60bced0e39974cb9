/* ptb_clip.c — the PTB's clipper: primitives that cross the W > 0, near or
 * far planes or leave the guard band are clipped in homogeneous clip space
 * (Sutherland-Hodgman on Xc..Wc), and each vertex of the result becomes a
 * Clipped Primitive Record vertex with the coordinate shader's transform
 * and barycentric interpolation coefficients (RG §11, Table 44).
 *
 * The arithmetic is in double so that inputs anywhere in the float range
 * neither overflow nor lose the plane crossing; the record values are then
 * made in float exactly as a coordinate shader makes them.
 */
#include <math.h>
#include <string.h>
#include "v3d/ptb.h"

void ptb_planes_init(ptb_planes *pl, const ptb_state *st) {
  const double g = PTB_GUARD_BAND;
  const double sx = st->xy_scale_x, sy = st->xy_scale_y;
  const double zs = st->z_scale, zo = st->z_offset;
  const double planes[PTB_CLIP_PLANES][5] = {
      [PTB_PLANE_W] = {0, 0, 0, 1, -PTB_CLIP_W_MIN},
      [PTB_PLANE_NEAR] = {0, 0, zs, zo - st->z_min, 0},
      [PTB_PLANE_FAR] = {0, 0, -zs, st->z_max - zo, 0},
      [PTB_PLANE_LEFT] = {sx, 0, 0, g, 0},
      [PTB_PLANE_RIGHT] = {-sx, 0, 0, g, 0},
      [PTB_PLANE_BOTTOM] = {0, sy, 0, g, 0},
      [PTB_PLANE_TOP] = {0, -sy, 0, g, 0},
  };
  memcpy(pl->p, planes, sizeof planes);
}

static double plane_distance(const double p[5], const double c[4]) {
  return p[0] * c[0] + p[1] * c[1] + p[2] * c[2] + p[3] * c[3] + p[4];
}

unsigned ptb_outcode(const ptb_planes *pl, const double c[4]) {
  unsigned code = 0;
  for (unsigned i = 0; i < PTB_CLIP_PLANES; i++)
    if (!(plane_distance(pl->p[i], c) >= 0)) /* NaN is outside */
      code |= 1u << i;
  return code;
}

/* The point where the edge from `in` (distance din >= 0) to `out`
 * (distance dout < 0) meets the plane. Always interpolating from the inside
 * end makes the result independent of the direction the edge is walked. */
static ptb_clip_point intersect(const ptb_clip_point *in, const ptb_clip_point *out, double din, double dout,
                                unsigned plane) {
  ptb_clip_point r;
  double t = din / (din - dout); /* din - dout > 0 */
  for (int i = 0; i < 4; i++)
    r.c[i] = in->c[i] + t * (out->c[i] - in->c[i]);
  for (int i = 0; i < 3; i++)
    r.b[i] = in->b[i] + t * (out->b[i] - in->b[i]);
  if (plane == PTB_PLANE_W)
    r.c[3] = PTB_CLIP_W_MIN; /* exactly on the plane, whatever the rounding */
  r.orig = -1;
  return r;
}

/* One Sutherland-Hodgman step: keeps the part of the closed polygon `poly`
 * inside plane p. A vertex exactly on the plane is kept and makes no
 * intersection, so no point is duplicated. */
static void clip_polygon_plane(ptb_clip_poly *poly, const double p[5], unsigned plane) {
  double d[PTB_CLIP_MAX_VERTS];
  ptb_clip_poly out;
  out.n = 0;
  for (unsigned i = 0; i < poly->n; i++)
    d[i] = plane_distance(p, poly->p[i].c);
  for (unsigned i = 0; i < poly->n; i++) {
    unsigned j = i + 1 < poly->n ? i + 1 : 0;
    bool in_i = d[i] >= 0, in_j = d[j] >= 0;
    if (in_i)
      out.p[out.n++] = poly->p[i];
    if (in_i && !in_j && d[i] > 0)
      out.p[out.n++] = intersect(&poly->p[i], &poly->p[j], d[i], d[j], plane);
    else if (!in_i && in_j && d[j] > 0)
      out.p[out.n++] = intersect(&poly->p[j], &poly->p[i], d[j], d[i], plane);
  }
  *poly = out;
}

/* The same step for an open segment of two points. Returns false if the
 * segment lies wholly outside. */
static bool clip_segment_plane(ptb_clip_poly *seg, const double p[5], unsigned plane) {
  double d0 = plane_distance(p, seg->p[0].c), d1 = plane_distance(p, seg->p[1].c);
  bool in0 = d0 >= 0, in1 = d1 >= 0;
  if (!in0 && !in1)
    return false;
  if (!in1)
    seg->p[1] = intersect(&seg->p[0], &seg->p[1], d0, d1, plane);
  else if (!in0)
    seg->p[0] = intersect(&seg->p[1], &seg->p[0], d1, d0, plane);
  return true;
}

static bool vertex_finite(const ptb_vertex *v) {
  return isfinite(v->xc) && isfinite(v->yc) && isfinite(v->zc) && isfinite(v->wc);
}

static bool point_finite(const ptb_clip_point *p) {
  for (int i = 0; i < 4; i++)
    if (!isfinite(p->c[i]))
      return false;
  for (int i = 0; i < 3; i++)
    if (!isfinite(p->b[i]))
      return false;
  return true;
}

ptb_clip_result ptb_clip(const ptb_planes *pl, const ptb_vertex *const v[], unsigned nverts, ptb_clip_poly *poly) {
  unsigned all = ~0u, any = 0;
  bool finite = true;
  poly->n = nverts;
  for (unsigned k = 0; k < nverts; k++) {
    ptb_clip_point *p = &poly->p[k];
    p->c[0] = v[k]->xc, p->c[1] = v[k]->yc, p->c[2] = v[k]->zc, p->c[3] = v[k]->wc;
    p->b[0] = k == 0, p->b[1] = k == 1, p->b[2] = k == 2;
    p->orig = (int)k;
    finite = finite && vertex_finite(v[k]);
    unsigned code = ptb_outcode(pl, p->c);
    all &= code;
    any |= code;
  }
  if (!finite || all != 0)
    return PTB_CLIP_OUTSIDE;
  if (any == 0)
    return PTB_CLIP_INSIDE;
  /* Only planes some vertex is outside can cut: the others contain the
   * whole primitive (half-spaces are convex). */
  for (unsigned i = 0; i < PTB_CLIP_PLANES; i++) {
    if (!(any & (1u << i)))
      continue;
    if (nverts == 2) {
      if (!clip_segment_plane(poly, pl->p[i], i))
        return PTB_CLIP_OUTSIDE;
    } else {
      clip_polygon_plane(poly, pl->p[i], i);
      if (poly->n < 3)
        return PTB_CLIP_OUTSIDE;
    }
  }
  for (unsigned k = 0; k < poly->n; k++) {
    if (!point_finite(&poly->p[k]))
      return PTB_CLIP_OUTSIDE;
    /* Interpolating between two points with Wc >= W_MIN can round below
     * it when their Wc differ by many orders of magnitude. */
    if (poly->p[k].c[3] < PTB_CLIP_W_MIN)
      poly->p[k].c[3] = PTB_CLIP_W_MIN;
  }
  return PTB_CLIP_CLIPPED;
}

/* A float rounded towards zero into a signed 16-bit 12.4 value, saturating
 * (NaN gives the most negative value, as any fixed answer would do). */
static int16_t saturate_12_4(float f) {
  if (!(f > -32768.0f))
    return INT16_MIN;
  if (f >= 32767.0f)
    return INT16_MAX;
  return (int16_t)(int32_t)f;
}

void ptb_clip_vertex_make(ptb_clip_vertex *out, const ptb_state *st, const ptb_vertex *const v[],
                          const ptb_clip_point *p) {
  for (int k = 0; k < 3; k++)
    out->coef[k] = (float)p->b[k];
  if (p->orig >= 0) {
    const ptb_vertex *o = v[p->orig];
    out->xs = o->xs, out->ys = o->ys;
    out->zs = o->zs, out->inv_wc = o->inv_wc;
    return;
  }
  float xc = (float)p->c[0], yc = (float)p->c[1], zc = (float)p->c[2], wc = (float)p->c[3];
  if (!(wc >= (float)PTB_CLIP_W_MIN))
    wc = (float)PTB_CLIP_W_MIN;
  float r = 1.0f / wc;
  out->xs = saturate_12_4(xc * st->xy_scale_x * r);
  out->ys = saturate_12_4(yc * st->xy_scale_y * r);
  out->zs = zc * st->z_scale * r + st->z_offset;
  out->inv_wc = r;
}
