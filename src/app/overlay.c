/* overlay.c — the inspector's overlays (overlay.h, docs/inspector.md): a
 * trace subscriber of every tile gathers, for one run of a frame's lists,
 * the tile lists' lengths, the rendering order of the tiles, and per pixel
 * the fragments that reached it and the ISA and primitive area of the last
 * write; then each overlay is drawn over the frame with its legend.
 *
 * Threads (v3d/trace.h): binning and packet events come from the thread
 * that runs the lists, rendering events from the worker rendering a tile,
 * several tiles at once. Each tile's counters and each pixel's are written
 * only by the worker rendering that tile (a tile's pixels are its own), the
 * area table only by the binning thread, before any tile renders, so the
 * subscriber takes no lock.
 */
#include "app/overlay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "app/app.h"
#include "app/font.h"
#include "gpusim/cl.h"
#include "gpusim/driver.h"
#include "gpusim/luamod.h"
#include "gpusim/v3d.h"
#include "isa/isa.h"
#include "lua/lgpusim.h"
#include "v3d/trace.h"
#include "v3d/v3d.h"
#include "app/window.h"
#include <SDL.h>

static const char *const kind_names[GS_OVERLAY_KINDS] = {"none", "tiles", "overdraw", "trisize", "isa", "order"};
static const char *const kind_help[GS_OVERLAY_KINDS] = {
  "no overlay",
  "the tile grid: primitives in each tile's list, as a heat map and a number",
  "fragments per pixel (every fragment rasterised there, early-Z failures included)",
  "screen area in pixels of the primitive that last wrote each pixel (log scale)",
  "the ISA of the fragment program that last wrote each pixel",
  "the order the rendering list renders the tiles in",
};

const char *gs_overlay_name(gs_overlay_kind k) { return (unsigned)k < GS_OVERLAY_KINDS ? kind_names[k] : "?"; }

int gs_overlay_by_name(const char *name) {
  for (int k = 1; k < GS_OVERLAY_KINDS; k++)
    if (strcmp(name, kind_names[k]) == 0) return k;
  return -1;
}

void gs_overlay_help(FILE *out) {
  fputs("overlays (--overlay NAME; docs/inspector.md):\n", out);
  for (int k = 1; k < GS_OVERLAY_KINDS; k++) fprintf(out, "  %-9s %s\n", kind_names[k], kind_help[k]);
}

/* ---- collecting ------------------------------------------------------------------ */

/* A binned primitive's screen area, by its draw's record and vertices. */
typedef struct area_slot {
  gs_addr record;       /* 0: empty */
  uint32_t index[3];
  float area;
} area_slot;

typedef struct collect_ctx {
  gs_overlay_data *od;
  const gs_mem *mem;
  area_slot *slots;      /* open addressing; written by the binning thread only */
  unsigned cap, used;
  float *tile_area;      /* per tile: the area of the primitive being drawn there */
} collect_ctx;

static unsigned area_hash(gs_addr record, const uint32_t *ix) {
  uint32_t h = record * 2654435761u;
  for (int k = 0; k < 3; k++) h = (h ^ ix[k]) * 2246822519u;
  return h ^ h >> 15;
}

static area_slot *area_find(const collect_ctx *c, gs_addr record, const uint32_t *ix) {
  if (!c->cap) return NULL;
  for (unsigned i = area_hash(record, ix) & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
    area_slot *s = &c->slots[i];
    if (s->record == 0 || (s->record == record && memcmp(s->index, ix, sizeof s->index) == 0)) return s;
  }
}

/* The slot of (record, ix), made when missing; NULL when out of memory. */
static area_slot *area_get(collect_ctx *c, gs_addr record, const uint32_t *ix) {
  if (2 * (c->used + 1) > c->cap) {
    unsigned cap = c->cap ? 2 * c->cap : 256;
    area_slot *old = c->slots;
    unsigned oldcap = c->cap;
    c->slots = calloc(cap, sizeof *c->slots);
    if (!c->slots) return c->slots = old, c->od->nomem = 1, NULL;
    c->cap = cap;
    for (unsigned i = 0; i < oldcap; i++)
      if (old[i].record) *area_find(c, old[i].record, old[i].index) = old[i];
    free(old);
  }
  area_slot *s = area_find(c, record, ix);
  if (s->record == 0) {
    s->record = record, memcpy(s->index, ix, sizeof s->index), s->area = 0;
    c->used++;
  }
  return s;
}

/* Area in pixels of the polygon x, y (absolute 12.4). */
static float poly_area(const int32_t *x, const int32_t *y, unsigned n) {
  int64_t a = 0;
  for (unsigned i = 0; i < n; i++) a += (int64_t)x[i] * y[(i + 1) % n] - (int64_t)x[(i + 1) % n] * y[i];
  return (float)(llabs(a) / 2) / 256.0f;
}

static void on_packet(collect_ctx *c, const gs_trace_event *e) {
  gs_overlay_data *od = c->od;
  if (e->list == 0 && (e->packet == 32 || e->packet == 33)) return; /* the DRAW event describes draws */
  if (e->list != 1) return;
  if (e->packet == 113) { /* TILE_RENDERING_MODE_CONFIGURATION: byte 9 bit 0 ms4x, bit 1 color64 */
    const uint8_t *p = gs_mem_ptr((gs_mem *)c->mem, e->addr, 11);
    if (p) {
      od->tile_w = p[9] & 1 ? 32 : 64;
      od->tile_h = od->tile_w / (p[9] & 2 ? 2 : 1);
    }
  } else if (e->packet == 115) { /* TILE_COORDINATES: column, row */
    const uint8_t *p = gs_mem_ptr((gs_mem *)c->mem, e->addr, 3);
    if (p && p[1] < od->tiles_x && p[2] < od->tiles_y) {
      unsigned t = p[2] * od->tiles_x + p[1];
      if (od->tile_rank[t] < 0) {
        od->tile_rank[t] = (int32_t)od->norder;
        od->order[od->norder++] = t;
      }
    }
  }
}

