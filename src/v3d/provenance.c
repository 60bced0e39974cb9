/* provenance.c — one pixel's provenance from the trace's events
 * (provenance.h; the rules are in docs/provenance.md). The binning pass
 * says what became of every primitive; those that cover the pixel's
 * position become candidates, and those binned into the pixel's tile make
 * its tile list, whose n-th entry is the n-th primitive the rendering pass
 * draws in that tile. A candidate that made no fragment is listed with its
 * reason when the frame is over. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isa/isa.h"
#include "v3d/provenance.h"
#include "v3d/pse.h"
#include "v3d/ptb.h"

typedef struct prov_draw {
  uint32_t draw;
  gs_addr packet, record;
  unsigned packet_id;
} prov_draw;

/* A primitive that covers the pixel's position: reason is what happened to
 * it unless a fragment of it reaches the pixel (-1: none expected). */
typedef struct prov_candidate {
  gs_prov_prim src;
  int reason;
} prov_candidate;

const char *gs_prov_reason_name(gs_prov_reason r) {
  static const char *const names[GS_MISS_REASONS] = {"clipped", "culled", "outside_clip_window", "not_covered",
                                                     "zero_area"};
  return (unsigned)r < GS_MISS_REASONS ? names[r] : "?";
}

void gs_prov_init(gs_prov *p, int32_t x, int32_t y) {
  memset(p, 0, sizeof *p);
  p->x = x, p->y = y;
}

void gs_prov_free(gs_prov *p) {
  free(p->fragments);
  free(p->missed);
  free(p->draws);
  free(p->entries);
  free(p->cands);
  memset(p, 0, sizeof *p);
}

/* Room for one more element in *a (n used of *cap), or *nomem set. */
static int grow(int *nomem, void **a, size_t n, size_t *cap, size_t size) {
  if (n < *cap) return 1;
  size_t c = *cap ? *cap * 2 : 16;
  void *q = realloc(*a, c * size);
  if (!q) return *nomem = 1, 0;
  *a = q, *cap = c;
  return 1;
}

static int room(gs_prov *p, void **a, unsigned n, unsigned *cap, size_t size) {
  size_t c = *cap;
  int ok = grow(&p->nomem, a, n, &c, size);
  *cap = (unsigned)c;
  return ok;
}

/* ---- geometry ------------------------------------------------------------------ */

/* What the binning pass did with a primitive: as much as deciding whether
 * it covers a pixel needs (a GS_TRACE_PRIM event's, or a copy gs_provall
 * keeps). */
typedef struct prov_primrec {
  gs_prov_prim src;
  gs_trace_outcome outcome;
  unsigned samples;            /* the grid's sample points per pixel */
  ptb_window window;
  const int32_t *px, *py;      /* BINNED, NO_SAMPLE, CULLED, ZERO_AREA: the polygon (12.4) */
  unsigned npoly;
  size_t poly;                 /* gs_provall: px's offset in its pool */
  /* CLIPPED, CLIPPED_AWAY triangles: the ray through a pixel's centre */
  double view_x, view_y, scale_x, scale_y;
  float c[3][4];               /* the vertices' Xc, Yc, Zc, Wc */
  ptb_planes planes;           /* CLIPPED */
} prov_primrec;

/* The pixel's sample points in absolute 12.4: n of them in sx, sy. */
static unsigned samples_of(int32_t x, int32_t y, unsigned samples, int64_t sx[4], int64_t sy[4]) {
  const uint8_t *ox, *oy;
  unsigned n = pse_sample_points(samples == 4 ? 4 : 1, &ox, &oy);
  for (unsigned s = 0; s < n; s++) sx[s] = 16 * (int64_t)x + ox[s], sy[s] = 16 * (int64_t)y + oy[s];
  return n;
}

/* Whether the closed polygon r->px, r->py (either orientation) holds a
 * sample of pixel (x, y): on its edges counts, the fill rule aside. */
