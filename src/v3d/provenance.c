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

/* Room for one more element in *a (n used of *cap), or p->nomem. */
static int room(gs_prov *p, void **a, unsigned n, unsigned *cap, size_t size) {
  if (n < *cap) return 1;
  unsigned c = *cap ? *cap * 2 : 16;
  void *q = realloc(*a, c * size);
  if (!q) return p->nomem = 1, 0;
  *a = q, *cap = c;
  return 1;
}

/* ---- geometry ------------------------------------------------------------------ */

/* The pixel's sample points in absolute 12.4: n of them in sx, sy. */
static unsigned samples_of(const gs_prov *p, const ptb_grid *g, int64_t sx[4], int64_t sy[4]) {
  const uint8_t *ox, *oy;
  unsigned n = pse_sample_points(g && g->samples == 4 ? 4 : 1, &ox, &oy);
  for (unsigned s = 0; s < n; s++) sx[s] = 16 * (int64_t)p->x + ox[s], sy[s] = 16 * (int64_t)p->y + oy[s];
  return n;
}

/* Whether the closed polygon x, y (either orientation) holds a sample of
 * the pixel: on its edges counts, the fill rule aside. */
static int closed_covers(const gs_prov *p, const ptb_grid *g, const int32_t *x, const int32_t *y, unsigned n) {
  int64_t area = 0, sx[4], sy[4];
  for (unsigned i = 0; i < n; i++) area += (int64_t)x[i] * y[(i + 1) % n] - (int64_t)x[(i + 1) % n] * y[i];
  if (area == 0 || n < 3) return 0;
  unsigned ns = samples_of(p, g, sx, sy);
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

/* Whether the segment a-b (12.4) meets the pixel's closed square. */
static int segment_meets_pixel(const gs_prov *p, double ax, double ay, double bx, double by) {
  double lo[2] = {16.0 * p->x, 16.0 * p->y}, hi[2] = {lo[0] + 16.0, lo[1] + 16.0};
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

/* Where the ray through the pixel's centre meets the triangle's plane in
 * clip space, inside the triangle and in front of the eye: 1 and hit, or 0.
 * The ray is every clip-space point whose Xs, Ys (Xc/Wc times the Clipper XY
 * Scaling, plus the viewport centre) is the pixel's centre. */
static int ray_hit(const gs_prov *p, const ptb_state *st, const ptb_vertex *const *v, double hit[4]) {
  double rx = 16.0 * p->x + 8.0 - st->viewport_x, ry = 16.0 * p->y + 8.0 - st->viewport_y, fx[3], fy[3];
  for (int i = 0; i < 3; i++) {
    fx[i] = (double)v[i]->xc * st->xy_scale_x - rx * v[i]->wc;
    fy[i] = (double)v[i]->yc * st->xy_scale_y - ry * v[i]->wc;
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
    for (int i = 0; i < 3; i++) {
      const ptb_vertex *vi = v[i];
      float comp = k == 0 ? vi->xc : k == 1 ? vi->yc : k == 2 ? vi->zc : vi->wc;
      s += w[i] * comp;
    }
    hit[k] = s;
  }
  return hit[3] > 0.0;
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

static gs_prov_prim prim_of(const gs_prov *p, const gs_trace_event *e) {
  gs_prov_prim s = {1, e->record, 0, 0, e->draw, e->prim, {e->index[0], e->index[1], e->index[2]}, e->nverts};
  for (unsigned i = p->ndraws; i-- > 0;)
    if (p->draws[i].draw == e->draw) {
      s.packet = p->draws[i].packet, s.packet_id = p->draws[i].packet_id;
      break;
    }
  return s;
}

static void on_prim(gs_prov *p, const gs_trace_event *e) {
  gs_prov_prim src = prim_of(p, e);
  const ptb_grid *g = e->grid;
  switch (e->outcome) {
  case GS_TRACE_BINNED:
  case GS_TRACE_NO_SAMPLE: {
    if (!p->tile_known) {
      p->tile_known = 1;
      p->tile_x = (unsigned)p->x / g->tile_w, p->tile_y = (unsigned)p->y / g->tile_h;
    }
    tile_find f = {p->tile_y * g->tiles_x + p->tile_x, 0};
    if (e->outcome == GS_TRACE_BINNED) ptb_cover_polygon(e->px, e->py, e->npoly, e->window, g, find_tile, &f);
    if (f.found && room(p, (void **)&p->entries, p->nentries, &p->cap_entries, sizeof *p->entries))
      p->entries[p->nentries++] = src;
    if (e->npoly < 3 || !closed_covers(p, g, e->px, e->py, e->npoly)) return;
    const ptb_window *w = e->window;
    int inside = p->x >= w->x0 && p->x <= w->x1 && p->y >= w->y0 && p->y <= w->y1;
    candidate(p, &src, inside ? GS_MISS_NOT_COVERED : GS_MISS_OUTSIDE_CLIP_WINDOW);
    return;
  }
  case GS_TRACE_CULLED:
    if (e->npoly >= 3 && closed_covers(p, g, e->px, e->py, e->npoly)) candidate(p, &src, GS_MISS_CULLED);
    return;
  case GS_TRACE_ZERO_AREA:
    for (unsigned i = 0; i + 1 < e->npoly + (e->npoly > 2); i++) {
      unsigned j = (i + 1) % e->npoly;
      if (segment_meets_pixel(p, e->px[i], e->py[i], e->px[j], e->py[j])) {
        candidate(p, &src, GS_MISS_ZERO_AREA);
        return;
      }
    }
    return;
  case GS_TRACE_CLIPPED_AWAY:
  case GS_TRACE_CLIPPED: {
    double hit[4];
    if (e->nverts != 3 || !ray_hit(p, e->ptb, e->v, hit)) return;
    if (e->outcome == GS_TRACE_CLIPPED) {
      ptb_planes pl;
      ptb_planes_init(&pl, e->ptb);
      if (!ptb_outcode(&pl, hit)) return; /* the part over the pixel is kept: its fan pieces say */
    }
    candidate(p, &src, GS_MISS_CLIPPED);
    return;
  }
  default: return;
  }
}

static void on_fragment(gs_prov *p, const gs_trace_event *e) {
  if (e->lane < 0 || !room(p, (void **)&p->fragments, p->nfragments, &p->cap_fragments, sizeof *p->fragments))
    return;
  const gs_trace_event *tp = &p->last_tile_prim;
  gs_prov_fragment f;
  memset(&f, 0, sizeof f);
  f.src.record = e->record;
  if (e->prim < p->nentries && p->entries[e->prim].record == e->record &&
      memcmp(p->entries[e->prim].index, tp->index, sizeof tp->index) == 0)
    f.src = p->entries[e->prim];
  else
    f.src.known = 0, f.src.nverts = tp->nverts, memcpy(f.src.index, tp->index, sizeof f.src.index);
  f.tile_packet = tp->addr, f.tile_packet_id = tp->packet;
  f.tile_x = e->tile_x, f.tile_y = e->tile_y;
  f.clipped = tp->clipped;
  f.isa = e->fs_isa ? e->fs_isa->name : NULL;
  f.vertex_isa = tp->vs_isa ? tp->vs_isa->name : NULL;
  f.program = e->fs_code, f.uniforms = e->fs_uniforms, f.vertex_program = tp->vs_code;
  f.lane = e->lane, f.bx = e->bx, f.by = e->by;
  f.fate = e->fate, f.early = e->early, f.read_tile = e->read_tile;
  f.output[0] = e->output[0], f.output[1] = e->output[1], f.noutput = e->noutput;
  f.loaded = e->loaded, f.zs_before = e->zs_before, f.z = e->frag_z, f.samples = e->samples;
  f.z_tested = e->z_tested;
  p->fragments[p->nfragments++] = f;
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
