/* ptb_bin.c — which tiles a primitive covers, and the per-tile
 * primitive lists. Coverage is decided with the PSE's integer edge
 * functions in 12.4 units and its fill rule (stated at ptb_cover_polygon in
 * ptb.h), one sample row at a time: each edge bounds the row's covered
 * samples to one side, the intersection of those bounds is the row's span,
 * and the span's tiles are collected per band of tile-high rows (with 4×
 * multisampling, one span per sample point of the row). So a tile is
 * binned exactly when the rasteriser will find a sample in it, including
 * for slivers that pass between a tile's samples, and a large triangle
 * costs three divisions per pixel row rather than work per pixel.
 */
#include <string.h>
#include "v3d/ptb.h"
#include "v3d/pse.h"
#include "v3d/tlb.h"

#define BAND_WORDS (PTB_MAX_TILES_X / 64)
#define MAX_POLY 8

void ptb_grid_make(ptb_grid *g, uint32_t tiles_x, uint32_t tiles_y, bool multisample, bool color64) {
  unsigned w, h;
  tlb_tile_size(multisample, color64, &w, &h);
  g->tiles_x = tiles_x, g->tiles_y = tiles_y;
  g->tile_w = w, g->tile_h = h;
  g->samples = 1;
}

uint32_t ptb_tiles_for(uint32_t pixels, uint32_t tile) { return tile ? (pixels + tile - 1) / tile : 0; }

void ptb_window_make(ptb_window *w, const ptb_state *st, const ptb_grid *g) {
  int32_t right = (int32_t)st->clip_left + (int32_t)st->clip_width - 1;
  int32_t top = (int32_t)st->clip_bottom + (int32_t)st->clip_height - 1;
  int32_t frame_right = (int32_t)(g->tiles_x * g->tile_w) - 1;
  int32_t frame_top = (int32_t)(g->tiles_y * g->tile_h) - 1;
  w->x0 = st->clip_left;
  w->y0 = st->clip_bottom;
  w->x1 = right < frame_right ? right : frame_right;
  w->y1 = top < frame_top ? top : frame_top;
}

/* floor(a / b) and ceil(a / b) for b > 0 (C division truncates). */
static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
static int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

/* a / t for a tile side t > 0: a shift when a >= 0 and t is a power of
 * two, as tile sides are (64, 32, 16), where a 64-bit division takes tens
 * of cycles, and several come per primitive. */
static inline int64_t per_tile(int64_t a, int64_t t) {
#if defined(__GNUC__)
  if (a >= 0 && (t & (t - 1)) == 0) return a >> __builtin_ctzll((unsigned long long)t);
#endif
  return a / t;
}

/* An edge as E(X, Y) = a*X + b*Y + c, a sample covered iff E >= 0: the
 * fill rule's strict inequality on exclusive edges is E - 1 >= 0 on
 * integers, so it is folded into c. */
typedef struct edge {
  int64_t a, b, c;
} edge;

static unsigned make_edges(const int32_t *x, const int32_t *y, unsigned n, edge *e) {
  unsigned m = 0;
  for (unsigned i = 0; i < n; i++) {
    unsigned j = i + 1 < n ? i + 1 : 0;
    int64_t dx = (int64_t)x[j] - x[i], dy = (int64_t)y[j] - y[i];
    if (dx == 0 && dy == 0)
      continue;
    bool inclusive = dy < 0 || (dy == 0 && dx > 0);
    e[m].a = -dy;
    e[m].b = dx;
    e[m].c = dy * x[i] - dx * y[i] - (inclusive ? 0 : 1);
    m++;
  }
  return m;
}

/* Narrows the covered columns [*lo, *hi] of the sample row at 12.4 height
 * Y to those inside edge e. Sample X = 16*px + ox, so the condition
 * a*(16px + ox) + b*Y + c >= 0 reads 16a*px >= s. */
static void clip_span(const edge *e, int64_t ox, int64_t Y, int64_t *lo, int64_t *hi) {
  int64_t s = -(e->a * ox + e->b * Y + e->c);
  if (e->a > 0) {
    int64_t m = ceil_div(s, 16 * e->a);
    if (m > *lo)
      *lo = m;
  } else if (e->a < 0) {
    int64_t m = floor_div(-s, -16 * e->a);
    if (m < *hi)
      *hi = m;
  } else if (s > 0) {
    *hi = *lo - 1; /* a horizontal edge with this row outside it */
  }
}