static void on_event(void *ctx, const gs_trace_event *e) {
  collect_ctx *c = ctx;
  gs_overlay_data *od = c->od;
  switch (e->kind) {
  case GS_TRACE_PACKET: on_packet(c, e); return;
  case GS_TRACE_DRAW: {
    gs_overlay_draw *nd = realloc(od->draws, (od->ndraws + 1) * sizeof *nd);
    if (!nd) {
      od->nomem = 1;
      return;
    }
    od->draws = nd;
    const gs_cl_format_info *info = gs_cl_packet_info(e->packet);
    nd[od->ndraws++] = (gs_overlay_draw){e->addr, e->packet, info ? info->size : 0, e->record};
    return;
  }
  case GS_TRACE_PRIM: {
    area_slot *s;
    if (e->outcome == GS_TRACE_CLIPPED) { /* its pieces follow: their areas add up */
      if ((s = area_get(c, e->record, e->index))) s->area = 0;
    } else if (e->outcome == GS_TRACE_BINNED && e->px && e->npoly >= 3) {
      if ((s = area_get(c, e->record, e->index))) {
        float a = poly_area(e->px, e->py, e->npoly);
        s->area = e->piece ? s->area + a : a;
      }
    }
    return;
  }
  case GS_TRACE_TILE_PRIM: {
    if (e->tile_x >= od->tiles_x || e->tile_y >= od->tiles_y) return;
    unsigned t = e->tile_y * od->tiles_x + e->tile_x;
    od->tile_prims[t]++;
    const area_slot *s = area_find(c, e->record, e->index);
    c->tile_area[t] = s && s->record ? s->area : 0;
    return;
  }
  case GS_TRACE_SHADE: {
    if (e->tile_x >= od->tiles_x || e->tile_y >= od->tiles_y) return;
    unsigned id = e->fs_isa ? (unsigned)e->fs_isa->id : GS_ISA_QPU;
    if (id == GS_ISA_NONE || id >= GS_OVERLAY_ISAS) id = GS_ISA_QPU;
    od->tile_batches[(e->tile_y * od->tiles_x + e->tile_x) * GS_OVERLAY_ISAS + id]++;
    return;
  }
  case GS_TRACE_FRAGMENT: {
    if (e->lane < 0 || e->lane > 15) return;
    uint32_t x = e->x[e->lane], y = e->y[e->lane];
    if (x >= (uint32_t)od->width || y >= (uint32_t)od->height) return;
    size_t p = (size_t)y * (size_t)od->width + x;
    od->overdraw[p]++;
    if (e->fate == GS_FATE_WRITTEN) {
      unsigned id = e->fs_isa ? (unsigned)e->fs_isa->id : GS_ISA_QPU;
      od->isa[p] = (uint8_t)(id == GS_ISA_NONE || id >= GS_OVERLAY_ISAS ? GS_ISA_QPU : id);
      if (e->tile_x < od->tiles_x && e->tile_y < od->tiles_y) od->area[p] = c->tile_area[e->tile_y * od->tiles_x + e->tile_x];
    }
    return;
  }
  default: return;
  }
}

void gs_overlay_data_free(gs_overlay_data *od) {
  free(od->tile_prims);
  free(od->tile_rank);
  free(od->order);
  free(od->overdraw);
  free(od->area);
  free(od->isa);
  free(od->tile_batches);
  free(od->draws);
  memset(od, 0, sizeof *od);
}

static int alloc_data(gs_overlay_data *od, const gs_drv_frame *f, gs_diag *d) {
  memset(od, 0, sizeof *od);
  od->width = (int)f->width, od->height = (int)f->height;
  od->tiles_x = f->tiles_x, od->tiles_y = f->tiles_y;
  od->tile_w = GS_DRV_TILE_SIZE, od->tile_h = GS_DRV_TILE_SIZE;
  size_t nt = (size_t)f->tiles_x * f->tiles_y, np = (size_t)f->width * f->height;
  od->tile_prims = calloc(nt ? nt : 1, sizeof *od->tile_prims);
  od->tile_rank = malloc((nt ? nt : 1) * sizeof *od->tile_rank);
  od->order = calloc(nt ? nt : 1, sizeof *od->order);
  od->overdraw = calloc(np, sizeof *od->overdraw);
  od->area = calloc(np, sizeof *od->area);
  od->isa = calloc(np, 1);
  od->tile_batches = calloc((nt ? nt : 1) * GS_OVERLAY_ISAS, sizeof *od->tile_batches);
  if (!od->tile_prims || !od->tile_rank || !od->order || !od->overdraw || !od->area || !od->isa ||
      !od->tile_batches) {
    gs_overlay_data_free(od);
    return gs_diag_set(d, GS_ENOMEM, "overlay: host out of memory");
  }
  for (size_t t = 0; t < nt; t++) od->tile_rank[t] = -1;
  return GS_OK;
}

/* One run of the frame's lists with the subscriber c. keep: the draw
 * packets that run (all when negative; the others are NOPs meanwhile). */
static int run_lists(gs_gpu *g, const lgs_frame_info *fi, collect_ctx *c, long keep, gs_image *frame, gs_diag *d) {
  const gs_drv_frame *f = &fi->frame;
  gs_mem *mem = gs_gpu_mem(g);
  size_t size = (size_t)f->stride * f->height;
  uint8_t *fb = gs_mem_ptr(mem, f->framebuffer, (uint32_t)size);
  if (!fb) return gs_diag_set(d, GS_EFAULT, "overlay: the frame buffer at 0x%08x has been released", f->framebuffer);
  uint8_t *saved = malloc(size);
  gs_overlay_data *od = c ? c->od : NULL;
  unsigned nd = keep >= 0 && od ? od->ndraws : 0;
  uint8_t *patch = NULL;
  size_t patch_len = 0;
  for (unsigned i = 0; i < nd; i++) patch_len += od->draws[i].size;
  if (!saved || (nd && !(patch = malloc(patch_len ? patch_len : 1)))) {
    free(saved);
    return gs_diag_set(d, GS_ENOMEM, "overlay: host out of memory");
  }
  memcpy(saved, fb, size);
  size_t at = 0;
  for (unsigned i = 0; i < nd; i++) { /* later draws become NOPs (1) for this run */
    uint8_t *p = gs_mem_ptr(mem, od->draws[i].addr, od->draws[i].size);
    if (p) memcpy(patch + at, p, od->draws[i].size);
    if (p && i >= (unsigned long)keep) memset(p, 1, od->draws[i].size);
    at += od->draws[i].size;
  }
  gs_trace t = {on_event, c, {0, 0, 0, 0, 0}};
  gs_trace_filter_all(&t.filter);
  gs_v3d_options o;
  memset(&o, 0, sizeof o);
  o.threads = fi->threads;
  o.unif_streams = f->unif_streams;
  o.n_unif_streams = f->n_unif_streams;
  g->trace = c ? &t : NULL;
  int rc = gs_v3d_run(g, f->bin_start, f->bin_end, f->render_start, f->render_end, &o);
  g->trace = NULL;
  at = 0;
  for (unsigned i = 0; i < nd; i++) {
    uint8_t *p = gs_mem_ptr(mem, od->draws[i].addr, od->draws[i].size);
    if (p) memcpy(p, patch + at, od->draws[i].size);
    at += od->draws[i].size;
  }
  free(patch);
  int irc = GS_OK;
  if (rc >= 0 && frame) irc = gs_app_framebuffer_image(fb, (int)f->width, (int)f->height, (int)f->stride, f->format, frame, d);
  memcpy(fb, saved, size);
  free(saved);
  if (rc < 0) return gs_diag_set(d, rc, "overlay: running frame %d again failed: %s", (int)fi->number, gs_gpu_error(g));
  return irc;
}