static int closed_covers(const prov_primrec *r, int32_t px, int32_t py) {
  const int32_t *x = r->px, *y = r->py;
  unsigned n = r->npoly;
  int64_t area = 0, sx[4], sy[4];
  if (n < 3) return 0;
  for (unsigned i = 0; i < n; i++) area += (int64_t)x[i] * y[(i + 1) % n] - (int64_t)x[(i + 1) % n] * y[i];
  if (area == 0) return 0;
  unsigned ns = samples_of(px, py, r->samples, sx, sy);
  for (unsigned s = 0; s < ns; s++) {
    int in = 1;
    for (unsigned i = 0; i < n && in; i++) {
      unsigned j = (i + 1) % n;
      int64_t e = ((int64_t)x[j] - x[i]) * (sy[s] - y[i]) - ((int64_t)y[j] - y[i]) * (sx[s] - x[i]);
      if (area < 0) e = -e;
      in = e >= 0;
    }
    if (in) return 1;
  }
  return 0;
}

/* Whether the segment a-b (12.4) meets pixel (x, y)'s closed square. */
static int segment_meets_pixel(int32_t x, int32_t y, double ax, double ay, double bx, double by) {
  double lo[2] = {16.0 * x, 16.0 * y}, hi[2] = {lo[0] + 16.0, lo[1] + 16.0};
  double a[2] = {ax, ay}, d[2] = {bx - ax, by - ay}, t0 = 0.0, t1 = 1.0;
  for (int k = 0; k < 2; k++) {
    if (d[k] == 0.0) {
      if (a[k] < lo[k] || a[k] > hi[k]) return 0;
      continue;
    }
    double u = (lo[k] - a[k]) / d[k], v = (hi[k] - a[k]) / d[k];
    if (u > v) { double w = u; u = v; v = w; }
    if (u > t0) t0 = u;
    if (v < t1) t1 = v;
  }
  return t0 <= t1;
}

/* Where the ray through pixel (x, y)'s centre meets the triangle's plane in
 * clip space, inside the triangle and in front of the eye: 1 and hit, or 0.
 * The ray is every clip-space point whose Xs, Ys (Xc/Wc times the Clipper XY
 * Scaling, plus the viewport centre) is the pixel's centre. */
static int ray_hit(const prov_primrec *r, int32_t x, int32_t y, double hit[4]) {
  double rx = 16.0 * x + 8.0 - r->view_x, ry = 16.0 * y + 8.0 - r->view_y, fx[3], fy[3];
  for (int i = 0; i < 3; i++) {
    fx[i] = (double)r->c[i][0] * r->scale_x - rx * r->c[i][3];
    fy[i] = (double)r->c[i][1] * r->scale_y - ry * r->c[i][3];
  }
  double det = (fx[0] - fx[2]) * (fy[1] - fy[2]) - (fx[1] - fx[2]) * (fy[0] - fy[2]);
  if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
  double a = (-fx[2] * (fy[1] - fy[2]) + fy[2] * (fx[1] - fx[2])) / det;
  double b = (-(fx[0] - fx[2]) * fy[2] + (fy[0] - fy[2]) * fx[2]) / det;
  double w[3] = {a, b, 1.0 - a - b};
  for (int i = 0; i < 3; i++)
    if (!(w[i] >= 0.0)) return 0;
  for (int k = 0; k < 4; k++) {
    double s = 0.0;
    for (int i = 0; i < 3; i++) s += w[i] * r->c[i][k];
    hit[k] = s;
  }
  return hit[3] > 0.0;
}

/* The record of event e (GS_TRACE_PRIM) for primitive src; its polygon is
 * the event's. */