/* The bits of word w of a band for tiles t0..t1 (0 <= t0 <= t1). */
static uint64_t range_bits(int64_t w, int64_t t0, int64_t t1) {
  unsigned lo = w == t0 >> 6 ? (unsigned)(t0 & 63) : 0, hi = w == t1 >> 6 ? (unsigned)(t1 & 63) : 63;
  return (~UINT64_C(0) << lo) & (~UINT64_C(0) >> (63 - hi));
}

/* Marks tiles t0..t1 of the band, a word of 64 at a time: a large
 * primitive's rows span tens of tiles. */
static void band_set(uint64_t *band, int64_t t0, int64_t t1) {
  for (int64_t w = t0 >> 6; w <= t1 >> 6; w++) band[w] |= range_bits(w, t0, t1);
}

/* Whether the band has every tile t0..t1 marked. */
static bool band_has(const uint64_t *band, int64_t t0, int64_t t1) {
  for (int64_t w = t0 >> 6; w <= t1 >> 6; w++) {
    uint64_t bits = range_bits(w, t0, t1);
    if ((band[w] & bits) != bits) return false;
  }
  return true;
}

/* Visits the tiles marked in one band (tile row ty) and clears the marks. */
static uint32_t band_flush(uint64_t *band, uint32_t ty, uint32_t tiles_x, ptb_tile_visit *visit, void *ctx) {
  uint32_t count = 0;
  for (uint32_t w = 0; w < BAND_WORDS; w++) {
    uint64_t bits = band[w];
    band[w] = 0;
    while (bits) {
#if defined(__GNUC__)
      unsigned bit = (unsigned)__builtin_ctzll(bits);
#else
      unsigned bit = 0;
      while (!(bits >> bit & 1))
        bit++;
#endif
      bits &= bits - 1;
      if (visit)
        visit(ctx, ty * tiles_x + w * 64 + bit);
      count++;
    }
  }
  return count;
}

/* A polygon whose samples in the window lie in one tile, and are few:
 * the tile is covered when one of them is, so the samples are tried one by
 * one (each edge's value stepped by 16a along a row), without the row
 * spans' divisions, and the first covered one decides. */
#define SMALL_SAMPLES 256
static uint32_t cover_small(const edge *e, unsigned m, const uint8_t *ox, const uint8_t *oy, unsigned ns,
                            int64_t col0, int64_t col1, int64_t row0, int64_t row1, uint32_t tile,
                            ptb_tile_visit *visit, void *ctx) {
  for (int64_t py = row0; py <= row1; py++)
    for (unsigned k = 0; k < ns; k++) {
      int64_t X = 16 * col0 + ox[k], Y = 16 * py + oy[k], v[MAX_POLY];
      for (unsigned i = 0; i < m; i++)
        v[i] = e[i].a * X + e[i].b * Y + e[i].c;
      for (int64_t px = col0; px <= col1; px++) {
        int64_t neg = 0;
        for (unsigned i = 0; i < m; i++)
          neg |= v[i], v[i] += 16 * e[i].a;
        if (neg >= 0) {
          if (visit)
            visit(ctx, tile);
          return 1;
        }
      }
    }
  return 0;
}

