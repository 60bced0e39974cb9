/* raster.c — coverage of one set-up primitive inside one tile (64×64
 * pixels or smaller): the tile, then its 16×16 blocks, then their 4×4
 * blocks, each level with
 * trivial reject and trivial accept per edge, and a 16-lane mask in batch
 * lane order (pse.h) for every 4×4 block left partial (the scheme of Mesa's
 * llvmpipe, lp_rast_tri_tmp.h, and Abrash's "Rasterization on Larrabee"; docs/rasterization.md the
 * conventions and the integer widths). With 4× multisampling the walk
 * runs once per sample point and the masks are merged.
 *
 * Widths. An edge is E(p) = a·px + b·py + c with |a|, |b| < 2^17 over 12.4
 * positions. One pixel step changes E by 16a (or 16b), below 2^21, and the
 * 64×64 samples of a tile lie within 63 steps of its first sample in x and
 * y: E varies by less than R = 63·16·(|a| + |b|) < 2^28 over the tile. So
 * an edge whose int64 value e at the first sample has e − R ≥ 0 covers the
 * whole tile and is dropped, one with e + R < 0 covers none of it and
 * rejects the tile, and otherwise |e| < R < 2^28: every value inside the
 * tile is then below 2^29 in magnitude, and the per-tile arithmetic runs in
 * int32_t without overflow.
 */
#include "v3d/pse.h"

#include <assert.h>
#include <string.h>
#include "core/clones.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* One edge inside one tile: value at the tile's first sample, steps per
 * pixel in x and y. */
typedef struct pse_tile_edge {
  int32_t e, sx, sy;
} pse_tile_edge;

static int32_t pse_abs32(int32_t v) { return v < 0 ? -v : v; }
static int32_t pse_pos(int32_t v) { return v > 0 ? v : 0; }
static int32_t pse_neg(int32_t v) { return v < 0 ? v : 0; }

/* The edges of p that cut the tile whose first sample is (px, py) (12.4),
 * into te[]. Returns their number, or -1 if an edge rejects the tile. The
 * reach of a 64×64 tile bounds every smaller tile too. */
static int pse_tile_edges(const pse_prim *p, int64_t px, int64_t py, pse_tile_edge te[4]) {
  int n = 0;
  for (int i = 0; i < p->nedges; i++) {
    const pse_edge *ed = &p->edge[i];
    int64_t e = (int64_t)ed->a * px + (int64_t)ed->b * py + ed->c;
    int64_t reach = (int64_t)(PSE_TILE_SIZE - 1) * 16 * ((int64_t)pse_abs32(ed->a) + pse_abs32(ed->b));
    if (e - reach >= 0) continue; /* the whole tile is inside this edge */
    if (e + reach < 0) return -1; /* none of it is */
    te[n].e = (int32_t)e;
    te[n].sx = 16 * ed->a;
    te[n].sy = 16 * ed->b;
    n++;
  }
  return n;
}

/* Lanes of columns (bits 0..3 of cols) and of rows, in element order, for
 * each of the 16 column (row) sets. */
#define PSE_LANE_IF(set, off, l) ((((set) >> off(l)) & 1u) << (l))
#define PSE_LANES_OF(set, off)                                                                            \
  (uint16_t)(PSE_LANE_IF(set, off, 0) | PSE_LANE_IF(set, off, 1) | PSE_LANE_IF(set, off, 2) |            \
             PSE_LANE_IF(set, off, 3) | PSE_LANE_IF(set, off, 4) | PSE_LANE_IF(set, off, 5) |            \
             PSE_LANE_IF(set, off, 6) | PSE_LANE_IF(set, off, 7) | PSE_LANE_IF(set, off, 8) |            \
             PSE_LANE_IF(set, off, 9) | PSE_LANE_IF(set, off, 10) | PSE_LANE_IF(set, off, 11) |          \
             PSE_LANE_IF(set, off, 12) | PSE_LANE_IF(set, off, 13) | PSE_LANE_IF(set, off, 14) |         \
             PSE_LANE_IF(set, off, 15))
