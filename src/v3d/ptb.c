/* ptb.c — the primitive tile binner's pipeline: for each primitive of a
 * draw, fetch its shaded coordinates, clip it if clipping is enabled and it
 * crosses a plane (ptb_clip.c), cull it by facing, and append it to the
 * lists of the tiles it covers (ptb_bin.c). Also the state defaults, the
 * VPM shaded-coordinate decoder and face culling (RG §7,
 * §3.1-3.3, §10 step 4). docs/binning.md explains the choices.
 */
#include <math.h>
#include <string.h>
#include "v3d/ptb.h"
#include "v3d/trace.h"

const char *ptb_result_string(ptb_result r) {
  switch (r) {
  case PTB_OK: return "ok";
  case PTB_ERR_MODE: return "unknown primitive mode or index type";
  case PTB_ERR_INDEX: return "vertex index outside the shaded vertices";
  case PTB_ERR_TILES: return "bad tile counts or tile array too small";
  case PTB_ERR_PRIMS_FULL: return "primitive array full";
  case PTB_ERR_CLIPS_FULL: return "clip-record array full";
  case PTB_ERR_REFS_FULL: return "tile-reference pool full";
  case PTB_ERR_NOMEM: return "out of memory";
  }
  return "unknown result";
}

void ptb_state_init(ptb_state *st) {
  memset(st, 0, sizeof *st);
  st->enable_forward = st->enable_reverse = true;
  st->point_size = 1.0f;
  st->line_width = 1.0f;
  st->clip_width = st->clip_height = UINT16_MAX;
  st->z_min = 0.0f, st->z_max = 1.0f;
  st->z_scale = 0.5f, st->z_offset = 0.5f;
}

