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
  if (!od->tile_prims || !od->tile_rank || !od->order || !od->overdraw || !od->area || !od->isa) {
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
  gs_overlay_data *od = c->od;
  unsigned nd = keep >= 0 ? od->ndraws : 0;
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
  g->trace = &t;
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
      if (k != GS_OVERLAY_NONE) {
        if (c[3] && k == GS_OVERLAY_ISA) /* the colour names the ISA: mostly colour */
          for (int i = 0; i < 3; i++) px[i] = (uint8_t)((px[i] + c[i] * 3u + 2) / 4);
        else if (c[3]) for (int i = 0; i < 3; i++) px[i] = (uint8_t)((px[i] * 2u + c[i] * 3u + 2) / 5);
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