#define PSE_LANE_SETS(off)                                                                                \
  {PSE_LANES_OF(0u, off), PSE_LANES_OF(1u, off), PSE_LANES_OF(2u, off), PSE_LANES_OF(3u, off),            \
   PSE_LANES_OF(4u, off), PSE_LANES_OF(5u, off), PSE_LANES_OF(6u, off), PSE_LANES_OF(7u, off),            \
   PSE_LANES_OF(8u, off), PSE_LANES_OF(9u, off), PSE_LANES_OF(10u, off), PSE_LANES_OF(11u, off),          \
   PSE_LANES_OF(12u, off), PSE_LANES_OF(13u, off), PSE_LANES_OF(14u, off), PSE_LANES_OF(15u, off)}
static const uint16_t pse_column_lanes[16] = PSE_LANE_SETS(PSE_LANE_DX);
static const uint16_t pse_row_lanes[16] = PSE_LANE_SETS(PSE_LANE_DY);

/* Bits 0..3: which of the 4 pixels from `start` lie in [lo, hi). */
static inline unsigned pse_span_bits(int start, int lo, int hi) {
  int a = lo - start, b = hi - start; /* the span, relative to start */
  a = a < 0 ? 0 : a > 4 ? 4 : a;
  b = b < 0 ? 0 : b > 4 ? 4 : b;
  return (0xFu >> (4 - b)) & ~(0xFu >> (4 - a)) & 0xFu;
}

/* The lanes of a block at which an edge with value e at lane 0 and steps
 * sx, sy is not negative, lane by lane: pse_block_lanes' form without SSE2
 * (below), and the tests' model. */
static inline uint16_t pse_edge_lanes_plain(int32_t e, int32_t sx, int32_t sy) {
  uint32_t m = 0;
  for (int l = 0; l < 16; l++) {
    int32_t v = e + PSE_LANE_DX(l) * sx + PSE_LANE_DY(l) * sy;
    m |= (~(uint32_t)v >> 31) << l; /* the sign bit: v >= 0 */
  }
  return (uint16_t)m;
}

/* The lane offsets of one edge inside a block, for pse_block_lanes: with
 * SSE2 its four quads as four vectors (quad 0 at (0, sx, sy, sx + sy), quads
 * 1-3 two pixels further in x, y and both). */
typedef struct pse_lane_steps {
#if defined(__SSE2__)
  __m128i q[4];
#else
  int32_t sx, sy;
#endif
} pse_lane_steps;

static GS_CLONE_INLINE void pse_lane_steps_make(pse_lane_steps *st, int32_t sx, int32_t sy) {
#if defined(__SSE2__)
  __m128i x2 = _mm_set1_epi32(2 * sx), y2 = _mm_set1_epi32(2 * sy);
  st->q[0] = _mm_setr_epi32(0, sx, sy, sx + sy);
  st->q[1] = _mm_add_epi32(st->q[0], x2);
  st->q[2] = _mm_add_epi32(st->q[0], y2);
  st->q[3] = _mm_add_epi32(st->q[1], y2);
#else
  st->sx = sx, st->sy = sy;
#endif
}

/* Lanes of a block covered by every one of n edges, edge i having value
 * e[i] at lane 0 and lane offsets st[k[i]]: a lane is covered when none of
 * its n values is negative, that is when their OR has the sign bit clear.
 * With SSE2 the ORs of the four quads are narrowed with signed saturation,
 * which keeps each sign, to 16 bytes whose sign bits one movemask gathers. */
static GS_CLONE_INLINE uint16_t pse_block_lanes(const int32_t *e, const int *k, int n, const pse_lane_steps *st) {
#if defined(__SSE2__)
  __m128i o[4] = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
  for (int i = 0; i < n; i++) {
    __m128i v = _mm_set1_epi32(e[i]);
    for (int j = 0; j < 4; j++) o[j] = _mm_or_si128(o[j], _mm_add_epi32(v, st[k[i]].q[j]));
  }
  __m128i s = _mm_packs_epi16(_mm_packs_epi32(o[0], o[1]), _mm_packs_epi32(o[2], o[3]));
  return (uint16_t)~(unsigned)_mm_movemask_epi8(s);
#else
  unsigned m = 0xFFFFu;
  for (int i = 0; i < n; i++) m &= pse_edge_lanes_plain(e[i], st[k[i]].sx, st[k[i]].sy);
  return (uint16_t)m;
#endif
}