int gs_overlay_collect(struct lua_State *L, long draws, gs_overlay_data *od, gs_image *frame, gs_diag *d) {
  gs_gpu *g = gs_lua_gpu(L);
  if (!g) return gs_diag_set(d, GS_EINVAL, "overlay: the GPU context is closed");
  lgs_frame_info fi;
  int top = lua_gettop(L);
  if (!lgs_last_frame(L, &fi) || !fi.ran) {
    lua_settop(L, top);
    memset(od, 0, sizeof *od);
    return gs_diag_set(d, GS_EINVAL, "overlay: no frame has been rendered");
  }
  lua_settop(L, top);
  int rc = alloc_data(od, &fi.frame, d);
  if (rc != GS_OK) return rc;
  collect_ctx c = {od, gs_gpu_mem(g), NULL, 0, 0, NULL};
  c.tile_area = calloc((size_t)od->tiles_x * od->tiles_y + 1, sizeof *c.tile_area);
  if (!c.tile_area) {
    gs_overlay_data_free(od);
    return gs_diag_set(d, GS_ENOMEM, "overlay: host out of memory");
  }
  rc = run_lists(g, &fi, &c, -1, draws >= 0 ? NULL : frame, d);
  od->drawn = od->ndraws;
  if (rc == GS_OK && draws >= 0) { /* again with the later draws made NOPs */
    gs_overlay_draw *list = od->draws;
    unsigned n = od->ndraws;
    od->draws = NULL, od->ndraws = 0;
    gs_overlay_data_free(od);
    rc = alloc_data(od, &fi.frame, d);
    if (rc == GS_OK) {
      /* the full list: the run makes the later ones NOPs; its own DRAW
       * events (the first `draws`) append copies, dropped after */
      od->draws = list, od->ndraws = n;
      free(c.slots);
      c.slots = NULL, c.cap = c.used = 0;
      memset(c.tile_area, 0, ((size_t)od->tiles_x * od->tiles_y + 1) * sizeof *c.tile_area);
      rc = run_lists(g, &fi, &c, draws, frame, d);
      od->ndraws = n;
      /* once more as the frame is, untraced: the tile lists in memory are
       * the frame's again (--dump-cl, the inspector's tile lists) */
      if (rc == GS_OK) rc = run_lists(g, &fi, NULL, -1, NULL, d);
      od->drawn = (unsigned)(draws < (long)n ? draws : (long)n);
    } else {
      free(list);
    }
  }
  free(c.slots);
  free(c.tile_area);
  if (rc == GS_OK && od->nomem) rc = gs_diag_set(d, GS_ENOMEM, "overlay: host out of memory");
  if (rc != GS_OK) gs_overlay_data_free(od);
  return rc;
}

/* ---- drawing ---------------------------------------------------------------------- */

static const uint8_t WHITE[4] = {255, 255, 255, 255}, PANEL[4] = {16, 16, 24, 255};
static const uint8_t GRID[4] = {255, 255, 255, 110}, STEP[4] = {255, 255, 0, 255};

/* The heat scale at t in 0..1: blue, cyan, green, yellow, red. */
static void heat(double t, uint8_t out[4]) {
  static const uint8_t stops[5][3] = {{40, 60, 255}, {0, 220, 255}, {0, 230, 60}, {255, 230, 0}, {255, 30, 20}};
  if (!(t > 0)) t = 0;
  if (t > 1) t = 1;
  double s = t * 4;
  int i = s >= 4 ? 3 : (int)s;
  double f = s - i;
  for (int c = 0; c < 3; c++) out[c] = (uint8_t)lrint(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f);
  out[3] = 255;
}

/* The isa overlay's colour of gs_isa_id id. */
static const uint8_t isa_colour[GS_OVERLAY_ISAS][4] = {
  {0, 0, 0, 0}, {230, 60, 50, 255}, {60, 200, 60, 255}, {240, 200, 30, 255}, {70, 120, 255, 255}};
static const char *const isa_label[GS_OVERLAY_ISAS] = {"none", "qpu", "sass", "pica", "agx"};

/* A pixel's overlay colour (alpha 0: none) of kind k at pipeline (x, y). */
static void pixel_colour(const gs_overlay_data *od, gs_overlay_kind k, int x, int y, uint32_t maxv, double lo,
                         double hi, long step, uint8_t out[4]) {
  size_t p = (size_t)y * (size_t)od->width + (size_t)x;
  unsigned tw = od->tile_w ? od->tile_w : 64, th = od->tile_h ? od->tile_h : 64;
  unsigned t = (unsigned)y / th * od->tiles_x + (unsigned)x / tw;
  int in_grid = (unsigned)x / tw < od->tiles_x && (unsigned)y / th < od->tiles_y;
  memset(out, 0, 4);
  switch (k) {
  case GS_OVERLAY_TILES:
    if (in_grid && od->tile_prims[t]) heat(maxv > 1 ? (double)(od->tile_prims[t] - 1) / (maxv - 1) : 1.0, out);
    break;
  case GS_OVERLAY_OVERDRAW:
    if (od->overdraw[p]) heat(maxv > 1 ? (double)(od->overdraw[p] - 1) / (maxv - 1) : 0.0, out);
    break;
  case GS_OVERLAY_TRISIZE:
    if (od->area[p] > 0) heat(hi > lo ? (log2(od->area[p]) - lo) / (hi - lo) : 0.5, out);
    break;
  case GS_OVERLAY_ISA:
    if (od->isa[p]) memcpy(out, isa_colour[od->isa[p]], 4);
    break;
  case GS_OVERLAY_ORDER:
    if (in_grid && od->tile_rank[t] >= 0) {
      if (step >= 0 && od->tile_rank[t] > step) break;
      heat(od->norder > 1 ? (double)od->tile_rank[t] / (od->norder - 1) : 0.0, out);
    }
    break;
  default: break;
  }
}

/* A legend line: a colour bar from `from` to `to` on the heat scale. */
static void heat_bar(gs_image *img, int x, int y, int w, int h) {
  for (int i = 0; i < w; i++) {
    uint8_t c[4];
    heat(w > 1 ? (double)i / (w - 1) : 0, c);
    gs_fill_rect(img, x + i, y, 1, h, c);
  }
}