static void primrec_of(prov_primrec *r, const gs_trace_event *e, const gs_prov_prim *src) {
  memset(r, 0, sizeof *r);
  r->src = *src;
  r->outcome = e->outcome;
  r->samples = e->grid ? e->grid->samples : 1;
  if (e->window) r->window = *e->window;
  r->px = e->px, r->py = e->py, r->npoly = e->px && e->py ? e->npoly : 0;
  if ((e->outcome == GS_TRACE_CLIPPED || e->outcome == GS_TRACE_CLIPPED_AWAY) && e->nverts == 3 && e->ptb && e->v) {
    const ptb_state *st = e->ptb;
    r->view_x = st->viewport_x, r->view_y = st->viewport_y, r->scale_x = st->xy_scale_x, r->scale_y = st->xy_scale_y;
    for (int i = 0; i < 3; i++)
      r->c[i][0] = e->v[i]->xc, r->c[i][1] = e->v[i]->yc, r->c[i][2] = e->v[i]->zc, r->c[i][3] = e->v[i]->wc;
    if (e->outcome == GS_TRACE_CLIPPED) ptb_planes_init(&r->planes, st);
  } else if (e->outcome == GS_TRACE_CLIPPED || e->outcome == GS_TRACE_CLIPPED_AWAY) {
    r->src.nverts = e->nverts == 3 ? 0 : e->nverts; /* no geometry: never a candidate */
  }
}

/* Why primitive r covers pixel (x, y) without a fragment there, if it made
 * none (gs_prov_reason), or -1 when it does not cover the pixel's position. */
static int primrec_reason(const prov_primrec *r, int32_t x, int32_t y) {
  switch (r->outcome) {
  case GS_TRACE_BINNED:
  case GS_TRACE_NO_SAMPLE: {
    if (!closed_covers(r, x, y)) return -1;
    const ptb_window *w = &r->window;
    int inside = x >= w->x0 && x <= w->x1 && y >= w->y0 && y <= w->y1;
    return inside ? GS_MISS_NOT_COVERED : GS_MISS_OUTSIDE_CLIP_WINDOW;
  }
  case GS_TRACE_CULLED: return closed_covers(r, x, y) ? GS_MISS_CULLED : -1;
  case GS_TRACE_ZERO_AREA:
    for (unsigned i = 0; i + 1 < r->npoly + (r->npoly > 2); i++) {
      unsigned j = (i + 1) % r->npoly;
      if (segment_meets_pixel(x, y, r->px[i], r->py[i], r->px[j], r->py[j])) return GS_MISS_ZERO_AREA;
    }
    return -1;
  case GS_TRACE_CLIPPED_AWAY:
  case GS_TRACE_CLIPPED: {
    double hit[4];
    if (r->src.nverts != 3 || !ray_hit(r, x, y, hit)) return -1;
    if (r->outcome == GS_TRACE_CLIPPED && !ptb_outcode(&r->planes, hit))
      return -1; /* the part over the pixel is kept: its fan pieces say */
    return GS_MISS_CLIPPED;
  }
  default: return -1;
  }
}

typedef struct tile_find {
  uint32_t want;
  int found;
} tile_find;

static void find_tile(void *ctx, uint32_t tile) {
  tile_find *f = ctx;
  if (tile == f->want) f->found = 1;
}

/* ---- events ---------------------------------------------------------------------- */

static void candidate(gs_prov *p, const gs_prov_prim *src, int reason) {
  if (!room(p, (void **)&p->cands, p->ncands, &p->cap_cands, sizeof *p->cands)) return;
  p->cands[p->ncands++] = (prov_candidate){*src, reason};
}

/* The primitive of event e (GS_TRACE_PRIM), its draw's packet found among
 * the n draws seen so far. */
static gs_prov_prim prim_of(const prov_draw *draws, unsigned n, const gs_trace_event *e) {
  gs_prov_prim s = {1, e->record, 0, 0, e->draw, e->prim, {e->index[0], e->index[1], e->index[2]}, e->nverts};
  for (unsigned i = n; i-- > 0;)
    if (draws[i].draw == e->draw) {
      s.packet = draws[i].packet, s.packet_id = draws[i].packet_id;
      break;
    }
  return s;
}

static void on_prim(gs_prov *p, const gs_trace_event *e) {
  gs_prov_prim src = prim_of(p->draws, p->ndraws, e);
  const ptb_grid *g = e->grid;
  if (e->outcome == GS_TRACE_BINNED || e->outcome == GS_TRACE_NO_SAMPLE) {
    if (!p->tile_known) {
      p->tile_known = 1;
      p->tile_x = (unsigned)p->x / g->tile_w, p->tile_y = (unsigned)p->y / g->tile_h;
    }
    tile_find f = {p->tile_y * g->tiles_x + p->tile_x, 0};
    if (e->outcome == GS_TRACE_BINNED) ptb_cover_polygon(e->px, e->py, e->npoly, e->window, g, find_tile, &f);
    if (f.found && room(p, (void **)&p->entries, p->nentries, &p->cap_entries, sizeof *p->entries))
      p->entries[p->nentries++] = src;
  }
  prov_primrec r;
  primrec_of(&r, e, &src);
  int reason = primrec_reason(&r, p->x, p->y);
  if (reason >= 0) candidate(p, &src, reason);
}