/* Classifies an edge over a square of `span` samples per side whose first
 * sample has value e: -1 none covered, 1 all covered, 0 partial. */
static inline int pse_classify(int32_t e, const pse_tile_edge *t, int span) {
  int32_t hi = e + (span - 1) * (pse_pos(t->sx) + pse_pos(t->sy));
  int32_t lo = e + (span - 1) * (pse_neg(t->sx) + pse_neg(t->sy));
  if (hi < 0) return -1;
  if (lo >= 0) return 1;
  return 0;
}

static void pse_emit(pse_coverage *cov, int x, int y, uint16_t mask) {
  assert(cov->count < PSE_MAX_BLOCKS);
  pse_block *b = &cov->block[cov->count++];
  b->x = (uint16_t)x;
  b->y = (uint16_t)y;
  b->mask = mask;
  b->samples = 0;
}

/* pse_emit of the blocks at x, x + 4, ... below x1 in row y, every lane
 * covered: a row of a 16×16 block no edge cuts, in one loop. */
static void pse_emit_full(pse_coverage *cov, int x, int x1, int y) {
  assert(cov->count + (x1 - x + 3) / 4 <= PSE_MAX_BLOCKS);
  pse_block *b = &cov->block[cov->count];
  for (; x < x1; x += 4, b++) *b = (pse_block){.x = (uint16_t)x, .y = (uint16_t)y, .mask = 0xFFFF};
  cov->count = (int)(b - cov->block);
}

/* A rectangle at most PSE_SMALL_SPAN pixels a side inside the tile that
 * the clip window did not narrow, in a walk that emits its blocks: the tiny
 * primitives' case. Every 4×4 block of the rectangle is tested against
 * all n edges at once, in the walk's order, without the 16×16 level's
 * trivial accept and reject (an edge that misses a block gives it no lane,
 * one that covers it every lane: the same masks). The edge values run in
 * int32 from the first block's lane 0, where each is worked out in int64:
 * lanes lie at most 38 pixels from it in x and y, so a value moves by less
 * than 38·16·(|a| + |b|) < 2^28 from there, and a start below 2^29 in
 * magnitude keeps every value below 2^30. Returns 0, having emitted
 * nothing, when a start is not (the general walk then runs: a large
 * primitive cut down to a few pixels of the tile). n is a constant in each
 * copy (pse_walk_small), so that the edge loops unroll. */
#define PSE_SMALL_SPAN 32
static GS_CLONE_INLINE int pse_walk_small_n(const pse_prim *p, const int n, int tx, int ty, int ox, int oy, int x0,
                                            int y0, int x1, int y1, pse_coverage *cov) {
  int32_t e0[4], sx[4], sy[4];
  static const int k[4] = {0, 1, 2, 3};
  pse_lane_steps st[4];
  int bx4 = x0 & ~3, by4 = y0 & ~3;
  int64_t px = 16 * (int64_t)(tx + bx4) + ox, py = 16 * (int64_t)(ty + by4) + oy;
  for (int i = 0; i < n; i++) {
    const pse_edge *ed = &p->edge[i];
    int64_t e = (int64_t)ed->a * px + (int64_t)ed->b * py + ed->c;
    if (e >= (INT64_C(1) << 29) || e <= -(INT64_C(1) << 29)) return 0;
    e0[i] = (int32_t)e, sx[i] = 16 * ed->a, sy[i] = 16 * ed->b;
  }
  for (int i = 0; i < n; i++) pse_lane_steps_make(&st[i], sx[i], sy[i]);
  for (int by = y0 & ~15; by < y1; by += 16)
    for (int bx = x0 & ~15; bx < x1; bx += 16) {
      int ylo = by > by4 ? by : by4, yhi = by + 16 < y1 ? by + 16 : y1;
      int xlo = bx > bx4 ? bx : bx4, xhi = bx + 16 < x1 ? bx + 16 : x1;
      for (int y = ylo; y < yhi; y += 4) {
        int32_t e[4]; /* each edge at lane 0 of block (x, y) */
        for (int i = 0; i < n; i++) e[i] = e0[i] + (xlo - bx4) * sx[i] + (y - by4) * sy[i];
        for (int x = xlo; x < xhi; x += 4) {
          uint16_t mask = pse_block_lanes(e, k, n, st);
          for (int i = 0; i < n; i++) e[i] += 4 * sx[i];
          if (mask) pse_emit(cov, tx + x, ty + y, mask);
        }
      }
    }
  return 1;
}