/* The legend of kind k drawn in the strip at (0, y) of width w. */
static void legend(gs_image *img, const gs_overlay_data *od, gs_overlay_kind k, int y, int w, uint32_t maxv,
                   double lo, double hi, long step) {
  char text[256];
  int x = 4;
  switch (k) {
  case GS_OVERLAY_TILES:
    snprintf(text, sizeof text, "tiles: primitives per tile list (%ux%u tiles of %ux%u)", od->tiles_x, od->tiles_y,
             od->tile_w, od->tile_h);
    break;
  case GS_OVERLAY_OVERDRAW: snprintf(text, sizeof text, "overdraw: fragments per pixel"); break;
  case GS_OVERLAY_TRISIZE: snprintf(text, sizeof text, "trisize: area (pixels) of the writing primitive, log scale"); break;
  case GS_OVERLAY_ISA: snprintf(text, sizeof text, "isa: fragment program that wrote each pixel"); break;
  case GS_OVERLAY_ORDER:
    if (step >= 0 && (unsigned long)step < od->norder)
      snprintf(text, sizeof text, "order: tile %ld of %u (%u, %u) being rendered", step + 1, od->norder,
               od->order[step] % od->tiles_x, od->order[step] / od->tiles_x);
    else snprintf(text, sizeof text, "order: rendering order of the %u tiles", od->norder);
    break;
  default: return;
  }
  gs_font_draw(img, x, y + 2, text, WHITE, 1);
  int by = y + 2 + GS_FONT_LINE + 2;
  if (k == GS_OVERLAY_ISA) {
    uint64_t count[GS_OVERLAY_ISAS] = {0};
    for (size_t p = 0; p < (size_t)od->width * od->height; p++) count[od->isa[p]]++;
    for (int i = 1; i < GS_OVERLAY_ISAS; i++) {
      gs_fill_rect(img, x, by, 10, 10, isa_colour[i]);
      snprintf(text, sizeof text, "%s %llu", isa_label[i], (unsigned long long)count[i]);
      gs_font_draw(img, x + 13, by, text, WHITE, 1);
      x += 13 + gs_font_width(text) + 10;
    }
    return;
  }
  char right[64];
  if (k == GS_OVERLAY_TRISIZE) snprintf(text, sizeof text, "%.4g", exp2(lo));
  else if (k == GS_OVERLAY_ORDER) snprintf(text, sizeof text, "first");
  else snprintf(text, sizeof text, "%u", maxv ? 1u : 0u);
  if (k == GS_OVERLAY_TRISIZE) snprintf(right, sizeof right, "%.4g px", exp2(hi));
  else if (k == GS_OVERLAY_ORDER) snprintf(right, sizeof right, "last (%u)", od->norder);
  else snprintf(right, sizeof right, "%u", maxv);
  int bw = w - 2 * x - gs_font_width(text) - gs_font_width(right) - 8;
  if (bw < 20) bw = 20;
  gs_font_draw(img, x, by, text, WHITE, 1);
  int tx = x + gs_font_width(text) + 4;
  heat_bar(img, tx, by, bw, 10);
  gs_font_draw(img, tx + bw + 4, by, right, WHITE, 1);
}

int gs_overlay_compose(const gs_overlay_data *od, gs_overlay_kind k, const gs_image *frame, int zoom, long step_tile,
                       gs_image *out, gs_diag *d) {
  if (zoom < 1) zoom = 1;
  int W = od->width * zoom, strip = k == GS_OVERLAY_NONE ? 0 : 2 * GS_FONT_LINE + 8;
  int w = W < 340 ? 340 : W;
  int rc = gs_image_alloc(out, w, od->height * zoom + strip, d);
  if (rc != GS_OK) return rc;
  gs_fill_rect(out, 0, 0, w, out->height, PANEL);
  uint32_t maxv = 0;
  double lo = INFINITY, hi = -INFINITY;
  size_t np = (size_t)od->width * od->height;
  if (k == GS_OVERLAY_TILES)
    for (size_t t = 0; t < (size_t)od->tiles_x * od->tiles_y; t++) maxv = od->tile_prims[t] > maxv ? od->tile_prims[t] : maxv;
  if (k == GS_OVERLAY_OVERDRAW)
    for (size_t p = 0; p < np; p++) maxv = od->overdraw[p] > maxv ? od->overdraw[p] : maxv;
  if (k == GS_OVERLAY_TRISIZE)
    for (size_t p = 0; p < np; p++)
      if (od->area[p] > 0) {
        double l = log2(od->area[p]);
        lo = l < lo ? l : lo, hi = l > hi ? l : hi;
      }
  if (!(lo <= hi)) lo = hi = 0;
  for (int y = 0; y < od->height; y++) {   /* image row y is pipeline row height - 1 - y */
    for (int x = 0; x < od->width; x++) {
      const uint8_t *f = gs_image_pixel(frame, x, y);
      uint8_t c[4], px[4] = {f[0], f[1], f[2], 255};
      pixel_colour(od, k, x, od->height - 1 - y, maxv, lo, hi, step_tile, c);
      if (k == GS_OVERLAY_ORDER && step_tile >= 0 && !c[3]) { /* a tile not rendered yet: nothing to show */
        gs_fill_rect(out, x * zoom, y * zoom, zoom, zoom, PANEL);
        continue;
      }
      if (k != GS_OVERLAY_NONE) {
        /* over the frame's grey (so that the overlay's colours read true), 3/4 colour;
         * pixels the overlay says nothing about: the frame at 2/5 */
        unsigned lum = (px[0] * 77u + px[1] * 150u + px[2] * 29u) >> 8;
        if (c[3]) for (int i = 0; i < 3; i++) px[i] = (uint8_t)((lum + c[i] * 3u + 2) / 4);
        else for (int i = 0; i < 3; i++) px[i] = (uint8_t)(px[i] * 2u / 5);
      }
      gs_fill_rect(out, x * zoom, y * zoom, zoom, zoom, px);
    }
  }
  unsigned tw = od->tile_w ? od->tile_w : 64, th = od->tile_h ? od->tile_h : 64;
  if (k == GS_OVERLAY_TILES || k == GS_OVERLAY_ORDER) {
    for (unsigned ty = 0; ty < od->tiles_y; ty++) {
      for (unsigned tx = 0; tx < od->tiles_x; tx++) {
        unsigned t = ty * od->tiles_x + tx;
        int x0 = (int)(tx * tw), top = od->height - (int)((ty + 1) * th); /* image row of the tile's top */
        int x1 = x0 + (int)tw > od->width ? od->width : x0 + (int)tw;
        int y0 = top < 0 ? 0 : top, y1 = od->height - (int)(ty * th);
        if (x0 >= od->width || y1 <= 0) continue;
        gs_frame_rect(out, x0 * zoom, y0 * zoom, (x1 - x0) * zoom, (y1 - y0) * zoom, 1, GRID);
        char num[16];
        if (k == GS_OVERLAY_TILES) snprintf(num, sizeof num, "%u", od->tile_prims[t]);
        else if (od->tile_rank[t] >= 0 && (step_tile < 0 || od->tile_rank[t] <= step_tile))
          snprintf(num, sizeof num, "%d", od->tile_rank[t] + 1);
        else num[0] = '\0';
        int s = (y1 - y0) * zoom >= 48 ? 2 : 1;
        if ((x1 - x0) * zoom >= gs_font_width(num) * s + 4 && (y1 - y0) * zoom >= 10 * s)
          gs_font_draw(out, x0 * zoom + 3, y0 * zoom + 3, num, WHITE, s);
        if (k == GS_OVERLAY_ORDER && step_tile >= 0 && od->tile_rank[t] == step_tile)
          gs_frame_rect(out, x0 * zoom, y0 * zoom, (x1 - x0) * zoom, (y1 - y0) * zoom, zoom > 1 ? 3 : 2, STEP);
      }
    }
  }
  if (strip) legend(out, od, k, od->height * zoom, w, maxv, lo, hi, step_tile);
  return GS_OK;
}