/* Fragment event e of the primitive tp (its GS_TRACE_TILE_PRIM) as f, its
 * source found in its tile's list entries[0..n) (the n-th primitive a
 * tile draws is the n-th binned into it). */
static void fragment_of(gs_prov_fragment *f, const gs_prov_prim *entries, unsigned n, const gs_trace_event *tp,
                        const gs_trace_event *e) {
  memset(f, 0, sizeof *f);
  f->src.record = e->record;
  if (e->prim < n && entries[e->prim].record == e->record &&
      memcmp(entries[e->prim].index, tp->index, sizeof tp->index) == 0)
    f->src = entries[e->prim];
  else
    f->src.known = 0, f->src.nverts = tp->nverts, memcpy(f->src.index, tp->index, sizeof f->src.index);
  f->tile_packet = tp->addr, f->tile_packet_id = tp->packet;
  f->tile_x = e->tile_x, f->tile_y = e->tile_y;
  f->clipped = tp->clipped;
  f->isa = e->fs_isa ? e->fs_isa->name : NULL;
  f->vertex_isa = tp->vs_isa ? tp->vs_isa->name : NULL;
  f->program = e->fs_code, f->uniforms = e->fs_uniforms, f->vertex_program = tp->vs_code;
  f->lane = e->lane, f->bx = e->bx, f->by = e->by;
  f->fate = e->fate, f->early = e->early, f->read_tile = e->read_tile;
  f->output[0] = e->output[0], f->output[1] = e->output[1], f->noutput = e->noutput;
  f->loaded = e->loaded, f->zs_before = e->zs_before, f->z = e->frag_z, f->samples = e->samples;
  f->z_tested = e->z_tested;
}

static void on_fragment(gs_prov *p, const gs_trace_event *e) {
  if (e->lane < 0 || !room(p, (void **)&p->fragments, p->nfragments, &p->cap_fragments, sizeof *p->fragments))
    return;
  fragment_of(&p->fragments[p->nfragments++], p->entries, p->nentries, &p->last_tile_prim, e);
}

void gs_prov_event(void *ctx, const gs_trace_event *e) {
  gs_prov *p = ctx;
  switch (e->kind) {
  case GS_TRACE_DRAW:
    if (room(p, (void **)&p->draws, p->ndraws, &p->cap_draws, sizeof *p->draws))
      p->draws[p->ndraws++] = (prov_draw){e->draw, e->addr, e->record, e->packet};
    return;
  case GS_TRACE_PRIM: on_prim(p, e); return;
  case GS_TRACE_TILE_PRIM: p->last_tile_prim = *e; return;
  case GS_TRACE_FRAGMENT: on_fragment(p, e); return;
  default: return;
  }
}

static int same_prim(const gs_prov_prim *a, const gs_prov_prim *b) {
  return a->known && b->known && a->draw == b->draw && a->prim == b->prim;
}

void gs_prov_finish(gs_prov *p) {
  for (unsigned i = 0; i < p->ncands; i++) {
    const prov_candidate *c = &p->cands[i];
    int made = 0, listed = 0;
    for (unsigned k = 0; k < p->nfragments && !made; k++) made = same_prim(&p->fragments[k].src, &c->src);
    for (unsigned k = 0; k < p->nmissed && !listed; k++) listed = same_prim(&p->missed[k].src, &c->src);
    if (made || listed || c->reason < 0) continue;
    if (!room(p, (void **)&p->missed, p->nmissed, &p->cap_missed, sizeof *p->missed)) return;
    p->missed[p->nmissed++] = (gs_prov_missed){c->src, (gs_prov_reason)c->reason};
  }
}