static GS_CLONE_INLINE int pse_walk_small(const pse_prim *p, int tx, int ty, int ox, int oy, int x0, int y0, int x1,
                                          int y1, pse_coverage *cov) {
  return p->nedges == 3 ? pse_walk_small_n(p, 3, tx, ty, ox, oy, x0, y0, x1, y1, cov)
                        : pse_walk_small_n(p, 4, tx, ty, ox, oy, x0, y0, x1, y1, cov);
}

/* Walks the tile whose lowest pixel is (tx, ty), tw × th pixels, testing
 * one sample per pixel, at offset (ox, oy) sixteenths from its low corner.
 * Each 4×4 block with coverage goes to cov in order, or, with `dense`, its
 * mask to dense[(y / 4)·(tw / 4) + x / 4] (tile-local x, y). */
static GS_CLONE_INLINE void pse_walk(const pse_prim *p, int tx, int ty, int tw, int th, int ox, int oy, pse_coverage *cov,
                     uint16_t *dense) {
  /* the covered rectangle, tile-local */
  int x0 = p->x0 - tx, y0 = p->y0 - ty, x1 = p->x1 - tx, y1 = p->y1 - ty;
  if (x0 < 0) x0 = 0;
  if (y0 < 0) y0 = 0;
  if (x1 > tw) x1 = tw;
  if (y1 > th) y1 = th;
  if (x0 >= x1 || y0 >= y1) return;
  if (!dense && !p->rect_clipped && x1 - x0 <= PSE_SMALL_SPAN && y1 - y0 <= PSE_SMALL_SPAN &&
      pse_walk_small(p, tx, ty, ox, oy, x0, y0, x1, y1, cov))
    return;

  pse_tile_edge te[4];
  int n = pse_tile_edges(p, 16 * (int64_t)tx + ox, 16 * (int64_t)ty + oy, te);
  if (n < 0) return;
  pse_lane_steps st[4];
  for (int i = 0; i < n; i++) pse_lane_steps_make(&st[i], te[i].sx, te[i].sy);
  /* A covered sample lies in the primitive, so its pixel in the rectangle
   * of pixels with a sample in the bounding box: only a rectangle the clip
   * window narrowed masks lanes the edges keep. */
  int rect = p->rect_clipped;

  for (int by = y0 & ~15; by < y1; by += 16) {
    for (int bx = x0 & ~15; bx < x1; bx += 16) {
      /* 16×16: keep the edges that cut it (k), with their value at its first sample (e) */
      int32_t e16[4];
      int k[4], np = 0, rejected = 0;
      for (int i = 0; i < n && !rejected; i++) {
        int32_t e = te[i].e + bx * te[i].sx + by * te[i].sy;
        int c = pse_classify(e, &te[i], 16);
        if (c < 0) rejected = 1;
        else if (c == 0) e16[np] = e, k[np++] = i;
      }
      if (rejected) continue;
      int ylo = by > (y0 & ~3) ? by : (y0 & ~3), yhi = by + 16 < y1 ? by + 16 : y1;
      int xlo = bx > (x0 & ~3) ? bx : (x0 & ~3), xhi = bx + 16 < x1 ? bx + 16 : x1;
      if (!np && !rect && !dense) { /* no edge cuts it: every lane of its blocks */
        for (int y = ylo; y < yhi; y += 4) pse_emit_full(cov, tx + xlo, tx + xhi, ty + y);
        continue;
      }
      /* per edge: its step from block to block in x, and the largest
         offset from lane 0 to a lane of a block */
      int32_t step[4];
      for (int i = 0; i < np; i++) step[i] = 4 * te[k[i]].sx;
      for (int y = ylo; y < yhi; y += 4) {
        int32_t e[4]; /* each edge at lane 0 of block (x, y) */
        for (int i = 0; i < np; i++) e[i] = e16[i] + (xlo - bx) * te[k[i]].sx + (y - by) * te[k[i]].sy;
        /* the lanes of block (x, y) inside the rectangle [x0,x1) × [y0,y1):
           its row's once a row, and its column's, which are every lane
           but at the rectangle's first and last columns */
        uint16_t row = rect ? pse_row_lanes[pse_span_bits(y, y0, y1)] : 0xFFFF;
        for (int x = xlo; x < xhi; x += 4) {
          /* an edge that covers none of the block gives no lanes, one that
             covers all of it every lane: no need to classify it first, but
             a block one edge misses (its largest value < 0) is left out
             at once */
          uint16_t mask = rect && (x < x0 || x + 4 > x1) ? row & pse_column_lanes[pse_span_bits(x, x0, x1)] : row;
          if (np) {
            mask &= pse_block_lanes(e, k, np, st);
            for (int i = 0; i < np; i++) e[i] += step[i];
          }
          if (!mask) continue;
          if (dense) dense[(y / 4) * (tw / 4) + x / 4] = mask;
          else pse_emit(cov, tx + x, ty + y, mask);
        }
      }
    }
  }
}

