/* tmu.c — the texture and memory lookup unit's sampler (tmu.h): direct
 * memory reads, texture lookups (formats, T/LT/raster layouts, mip levels,
 * wrap modes, nearest and bilinear filters). Facts: RG §4; choices:
 * docs/v3d-units.md.
 *
 * Coordinates are turned into fixed point with integer arithmetic straight
 * from the float bits, so a lookup never depends on the host's rounding
 * mode (shader interpreters may run toward zero).
 */
#include <stdint.h>
#include "v3d/tiling.h"
#include "v3d/tmu.h"

/* ---- texture formats (RG Table 18) ------------------------------ */

static uint32_t rgba(uint32_t r, uint32_t g, uint32_t b, uint32_t a) { return r | g << 8 | b << 16 | a << 24; }
/* Widening by bit replication, so that full scale stays full scale. */
static uint32_t widen4(uint32_t v) { return v << 4 | v; }
static uint32_t widen5(uint32_t v) { return v << 3 | v >> 2; }
static uint32_t widen6(uint32_t v) { return v << 2 | v >> 4; }

static uint32_t decode_rgba8888(uint32_t t) { return t; }
static uint32_t decode_rgbx8888(uint32_t t) { return t | 0xff000000u; }
static uint32_t decode_rgba4444(uint32_t t) {
  return rgba(widen4(t >> 12 & 15), widen4(t >> 8 & 15), widen4(t >> 4 & 15), widen4(t & 15));
}
static uint32_t decode_rgba5551(uint32_t t) {
  return rgba(widen5(t >> 11 & 31), widen5(t >> 6 & 31), widen5(t >> 1 & 31), t & 1 ? 255 : 0);
}
static uint32_t decode_rgb565(uint32_t t) { return rgba(widen5(t >> 11 & 31), widen6(t >> 5 & 63), widen5(t & 31), 255); }
static uint32_t decode_luminance(uint32_t t) { return rgba(t & 255, t & 255, t & 255, 255); }
static uint32_t decode_alpha(uint32_t t) { return rgba(0, 0, 0, t & 255); }
static uint32_t decode_lumalpha(uint32_t t) { return rgba(t & 255, t & 255, t & 255, t >> 8 & 255); }

typedef struct tmu_format {
  const char *name;
  unsigned cpp;                  /* bytes per texel */
  int raster;                    /* 1: raster layout, else T/LT */
  uint32_t (*decode)(uint32_t);  /* texel -> RGBA8888 return word; NULL: not modelled */
} tmu_format;

static const tmu_format tex_formats[32] = {
    [0] = {"RGBA8888", 4, 0, decode_rgba8888},   [1] = {"RGBX8888", 4, 0, decode_rgbx8888},
    [2] = {"RGBA4444", 2, 0, decode_rgba4444},   [3] = {"RGBA5551", 2, 0, decode_rgba5551},
    [4] = {"RGB565", 2, 0, decode_rgb565},       [5] = {"LUMINANCE", 1, 0, decode_luminance},
    [6] = {"ALPHA", 1, 0, decode_alpha},         [7] = {"LUMALPHA", 2, 0, decode_lumalpha},
    [8] = {"ETC1", 0, 0, NULL},                  [9] = {"S16F", 0, 0, NULL},
    [10] = {"S8", 0, 0, NULL},                   [11] = {"S16", 0, 0, NULL},
    [12] = {"BW1", 0, 0, NULL},                  [13] = {"A4", 0, 0, NULL},
    [14] = {"A1", 0, 0, NULL},                   [15] = {"RGBA64", 0, 0, NULL},
    [16] = {"RGBA32R", 4, 1, decode_rgba8888},   [17] = {"YUYV422R", 0, 1, NULL},
};

/* ---- configuration (RG Tables 15-17) ---------------------------------- */

enum { WRAP_REPEAT, WRAP_CLAMP, WRAP_MIRROR, WRAP_BORDER };
enum { FILTER_LINEAR, FILTER_NEAREST };