/* ---- every pixel from one run ------------------------------------------------------ */

/* A tile's share (per 32x16 pixels, the smallest tile; the grid's tiles map
 * onto these slots by their coordinates): its list, from the binning pass;
 * its contexts and fragments, from the one thread rendering it. */
typedef struct provall_tile {
  gs_prov_prim *entries;
  size_t nentries, cap_entries;
  gs_trace_event last_tile_prim;
  int have_ctx;                /* ctx[nctx - 1] is the current primitive's (reset by TILE_PRIM) */
  gs_prov_fragment *ctx;
  size_t nctx, cap_ctx;
  gs_provall_frag *frags;
  size_t nfrags, cap_frags;
  int nomem;
  uint64_t outside;
} provall_tile;

#define PROVALL_TILE_W 32
#define PROVALL_TILE_H 16
#define PROVALL_CELL 32

int gs_provall_init(gs_provall *a, uint32_t width, uint32_t height) {
  memset(a, 0, sizeof *a);
  a->width = width, a->height = height;
  a->tiles_x = (width + PROVALL_TILE_W - 1) / PROVALL_TILE_W;
  a->tiles_y = (height + PROVALL_TILE_H - 1) / PROVALL_TILE_H;
  a->tiles = calloc((size_t)a->tiles_x * a->tiles_y + 1, sizeof *a->tiles);
  if (!a->tiles) return a->nomem = 1, -1;
  return 0;
}

/* Tile (tx, ty)'s slot, or NULL when the frame has no such tile. */
static provall_tile *tile_slot(const gs_provall *a, unsigned tx, unsigned ty) {
  return tx < a->tiles_x && ty < a->tiles_y ? &a->tiles[(size_t)ty * a->tiles_x + tx] : NULL;
}

typedef struct provall_cover {
  gs_provall *a;
  const ptb_grid *g;
  const gs_prov_prim *src;
} provall_cover;

static void provall_list(void *ctx, uint32_t tile) {
  provall_cover *c = ctx;
  provall_tile *t = tile_slot(c->a, tile % c->g->tiles_x, tile / c->g->tiles_x);
  if (!t) return;
  if (grow(&c->a->nomem, (void **)&t->entries, t->nentries, &t->cap_entries, sizeof *t->entries))
    t->entries[t->nentries++] = *c->src;
}

static void provall_prim(gs_provall *a, const gs_trace_event *e) {
  gs_prov_prim src = prim_of(a->draws, a->ndraws, e);
  if (e->outcome == GS_TRACE_BINNED) {
    provall_cover c = {a, e->grid, &src};
    ptb_cover_polygon(e->px, e->py, e->npoly, e->window, e->grid, provall_list, &c);
  }
  if (e->outcome == GS_TRACE_CLIPPED && e->nverts != 3) return; /* never a candidate */
  size_t cap = a->cap_recs;
  if (!grow(&a->nomem, (void **)&a->recs, a->nrecs, &cap, sizeof *a->recs)) return;
  a->cap_recs = (unsigned)cap;
  prov_primrec *r = &a->recs[a->nrecs];
  primrec_of(r, e, &src);
  if (r->npoly) { /* the polygon into the pool (the event's is gone after the call) */
    while (a->npoly + 2 * r->npoly > a->cap_poly)
      if (!grow(&a->nomem, (void **)&a->poly, a->cap_poly, &a->cap_poly, sizeof *a->poly)) return;
    r->poly = a->npoly;
    memcpy(a->poly + a->npoly, r->px, r->npoly * sizeof *a->poly);
    memcpy(a->poly + a->npoly + r->npoly, r->py, r->npoly * sizeof *a->poly);
    a->npoly += 2 * r->npoly;
  }
  r->px = r->py = NULL;
  a->nrecs++;
}

/* A fragment event: its context (the tile's current one, or a new one when
 * the primitive or its programs changed), then what is its own. */