/* 4× multisampling: one walk per sample point, then the blocks in the
 * order of a single walk (16×16 blocks by rows, their 4×4 blocks by
 * rows), each with the lanes any sample covers and the per-sample bits. */
static GS_CLONE_INLINE void pse_walk_ms(const pse_prim *p, int tx, int ty, int tw, int th, pse_coverage *cov) {
  uint16_t dense[PSE_MS_SAMPLES][PSE_MAX_BLOCKS];
  memset(dense, 0, sizeof dense);
  for (int s = 0; s < PSE_MS_SAMPLES; s++) pse_walk(p, tx, ty, tw, th, pse_sample_x[s], pse_sample_y[s], NULL, dense[s]);
  for (int by = 0; by < th; by += 16)
    for (int bx = 0; bx < tw; bx += 16)
      for (int y = by; y < by + 16 && y < th; y += 4)
        for (int x = bx; x < bx + 16 && x < tw; x += 4) {
          int i = (y / 4) * (tw / 4) + x / 4;
          uint16_t any = 0;
          uint64_t bits = 0;
          for (int s = 0; s < PSE_MS_SAMPLES; s++) {
            any |= dense[s][i];
            for (int l = 0; l < 16; l++) bits |= (uint64_t)(dense[s][i] >> l & 1u) << (4 * l + s);
          }
          if (!any) continue;
          pse_emit(cov, tx + x, ty + y, any);
          cov->block[cov->count - 1].samples = bits;
        }
}

GS_CLONES int pse_rasterize_tile(const pse_prim *p, int tile_col, int tile_row, pse_coverage *cov) {
  assert(tile_col >= 0 && tile_col < 1024 && tile_row >= 0 && tile_row < 1024);
  assert(p->tile_w > 0 && p->tile_w <= PSE_TILE_SIZE && p->tile_h > 0 && p->tile_h <= PSE_TILE_SIZE);
  cov->count = 0;
  int tw = p->tile_w, th = p->tile_h, tx = tile_col * tw, ty = tile_row * th;
  if (p->samples == PSE_MS_SAMPLES) pse_walk_ms(p, tx, ty, tw, th, cov);
  else pse_walk(p, tx, ty, tw, th, PSE_CENTRE, PSE_CENTRE, cov, NULL);
  return cov->count;
}