static uint32_t pot_ceil(uint32_t v) {
  uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

/* The geometry of every mip level (RG §4, Mesa vc4_resource.c): level 0 at BASE
 * with its own size, level i >= 1 POT-sized, stored below level i-1; each
 * level picks T or LT by its own size. Raster rows are POT texels apart,
 * as the hardware addresses them (erratum HW-2898). */
static void level_geometry(tmu_texture *c, uint32_t base, uint32_t w0, uint32_t h0) {
  uint32_t addr = base;
  for (unsigned i = 0; i <= c->miplvls; i++) {
    tmu_level *l = &c->level[i];
    l->w = i ? (pot_ceil(w0) >> i ? pot_ceil(w0) >> i : 1) : w0;
    l->h = i ? (pot_ceil(h0) >> i ? pot_ceil(h0) >> i : 1) : h0;
    l->layout = c->fmt->raster ? TILING_RASTER : tiling_choose(l->w, l->h, c->fmt->cpp);
    l->row_width = c->fmt->raster ? pot_ceil(l->w) : l->w;
    if (i) addr -= tiling_size(l->layout, l->row_width, l->h, c->fmt->cpp);
    l->addr = addr;
  }
}

int tmu_texture_decode(const uint32_t *cfg, unsigned ncfg, int unit, tmu_texture *c, gs_diag *d) {
  uint32_t p0 = cfg[0], p1 = cfg[1];
  c->type = (p0 >> 4 & 15) | (p1 >> 31) << 4;
  c->fmt = &tex_formats[c->type];
  if (!c->fmt->decode)
    return gs_diag_set(d, GS_EINVAL, "TMU%d: texture type %u (%s) is not modelled", unit, c->type,
                     c->fmt->name ? c->fmt->name : "reserved");
  if (p0 >> 9 & 1) return gs_diag_set(d, GS_EINVAL, "TMU%d: cube maps (CMMODE) are not modelled", unit);
  for (unsigned k = 2; k < ncfg; k++)
    if (cfg[k] >> 31)
      return gs_diag_set(d, GS_EINVAL, "TMU%d: config parameter %u = 0x%08x selects child images, not modelled",
                       unit, k, cfg[k]);
  c->flipy = p0 >> 8 & 1;
  c->miplvls = p0 & 15;
  c->magfilt = p1 >> 7 & 1;
  c->minfilt = p1 >> 4 & 7;
  if (c->minfilt > 5)
    return gs_diag_set(d, GS_EINVAL, "TMU%d: MINFILT %u is not a filter (0..5)", unit, c->minfilt);
  c->wrap_t = p1 >> 2 & 3;
  c->wrap_s = p1 & 3;
  uint32_t h = p1 >> 20 & 0x7ff, w = p1 >> 8 & 0x7ff;
  level_geometry(c, p0 & 0xfffff000u, w ? w : 2048, h ? h : 2048);
  return GS_OK;
}

/* ---- coordinates ------------------------------------------------------------ */

#define FIXED_LIMIT (INT64_C(1) << 40)

/* floor(f * scale * 2^frac) for the float bit pattern f, saturated to
 * +-FIXED_LIMIT; denormals count as 0, exponent 255 as infinity (the VideoCore IV
 * float model). Integer arithmetic only. */
static int64_t to_fixed(uint32_t f, uint32_t scale, int frac) {
  uint32_t e = f >> 23 & 255;
  int negative = f >> 31;
  if (e == 0 || scale == 0) return 0;
  if (e == 255) return negative ? -FIXED_LIMIT : FIXED_LIMIT;
  uint64_t mag = (uint64_t)((f & 0x7fffffu) | 0x800000u) * scale; /* < 2^36 */
  int shift = (int)e - 150 + frac;
  int inexact = 0;
  if (shift >= 0) {
    mag = shift >= 40 || mag >> (40 - shift) ? (uint64_t)FIXED_LIMIT : mag << shift;
  } else if (shift > -48) {
    inexact = (mag & ((UINT64_C(1) << -shift) - 1)) != 0;
    mag >>= -shift;
  } else {
    inexact = 1;
    mag = 0;
  }
  if (mag > (uint64_t)FIXED_LIMIT) mag = (uint64_t)FIXED_LIMIT;
  /* floor of a negative value rounds its magnitude up */
  return negative ? -(int64_t)(mag + (uint64_t)inexact) : (int64_t)mag;
}

static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Texel index i wrapped into [0, n) by `mode`; -1 for a border texel. */
static int64_t wrap_index(int64_t i, uint32_t n, unsigned mode) {
  int64_t period;
  switch (mode) {
  case WRAP_REPEAT: return i - floor_div(i, n) * n;
  case WRAP_CLAMP: return i < 0 ? 0 : i >= n ? n - 1 : i;
  case WRAP_MIRROR:
    period = 2 * (int64_t)n;
    i -= floor_div(i, period) * period;
    return i < n ? i : period - 1 - i;
  default: return i < 0 || i >= n ? -1 : i;
  }
}

/* ---- texel fetch and filters ------------------------------------------------ */

typedef struct lookup {
  const gs_mem *m;
  int unit;
  const tmu_texture *c;
  uint32_t border; /* RGBA8888 return word used for border texels */
  gs_diag *d;
} lookup;

/* The RGBA8888 return word of texel (x, y) of a level, x and y already
 * wrapped (-1: border). */
static int fetch_texel(const lookup *lk, unsigned level, int64_t x, int64_t y, uint32_t *out) {
  const tmu_level *l = &lk->c->level[level];
  unsigned cpp = lk->c->fmt->cpp;
  if (x < 0 || y < 0) {
    *out = lk->border;
    return GS_OK;
  }
  uint32_t row = lk->c->flipy ? l->h - 1 - (uint32_t)y : (uint32_t)y;
  uint32_t a = l->addr + tiling_offset(l->layout, (uint32_t)x, row, l->row_width, cpp);
  const uint8_t *p = gs_mem_ptr(lk->m, a, cpp);
  if (!p)
    return gs_diag_set(lk->d, GS_EFAULT,
                     "TMU%d texture read of 0x%08x (texel (%u, %u) of level %u) is outside allocated GPU memory",
                     lk->unit, a, (unsigned)x, (unsigned)row, level);
  uint32_t raw = 0;
  for (unsigned k = 0; k < cpp; k++) raw |= (uint32_t)p[k] << (8 * k);
  *out = lk->c->fmt->decode(raw);
  return GS_OK;
}

#define WEIGHT_ONE 256 /* filter weights have 8 fraction bits */

/* Per-channel blend a*(1-w) + b*w with w in 1/256ths, rounded to nearest. */
static uint32_t blend(uint32_t a, uint32_t b, uint32_t w) {
  uint32_t r = 0;
  for (int sh = 0; sh < 32; sh += 8) {
    uint32_t ca = a >> sh & 255, cb = b >> sh & 255;
    r |= ((ca * (WEIGHT_ONE - w) + cb * w + WEIGHT_ONE / 2) / WEIGHT_ONE) << sh;
  }
  return r;
}

/* Per-channel bilinear blend of 2x2 texels (t[0] = (x0, y0), t[1] = (x1,
 * y0), t[2] = (x0, y1), t[3] = (x1, y1)) with 8-bit weights, rounded to
 * nearest once at the end. */
static uint32_t bilinear(const uint32_t t[4], uint32_t fx, uint32_t fy) {
  uint32_t w[4] = {(WEIGHT_ONE - fx) * (WEIGHT_ONE - fy), fx * (WEIGHT_ONE - fy), (WEIGHT_ONE - fx) * fy, fx * fy};
  uint32_t r = 0;
  for (int sh = 0; sh < 32; sh += 8) {
    uint32_t sum = 0;
    for (int k = 0; k < 4; k++) sum += (t[k] >> sh & 255) * w[k];
    r |= ((sum + WEIGHT_ONE * WEIGHT_ONE / 2) / (WEIGHT_ONE * WEIGHT_ONE)) << sh;
  }
  return r;
}

/* One level sampled at (s, t) with the nearest or bilinear filter. Texel i
 * covers [i, i+1)/size; bilinear interpolates between texel centres
 * (i + 0.5)/size with weights of 8 fraction bits. */
static int sample_level(const lookup *lk, unsigned level, uint32_t s, uint32_t t, unsigned filter, uint32_t *out) {
  const tmu_texture *c = lk->c;
  const tmu_level *l = &c->level[level];
  int64_t u = to_fixed(s, l->w, 8), v = to_fixed(t, l->h, 8);
  if (filter == FILTER_NEAREST)
    return fetch_texel(lk, level, wrap_index(floor_div(u, WEIGHT_ONE), l->w, c->wrap_s),
                       wrap_index(floor_div(v, WEIGHT_ONE), l->h, c->wrap_t), out);
  u -= WEIGHT_ONE / 2;
  v -= WEIGHT_ONE / 2;
  int64_t x0 = floor_div(u, WEIGHT_ONE), y0 = floor_div(v, WEIGHT_ONE);
  uint32_t fx = (uint32_t)(u - x0 * WEIGHT_ONE), fy = (uint32_t)(v - y0 * WEIGHT_ONE);
  int64_t xs[2] = {wrap_index(x0, l->w, c->wrap_s), wrap_index(x0 + 1, l->w, c->wrap_s)};
  int64_t ys[2] = {wrap_index(y0, l->h, c->wrap_t), wrap_index(y0 + 1, l->h, c->wrap_t)};
  uint32_t texels[4];
  for (int k = 0; k < 4; k++) {
    int rc = fetch_texel(lk, level, xs[k & 1], ys[k >> 1], &texels[k]);
    if (rc < 0) return rc;
  }
  *out = bilinear(texels, fx, fy);
  return GS_OK;
}

/* One lane's lookup. The LOD is the B value (0 when B is not written; no
 * automatic LOD from derivatives): LOD <= 0 magnifies with MAGFILT; LOD > 0
 * minifies with MINFILT, the LOD clamped to [0, MIPLVLS] with 8 fraction
 * bits; "mip nearest" rounds halves down, "mip linear" blends two levels. */
static int sample(const lookup *lk, uint32_t s, uint32_t t, uint32_t b, uint32_t *out) {
  const tmu_texture *c = lk->c;
  int64_t lod = to_fixed(b, 1, 8);
  if (lod <= 0) return sample_level(lk, 0, s, t, c->magfilt ? FILTER_NEAREST : FILTER_LINEAR, out);
  if (lod > (int64_t)c->miplvls * WEIGHT_ONE) lod = (int64_t)c->miplvls * WEIGHT_ONE;
  /* MINFILT: 0 linear, 1 nearest (level 0); 2 nearest/4 linear texels from
   * the nearest level; 3 nearest/5 linear texels blended across levels */
  unsigned filter = c->minfilt == 1 || c->minfilt == 2 || c->minfilt == 3 ? FILTER_NEAREST : FILTER_LINEAR;
  if (c->minfilt <= 1) return sample_level(lk, 0, s, t, filter, out);
  if (c->minfilt == 2 || c->minfilt == 4)
    return sample_level(lk, (unsigned)((lod + WEIGHT_ONE / 2 - 1) / WEIGHT_ONE), s, t, filter, out);
  unsigned l0 = (unsigned)(lod / WEIGHT_ONE), w = (unsigned)(lod % WEIGHT_ONE);
  uint32_t c0, c1;
  int rc = sample_level(lk, l0, s, t, filter, &c0);
  if (rc < 0 || w == 0) {
    *out = c0;
    return rc;
  }
  if ((rc = sample_level(lk, l0 + 1, s, t, filter, &c1)) < 0) return rc;
  *out = blend(c0, c1, w);
  return GS_OK;
}

/* ---- lanes ----------------------------------------------------------------------- */

int tmu_sample(const gs_mem *m, const tmu_texture *tex, int unit, const tmu_lanes *l, uint32_t *out, gs_diag *d) {
  static const uint32_t zero[TMU_MAX_LANES];
  lookup lk = {m, unit, tex, l->border, d};
  /* in locals, which the stores to out cannot change */
  const uint32_t *s = l->s, *t = l->t ? l->t : zero, *b = l->b ? l->b : zero;
  uint32_t mask = l->mask;
  for (unsigned i = 0, n = l->n; i < n; i++) {
    out[i] = 0;
    if (!(mask >> i & 1)) continue;
    int rc = sample(&lk, s[i], t[i], b[i], &out[i]);
    if (rc < 0) return rc;
  }
  return GS_OK;
}

int tmu_fetch(const gs_mem *m, const tmu_texture *tex, int unit, unsigned n, uint32_t mask, const uint32_t *x,
              const uint32_t *y, const uint32_t *level, uint32_t *out, gs_diag *d) {
  lookup lk = {m, unit, tex, 0, d};
  for (unsigned i = 0; i < n; i++) {
    out[i] = 0;
    uint32_t lv = level ? level[i] : 0;
    if (!(mask >> i & 1) || lv > tex->miplvls || lv >= TMU_MAX_LEVELS) continue;
    const tmu_level *l = &tex->level[lv];
    if (x[i] >= l->w || y[i] >= l->h) continue;
    int rc = fetch_texel(&lk, lv, x[i], y[i], &out[i]);
    if (rc < 0) return rc;
  }
  return GS_OK;
}

int tmu_direct_read(const gs_mem *m, int unit, unsigned n, uint32_t mask, const uint32_t *addr, uint32_t *out,
                    gs_diag *d) {
  for (unsigned i = 0; i < n; i++) {
    out[i] = 0;
    if (!(mask >> i & 1)) continue;
    uint32_t a = addr[i] & ~3u;
    const uint8_t *p = gs_mem_ptr(m, a, 4);
    if (!p)
      return gs_diag_set(d, GS_EFAULT, "TMU%d direct read of 0x%08x (element %u) is outside allocated GPU memory",
                         unit, a, i);
    out[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  }
  return GS_OK;
}