static void provall_fragment(gs_provall *a, const gs_trace_event *e) {
  provall_tile *t = tile_slot(a, e->tile_x, e->tile_y);
  if (!t || e->lane < 0 || !e->x || !e->y) return;
  uint32_t x = e->x[e->lane], y = e->y[e->lane];
  if (x >= a->width || y >= a->height) {
    t->outside++;
    return;
  }
  gs_prov_fragment f;
  fragment_of(&f, t->entries, (unsigned)t->nentries, &t->last_tile_prim, e);
  gs_prov_fragment *c = t->have_ctx ? &t->ctx[t->nctx - 1] : NULL;
  if (!c || c->src.record != f.src.record || c->program != f.program || c->uniforms != f.uniforms ||
      c->isa != f.isa) {
    if (!grow(&t->nomem, (void **)&t->ctx, t->nctx, &t->cap_ctx, sizeof *t->ctx)) return;
    c = &t->ctx[t->nctx++];
    *c = f;
    c->lane = 0, c->bx = c->by = 0, c->fate = 0, c->early = c->read_tile = 0;
    c->output[0] = c->output[1] = 0, c->noutput = 0;
    c->loaded = c->zs_before = c->z = c->samples = 0, c->z_tested = 0;
    t->have_ctx = 1;
  }
  if (!grow(&t->nomem, (void **)&t->frags, t->nfrags, &t->cap_frags, sizeof *t->frags)) return;
  gs_provall_frag *k = &t->frags[t->nfrags++];
  k->pixel = y * a->width + x;
  k->context = (uint32_t)(t->nctx - 1);
  k->z = f.z, k->zs_before = f.zs_before, k->loaded = f.loaded, k->samples = f.samples;
  k->output[0] = f.output[0], k->output[1] = f.output[1];
  k->lane = (uint8_t)f.lane, k->fate = (uint8_t)f.fate, k->noutput = (uint8_t)f.noutput;
  k->flags = (uint8_t)((f.early ? 1 : 0) | (f.read_tile ? 2 : 0) | (f.z_tested ? 4 : 0));
}

void gs_provall_event(void *ctx, const gs_trace_event *e) {
  gs_provall *a = ctx;
  switch (e->kind) {
  case GS_TRACE_DRAW: {
    size_t cap = a->cap_draws;
    if (grow(&a->nomem, (void **)&a->draws, a->ndraws, &cap, sizeof *a->draws))
      a->draws[a->ndraws++] = (prov_draw){e->draw, e->addr, e->record, e->packet};
    a->cap_draws = (unsigned)cap;
    return;
  }
  case GS_TRACE_PRIM: provall_prim(a, e); return;
  case GS_TRACE_TILE_PRIM: {
    provall_tile *t = tile_slot(a, e->tile_x, e->tile_y);
    if (t) t->last_tile_prim = *e, t->have_ctx = 0;
    return;
  }
  case GS_TRACE_FRAGMENT: provall_fragment(a, e); return;
  default: return;
  }
}

/* The cells (PROVALL_CELL pixels square) of the box of pixels primitive r
 * can cover: cx0..cx1, cy0..cy1 (clipped ones: the whole frame). */
static void primrec_cells(const gs_provall *a, const prov_primrec *r, const int32_t *px, const int32_t *py,
                          unsigned c[4]) {
  int64_t lo[2] = {0, 0}, hi[2] = {(int64_t)a->width - 1, (int64_t)a->height - 1};
  if (r->outcome != GS_TRACE_CLIPPED && r->outcome != GS_TRACE_CLIPPED_AWAY && r->npoly) {
    int64_t mn[2] = {INT64_MAX, INT64_MAX}, mx[2] = {INT64_MIN, INT64_MIN};
    for (unsigned i = 0; i < r->npoly; i++) {
      int64_t v[2] = {px[i], py[i]};
      for (int k = 0; k < 2; k++) {
        if (v[k] < mn[k]) mn[k] = v[k];
        if (v[k] > mx[k]) mx[k] = v[k];
      }
    }
    for (int k = 0; k < 2; k++) { /* a pixel's square (16 units) or sample meets the box: one pixel of margin */
      int64_t l = (mn[k] >> 4) - 1, h = (mx[k] >> 4) + 1;
      if (l > lo[k]) lo[k] = l;
      if (h < hi[k]) hi[k] = h;
    }
  }
  if (lo[0] > hi[0] || lo[1] > hi[1]) {
    c[0] = 1, c[1] = 0, c[2] = 1, c[3] = 0; /* none */
    return;
  }
  c[0] = (unsigned)(lo[0] / PROVALL_CELL), c[1] = (unsigned)(hi[0] / PROVALL_CELL);
  c[2] = (unsigned)(lo[1] / PROVALL_CELL), c[3] = (unsigned)(hi[1] / PROVALL_CELL);
}