int gs_overlay_write_png(struct lua_State *L, gs_overlay_kind k, const char *path, gs_diag *d) {
  gs_overlay_data od;
  gs_image frame = {0, 0, 0, NULL}, out = {0, 0, 0, NULL};
  int rc = gs_overlay_collect(L, -1, &od, &frame, d);
  if (rc != GS_OK) return rc;
  rc = gs_overlay_compose(&od, k, &frame, 1, -1, &out, d);
  if (rc == GS_OK) rc = gs_image_write_png(&out, path, d);
  gs_image_free(&out);
  gs_image_free(&frame);
  gs_overlay_data_free(&od);
  return rc;
}

/* ---- gpusim.overlay ---------------------------------------------------------------- */

/* gpusim.overlay(name [, {draws = K}]) -> a table: width, height, tiles_x,
 * tiles_y, tile_width, tile_height, draws (packets that ran); for tiles
 * and order `tiles[ty * tiles_x + tx + 1]` (ty from the image's top row:
 * image coordinates), counts or ranks (1 first, 0 never); for overdraw,
 * trisize and isa `pixels[y * width + x + 1]` (y from the top), counts,
 * areas or ISA names ("" none). */
static int l_overlay(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  int k = gs_overlay_by_name(name);
  if (k < 0) return luaL_error(L, "gpusim.overlay: unknown overlay '%s' (tiles, overdraw, trisize, isa, order)", name);
  lua_Integer draws = -1;
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "draws");
    if (!lua_isnil(L, -1)) draws = luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    if (draws < -1) return luaL_error(L, "gpusim.overlay: draws must be 0 or more");
  }
  lua_settop(L, 1);
  gs_overlay_data od;
  gs_diag d;
  gs_diag_clear(&d);
  if (gs_overlay_collect(L, (long)draws, &od, NULL, &d) != GS_OK) return luaL_error(L, "gpusim.%s", d.msg);
  lua_createtable(L, 0, 10);
  lua_pushinteger(L, od.width), lua_setfield(L, -2, "width");
  lua_pushinteger(L, od.height), lua_setfield(L, -2, "height");
  lua_pushinteger(L, od.tiles_x), lua_setfield(L, -2, "tiles_x");
  lua_pushinteger(L, od.tiles_y), lua_setfield(L, -2, "tiles_y");
  lua_pushinteger(L, od.tile_w), lua_setfield(L, -2, "tile_width");
  lua_pushinteger(L, od.tile_h), lua_setfield(L, -2, "tile_height");
  lua_pushinteger(L, od.drawn), lua_setfield(L, -2, "draws");
  if (k == GS_OVERLAY_TILES || k == GS_OVERLAY_ORDER) {
    lua_createtable(L, (int)(od.tiles_x * od.tiles_y), 0);
    for (unsigned ty = 0; ty < od.tiles_y; ty++)
      for (unsigned tx = 0; tx < od.tiles_x; tx++) {
        unsigned t = (od.tiles_y - 1 - ty) * od.tiles_x + tx; /* image row ty */
        lua_pushinteger(L, k == GS_OVERLAY_TILES ? (lua_Integer)od.tile_prims[t] : od.tile_rank[t] + 1);
        lua_rawseti(L, -2, (lua_Integer)(ty * od.tiles_x + tx) + 1);
      }
    lua_setfield(L, -2, "tiles");
  } else {
    lua_createtable(L, od.width * od.height, 0);
    for (int y = 0; y < od.height; y++)
      for (int x = 0; x < od.width; x++) {
        size_t p = (size_t)(od.height - 1 - y) * (size_t)od.width + (size_t)x;
        if (k == GS_OVERLAY_OVERDRAW) lua_pushinteger(L, od.overdraw[p]);
        else if (k == GS_OVERLAY_TRISIZE) lua_pushnumber(L, od.area[p]);
        else lua_pushstring(L, od.isa[p] ? isa_label[od.isa[p]] : "");
        lua_rawseti(L, -2, (lua_Integer)y * od.width + x + 1);
      }
    lua_setfield(L, -2, "pixels");
  }
  gs_overlay_data_free(&od);
  return 1;
}

void gs_overlay_lua_register(struct lua_State *L) {
  lua_pushcfunction(L, l_overlay);
  lua_setfield(L, -2, "overlay");
}

/* ---- the window's inspector ---------------------------------------------------- */

#define PANEL_W 440
#define MIN_H 480
#define STRIP (2 * GS_FONT_LINE + 8)

struct gs_inspector {
  lua_State *L;
  const char *script;
  int overlay;             /* gs_overlay_kind */
  long draw_step;          /* -1: every draw; else the frame after that many draws */
  long tile_step;          /* -1: off; else the tile of that rank being rendered */
  int help, paused;
  int zoom;
  int shown_zoom;          /* the presented picture's pixels per frame pixel (1 when idle) */
  long tile_x, tile_y;     /* the tile whose list the panel shows (pipeline rows), -1: none */
  char *panel;             /* the side panel's text (a tile list, why's answer), NULL: none */
  int panel_is_pixel;      /* the panel explains a pixel (the debugger keys apply) */
  long px, py;             /* that pixel (image coordinates) */
  int debug_ref;           /* LUA_NOREF, or the gpusim.debug session of the pixel */
  char debug_text[1024];
  /* the picture */
  int dirty;
  long serial;
  gs_overlay_data od;
  int have_od;
  long od_serial;          /* the frame serial od was collected for */
  gs_image stepped;        /* the frame after draw_step draws */
  gs_image canvas;
  /* scripted input (GPUSIM_INSPECT: docs/inspector.md) */
  char *script_items;
  char *next_item;
  long wait;
};