uint32_t ptb_cover_polygon(const int32_t *x, const int32_t *y, unsigned n, const ptb_window *w, const ptb_grid *g,
                           ptb_tile_visit *visit, void *ctx) {
  const int64_t tw = g->tile_w, th = g->tile_h;
  edge e[MAX_POLY];
  uint64_t band[BAND_WORDS] = {0};
  /* The grid bounds the window whatever the caller passed: the band
   * bitmap has room for PTB_MAX_TILES_X tiles only. */
  ptb_window win = *w;
  int64_t right = (int64_t)g->tiles_x * tw - 1, top = (int64_t)g->tiles_y * th - 1;
  win.x0 = win.x0 > 0 ? win.x0 : 0, win.y0 = win.y0 > 0 ? win.y0 : 0;
  win.x1 = win.x1 < right ? win.x1 : (int32_t)right, win.y1 = win.y1 < top ? win.y1 : (int32_t)top;
  w = &win;
  if (n < 3 || n > MAX_POLY || w->x0 > w->x1 || w->y0 > w->y1 || g->tiles_x > PTB_MAX_TILES_X || tw == 0 || th == 0)
    return 0;
  unsigned m = make_edges(x, y, n, e);
  const uint8_t *ox, *oy;
  unsigned ns = pse_sample_points(g->samples, &ox, &oy);
  int slo, shi;
  pse_sample_range(g->samples, &slo, &shi);
  int32_t xmin = x[0], xmax = x[0], ymin = y[0], ymax = y[0];
  for (unsigned i = 1; i < n; i++) {
    xmin = x[i] < xmin ? x[i] : xmin, xmax = x[i] > xmax ? x[i] : xmax;
    ymin = y[i] < ymin ? y[i] : ymin, ymax = y[i] > ymax ? y[i] : ymax;
  }
  /* Tile columns the bounding box allows: once a band has them all, its
   * remaining rows cannot add a tile. Small triangles mostly sit in one
   * tile, so their first covered row ends the work. */
  int64_t col0 = ceil_div((int64_t)xmin - shi, 16), col1 = floor_div((int64_t)xmax - slo, 16);
  col0 = col0 > w->x0 ? col0 : w->x0;
  col1 = col1 < w->x1 ? col1 : w->x1;
  if (col0 > col1)
    return 0;
  int64_t tcol0 = per_tile(col0, tw), tcol1 = per_tile(col1, tw); /* a band is full with these marked */
  /* Rows with a sample within the polygon's height; the edges decide the
   * rest. */
  int64_t row0 = ceil_div((int64_t)ymin - shi, 16), row1 = floor_div((int64_t)ymax - slo, 16);
  row0 = row0 > w->y0 ? row0 : w->y0;
  row1 = row1 < w->y1 ? row1 : w->y1;
  if (row0 > row1)
    return 0;
  if (tcol0 == tcol1 && per_tile(row0, th) == per_tile(row1, th) &&
      (col1 - col0 + 1) * (row1 - row0 + 1) * ns <= SMALL_SAMPLES)
    return cover_small(e, m, ox, oy, ns, col0, col1, row0, row1,
                       (uint32_t)per_tile(row0, th) * g->tiles_x + (uint32_t)per_tile(col0, tw), visit, ctx);
  uint32_t count = 0;
  bool marked = false;
  for (int64_t py = row0; py <= row1; py++) {
    for (unsigned k = 0; k < ns; k++) {
      int64_t lo = col0, hi = col1, Y = 16 * py + oy[k];
      for (unsigned i = 0; i < m && lo <= hi; i++)
        clip_span(&e[i], ox[k], Y, &lo, &hi);
      if (lo <= hi)
        band_set(band, per_tile(lo, tw), per_tile(hi, tw)), marked = true;
    }
    int64_t band_last = per_tile(py, th) * th + th - 1;
    if (marked && band_has(band, tcol0, tcol1))
      py = band_last < row1 ? band_last : row1; /* skip the band's other rows */
    if (marked && (py == row1 || py == band_last)) {
      count += band_flush(band, (uint32_t)per_tile(py, th), g->tiles_x, visit, ctx);
      marked = false;
    }
  }
  return count;
}

/* ---- the lists ------------------------------------------------------------ */

ptb_result ptb_bins_init(ptb_bins *b, const ptb_grid *g, const ptb_buffers *buf) {
  memset(b, 0, sizeof *b);
  if (g->tiles_x == 0 || g->tiles_y == 0 || g->tiles_x > PTB_MAX_TILES_X || g->tiles_y > PTB_MAX_TILES_Y ||
      g->tile_w == 0 || g->tile_h == 0 || g->tile_w > PTB_TILE_SIZE || g->tile_h > PTB_TILE_SIZE ||
      buf->tile_cap < g->tiles_x * g->tiles_y || buf->tiles == NULL)
    return PTB_ERR_TILES;
  b->grid = *g;
  b->tiles = buf->tiles;
  b->prims = buf->prims, b->prim_cap = buf->prims ? buf->prim_cap : 0;
  b->clips = buf->clips, b->clip_cap = buf->clips ? buf->clip_cap : 0;
  b->refs = buf->refs, b->ref_cap = buf->refs ? buf->ref_cap : 0;
  ptb_bins_clear(b);
  return PTB_OK;
}

void ptb_bins_clear(ptb_bins *b) {
  for (uint32_t t = 0; t < b->grid.tiles_x * b->grid.tiles_y; t++)
    b->tiles[t] = (ptb_tile){PTB_NONE, PTB_NONE, 0};
  b->prim_count = b->clip_count = b->ref_count = 0;
  memset(&b->stats, 0, sizeof b->stats);
}