int gs_provall_finish(gs_provall *a) {
  if (a->nomem) return -1;
  size_t ntiles = (size_t)a->tiles_x * a->tiles_y, npix = (size_t)a->width * a->height;
  /* the contexts, tile after tile */
  size_t nctx = 0, nfrags = 0;
  for (size_t i = 0; i < ntiles; i++) {
    nctx += a->tiles[i].nctx, nfrags += a->tiles[i].nfrags;
    if (a->tiles[i].nomem) a->nomem = 1;
    a->outside += a->tiles[i].outside;
  }
  if (a->nomem || nfrags > UINT32_MAX || nctx > UINT32_MAX) return a->nomem = 1, -1;
  a->ctx = malloc((nctx ? nctx : 1) * sizeof *a->ctx);
  a->frags = malloc((nfrags ? nfrags : 1) * sizeof *a->frags);
  a->start = calloc(npix + 1, sizeof *a->start);
  if (!a->ctx || !a->frags || !a->start) return a->nomem = 1, -1;
  /* the fragments by pixel: counts, then each pixel's in order (a pixel's
   * are all in its tile, which one thread rendered in order) */
  for (size_t i = 0; i < ntiles; i++)
    for (size_t k = 0; k < a->tiles[i].nfrags; k++) a->start[a->tiles[i].frags[k].pixel + 1]++;
  for (size_t p = 0; p < npix; p++) a->start[p + 1] += a->start[p];
  uint32_t *next = malloc((npix ? npix : 1) * sizeof *next);
  if (!next) return a->nomem = 1, -1;
  memcpy(next, a->start, npix * sizeof *next);
  for (size_t i = 0; i < ntiles; i++) {
    provall_tile *t = &a->tiles[i];
    uint32_t base = (uint32_t)a->nctx;
    for (size_t k = 0; k < t->nctx; k++) a->ctx[a->nctx++] = t->ctx[k];
    for (size_t k = 0; k < t->nfrags; k++) {
      gs_provall_frag f = t->frags[k];
      f.context += base;
      a->frags[next[f.pixel]++] = f;
    }
    free(t->frags), free(t->ctx);
    t->frags = NULL, t->ctx = NULL, t->nfrags = t->cap_frags = t->nctx = t->cap_ctx = 0;
  }
  free(next);
  a->nfrags = nfrags;
  /* the primitives by cell */
  a->cells_x = (a->width + PROVALL_CELL - 1) / PROVALL_CELL;
  a->cells_y = (a->height + PROVALL_CELL - 1) / PROVALL_CELL;
  size_t ncells = (size_t)a->cells_x * a->cells_y, nrefs = 0;
  a->cell_start = calloc(ncells + 1, sizeof *a->cell_start);
  if (!a->cell_start) return a->nomem = 1, -1;
  for (int pass = 0; pass < 2; pass++) {
    for (unsigned i = 0; i < a->nrecs; i++) {
      prov_primrec *r = &a->recs[i];
      unsigned c[4];
      const int32_t *px = r->npoly ? a->poly + r->poly : NULL;
      primrec_cells(a, r, px, px ? px + r->npoly : NULL, c);
      for (unsigned cy = c[2]; cy <= c[3]; cy++)
        for (unsigned cx = c[0]; cx <= c[1]; cx++) {
          size_t cell = (size_t)cy * a->cells_x + cx;
          if (pass == 0) a->cell_start[cell + 1]++, nrefs++;
          else a->cell_recs[next[cell]++] = i;
        }
    }
    if (pass == 0) {
      if (nrefs > UINT32_MAX) return a->nomem = 1, -1;
      for (size_t c = 0; c < ncells; c++) a->cell_start[c + 1] += a->cell_start[c];
      a->cell_recs = malloc((nrefs ? nrefs : 1) * sizeof *a->cell_recs);
      next = malloc((ncells ? ncells : 1) * sizeof *next);
      if (!a->cell_recs || !next) return free(next), a->nomem = 1, -1;
      memcpy(next, a->cell_start, ncells * sizeof *next);
    }
  }
  free(next);
  return 0;
}