static float float_of(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static int16_t s16_of(uint32_t bits) {
  bits &= 0xffffu;
  return (int16_t)(bits >= 0x8000u ? (int32_t)bits - 0x10000 : (int32_t)bits);
}

void ptb_vertex_unpack(ptb_vertex *v, const uint32_t *rows, bool has_point_size) {
  v->xc = float_of(rows[0]), v->yc = float_of(rows[1]);
  v->zc = float_of(rows[2]), v->wc = float_of(rows[3]);
  v->xs = s16_of(rows[4]), v->ys = s16_of(rows[4] >> 16);
  v->zs = float_of(rows[5]), v->inv_wc = float_of(rows[6]);
  v->point_size = has_point_size ? float_of(rows[7]) : 0.0f;
}

int64_t ptb_area(const int32_t x[3], const int32_t y[3]) {
  return ((int64_t)x[1] - x[0]) * ((int64_t)y[2] - y[0]) - ((int64_t)x[2] - x[0]) * ((int64_t)y[1] - y[0]);
}

bool ptb_forward_facing(const ptb_state *st, int64_t area) { return st->clockwise ? area < 0 : area > 0; }

bool ptb_culled(const ptb_state *st, int64_t area) {
  if (area == 0)
    return true;
  return ptb_forward_facing(st, area) ? !st->enable_forward : !st->enable_reverse;
}

/* ---- per-primitive work --------------------------------------------------- */

/* What every primitive of one draw shares. */
typedef struct bin_ctx {
  ptb_bins *b;
  const ptb_state *st;
  const ptb_vertices *vs;
  ptb_planes planes;
  ptb_window win;
  uint32_t tag;
  uint32_t k;                    /* the primitive's index in the draw, for the trace */
  const ptb_vertex *const *v;    /* its vertices, for the trace */
} bin_ctx;

/* Emits the GS_TRACE_PRIM event of primitive p (cx->st->trace is set):
 * outcome o, the polygon x, y (n points) when there is one. */
static void trace_prim(const bin_ctx *cx, const ptb_prim *p, gs_trace_outcome o, unsigned piece, const int32_t *x,
                       const int32_t *y, unsigned n) {
  const gs_trace *t = cx->st->trace;
  if (!gs_trace_wants_record(t, cx->st->trace_record)) return;
  gs_trace_event e = {.kind = GS_TRACE_PRIM, .record = cx->st->trace_record, .draw = cx->tag, .prim = cx->k,
                      .nverts = p->nverts, .outcome = o, .piece = piece, .ptb = cx->st, .v = cx->v, .px = x,
                      .py = y, .npoly = n, .window = &cx->win, .grid = &cx->b->grid, .lane = -1};
  for (unsigned i = 0; i < 3; i++) e.index[i] = p->index[i];
  gs_trace_emit(t, &e);
}

/* A primitive wholly outside a clip plane: traced, then dropped. */
static ptb_result trace_discarded(const bin_ctx *cx, const uint32_t *idx, unsigned n) {
  if (cx->st->trace) {
    ptb_prim p;
    memset(&p, 0, sizeof p);
    for (unsigned k = 0; k < n; k++) p.index[k] = idx[k];
    p.nverts = (uint8_t)n;
    trace_prim(cx, &p, GS_TRACE_CLIPPED_AWAY, 0, NULL, NULL, 0);
  }
  return PTB_OK;
}

static ptb_result fetch(const bin_ctx *cx, const uint32_t *idx, unsigned n, const ptb_vertex **v) {
  for (unsigned k = 0; k < n; k++) {
    if (idx[k] < cx->vs->first || idx[k] - cx->vs->first >= cx->vs->count)
      return PTB_ERR_INDEX;
    v[k] = &cx->vs->v[idx[k] - cx->vs->first];
  }
  return PTB_OK;
}

static void prim_init(ptb_prim *p, const bin_ctx *cx, const uint32_t *idx, unsigned n) {
  memset(p, 0, sizeof *p);
  for (unsigned k = 0; k < n; k++)
    p->index[k] = idx[k];
  p->tag = cx->tag;
  p->clip = PTB_NONE;
  p->nverts = (uint8_t)n;
}

/* Adds a primitive covering the polygon, counting one that touches no
 * tile. */
static ptb_result add(bin_ctx *cx, const ptb_prim *p, const ptb_clip_record *rec, const int32_t *x, const int32_t *y,
                      unsigned n) {
  uint32_t tiles;
  ptb_result r = ptb_bins_add(cx->b, p, rec, x, y, n, &cx->win, &tiles);
  if (r == PTB_OK && tiles == 0)
    cx->b->stats.no_tiles++;
  if (r == PTB_OK && cx->st->trace)
    trace_prim(cx, p, tiles ? GS_TRACE_BINNED : GS_TRACE_NO_SAMPLE, rec != NULL, x, y, n);
  return r;
}

static void swap_corners(int32_t *x, int32_t *y, unsigned i, unsigned j) {
  int32_t t = x[i];
  x[i] = x[j], x[j] = t;
  t = y[i], y[i] = y[j], y[j] = t;
}

/* Culls and bins an unclipped triangle whose absolute 12.4 corners are
 * x[], y[]. */
static ptb_result bin_screen_triangle(bin_ctx *cx, const ptb_prim *p, int32_t x[3], int32_t y[3]) {
  int64_t area = ptb_area(x, y);
  if (ptb_culled(cx->st, area)) {
    cx->b->stats.culled++;
    if (cx->st->trace)
      trace_prim(cx, p, area ? GS_TRACE_CULLED : GS_TRACE_ZERO_AREA, 0, x, y, 3);
    return PTB_OK;
  }
  if (area < 0) /* coverage wants counter-clockwise corners */
    swap_corners(x, y, 1, 2);
  return add(cx, p, NULL, x, y, 3);
}

/* The clip mask bit of record vertex `slot` made from polygon point q:
 * clear only when it is the original vertex of the same slot, which the
 * render pass can take from the re-shaded vertex itself. */
static uint8_t clip_bit(const ptb_clip_point *q, unsigned slot) { return q->orig == (int)slot ? 0 : (uint8_t)(1u << slot); }

/* One triangle of a clipped polygon's fan, ready to bin. */
typedef struct fan_piece {
  ptb_prim prim;
  ptb_clip_record rec;
  int32_t x[3], y[3]; /* counter-clockwise absolute 12.4 corners */
} fan_piece;

/* Fans the clipped polygon from its first point; every fan triangle is a
 * primitive of its own with a clip record, culled on its own rounded
 * corners exactly as the PSE will see them. The pieces are all stored or,
 * if the storage cannot take them all, none is: a draw resumed after a
 * flush must not repeat half a fan. */
static ptb_result bin_clipped_triangle(bin_ctx *cx, const uint32_t idx[3], const ptb_vertex *const v[3],
                                       const ptb_clip_poly *poly) {
  fan_piece piece[PTB_CLIP_MAX_VERTS - 2];
  unsigned pieces = 0, culled = 0;
  uint32_t refs = 0;
  if (cx->st->trace) {
    ptb_prim whole;
    prim_init(&whole, cx, idx, 3);
    trace_prim(cx, &whole, GS_TRACE_CLIPPED, 0, NULL, NULL, 0);
  }
  for (unsigned j = 1; j + 1 < poly->n; j++) {
    const ptb_clip_point *q[3] = {&poly->p[0], &poly->p[j], &poly->p[j + 1]};
    fan_piece *f = &piece[pieces];
    prim_init(&f->prim, cx, idx, 3);
    for (unsigned k = 0; k < 3; k++) {
      ptb_clip_vertex_make(&f->rec.v[k], cx->st, v, q[k]);
      f->prim.clip_mask |= clip_bit(q[k], k);
      f->x[k] = f->rec.v[k].xs + cx->st->viewport_x;
      f->y[k] = f->rec.v[k].ys + cx->st->viewport_y;
    }
    int64_t area = ptb_area(f->x, f->y);
    if (ptb_culled(cx->st, area)) {
      culled++;
      if (cx->st->trace)
        trace_prim(cx, &f->prim, area ? GS_TRACE_CULLED : GS_TRACE_ZERO_AREA, 1, f->x, f->y, 3);
      continue;
    }
    if (area < 0)
      swap_corners(f->x, f->y, 1, 2);
    uint32_t n = ptb_cover_polygon(f->x, f->y, 3, &cx->win, &cx->b->grid, NULL, NULL);
    if (n == 0)
      continue;
    refs += n;
    pieces++;
  }
  ptb_bins *b = cx->b;
  if (pieces > b->prim_cap - b->prim_count)
    return PTB_ERR_PRIMS_FULL;
  if (pieces > b->clip_cap - b->clip_count)
    return PTB_ERR_CLIPS_FULL;
  if (refs > b->ref_cap - b->ref_count)
    return PTB_ERR_REFS_FULL;
  b->stats.clipped++;
  b->stats.culled += culled;
  for (unsigned i = 0; i < pieces; i++) {
    ptb_result r = add(cx, &piece[i].prim, &piece[i].rec, piece[i].x, piece[i].y, 3);
    if (r != PTB_OK)
      return r; /* cannot happen: the space was checked */
  }
  if (pieces == 0)
    b->stats.no_tiles++;
  return PTB_OK;
}

static ptb_result bin_triangle(bin_ctx *cx, const uint32_t idx[3]) {
  const ptb_vertex *v[3];
  ptb_result r = fetch(cx, idx, 3, v);
  if (r != PTB_OK)
    return r;
  cx->v = v;
  if (cx->st->clip_enable) {
    ptb_clip_poly poly;
    switch (ptb_clip(&cx->planes, v, 3, &poly)) {
    case PTB_CLIP_OUTSIDE: cx->b->stats.discarded++; return trace_discarded(cx, idx, 3);
    case PTB_CLIP_CLIPPED: return bin_clipped_triangle(cx, idx, v, &poly);
    case PTB_CLIP_INSIDE: break;
    }
  }
  ptb_prim p;
  int32_t x[3], y[3];
  prim_init(&p, cx, idx, 3);
  for (unsigned k = 0; k < 3; k++) {
    x[k] = v[k]->xs + cx->st->viewport_x;
    y[k] = v[k]->ys + cx->st->viewport_y;
  }
  return bin_screen_triangle(cx, &p, x, y);
}

/* Half a point size or line width in 12.4 units, exactly as the PSE
 * computes it (pse.c, pse_half_size): floor(size * 8 + 0.5), at least 1,
 * after clamping the size to PTB_MAX_POINT_SIZE; 0 (draw nothing) for a
 * size <= 0 or NaN. */
static int32_t half_size_12_4(float size) {
  if (!(size > 0.0f))
    return 0;
  if (size > PTB_MAX_POINT_SIZE)
    size = PTB_MAX_POINT_SIZE;
  double h = floor((double)size * 8.0 + 0.5);
  return h < 1.0 ? 1 : (int32_t)h;
}

/* A point is the square of side `size` centred on its vertex, covering
 * samples in [X - h, X + h) on both axes by the fill rule. Points are never
 * clipped, only discarded when their vertex is outside a plane. */
static ptb_result bin_point(bin_ctx *cx, const uint32_t *idx) {
  const ptb_vertex *v[1];
  ptb_result r = fetch(cx, idx, 1, v);
  if (r != PTB_OK)
    return r;
  cx->v = v;
  if (cx->st->clip_enable) {
    ptb_clip_poly poly;
    if (ptb_clip(&cx->planes, v, 1, &poly) != PTB_CLIP_INSIDE) {
      cx->b->stats.discarded++;
      return trace_discarded(cx, idx, 1);
    }
  }
  int32_t h = half_size_12_4(cx->st->per_vertex_point_size ? v[0]->point_size : cx->st->point_size);
  if (h == 0) {
    cx->b->stats.culled++;
    if (cx->st->trace) {
      ptb_prim p;
      prim_init(&p, cx, idx, 1);
      trace_prim(cx, &p, GS_TRACE_ZERO_AREA, 0, NULL, NULL, 0);
    }
    return PTB_OK;
  }
  int32_t X = v[0]->xs + cx->st->viewport_x, Y = v[0]->ys + cx->st->viewport_y;
  int32_t x[4] = {X - h, X + h, X + h, X - h}, y[4] = {Y - h, Y - h, Y + h, Y + h};
  ptb_prim p;
  prim_init(&p, cx, idx, 1);
  return add(cx, &p, NULL, x, y, 4);
}

/* A line of width w between absolute 12.4 ends (x0, y0), (x1, y1) is the
 * parallelogram spanned by the segment and an offset of w/2 to each side
 * along the minor axis (vertical for x-major lines, horizontal otherwise),
 * as GL draws non-antialiased wide lines and as the PSE rasterises them.
 * Zero-length lines and widths <= 0 cover nothing. */
static ptb_result bin_line_screen(bin_ctx *cx, const ptb_prim *p, const ptb_clip_record *rec, const int32_t *ex,
                                  const int32_t *ey) {
  int32_t hw = half_size_12_4(cx->st->line_width);
  int64_t dx = (int64_t)ex[1] - ex[0], dy = (int64_t)ey[1] - ey[0];
  if ((dx == 0 && dy == 0) || hw == 0) {
    cx->b->stats.culled++;
    if (cx->st->trace)
      trace_prim(cx, p, GS_TRACE_ZERO_AREA, rec != NULL, ex, ey, 2);
    return PTB_OK;
  }
  bool x_major = (dx < 0 ? -dx : dx) >= (dy < 0 ? -dy : dy);
  int32_t ox = x_major ? 0 : hw, oy = x_major ? hw : 0;
  int32_t x[4] = {ex[0] - ox, ex[1] - ox, ex[1] + ox, ex[0] + ox};
  int32_t y[4] = {ey[0] - oy, ey[1] - oy, ey[1] + oy, ey[0] + oy};
  /* (p1 - p0) x (p3 - p0) = (dx, dy) x (2ox, 2oy): negative means the
   * corners run clockwise; reverse them. */
  if (dx * 2 * oy - dy * 2 * ox < 0)
    swap_corners(x, y, 1, 3);
  return add(cx, p, rec, x, y, 4);
}

static ptb_result bin_line(bin_ctx *cx, const uint32_t *idx) {
  const ptb_vertex *v[2];
  ptb_result r = fetch(cx, idx, 2, v);
  if (r != PTB_OK)
    return r;
  cx->v = v;
  ptb_prim p;
  int32_t x[2], y[2];
  prim_init(&p, cx, idx, 2);
  if (cx->st->clip_enable) {
    ptb_clip_poly poly;
    switch (ptb_clip(&cx->planes, v, 2, &poly)) {
    case PTB_CLIP_OUTSIDE: cx->b->stats.discarded++; return trace_discarded(cx, idx, 2);
    case PTB_CLIP_INSIDE: break;
    case PTB_CLIP_CLIPPED: {
      ptb_clip_record rec;
      memset(&rec, 0, sizeof rec);
      cx->b->stats.clipped++;
      for (unsigned k = 0; k < 2; k++) {
        ptb_clip_vertex_make(&rec.v[k], cx->st, v, &poly.p[k]);
        p.clip_mask |= clip_bit(&poly.p[k], k);
        x[k] = rec.v[k].xs + cx->st->viewport_x;
        y[k] = rec.v[k].ys + cx->st->viewport_y;
      }
      return bin_line_screen(cx, &p, &rec, x, y);
    }
    }
  }
  for (unsigned k = 0; k < 2; k++) {
    x[k] = v[k]->xs + cx->st->viewport_x;
    y[k] = v[k]->ys + cx->st->viewport_y;
  }
  return bin_line_screen(cx, &p, NULL, x, y);
}

ptb_result ptb_bin_draw(ptb_bins *b, const ptb_state *st, const ptb_vertices *vs, const ptb_draw *d,
                        uint32_t *done) {
  return ptb_bin_range(b, st, vs, d, 0, UINT32_MAX, done);
}

uint32_t ptb_split_min = 4096;

ptb_result ptb_bin_range(ptb_bins *b, const ptb_state *st, const ptb_vertices *vs, const ptb_draw *d, uint32_t k0,
                         uint32_t k1, uint32_t *done) {
  if (done)
    *done = k0;
  unsigned nverts = ptb_mode_vertices(d->mode);
  if (nverts == 0 || (d->index_type != PTB_INDEX_NONE && d->index_type != PTB_INDEX_8 &&
                      d->index_type != PTB_INDEX_16))
    return PTB_ERR_MODE;
  if (d->index_type != PTB_INDEX_NONE && d->indices == NULL && d->count > 0)
    return PTB_ERR_MODE;
  bin_ctx cx = {.b = b, .st = st, .vs = vs, .tag = d->tag};
  ptb_planes_init(&cx.planes, st);
  ptb_window_make(&cx.win, st, &b->grid);
  uint32_t total = ptb_prim_count(d->mode, d->count);
  total = total < k1 ? total : k1;
  for (uint32_t k = k0; k < total; k++) {
    uint32_t idx[3];
    ptb_assemble(d, k, idx);
    cx.k = k;
    ptb_result r;
    switch (nverts) {
    case 1: r = bin_point(&cx, idx); break;
    case 2: r = bin_line(&cx, idx); break;
    default: r = bin_triangle(&cx, idx); break;
    }
    if (r != PTB_OK)
      return r;
    b->stats.assembled++;
    if (done)
      *done = k + 1;
  }
  return PTB_OK;
}