uint32_t ptb_tile_prims(const ptb_bins *b, uint32_t tx, uint32_t ty, uint32_t *out, uint32_t cap) {
  if (tx >= b->grid.tiles_x || ty >= b->grid.tiles_y)
    return 0;
  const ptb_tile *t = &b->tiles[ty * b->grid.tiles_x + tx];
  uint32_t k = 0;
  for (uint32_t r = t->head; r != PTB_NONE; r = b->refs[r].next, k++)
    if (k < cap)
      out[k] = b->refs[r].prim;
  return k;
}

/* Tiles of the window holding a sample inside the polygon's bounding box:
 * an upper bound on what ptb_cover_polygon visits, for the capacity check. */
static uint64_t bbox_tiles(const int32_t *x, const int32_t *y, unsigned n, const ptb_window *w, const ptb_grid *g) {
  int32_t xmin = x[0], xmax = x[0], ymin = y[0], ymax = y[0];
  for (unsigned i = 1; i < n; i++) {
    xmin = x[i] < xmin ? x[i] : xmin, xmax = x[i] > xmax ? x[i] : xmax;
    ymin = y[i] < ymin ? y[i] : ymin, ymax = y[i] > ymax ? y[i] : ymax;
  }
  int lo, hi;
  pse_sample_range(g->samples, &lo, &hi);
  int64_t c0 = ceil_div((int64_t)xmin - hi, 16), c1 = floor_div((int64_t)xmax - lo, 16);
  int64_t r0 = ceil_div((int64_t)ymin - hi, 16), r1 = floor_div((int64_t)ymax - lo, 16);
  c0 = c0 > w->x0 ? c0 : w->x0, c1 = c1 < w->x1 ? c1 : w->x1;
  r0 = r0 > w->y0 ? r0 : w->y0, r1 = r1 < w->y1 ? r1 : w->y1;
  if (c0 > c1 || r0 > r1)
    return 0;
  return (uint64_t)(per_tile(c1, g->tile_w) - per_tile(c0, g->tile_w) + 1) *
         (uint64_t)(per_tile(r1, g->tile_h) - per_tile(r0, g->tile_h) + 1);
}

/* ptb_tile_visit that links the primitive being added (number
 * b->prim_count) into a tile's list. Capacity was checked beforehand. */
static void append_ref(void *ctx, uint32_t tile) {
  ptb_bins *b = ctx;
  uint32_t r = b->ref_count++;
  ptb_tile *t = &b->tiles[tile];
  b->refs[r].prim = b->prim_count;
  b->refs[r].next = PTB_NONE;
  b->refs[r].tile = tile;
  if (t->tail == PTB_NONE)
    t->head = r;
  else
    b->refs[t->tail].next = r;
  t->tail = r;
  t->count++;
}

ptb_result ptb_bins_add(ptb_bins *b, const ptb_prim *prim, const ptb_clip_record *rec, const int32_t *x,
                        const int32_t *y, unsigned n, const ptb_window *w, uint32_t *tiles) {
  uint32_t covered;
  if (tiles)
    *tiles = 0;
  /* When the bounding box might not fit, count exactly first so that a
   * primitive is either stored whole or not at all. With room for a
   * reference in every tile it fits, whatever its box. */
  uint32_t room = b->ref_cap - b->ref_count;
  uint64_t bound = room >= b->grid.tiles_x * b->grid.tiles_y ? 0 : bbox_tiles(x, y, n, w, &b->grid);
  if (b->prim_count == b->prim_cap || (rec && b->clip_count == b->clip_cap) || bound > room) {
    covered = ptb_cover_polygon(x, y, n, w, &b->grid, NULL, NULL);
    if (covered == 0)
      return PTB_OK;
    if (b->prim_count == b->prim_cap)
      return PTB_ERR_PRIMS_FULL;
    if (rec && b->clip_count == b->clip_cap)
      return PTB_ERR_CLIPS_FULL;
    if (covered > b->ref_cap - b->ref_count)
      return PTB_ERR_REFS_FULL;
  }
  covered = ptb_cover_polygon(x, y, n, w, &b->grid, append_ref, b);
  if (covered == 0)
    return PTB_OK;
  ptb_prim *p = &b->prims[b->prim_count++];
  *p = *prim;
  p->clip = PTB_NONE;
  if (rec) {
    p->clip = b->clip_count;
    b->clips[b->clip_count++] = *rec;
  }
  b->stats.binned++;
  b->stats.tile_refs += covered;
  if (tiles)
    *tiles = covered;
  return PTB_OK;
}