int gs_provall_pixel(const gs_provall *a, int32_t x, int32_t y, gs_prov *p) {
  gs_prov_init(p, x, y);
  if (x < 0 || y < 0 || (uint32_t)x >= a->width || (uint32_t)y >= a->height || !a->start) return 0;
  size_t pix = (size_t)y * a->width + (size_t)x;
  for (uint32_t i = a->start[pix]; i < a->start[pix + 1]; i++) {
    const gs_provall_frag *k = &a->frags[i];
    if (!room(p, (void **)&p->fragments, p->nfragments, &p->cap_fragments, sizeof *p->fragments)) return -1;
    gs_prov_fragment *f = &p->fragments[p->nfragments++];
    *f = a->ctx[k->context];
    f->context = k->context;
    f->lane = k->lane, f->bx = (uint32_t)x - PSE_LANE_DX(k->lane), f->by = (uint32_t)y - PSE_LANE_DY(k->lane);
    f->fate = (gs_trace_fate)k->fate, f->early = k->flags & 1, f->read_tile = k->flags >> 1 & 1;
    f->z_tested = k->flags >> 2 & 1;
    f->output[0] = k->output[0], f->output[1] = k->output[1], f->noutput = k->noutput;
    f->loaded = k->loaded, f->zs_before = k->zs_before, f->z = k->z, f->samples = k->samples;
  }
  size_t cell = (size_t)((uint32_t)y / PROVALL_CELL) * a->cells_x + (uint32_t)x / PROVALL_CELL;
  for (uint32_t i = a->cell_start[cell]; i < a->cell_start[cell + 1]; i++) {
    prov_primrec r = a->recs[a->cell_recs[i]];
    if (r.npoly) r.px = a->poly + r.poly, r.py = a->poly + r.poly + r.npoly;
    int reason = primrec_reason(&r, x, y);
    if (reason >= 0) candidate(p, &r.src, reason);
  }
  gs_prov_finish(p);
  return p->nomem ? -1 : 0;
}

size_t gs_provall_bytes(const gs_provall *a) {
  size_t n = sizeof *a + (size_t)a->tiles_x * a->tiles_y * sizeof *a->tiles;
  for (size_t i = 0; i < (size_t)a->tiles_x * a->tiles_y; i++)
    n += a->tiles[i].cap_entries * sizeof(gs_prov_prim) + a->tiles[i].cap_ctx * sizeof(gs_prov_fragment) +
         a->tiles[i].cap_frags * sizeof(gs_provall_frag);
  n += a->nctx * sizeof *a->ctx + a->nfrags * sizeof *a->frags;
  if (a->start) n += ((size_t)a->width * a->height + 1) * sizeof *a->start;
  n += a->cap_draws * sizeof(prov_draw) + a->cap_recs * sizeof(prov_primrec) + a->cap_poly * sizeof *a->poly;
  if (a->cell_start) n += ((size_t)a->cells_x * a->cells_y + 1) * sizeof *a->cell_start;
  if (a->cell_recs) n += a->cell_start[(size_t)a->cells_x * a->cells_y] * sizeof *a->cell_recs;
  return n;
}

void gs_provall_free(gs_provall *a) {
  for (size_t i = 0; a->tiles && i < (size_t)a->tiles_x * a->tiles_y; i++) {
    free(a->tiles[i].entries);
    free(a->tiles[i].ctx);
    free(a->tiles[i].frags);
  }
  free(a->tiles);
  free(a->ctx), free(a->frags), free(a->start);
  free(a->draws), free(a->recs), free(a->poly);
  free(a->cell_start), free(a->cell_recs);
  memset(a, 0, sizeof *a);
}