static const char *const help_text =
  "keys:  h help   o/O next/previous overlay   0-5 overlay (0 none)\n"
  "       ] [  step draws (the frame after k draws)   a  all draws\n"
  "       . ,  step tiles in rendering order   t  tiles off\n"
  "       space  pause   c  close the panel   Esc q  quit\n"
  "click: a tile with the tiles overlay: its tile list decoded;\n"
  "       a pixel otherwise: gpusim why's answer\n"
  "       n b  then step the pixel's shader forward / back";

gs_inspector *gs_inspector_new(struct lua_State *L, int overlay, const char *script) {
  gs_inspector *ins = calloc(1, sizeof *ins);
  if (!ins) return NULL;
  ins->L = L, ins->script = script, ins->overlay = overlay;
  ins->draw_step = ins->tile_step = -1;
  ins->debug_ref = LUA_NOREF;
  ins->dirty = 1;
  ins->serial = -1;
  ins->tile_x = ins->tile_y = -1;
  const char *env = getenv("GPUSIM_INSPECT");
  if (env && *env) {
    ins->script_items = strdup(env);
    ins->next_item = ins->script_items;
  }
  return ins;
}

void gs_inspector_free(gs_inspector *ins) {
  if (!ins) return;
  if (ins->have_od) gs_overlay_data_free(&ins->od);
  gs_image_free(&ins->stepped);
  gs_image_free(&ins->canvas);
  if (ins->debug_ref != LUA_NOREF) luaL_unref(ins->L, LUA_REGISTRYINDEX, ins->debug_ref);
  free(ins->panel);
  free(ins->script_items);
  free(ins);
}

/* The overlay data of the frame shown (and the frame after draw_step draws). */
static int collect(gs_inspector *ins, gs_diag *d) {
  if (ins->have_od) gs_overlay_data_free(&ins->od);
  gs_image_free(&ins->stepped);
  ins->have_od = 0;
  int rc = gs_overlay_collect(ins->L, ins->draw_step, &ins->od, ins->draw_step >= 0 ? &ins->stepped : NULL, d);
  if (rc != GS_OK) return rc;
  ins->have_od = 1;
  ins->od_serial = ins->serial;
  return GS_OK;
}

static void set_panel(gs_inspector *ins, char *text, int is_pixel) {
  free(ins->panel);
  ins->panel = text;
  ins->panel_is_pixel = is_pixel;
  ins->debug_text[0] = '\0';
  ins->tile_x = ins->tile_y = -1;
  if (ins->debug_ref != LUA_NOREF) luaL_unref(ins->L, LUA_REGISTRYINDEX, ins->debug_ref);
  ins->debug_ref = LUA_NOREF;
  ins->dirty = 1;
}

/* The decoded rendering list of tile (tx, ty) (pipeline rows): its
 * TILE_COORDINATES sections of the frame's lists as --dump-cl prints them. */
static char *tile_list_text(gs_inspector *ins, unsigned tx, unsigned ty) {
  lgs_frame_info fi;
  int top = lua_gettop(ins->L);
  int ok = lgs_last_frame(ins->L, &fi) && fi.ran;
  lua_settop(ins->L, top);
  if (!ok) return strdup("no frame");
  char *all = NULL, *out = NULL;
  size_t len = 0, olen = 0;
  FILE *m = open_memstream(&all, &len);
  if (!m) return NULL;
  gs_diag d;
  gs_diag_clear(&d);
  const gs_drv_frame *f = &fi.frame;
  int rc = gs_dumpcl_frame(gs_gpu_mem(gs_lua_gpu(ins->L)), f->bin_start, f->bin_end, f->render_start, f->render_end,
                           m, &d);
  fclose(m);
  FILE *o = open_memstream(&out, &olen);
  if (!o) return free(all), NULL;
  fprintf(o, "tile (%u, %u), its rendering list and tile list\n(decoded as gpusim --dump-cl does):\n", tx, ty);
  if (rc != GS_OK) fprintf(o, "%s\n", d.msg);
  char want[64];
  snprintf(want, sizeof want, "TILE_COORDINATES  column=%u row=%u", tx, ty);
  int in = 0;
  for (char *line = all, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (strstr(line, "115 TILE_COORDINATES")) in = strstr(line, want) != NULL;
    else if (line[0] == '#') in = 0;
    if (in) fprintf(o, "%s\n", line);
  }
  fclose(o);
  free(all);
  return out;
}

/* gpusim why's answer for image pixel (x, y), as text. */
static char *why_text(gs_inspector *ins, long x, long y) {
  lua_State *L = ins->L;
  int top = lua_gettop(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "gpusim");
  lua_getfield(L, -1, "why");
  lua_pushinteger(L, x);
  lua_pushinteger(L, y);
  char *out = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&out, &len);
  if (!m) return lua_settop(L, top), NULL;
  if (lua_pcall(L, 2, 1, 0) != LUA_OK) fprintf(m, "%s\n", lua_tostring(L, -1));
  else gs_why_text(L, -1, ins->script, m);
  fclose(m);
  lua_settop(L, top);
  return out;
}

/* The debugger session of the panel's pixel: steps it by `dir` (1
 * forward, -1 back, 0 open) and describes it in debug_text. The debugger
 * is gpusim.debug (docs/debugger.md) when this build has it. */
