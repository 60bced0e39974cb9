/* plane.c — the plane equations of the three PixelImap interpolation modes,
 * as the PSE sets them up and IPA evaluates them (gpusim/sph.h).
 *
 * Facts: IPA as yuzu and Ryujinx translate it, and the PixelImap modes of
 * NVIDIA's SPH description. With λ_i the screen-space
 * barycentrics of a sample, the raw value P an attribute's plane gives is
 *   Constant      P = a_provoking
 *   Perspective   P = Σ λ_i a_i / w_i   (IPA.PASS returns this, undivided)
 *   ScreenLinear  P = Σ λ_i a_i
 * and the 1/w plane (attribute 0x07C) gives Σ λ_i / w_i; the perspective-
 * correct value is the quotient of the two. A plane through three points is
 * exactly Σ λ_i v_i, so each mode is one linear plane of the right values.
 *
 * Everything is double: the reference fixes the 32-bit results IPA hands to
 * a shader, not the precision of setup, and double keeps the plane exact to
 * well below a float ulp on any triangle the rasterizer accepts. The build
 * never fuses a*b+c (-ffp-contract=off), so results are the same everywhere.
 */
#include "gpusim/sph.h"

void gs_sph_plane_linear(const gs_sph_triangle *t, const double v[3], gs_sph_plane *p) {
  double e1x = t->x[1] - t->x[0], e1y = t->y[1] - t->y[0];
  double e2x = t->x[2] - t->x[0], e2y = t->y[2] - t->y[0];
  double det = e1x * e2y - e2x * e1y;
  double d1 = v[1] - v[0], d2 = v[2] - v[0];
  p->x0 = t->x[0];
  p->y0 = t->y[0];
  p->c = v[0];
  if (det == 0) { /* zero area: no sample is inside, any plane will do */
    p->dx = p->dy = 0;
    return;
  }
  /* Solve dx e1x + dy e1y = d1, dx e2x + dy e2y = d2 (Cramer's rule). */
  p->dx = (d1 * e2y - d2 * e1y) / det;
  p->dy = (d2 * e1x - d1 * e2x) / det;
}

void gs_sph_plane_inv_w(const gs_sph_triangle *t, gs_sph_plane *p) {
  gs_sph_plane_linear(t, t->inv_w, p);
}

int gs_sph_plane_setup(const gs_sph_triangle *t, gs_pixel_imap mode, const double a[3],
                       gs_sph_plane *p) {
  double aw[3];
  unsigned i;
  if (t->provoking > 2) return GS_EARG;
  switch (mode) {
  case GS_PIXEL_IMAP_CONSTANT:
    p->x0 = t->x[0];
    p->y0 = t->y[0];
    p->c = a[t->provoking];
    p->dx = p->dy = 0;
    return GS_OK;
  case GS_PIXEL_IMAP_PERSPECTIVE:
    for (i = 0; i < 3; i++) aw[i] = a[i] * t->inv_w[i];
    gs_sph_plane_linear(t, aw, p);
    return GS_OK;
  case GS_PIXEL_IMAP_SCREEN_LINEAR:
    gs_sph_plane_linear(t, a, p);
    return GS_OK;
  case GS_PIXEL_IMAP_UNUSED:
    break;
  }
  return GS_EARG; /* Unused components get no plane: they read their default */
}

double gs_sph_plane_at(const gs_sph_plane *p, double x, double y) {
  return p->c + p->dx * (x - p->x0) + p->dy * (y - p->y0);
}

double gs_sph_interpolate(gs_pixel_imap mode, const gs_sph_plane *attr,
                          const gs_sph_plane *inv_w, int px, int py) {
  double x = px + 0.5, y = py + 0.5;
  if (mode == GS_PIXEL_IMAP_PERSPECTIVE)
    return gs_sph_plane_at(attr, x, y) / gs_sph_plane_at(inv_w, x, y);
  return gs_sph_plane_at(attr, x, y);
}