static void debug_step(gs_inspector *ins, int dir) {
  lua_State *L = ins->L;
  int top = lua_gettop(L);
  ins->dirty = 1;
  if (ins->debug_ref == LUA_NOREF) {
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "gpusim");
    lua_getfield(L, -1, "debug");
    if (!lua_isfunction(L, -1)) {
      snprintf(ins->debug_text, sizeof ins->debug_text,
               "debugger: gpusim.debug is not in this build (n, b step it once it is)");
      lua_settop(L, top);
      return;
    }
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, ins->px), lua_setfield(L, -2, "x");
    lua_pushinteger(L, ins->py), lua_setfield(L, -2, "y");
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
      snprintf(ins->debug_text, sizeof ins->debug_text, "debugger: %s", lua_tostring(L, -1));
      lua_settop(L, top);
      return;
    }
    ins->debug_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  static const char chunk[] =
    "local d, dir = ...\n"
    "if dir > 0 then d:step() elseif dir < 0 then d:back() end\n"
    "local info = d:info()\n"
    "local out = {string.format('debugger (n b): %s %s program, step %d of %d, lane %d, pc 0x%x',\n"
    "  tostring(info.isa), tostring(info.stage), d:at(), d:length(), d:lane(), d:pc()),\n"
    "  'next: ' .. tostring(d:line() or '(the end)')}\n"
    "if d.source then local f, l, t = d:source(); if f then out[#out + 1] = string.format('source: %s:%d: %s', f:match('[^/]*$'), l, t) end end\n"
    "local row = {}\n"
    "for _, name in ipairs(d:registers()) do\n"
    "  local ok, v = pcall(d.reg, d, name)\n"
    "  if ok and math.type(v) == 'integer' and v ~= 0 then row[#row + 1] = string.format('%s=%08x', name, v & 0xffffffff) end\n"
    "  if #row >= 32 then break end\n"
    "end\n"
    "out[#out + 1] = 'registers of the lane (not zero):'\n"
    "for i = 1, #row, 4 do out[#out + 1] = '  ' .. table.concat(row, '  ', i, math.min(i + 3, #row)) end\n"
    "return table.concat(out, '\\n')\n";
  if (luaL_loadstring(L, chunk) != LUA_OK) {
    lua_settop(L, top);
    return;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, ins->debug_ref);
  lua_pushinteger(L, dir);
  if (lua_pcall(L, 2, 1, 0) != LUA_OK) snprintf(ins->debug_text, sizeof ins->debug_text, "debugger: %s", lua_tostring(L, -1));
  else snprintf(ins->debug_text, sizeof ins->debug_text, "%s", lua_tostring(L, -1));
  lua_settop(L, top);
}

static void click(gs_inspector *ins, int cx, int cy) {
  int z = ins->shown_zoom ? ins->shown_zoom : 1;
  long x = cx / z, y = cy / z;
  if (!ins->have_od || ins->od_serial != ins->serial) {
    gs_diag d;
    gs_diag_clear(&d);
    if (collect(ins, &d) != GS_OK) {
      set_panel(ins, strdup(d.msg), 0);
      return;
    }
  }
  if (x >= ins->od.width || y >= ins->od.height) return;
  if (ins->overlay == GS_OVERLAY_TILES) {
    unsigned ty = (unsigned)(ins->od.height - 1 - y) / ins->od.tile_h, tx = (unsigned)x / ins->od.tile_w;
    set_panel(ins, tile_list_text(ins, tx, ty), 0);
    ins->tile_x = tx, ins->tile_y = ty;
  } else {
    ins->px = x, ins->py = y;
    set_panel(ins, why_text(ins, x, y), 1);
  }
}

static void key(gs_inspector *ins, int k, int shift) {
  if (!ins->have_od && (k == '[' || k == ']' || k == ',' || k == '.' || k == SDLK_RIGHT || k == SDLK_LEFT ||
                        k == SDLK_UP || k == SDLK_DOWN)) { /* the draw and tile counts */
    gs_diag d;
    gs_diag_clear(&d);
    if (collect(ins, &d) != GS_OK) set_panel(ins, strdup(d.msg), 0);
  }
  long nd = ins->have_od ? (long)ins->od.ndraws : 0, nt = ins->have_od ? (long)ins->od.norder : 0;
  ins->dirty = 1;
  if (k == 'h') ins->help = !ins->help;
  else if (k == 'o') ins->overlay = (ins->overlay + (shift ? GS_OVERLAY_KINDS - 1 : 1)) % GS_OVERLAY_KINDS;
  else if (k >= '0' && k <= '5') ins->overlay = k - '0';
  else if (k == ' ') ins->paused = !ins->paused;
  else if (k == 'a') ins->draw_step = -1;
  else if (k == ']' || k == SDLK_RIGHT) ins->draw_step = ins->draw_step < 0 ? 0 : ins->draw_step + 1 > nd ? -1 : ins->draw_step + 1;
  else if (k == '[' || k == SDLK_LEFT) ins->draw_step = ins->draw_step < 0 ? (nd > 0 ? nd - 1 : 0) : ins->draw_step > 0 ? ins->draw_step - 1 : 0;
  else if (k == 't') ins->tile_step = -1;
  else if (k == '.' || k == SDLK_DOWN) ins->tile_step = ins->tile_step + 1 >= nt ? -1 : ins->tile_step + 1;
  else if (k == ',' || k == SDLK_UP) ins->tile_step = ins->tile_step < 0 ? nt - 1 : ins->tile_step - 1;
  else if (k == 'c') set_panel(ins, NULL, 0);
  else if ((k == 'n' || k == 'b') && ins->panel_is_pixel) debug_step(ins, ins->debug_ref == LUA_NOREF ? 0 : k == 'n' ? 1 : -1);
  else ins->dirty = 0;
}

/* Draws the side panel at x of the canvas. */
static void draw_panel(gs_inspector *ins, int x, long serial) {
  gs_image *c = &ins->canvas;
  char status[1024];
  const gs_overlay_data *od = &ins->od;
  int n = snprintf(status, sizeof status, "frame %ld%s   overlay: %s (o, 0-5)\n", serial,
                   ins->paused || ins->draw_step >= 0 || ins->tile_step >= 0 || ins->panel ? " (held)" : "",
                   gs_overlay_name((gs_overlay_kind)ins->overlay));
  if (ins->draw_step >= 0) n += snprintf(status + n, sizeof status - (size_t)n, "draws: the first %ld of %u ([ ])\n", ins->draw_step, od->ndraws);
  else n += snprintf(status + n, sizeof status - (size_t)n, "draws: all %u ([ ] to step)\n", od->ndraws);
  if (ins->tile_step >= 0 && (unsigned long)ins->tile_step < od->norder)
    snprintf(status + n, sizeof status - (size_t)n, "tile %ld of %u: (%u, %u) being rendered (, .)\n", ins->tile_step + 1, od->norder,
             od->order[ins->tile_step] % od->tiles_x, od->order[ins->tile_step] / od->tiles_x);
  else snprintf(status + n, sizeof status - (size_t)n, "tiles: %u rendered (, . to step)  h: help\n", od->norder);
  int y = 6;
  gs_font_draw(c, x, y, status, STEP, 1);
  y += gs_font_height(status) + 4;
  if (ins->help) {
    gs_font_draw(c, x, y, help_text, WHITE, 1);
    y += gs_font_height(help_text) + 8;
  }
  if (ins->debug_text[0]) {
    gs_font_draw(c, x, y, ins->debug_text, STEP, 1);
    y += gs_font_height(ins->debug_text) + 8;
  }
  if (ins->panel) gs_font_draw(c, x, y, ins->panel, WHITE, 1);
}

/* Runs the next item of GPUSIM_INSPECT (space-separated): KEY (one
 * character), key:NAME (right, left, up, down, space), click:X,Y (a pixel of
 * the frame), shot:FILE (the picture as PNG), print (the panel's text on
 * standard output), wait:N (N frames). */
static int script_step(gs_inspector *ins, gs_window *win, const gs_image *shown, gs_diag *d) {
  if (!ins->next_item) return GS_OK;
  if (ins->wait > 0) {
    ins->wait--;
    return GS_OK;
  }
  char *p = ins->next_item;
  while (*p == ' ') p++;
  if (!*p) {
    ins->next_item = NULL;
    return GS_OK;
  }
  char *end = strchr(p, ' ');
  if (end) *end = '\0';
  ins->next_item = end ? end + 1 : p + strlen(p);
  int z = ins->shown_zoom ? ins->shown_zoom : 1;
  if (strncmp(p, "click:", 6) == 0) {
    int x, y;
    if (sscanf(p + 6, "%d,%d", &x, &y) == 2) return gs_window_push_click(win, x * z + z / 2, y * z + z / 2, d);
  } else if (strncmp(p, "shot:", 5) == 0) {
    return gs_image_write_png(shown, p + 5, d);
  } else if (strcmp(p, "print") == 0) {
    printf("inspector panel:\n%s\n%s\n", ins->panel ? ins->panel : "", ins->debug_text);
    fflush(stdout);
    return GS_OK;
  } else if (strncmp(p, "wait:", 5) == 0) {
    ins->wait = atol(p + 5);
    return GS_OK;
  } else if (strcmp(p, "key:right") == 0) {
    return gs_window_push_key(win, SDLK_RIGHT, d);
  } else if (strcmp(p, "key:left") == 0) {
    return gs_window_push_key(win, SDLK_LEFT, d);
  } else if (strcmp(p, "key:space") == 0) {
    return gs_window_push_key(win, ' ', d);
  } else if (p[0] && !p[1]) {
    return gs_window_push_key(win, (unsigned char)p[0], d);
  }
  return gs_diag_set(d, GS_EARG, "GPUSIM_INSPECT: cannot do '%s'", p);
}

/* Nothing of the inspector is on: the window shows the frame alone, as
 * without it. */
static int idle(const gs_inspector *ins) {
  return ins->overlay == GS_OVERLAY_NONE && ins->draw_step < 0 && ins->tile_step < 0 && !ins->panel && !ins->help &&
         !ins->paused;
}

int gs_inspector_present(gs_inspector *ins, gs_window *win, const gs_image *frame, long serial, int *hold,
                         gs_diag *d) {
  gs_window_input in;
  int rc;
  if (serial != ins->serial) ins->dirty = 1;
  ins->serial = serial;
  while (gs_window_next_input(win, &in)) {
    if (in.kind == GS_INPUT_KEY) key(ins, in.key, in.shift);
    else click(ins, in.x, in.y);
  }
  *hold = ins->paused || ins->draw_step >= 0 || ins->tile_step >= 0 || ins->panel != NULL;
  if (!ins->zoom) { /* the first picture */
    gs_window_title_suffix(win, " (h: the inspector's keys)");
    int longer = frame->width > frame->height ? frame->width : frame->height;
    ins->zoom = 1;
    while (ins->zoom < 8 && (ins->zoom + 1) * longer <= 512) ins->zoom++;
  }
  if (idle(ins)) {
    ins->shown_zoom = 1;
    rc = gs_window_present_sized(win, frame->pixels, frame->width, frame->height, (ptrdiff_t)frame->stride, d);
    if (rc == GS_OK) rc = script_step(ins, win, frame, d);
    ins->dirty = 1;
    return rc;
  }
  if (ins->dirty) {
    if (!ins->have_od || ins->od_serial != serial || ins->draw_step >= 0 || ins->od.drawn != ins->od.ndraws) {
      if ((rc = collect(ins, d)) != GS_OK) return rc;
    }
    const gs_image *base = ins->draw_step >= 0 ? &ins->stepped : frame;
    gs_overlay_kind k = ins->tile_step >= 0 ? GS_OVERLAY_ORDER : (gs_overlay_kind)ins->overlay;
    gs_image pic = {0, 0, 0, NULL};
    rc = gs_overlay_compose(&ins->od, k, base, ins->zoom, ins->tile_step, &pic, d);
    if (rc != GS_OK) return rc;
    int lw = frame->width * ins->zoom < 340 ? 340 : frame->width * ins->zoom;
    int h = frame->height * ins->zoom + STRIP;
    if (h < MIN_H) h = MIN_H;
    if (!ins->canvas.pixels || ins->canvas.width != lw + PANEL_W || ins->canvas.height != h) {
      gs_image_free(&ins->canvas);
      if ((rc = gs_image_alloc(&ins->canvas, lw + PANEL_W, h, d)) != GS_OK) return gs_image_free(&pic), rc;
    }
    gs_fill_rect(&ins->canvas, 0, 0, ins->canvas.width, ins->canvas.height, PANEL);
    for (int y = 0; y < pic.height; y++) memcpy(gs_image_pixel(&ins->canvas, 0, y), gs_image_pixel(&pic, 0, y), (size_t)pic.width * 4);
    gs_image_free(&pic);
    gs_fill_rect(&ins->canvas, lw + 2, 0, 1, h, GRID);
    if (ins->tile_x >= 0) { /* the tile whose list the panel shows */
      int z = ins->zoom, top = frame->height - (int)((ins->tile_y + 1) * ins->od.tile_h);
      gs_frame_rect(&ins->canvas, (int)(ins->tile_x * ins->od.tile_w) * z, (top < 0 ? 0 : top) * z,
                    (int)ins->od.tile_w * z, (int)ins->od.tile_h * z + (top < 0 ? top * z : 0), 3, STEP);
    }
    ins->shown_zoom = ins->zoom;
    draw_panel(ins, lw + 10, serial);
    ins->dirty = 0;
  }
  rc = gs_window_present_sized(win, ins->canvas.pixels, ins->canvas.width, ins->canvas.height,
                               (ptrdiff_t)ins->canvas.stride, d);
  if (rc == GS_OK) rc = script_step(ins, win, &ins->canvas, d);
  return rc;
}
