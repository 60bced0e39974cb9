/* framediff.c — `gpusim diff --frames A.lua [B.lua] [options] [-- ARGS_A
 * [-- ARGS_B]]`: a frame diff at the level of the pipeline
 * (docs/frame-diff.md is the manual).
 *
 * Each scene runs headless to frame N through main.c's run_script (as
 * gpusim why does), and after its frames (gs_run_options.after_frames) the
 * frame's lists run once more, on one thread, with a trace subscriber
 * (v3d/trace.h) that records the GS_TRACE_PACKET events of both control
 * lists, tile lists included, and the GS_TRACE_DRAW events. Every packet
 * executed is decoded (gpusim/cl.h) into named leaves: its fields, the
 * records it points to (shader records, attribute records, clipped
 * vertices), the programs' header, SPH and code bytes, the uniform
 * streams' words, a draw's indices and the vertex data it reads, a tile
 * list's primitives. Addresses are never compared as numbers: what they
 * point to is. The two packet sequences of each list are aligned by
 * structure (equal packets, then packets of the same ID), so a packet added
 * or removed is named as such; the first packet that differs is reported
 * with the leaves that differ and the draws it affects; then the pixels
 * that differ, and for the first few the provenance gpusim.why gives in A
 * and in B.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "app/app.h"
#include "gpusim/cl.h"
#include "gpusim/driver.h"
#include "gpusim/luamod.h"
#include "gpusim/v3d.h"
#include "lua/lgpusim.h"
#include "v3d/cl.h"
#include "v3d/trace.h"
#include "v3d/v3d.h"

static const char fd_usage[] =
    "usage: gpusim diff --frames A.lua [B.lua] [OPTIONS] [-- ARGS_A [-- ARGS_B]]\n"
    "\n"
    "Runs two scenes (or one scene twice, with the arguments after the first --\n"
    "for run A and after a second -- for run B; without a second --, B gets A's)\n"
    "headless to frame N and compares the frames at the level of the pipeline:\n"
    "the binning list, the rendering list and the tile lists, packet by packet,\n"
    "with the records, programs, uniforms, indices and vertex data they point\n"
    "to, compared by content and aligned by structure (not by address). Prints\n"
    "the first packet or record that differs (the fields with both values) and\n"
    "the draws it affects (the scene's file:line), every other difference in\n"
    "one line, then the pixels that changed (count, bounding box) and, for the\n"
    "first few, their provenance in A and in B (as gpusim why gives it).\n"
    "\n"
    "  --frame N     the frame to compare (default 0; frames 0..N run)\n"
    "  --pixels N    pixels whose provenance is shown (default 3, 0..100)\n"
    "  --json        one JSON object (docs/frame-diff.md) instead of text\n"
    "  --threads N   host threads rendering tiles (the frames are the same for any)\n"
    "\n"
    "Exit status: 0 the frames are identical (no packet, record or pixel\n"
    "differs), 1 they differ, 2 a usage error or a scene that fails.\n";

#define FD_ERROR 2
#define FD_MAX_LIST (1u << 20)  /* packets kept per list */
#define FD_MAX_DATA (16u << 20) /* bytes of one leaf */

/* ---- a run's snapshot ------------------------------------------------------------ */

enum { LEAF_FIELD, LEAF_TEXT, LEAF_BYTES };

typedef struct fd_leaf {
  char name[64];
  int type;                    /* LEAF_* */
  const gs_cl_field_info *fi;  /* FIELD */
  uint32_t value;              /* FIELD */
  char *text;                  /* TEXT */
  uint8_t *data;               /* BYTES */
  uint32_t len, unit;          /* BYTES: length, and the size of one element */
  const char *elem;            /* BYTES: what an element is ("word", "vertex", ...) */
  int floats;                  /* BYTES of words: show each word's float value too */
  int shared;                  /* BYTES: data belongs to the run's blobs (not freed with the leaf) */
} fd_leaf;

/* A copy of bytes of GPU memory, shared by the leaves that show them (a
 * program or a texture in every tile list that names it). */
typedef struct fd_blob {
  const uint8_t *src;
  uint32_t n;
  uint8_t *copy;
} fd_blob;

enum { SEC_BIN = 0, SEC_RENDER = 1, SEC_TILE = 2 };

typedef struct fd_item {
  unsigned sec;                /* SEC_* */
  unsigned tile_x, tile_y;     /* SEC_TILE and SEC_RENDER: the tile coordinates in force */
  gs_addr addr;
  const gs_cl_format_info *info;
  fd_leaf *leaves;
  unsigned nleaves, cap;
  uint64_t digest;
  int draw;                    /* a draw packet of the binning list: its index in draws[], else -1 */
  gs_addr record;              /* tile lists: the shader record in force */
} fd_item;

typedef struct fd_draw {
  gs_addr addr, record;        /* its draw packet, its shader record */
  uint32_t call;               /* the frame:draw call (1, 2, ...), 0 unknown */
  char where[160];             /* "file:line" */
} fd_draw;

typedef struct fd_event {
  unsigned list;
  gs_addr addr;
  unsigned id;
} fd_event;

typedef struct fd_pixel {
  char *text, *json;
} fd_pixel;

typedef struct fd_run {
  const char *scene;
  char **args;                 /* the scene's arguments */
  int nargs;
  int collected;
  fd_item *items[2];           /* by list (0 binning, 1 rendering and tile lists) */
  unsigned nitems[2], cap_items[2];
  fd_draw *draws;
  unsigned ndraws, cap_draws;
  fd_event *ev[2];
  unsigned nev[2], cap_ev[2];
  uint8_t *fb;
  uint32_t width, height, stride, format;
  fd_pixel *pix;               /* provenance of the sample pixels (fd_ctx.px) */
  fd_blob *blobs;
  unsigned nblobs, cap_blobs;
  int nomem;
} fd_run;

typedef struct fd_xy {
  uint32_t x, y;               /* from the image's top-left */
} fd_xy;

typedef struct fd_ctx {
  fd_run run[2];
  int which;                   /* the run being collected */
  fd_xy *px;                   /* the sample pixels */
  unsigned npx;
  long frame, pixels, threads;
  int json;
} fd_ctx;

/* Room for one more element of size `size` in *a (n used of *cap). */
static int grow(void **a, unsigned n, unsigned *cap, size_t size) {
  if (n < *cap) return 1;
  unsigned c = *cap ? *cap * 2 : 64;
  void *q = realloc(*a, (size_t)c * size);
  if (!q) return 0;
  *a = q, *cap = c;
  return 1;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static fd_leaf *add_leaf(fd_run *r, fd_item *it, int type, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static fd_leaf *add_leaf(fd_run *r, fd_item *it, int type, const char *fmt, ...) {
  if (!grow((void **)&it->leaves, it->nleaves, &it->cap, sizeof *it->leaves)) return r->nomem = 1, NULL;
  fd_leaf *l = &it->leaves[it->nleaves++];
  memset(l, 0, sizeof *l);
  l->type = type;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->name, sizeof l->name, fmt, ap);
  va_end(ap);
  return l;
}

static void leaf_field(fd_run *r, fd_item *it, const char *prefix, const gs_cl_field_info *fi, uint32_t v) {
  fd_leaf *l = add_leaf(r, it, LEAF_FIELD, "%s%s", prefix, fi->name);
  if (l) l->fi = fi, l->value = v;
}

static void leaf_text(fd_run *r, fd_item *it, const char *name, const char *text) {
  fd_leaf *l = add_leaf(r, it, LEAF_TEXT, "%s", name);
  if (l && !(l->text = malloc(strlen(text) + 1))) r->nomem = 1;
  if (l && l->text) strcpy(l->text, text);
}

/* A copy of n bytes at p (may be NULL with n 0). */
static void leaf_bytes(fd_run *r, fd_item *it, const char *name, const uint8_t *p, uint32_t n, uint32_t unit,
                       const char *elem) {
  fd_leaf *l = add_leaf(r, it, LEAF_BYTES, "%s", name);
  if (!l) return;
  l->unit = unit ? unit : 1, l->elem = elem, l->len = n;
  if (n && !(l->data = malloc(n))) r->nomem = 1, l->len = 0;
  if (l->data) memcpy(l->data, p, n);
}

/* As leaf_bytes for n bytes of GPU memory at p, sharing one copy among
 * the leaves of the run that show the same bytes. */
static void leaf_gpu(fd_run *r, fd_item *it, const char *name, const uint8_t *p, uint32_t n, uint32_t unit,
                     const char *elem) {
  if (!p || !n) {
    leaf_bytes(r, it, name, NULL, 0, unit, elem);
    return;
  }
  fd_blob *b = NULL;
  for (unsigned i = 0; i < r->nblobs && !b; i++)
    if (r->blobs[i].src == p && r->blobs[i].n == n) b = &r->blobs[i];
  if (!b) {
    if (!grow((void **)&r->blobs, r->nblobs, &r->cap_blobs, sizeof *r->blobs)) { r->nomem = 1; return; }
    b = &r->blobs[r->nblobs];
    if (!(b->copy = malloc(n))) { r->nomem = 1; return; }
    memcpy(b->copy, p, n);
    b->src = p, b->n = n;
    r->nblobs++;
  }
  fd_leaf *l = add_leaf(r, it, LEAF_BYTES, "%s", name);
  if (!l) return;
  l->unit = unit ? unit : 1, l->elem = elem, l->len = n, l->data = b->copy, l->shared = 1;
}

static void free_run(fd_run *r) {
  for (int k = 0; k < 2; k++) {
    for (unsigned i = 0; i < r->nitems[k]; i++) {
      fd_item *it = &r->items[k][i];
      for (unsigned j = 0; j < it->nleaves; j++) free(it->leaves[j].text), free(it->leaves[j].shared ? NULL : it->leaves[j].data);
      free(it->leaves);
    }
    free(r->items[k]);
    free(r->ev[k]);
    r->items[k] = NULL, r->ev[k] = NULL, r->nitems[k] = r->nev[k] = 0;
  }
  for (unsigned i = 0; i < r->nblobs; i++) free(r->blobs[i].copy);
  free(r->blobs);
  r->blobs = NULL, r->nblobs = 0;
  free(r->draws);
  free(r->fb);
  r->draws = NULL, r->fb = NULL, r->ndraws = 0;
}

static void free_pixels(fd_run *r, unsigned n) {
  for (unsigned i = 0; r->pix && i < n; i++) free(r->pix[i].text), free(r->pix[i].json);
  free(r->pix);
  r->pix = NULL;
}

/* ---- decoding the packets into leaves --------------------------------------------- */

typedef struct walk {
  fd_run *r;
  const gs_mem *mem;
  gs_cl_view view;
  const gs_drv_frame *f;
  gs_cl_prim_format fmt[2];    /* the primitive list format in force, per list */
  gs_addr gl_record;           /* the binning list's shader state in force */
  unsigned gl_id, gl_attrs, gl_ext;
  unsigned depth;              /* sub-list nesting of the rendering list */
  unsigned tile_x, tile_y;
  gs_addr tile_record;
} walk;

/* The bytes [a, a+n) of GPU memory, or NULL. */
static const uint8_t *at(const walk *w, gs_addr a, uint32_t n) { return n ? gs_mem_ptr(w->mem, a, n) : NULL; }

/* Bytes from a to the end of the allocation a lies in (0: none). */
static uint32_t alloc_extent(const gs_mem *m, gs_addr a) {
  if (!gs_mem_ptr(m, a, 1)) return 0;
  uint32_t lo = 1, hi = 0xffffffffu - a;
  while (lo < hi) { /* the largest n with [a, a+n) readable: between lo (yes) and hi */
    uint32_t mid = lo + (hi - lo + 1) / 2;
    if (gs_mem_ptr(m, a, mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* Whether an allocation starts at a. */
static int alloc_start(const gs_mem *m, gs_addr a) {
  return a >= 0x1000 && gs_mem_ptr(m, a, 1) && !gs_mem_ptr(m, a - 1, 2);
}

/* The bytes an address in a uniform points to: up to the end of its
 * allocation (its first 1 MB, and a digest of the rest). */
static void leaf_pointed(walk *w, fd_item *it, const char *name, gs_addr a) {
  uint32_t n = alloc_extent(w->mem, a);
  if (n <= (1u << 20)) {
    leaf_gpu(w->r, it, name, at(w, a, n), n, 4, "word");
    return;
  }
  uint8_t *buf = malloc((1u << 20) + 8);
  if (!buf) { w->r->nomem = 1; return; }
  memcpy(buf, at(w, a, 1u << 20), 1u << 20);
  uint64_t h = fnv(14695981039346656037ull, at(w, a, n), n);
  memcpy(buf + (1u << 20), &h, 8);
  leaf_bytes(w->r, it, name, buf, (1u << 20) + 8, 4, "word");
  free(buf);
}

/* A uniform stream: its words, as the driver listed them. A word whose
 * bits 31:12 are the start of an allocation holds an address: a texture's
 * first TMU config word (RG Table 15: the base in 4 KB units, the other
 * fields in bits 11:0) or a 4 KB aligned buffer's. It is kept without the
 * address, and what the address points to becomes a leaf of its own, so a
 * texture placed elsewhere in another run compares equal; the word after
 * it (the texture's second config word: sizes and filters) is kept as it
 * is. */
static void leaf_uniforms(walk *w, fd_item *it, const char *name, gs_addr a) {
  uint32_t words = 0;
  char n[96];
  for (unsigned i = 0; i < w->f->n_unif_streams; i++)
    if (w->f->unif_streams[i].addr == a) words = w->f->unif_streams[i].words;
  const uint8_t *p = at(w, a, 4 * words);
  if (!p) words = 0;
  uint32_t *v = malloc(4 * (size_t)words + 4);
  if (!v) { w->r->nomem = 1; return; }
  if (words) memcpy(v, p, 4 * (size_t)words);
  for (uint32_t k = 0; k < words; k++)
    if (alloc_start(w->mem, v[k] & ~0xfffu)) {
      snprintf(n, sizeof n, "%s, word %u: the memory at its address", name, k);
      leaf_pointed(w, it, n, v[k] & ~0xfffu);
      v[k++] &= 0xfffu;
    }
  leaf_bytes(w->r, it, name, (const uint8_t *)v, 4 * words, 4, "word");
  free(v);
  if (it->nleaves) it->leaves[it->nleaves - 1].floats = 1;
}

/* A program at code: its instruction set, SPH and code bytes from the
 * driver's header; a program without one is VideoCore IV code up to its
 * thread end and two delay slots. */
static void leaf_program(walk *w, fd_item *it, const char *name, gs_addr code) {
  char n[64];
  if (!code) return;
  const uint8_t *h = code >= GS_DRV_PROGRAM_HEADER ? at(w, code - GS_DRV_PROGRAM_HEADER, GS_DRV_PROGRAM_HEADER) : NULL;
  uint32_t hw[4] = {0, 0, 0, 0};
  if (h) memcpy(hw, h, sizeof hw);
  if (h && hw[0] == GS_DRV_PROGRAM_MAGIC) {
    static const char *const isas[5] = {"qpu", "qpu", "sass", "pica", "agx"};
    snprintf(n, sizeof n, "%s.isa", name);
    leaf_text(w->r, it, n, hw[3] < 5 ? isas[hw[3]] : "?");
    snprintf(n, sizeof n, "%s.sph", name);
    leaf_gpu(w->r, it, n, h + 16, 80, 4, "word");
    const uint8_t *p = hw[1] <= FD_MAX_DATA ? at(w, code, hw[1]) : NULL;
    snprintf(n, sizeof n, "%s.code", name);
    leaf_gpu(w->r, it, n, p, p ? hw[1] : 0, hw[3] == GS_DRV_ISA_PICA ? 4 : hw[3] == GS_DRV_ISA_AGX ? 2 : 8,
             hw[3] == GS_DRV_ISA_AGX ? "half-word" : "instruction");
    return;
  }
  uint32_t len = 0, end = 0;
  for (const uint8_t *p; len < 8 * 65536 && (p = at(w, code + len, 8)); len += 8) {
    uint32_t hi;
    memcpy(&hi, p + 4, 4);
    if (end && --end == 0) {
      len += 8;
      break;
    }
    if (!end && hi >> 28 == 3) end = 3; /* the thread end signal, then two delay slots */
  }
  snprintf(n, sizeof n, "%s.isa", name);
  leaf_text(w->r, it, n, "qpu (no driver header)");
  snprintf(n, sizeof n, "%s.code", name);
  leaf_gpu(w->r, it, n, at(w, code, len), len, 8, "instruction");
}

/* A record's fields as leaves "prefix<field>"; its code and uniform
 * addresses become the programs and streams they point to. */
static void leaf_record(walk *w, fd_item *it, const char *prefix, int rec, gs_addr a) {
  const gs_cl_format_info *f = gs_cl_record_info(rec);
  uint32_t v[GS_CL_MAX_FIELDS];
  gs_diag d;
  char n[64];
  if (gs_cl_decode_record(&w->view, a, f, v, &d) < 0) {
    snprintf(n, sizeof n, "%serror", prefix);
    leaf_text(w->r, it, n, d.msg);
    return;
  }
  for (int i = 0; i < f->nfields; i++) {
    const gs_cl_field_info *fi = &f->fields[i];
    snprintf(n, sizeof n, "%s%s", prefix, fi->name);
    if (fi->kind != GS_CL_ADDR) leaf_field(w->r, it, prefix, fi, v[i]);
    else if (strstr(fi->name, "_code")) leaf_program(w, it, n, v[i]);
    else if (strstr(fi->name, "_uniforms")) leaf_uniforms(w, it, n, v[i]);
  }
}

/* The vertices [lo, hi] a draw reads of each attribute of the shader state
 * in force, as one leaf per attribute. */
static void leaf_vertices(walk *w, fd_item *it, uint32_t lo, uint32_t hi) {
  char n[64];
  if (hi < lo || hi - lo >= (1u << 20)) return;
  uint32_t count = hi - lo + 1;
  if (w->gl_id == GS_CL_NV_SHADER_STATE) {
    const uint8_t *p = at(w, w->gl_record, 16);
    if (!p) return;
    uint32_t stride = p[1], base;
    memcpy(&base, p + 12, 4);
    const uint8_t *q = stride ? at(w, base + lo * stride, count * stride) : NULL;
    leaf_bytes(w->r, it, "vertex data", q, q ? count * stride : 0, stride, "vertex");
    return;
  }
  if (w->gl_id != GS_CL_GL_SHADER_STATE) return;
  for (unsigned i = 0; i < w->gl_attrs; i++) {
    const uint8_t *ar = at(w, w->gl_record + GS_CL_GL_ATTR_OFFSET + 8 * i, 8);
    if (!ar) return;
    uint32_t base, size = (uint32_t)ar[4] + 1, stride = ar[5];
    memcpy(&base, ar, 4);
    if (w->gl_ext) {
      const uint8_t *e = at(w, w->gl_record + GS_CL_GL_EXT_STRIDE_OFFSET + 4 * i, 4);
      uint32_t word = 0;
      if (e) memcpy(&word, e, 4);
      stride = (word & ~0xffu) | stride;
    }
    uint8_t *buf = malloc((size_t)count * size);
    if (!buf) { w->r->nomem = 1; return; }
    uint32_t got = 0;
    for (uint32_t v = 0; v < count; v++) {
      const uint8_t *p = at(w, base + (lo + v) * stride, size);
      if (!p) break;
      memcpy(buf + (size_t)v * size, p, size);
      got++;
    }
    snprintf(n, sizeof n, "attribute %u data", i);
    leaf_bytes(w->r, it, n, buf, got * size, size, "vertex");
    free(buf);
  }
}

/* The primitives of a compressed list at tail, as vertex words. */
static void leaf_prims(walk *w, fd_item *it, const gs_cl_prim_format *fmt, gs_addr tail) {
  gs_cl_prim_reader rd;
  gs_cl_prim_item pi;
  gs_diag d;
  int nv = gs_cl_prim_vertices(fmt, &d);
  if (nv <= 0) return;
  uint32_t *v = NULL;
  unsigned n = 0, cap = 0;
  gs_cl_prim_reader_init(&rd, &w->view, fmt, tail);
  while (gs_cl_prim_read(&rd, &pi, &d) == GS_OK && pi.kind != GS_CL_ITEM_ESCAPE) {
    if (pi.kind != GS_CL_ITEM_PRIM) continue;
    if (!grow((void **)&v, n + 2, &cap, sizeof *v) || !grow((void **)&v, n + 3, &cap, sizeof *v)) break;
    for (int k = 0; k < nv; k++) v[n++] = pi.prim.v[k];
  }
  leaf_bytes(w->r, it, "primitives", (const uint8_t *)v, 4 * n, 4 * (uint32_t)nv, "primitive");
  free(v);
}

/* One executed packet into an item of its list (control flow packets are
 * followed, not kept). */
static void add_packet(walk *w, const fd_event *e) {
  fd_run *r = w->r;
  gs_cl_packet p;
  gs_diag d;
  unsigned l = e->list ? 1 : 0;
  if (e->id == GS_CL_BRANCH) return;
  if (l == 1 && e->id == GS_CL_BRANCH_TO_SUB_LIST) {
    w->depth++;
    w->tile_record = 0;
    w->fmt[1].data = 0;
    return;
  }
  if (l == 1 && e->id == GS_CL_RETURN_FROM_SUB_LIST) {
    if (w->depth) w->depth--;
    return;
  }
  if (r->nitems[l] >= FD_MAX_LIST || !grow((void **)&r->items[l], r->nitems[l], &r->cap_items[l], sizeof(fd_item)))
    { r->nomem = 1; return; }
  fd_item *it = &r->items[l][r->nitems[l]++];
  memset(it, 0, sizeof *it);
  it->sec = l == 0 ? SEC_BIN : w->depth ? SEC_TILE : SEC_RENDER;
  it->addr = e->addr;
  it->draw = -1;
  it->info = gs_cl_packet_info(e->id);
  if (gs_cl_decode(&w->view, e->addr, &w->fmt[l], 0, &p, &d) < 0) {
    leaf_text(r, it, "error", d.msg);
    return;
  }
  if (p.info->id == GS_CL_TILE_COORDINATES) w->tile_x = p.values[0], w->tile_y = p.values[1];
  it->tile_x = w->tile_x, it->tile_y = w->tile_y;
  /* Addresses, and the size of the binner's tile memory (the driver's
   * estimate from the frame's work), say where things are, not what. */
  for (int i = 0; i < p.info->nfields; i++)
    if (p.info->fields[i].kind != GS_CL_ADDR && strcmp(p.info->fields[i].name, "tile_alloc_size"))
      leaf_field(r, it, "", &p.info->fields[i], p.values[i]);
  uint32_t v0 = p.info->nfields ? p.values[0] : 0;
  switch (p.info->id) {
  case GS_CL_PRIMITIVE_LIST_FORMAT:
    w->fmt[l].type = (uint8_t)p.values[0], w->fmt[l].data = (uint8_t)p.values[1];
    break;
  case GS_CL_GL_SHADER_STATE: {
    unsigned attrs = p.values[2] ? p.values[2] : 8;
    leaf_record(w, it, "record.", GS_CL_REC_GL_SHADER_RECORD, v0);
    for (unsigned i = 0; i < attrs; i++) {
      char pre[32];
      snprintf(pre, sizeof pre, "attribute %u.", i);
      leaf_record(w, it, pre, GS_CL_REC_GL_ATTRIBUTE_RECORD, v0 + GS_CL_GL_ATTR_OFFSET + 8 * i);
      if (p.values[1]) {
        snprintf(pre, sizeof pre, "attribute %u.", i);
        leaf_record(w, it, pre, GS_CL_REC_GL_EXTENDED_STRIDE, v0 + GS_CL_GL_EXT_STRIDE_OFFSET + 4 * i);
      }
    }
    if (l == 0) w->gl_record = v0, w->gl_id = GS_CL_GL_SHADER_STATE, w->gl_attrs = attrs, w->gl_ext = p.values[1];
    else w->tile_record = v0;
    break;
  }
  case GS_CL_NV_SHADER_STATE:
  case GS_CL_VG_SHADER_STATE:
    leaf_record(w, it, "record.", p.info->id == GS_CL_NV_SHADER_STATE ? GS_CL_REC_NV_SHADER_RECORD : GS_CL_REC_VG_SHADER_RECORD,
                v0);
    if (l == 0) w->gl_record = v0, w->gl_id = (unsigned)p.info->id, w->gl_attrs = 0;
    else w->tile_record = v0;
    break;
  case GS_CL_VG_INLINE_SHADER_RECORD:
    leaf_program(w, it, "fs_code", v0);
    leaf_uniforms(w, it, "fs_uniforms", p.values[2]);
    if (l == 0) w->gl_record = 0, w->gl_id = (unsigned)p.info->id;
    break;
  case GS_CL_VERTEX_ARRAY_PRIMITIVES:
    if (p.values[1]) leaf_vertices(w, it, p.values[2], p.values[2] + p.values[1] - 1);
    break;
  case GS_CL_INDEXED_PRIMITIVE_LIST: {
    uint32_t isz = p.values[1] ? 2 : 1, len = p.values[2];
    const uint8_t *q = len <= FD_MAX_DATA / 2 ? at(w, p.values[3], len * isz) : NULL;
    leaf_bytes(r, it, "indices", q, q ? len * isz : 0, isz, "index");
    leaf_vertices(w, it, 0, p.values[4]);
    break;
  }
  case GS_CL_VG_COORDINATE_ARRAY_PRIMITIVES: {
    uint32_t len = p.values[2];
    const uint8_t *q = len <= FD_MAX_DATA / 4 ? at(w, p.values[3], 4 * len) : NULL;
    leaf_bytes(r, it, "xy", q, q ? 4 * len : 0, 4, "vertex");
    break;
  }
  case GS_CL_VG_INLINE_PRIMITIVES:
    leaf_bytes(r, it, "xy", at(w, p.tail, p.next - p.tail), at(w, p.tail, p.next - p.tail) ? p.next - p.tail : 0, 4,
               "vertex");
    break;
  case GS_CL_COMPRESSED_PRIMITIVE_LIST:
    leaf_prims(w, it, &p.fmt, p.tail);
    break;
  case GS_CL_CLIPPED_PRIMITIVE:
    for (int k = 0; k < 3; k++)
      if (p.values[1 + k]) {
        char pre[32];
        snprintf(pre, sizeof pre, "vertex %d.", k);
        leaf_record(w, it, pre, GS_CL_REC_CLIPPED_VERTEX, v0 + GS_CL_CLIPPED_VERTEX_SIZE * (uint32_t)k);
      }
    leaf_prims(w, it, &p.fmt, p.tail);
    break;
  default: break;
  }
  it->record = l == 1 ? w->tile_record : w->gl_record;
}

static uint64_t item_digest(const fd_item *it) {
  uint64_t h = 14695981039346656037ull;
  int id = it->info ? it->info->id : -1;
  h = fnv(h, &id, sizeof id);
  for (unsigned i = 0; i < it->nleaves; i++) {
    const fd_leaf *l = &it->leaves[i];
    h = fnv(h, l->name, strlen(l->name) + 1);
    h = fnv(h, &l->type, sizeof l->type);
    if (l->type == LEAF_FIELD) h = fnv(h, &l->value, sizeof l->value);
    if (l->type == LEAF_TEXT) h = fnv(h, l->text, strlen(l->text) + 1);
    if (l->type == LEAF_BYTES) h = fnv(fnv(h, &l->len, sizeof l->len), l->data, l->len);
  }
  return h;
}

/* ---- collecting a run (after its frames, with the Lua state alive) ---------------------- */

static void on_event(void *ctx, const gs_trace_event *e) {
  fd_run *r = ctx;
  if (e->kind == GS_TRACE_PACKET) {
    unsigned l = e->list ? 1 : 0;
    if (r->nev[l] >= 4 * FD_MAX_LIST || !grow((void **)&r->ev[l], r->nev[l], &r->cap_ev[l], sizeof(fd_event)))
      { r->nomem = 1; return; }
    r->ev[l][r->nev[l]++] = (fd_event){l, e->addr, e->packet};
  } else if (e->kind == GS_TRACE_DRAW) {
    if (!grow((void **)&r->draws, r->ndraws, &r->cap_draws, sizeof *r->draws)) { r->nomem = 1; return; }
    fd_draw *dr = &r->draws[r->ndraws++];
    memset(dr, 0, sizeof *dr);
    dr->addr = e->addr, dr->record = e->record;
  }
}

/* Names each draw by its frame:draw call and file:line (the frame's
 * uservalue 3, as gpusim.why does); the frame userdata is at index frame. */
static void name_draws(lua_State *L, int frame, const lgs_frame_info *fi, fd_run *r) {
  lua_getiuservalue(L, frame, 3);
  for (unsigned i = 0; i < r->ndraws; i++) {
    fd_draw *dr = &r->draws[i];
    dr->call = gs_driver_draw_of_record(fi->drv, dr->record);
    if (!dr->call || lua_rawgeti(L, -1, dr->call) != LUA_TSTRING) {
      if (dr->call) lua_pop(L, 1);
      continue;
    }
    size_t n = 0;
    const char *s = lua_tolstring(L, -1, &n);
    while (n && (s[n - 1] == ':' || s[n - 1] == ' ')) n--; /* "file:line: " */
    if (n >= sizeof dr->where) n = sizeof dr->where - 1;
    memcpy(dr->where, s, n);
    dr->where[n] = '\0';
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* The text of pixel provenance (gpusim.why's table at t): the final
 * colour, then one line per fragment. */
static void why_text(lua_State *L, int t, FILE *out) {
  fprintf(out, "final ");
  gs_why_print_colour(L, t, "final", out);
  lua_getfield(L, t, "fragments");
  lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  fprintf(out, "; %lld fragment%s\n", (long long)n, n == 1 ? "" : "s");
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    int f = lua_gettop(L);
    lua_getfield(L, f, "draw");
    lua_getfield(L, f, "where");
    lua_getfield(L, f, "primitive");
    if (lua_isnil(L, -3)) fprintf(out, "      a draw not made by the scene");
    else fprintf(out, "      draw %lld (%s)", (long long)lua_tointeger(L, -3), lua_tostring(L, -2));
    if (!lua_isnil(L, -1)) fprintf(out, " primitive %lld", (long long)lua_tointeger(L, -1));
    lua_pop(L, 3);
    lua_getfield(L, f, "source");
    lua_getfield(L, -1, "isa");
    lua_getfield(L, -2, "program");
    fprintf(out, ", %s program 0x%08llx", lua_tostring(L, -2), (unsigned long long)lua_tointeger(L, -1));
    lua_pop(L, 3);
    lua_getfield(L, f, "fate");
    fprintf(out, ": %s", lua_tostring(L, -1));
    lua_pop(L, 1);
    if (lua_getfield(L, f, "output") == LUA_TTABLE) {
      fprintf(out, ", output ");
      gs_why_print_colour(L, f, "output", out);
    }
    lua_pop(L, 1);
    fputc('\n', out);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* gpusim.why for each sample pixel, kept as text and JSON. */
static void explain_pixels(lua_State *L, fd_ctx *c, fd_run *r) {
  if (!c->npx) return;
  r->pix = calloc(c->npx, sizeof *r->pix);
  if (!r->pix) luaL_error(L, "gpusim diff: host out of memory");
  for (unsigned i = 0; i < c->npx; i++) {
    int top = lua_gettop(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "gpusim");
    lua_getfield(L, -1, "why");
    lua_pushinteger(L, c->px[i].x);
    lua_pushinteger(L, c->px[i].y);
    lua_call(L, 2, 1);
    int t = lua_gettop(L);
    size_t n = 0;
    FILE *m = open_memstream(&r->pix[i].text, &n);
    if (!m) luaL_error(L, "gpusim diff: host out of memory");
    why_text(L, t, m);
    fclose(m);
    m = open_memstream(&r->pix[i].json, &n);
    if (!m) luaL_error(L, "gpusim diff: host out of memory");
    gs_json_write_lua(L, t, m);
    fclose(m);
    lua_settop(L, top);
  }
}

/* The sample pixels: the first `pixels` that differ, in rows from the top. */
static void choose_pixels(fd_ctx *c) {
  const fd_run *a = &c->run[0], *b = &c->run[1];
  if (a->width != b->width || a->height != b->height || a->format != b->format || !c->pixels) return;
  c->px = calloc((size_t)c->pixels, sizeof *c->px);
  if (!c->px) return;
  uint32_t bpp = a->format == GS_DRV_RGBA16F ? 8 : a->format == GS_DRV_BGR565 ? 2 : 4;
  for (uint32_t y = 0; y < a->height && c->npx < (unsigned)c->pixels; y++)
    for (uint32_t x = 0; x < a->width && c->npx < (unsigned)c->pixels; x++) {
      size_t o = (size_t)(a->height - 1 - y) * a->stride + (size_t)x * bpp;
      if (memcmp(a->fb + o, b->fb + o, bpp)) c->px[c->npx++] = (fd_xy){x, y};
    }
}

static void collect(lua_State *L, void *ctx) {
  fd_ctx *c = ctx;
  fd_run *r = &c->run[c->which];
  gs_gpu *g = gs_lua_gpu(L);
  lgs_frame_info fi;
  if (!g || !lgs_last_frame(L, &fi) || !fi.ran) luaL_error(L, "gpusim diff: no frame has been rendered");
  int frame = lua_gettop(L);
  const gs_drv_frame *f = &fi.frame;
  if (r->collected) { /* the second run of A: only the pixels' provenance, and the same image */
    size_t size = (size_t)f->stride * f->height;
    const uint8_t *fb = gs_mem_ptr(gs_gpu_mem(g), f->framebuffer, (uint32_t)size);
    if (!fb || size != (size_t)r->stride * r->height || memcmp(fb, r->fb, size))
      luaL_error(L, "gpusim diff: %s gave another image when it ran again: the scene is not deterministic", r->scene);
    explain_pixels(L, c, r);
    lua_settop(L, frame - 1);
    return;
  }
  size_t size = (size_t)f->stride * f->height;
  uint8_t *fb = gs_mem_ptr(gs_gpu_mem(g), f->framebuffer, (uint32_t)size);
  if (!fb) luaL_error(L, "gpusim diff: the frame buffer at 0x%08x has been released", f->framebuffer);
  r->fb = malloc(size);
  if (!r->fb) luaL_error(L, "gpusim diff: host out of memory");
  memcpy(r->fb, fb, size);
  r->width = f->width, r->height = f->height, r->stride = f->stride, r->format = f->format;
  /* The lists once more, on one thread, with the packets and draws traced
   * (no tile's rendering events: the filter's tile is none). */
  gs_trace t = {on_event, r, {-1, -1, 1 << 30, 1 << 30, 0}};
  gs_v3d_options o;
  memset(&o, 0, sizeof o);
  o.threads = 1;
  o.unif_streams = f->unif_streams;
  o.n_unif_streams = f->n_unif_streams;
  g->trace = &t;
  int rc = gs_v3d_run(g, f->bin_start, f->bin_end, f->render_start, f->render_end, &o);
  g->trace = NULL;
  int same = memcmp(fb, r->fb, size) == 0;
  memcpy(fb, r->fb, size);
  if (rc < 0) luaL_error(L, "gpusim diff: running frame %d of %s again failed: %s", (int)fi.number, r->scene, gs_gpu_error(g));
  if (!same) luaL_error(L, "gpusim diff: running frame %d of %s again gave another image", (int)fi.number, r->scene);
  name_draws(L, frame, &fi, r);
  walk w;
  memset(&w, 0, sizeof w);
  w.r = r, w.mem = gs_gpu_mem(g), w.f = f;
  w.view.mem = w.mem;
  unsigned nd = 0;
  for (unsigned l = 0; l < 2; l++)
    for (unsigned i = 0; i < r->nev[l]; i++) {
      unsigned before = r->nitems[0];
      add_packet(&w, &r->ev[l][i]);
      if (l == 0 && r->nitems[0] > before) {
        fd_item *it = &r->items[0][before];
        for (unsigned k = nd; k < r->ndraws; k++)
          if (r->draws[k].addr == it->addr) {
            it->draw = (int)k, nd = k + 1;
            break;
          }
      }
    }
  for (unsigned l = 0; l < 2; l++)
    for (unsigned i = 0; i < r->nitems[l]; i++) r->items[l][i].digest = item_digest(&r->items[l][i]);
  if (r->nomem) luaL_error(L, "gpusim diff: host out of memory (or a list longer than %u packets)", FD_MAX_LIST);
  r->collected = 1;
  if (c->which == 1) {
    choose_pixels(c);
    explain_pixels(L, c, r);
  }
  lua_settop(L, frame - 1);
}

/* ---- alignment ---------------------------------------------------------------------- */

enum { OP_SAME, OP_CHANGED, OP_REMOVED, OP_ADDED };

typedef struct fd_op {
  int op;
  int a, b;                    /* item indices, -1 when absent */
} fd_op;

static int push_op(fd_op **ops, unsigned *n, unsigned *cap, int op, int a, int b) {
  if (!grow((void **)ops, *n, cap, sizeof **ops)) return -1;
  (*ops)[(*n)++] = (fd_op){op, a, b};
  return 0;
}

static int item_id(const fd_item *it) { return it->info ? it->info->id : -1; }

/* Aligns A's items with B's: common ends first, then the middle by the
 * best score (3 for an equal pair, 1 for a pair of one packet ID, which
 * is then a change); a middle too large for that goes greedily. */
static int align(const fd_item *A, unsigned na, const fd_item *B, unsigned nb, fd_op **ops, unsigned *nops) {
  unsigned cap = 0, pre = 0, suf = 0;
  *ops = NULL, *nops = 0;
  while (pre < na && pre < nb && A[pre].digest == B[pre].digest) pre++;
  while (suf < na - pre && suf < nb - pre && A[na - 1 - suf].digest == B[nb - 1 - suf].digest) suf++;
  for (unsigned i = 0; i < pre; i++)
    if (push_op(ops, nops, &cap, OP_SAME, (int)i, (int)i) < 0) return -1;
  unsigned n = na - pre - suf, m = nb - pre - suf;
  const fd_item *a = A + pre, *b = B + pre;
  if ((uint64_t)(n + 1) * (m + 1) <= 4000000u) {
    int32_t *s = malloc((size_t)(n + 1) * (m + 1) * sizeof *s);
    if (!s) return -1;
#define S(i, j) s[(size_t)(i) * (m + 1) + (j)]
    for (unsigned i = n + 1; i-- > 0;)
      for (unsigned j = m + 1; j-- > 0;) {
        if (i == n || j == m) {
          S(i, j) = 0;
          continue;
        }
        int32_t best = S(i + 1, j) > S(i, j + 1) ? S(i + 1, j) : S(i, j + 1);
        if (item_id(&a[i]) == item_id(&b[j])) {
          int32_t v = S(i + 1, j + 1) + (a[i].digest == b[j].digest ? 3 : 1);
          if (v > best) best = v;
        }
        S(i, j) = best;
      }
    unsigned i = 0, j = 0;
    while (i < n || j < m) {
      int rc;
      if (i < n && j < m && item_id(&a[i]) == item_id(&b[j]) &&
          S(i, j) == S(i + 1, j + 1) + (a[i].digest == b[j].digest ? 3 : 1)) {
        rc = push_op(ops, nops, &cap, a[i].digest == b[j].digest ? OP_SAME : OP_CHANGED, (int)(pre + i), (int)(pre + j));
        i++, j++;
      } else if (i < n && (j == m || S(i, j) == S(i + 1, j))) {
        rc = push_op(ops, nops, &cap, OP_REMOVED, (int)(pre + i), -1);
        i++;
      } else {
        rc = push_op(ops, nops, &cap, OP_ADDED, -1, (int)(pre + j));
        j++;
      }
      if (rc < 0) return free(s), -1;
    }
#undef S
    free(s);
  } else {
    unsigned i = 0, j = 0;
    while (i < n || j < m) {
      int rc;
      if (i < n && j < m && item_id(&a[i]) == item_id(&b[j]))
        rc = push_op(ops, nops, &cap, a[i].digest == b[j].digest ? OP_SAME : OP_CHANGED, (int)(pre + i), (int)(pre + j)),
        i++, j++;
      else if (j < m && (i == n || m - j > n - i)) rc = push_op(ops, nops, &cap, OP_ADDED, -1, (int)(pre + j)), j++;
      else rc = push_op(ops, nops, &cap, OP_REMOVED, (int)(pre + i), -1), i++;
      if (rc < 0) return -1;
    }
  }
  for (unsigned k = 0; k < suf; k++)
    if (push_op(ops, nops, &cap, OP_SAME, (int)(na - suf + k), (int)(nb - suf + k)) < 0) return -1;
  return 0;
}

/* ---- describing a difference ---------------------------------------------------------- */

/* A field's value as the dump shows it. */
static void field_text(const fd_leaf *l, char *buf, size_t len) {
  if (l->fi->kind == GS_CL_FLAG) {
    snprintf(buf, len, "%u", l->value);
    return;
  }
  gs_cl_format_info one = {"", -1, 0, 0, 0, 1, l->fi};
  char t[160];
  gs_cl_format(&one, &l->value, t, sizeof t);
  const char *eq = strchr(t, '=');
  snprintf(buf, len, "%s", eq ? eq + 1 : t);
}

/* Element k of a BYTES leaf: words in hex (with their float value when
 * 4 bytes), else bytes. */
static void elem_text(const fd_leaf *l, uint32_t k, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = '\0';
  uint32_t off = k * l->unit, end = off + l->unit < l->len ? off + l->unit : l->len;
  if (off >= l->len) {
    snprintf(buf, len, "(none)");
    return;
  }
  if (l->unit % 4 == 0) {
    for (uint32_t o = off; o + 4 <= end && n < len; o += 4) {
      uint32_t w;
      memcpy(&w, l->data + o, 4);
      n += (size_t)snprintf(buf + n, len - n, "%s0x%08x", o > off ? " " : "", w);
    }
    if (l->unit == 4 && l->floats && n < len) {
      uint32_t w;
      memcpy(&w, l->data + off, 4);
      snprintf(buf + n, len - n, " (%g)", (double)gs_cl_float(w));
    }
    return;
  }
  for (uint32_t o = off; o < end && n < len; o++)
    n += (size_t)snprintf(buf + n, len - n, "%s%02x", o > off ? " " : "", l->data[o]);
}

/* One differing leaf pair (either may be NULL) as "name: A vs B". */
typedef struct fd_change {
  char name[96], a[160], b[160];
} fd_change;

static void leaf_change(const fd_leaf *la, const fd_leaf *lb, uint32_t from, fd_change *c) {
  const fd_leaf *l = la ? la : lb;
  snprintf(c->name, sizeof c->name, "%s", l->name);
  snprintf(c->a, sizeof c->a, "(none)");
  snprintf(c->b, sizeof c->b, "(none)");
  if (l->type == LEAF_FIELD) {
    if (la) field_text(la, c->a, sizeof c->a);
    if (lb) field_text(lb, c->b, sizeof c->b);
  } else if (l->type == LEAF_TEXT) {
    if (la) snprintf(c->a, sizeof c->a, "%s", la->text);
    if (lb) snprintf(c->b, sizeof c->b, "%s", lb->text);
  } else if (la && lb) {
    uint32_t n = la->len < lb->len ? la->len : lb->len, k = from;
    while (k < n && la->data[k] == lb->data[k]) k++;
    uint32_t e = k / l->unit;
    if (k == n && la->len != lb->len) {
      snprintf(c->name, sizeof c->name, "%s length", l->name);
      snprintf(c->a, sizeof c->a, "%u %ss", la->len / l->unit, l->elem);
      snprintf(c->b, sizeof c->b, "%u %ss", lb->len / l->unit, l->elem);
    } else {
      snprintf(c->name, sizeof c->name, "%s, %s %u", l->name, l->elem, e);
      elem_text(la, e, c->a, sizeof c->a);
      elem_text(lb, e, c->b, sizeof c->b);
    }
  } else {
    if (la) snprintf(c->a, sizeof c->a, "%u %ss", la->len / la->unit, la->elem);
    if (lb) snprintf(c->b, sizeof c->b, "%u %ss", lb->len / lb->unit, lb->elem);
  }
}

static int leaf_equal(const fd_leaf *a, const fd_leaf *b) {
  if (a->type != b->type) return 0;
  if (a->type == LEAF_FIELD) return a->value == b->value;
  if (a->type == LEAF_TEXT) return strcmp(a->text, b->text) == 0;
  return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static const fd_leaf *find_leaf(const fd_item *it, const char *name) {
  for (unsigned i = 0; i < it->nleaves; i++)
    if (strcmp(it->leaves[i].name, name) == 0) return &it->leaves[i];
  return NULL;
}

/* The leaves that differ between a and b (in a's order, then b's own; for
 * bytes of one length, each of the first four elements that differ), at
 * most max into out; the count of all. */
static unsigned item_changes(const fd_item *a, const fd_item *b, fd_change *out, unsigned max) {
  unsigned n = 0;
  for (unsigned i = 0; i < a->nleaves; i++) {
    const fd_leaf *la = &a->leaves[i], *lb = find_leaf(b, la->name);
    if (lb && leaf_equal(la, lb)) continue;
    if (lb && la->type == LEAF_BYTES && lb->type == LEAF_BYTES && la->len == lb->len) {
      unsigned shown = 0;
      for (uint32_t e = 0; e * la->unit < la->len; e++) {
        uint32_t off = e * la->unit, len = la->len - off < la->unit ? la->len - off : la->unit;
        if (!memcmp(la->data + off, lb->data + off, len)) continue;
        if (shown++ == 4) break;
        if (n < max) leaf_change(la, lb, off, &out[n]);
        n++;
      }
      continue;
    }
    if (n < max) leaf_change(la, lb, 0, &out[n]);
    n++;
  }
  for (unsigned i = 0; i < b->nleaves; i++) {
    if (find_leaf(a, b->leaves[i].name)) continue;
    if (n < max) leaf_change(NULL, &b->leaves[i], 0, &out[n]);
    n++;
  }
  return n;
}

/* The draws item k of list l affects: indices into r->draws in out (at
 * most max), their count. */
static unsigned affected_draws(const fd_run *r, unsigned l, unsigned k, unsigned *out, unsigned max) {
  const fd_item *items = r->items[l], *it = &items[k];
  unsigned n = 0;
  int id = item_id(it);
#define ADD(d) do { if (n < max) out[n] = (d); n++; } while (0)
  if (l == 0 && it->draw >= 0) {
    ADD((unsigned)it->draw);
    return n;
  }
  if (l == 1) { /* a tile list: the draw whose record is in force; the rendering list: every draw */
    for (unsigned d = 0; d < r->ndraws; d++)
      if (it->sec == SEC_RENDER || (it->record && r->draws[d].record == it->record)) ADD(d);
    return n;
  }
  int shader = id == GS_CL_GL_SHADER_STATE || id == GS_CL_NV_SHADER_STATE || id == GS_CL_VG_SHADER_STATE ||
               id == GS_CL_VG_INLINE_SHADER_RECORD;
  int state = shader || (id >= GS_CL_PRIMITIVE_LIST_FORMAT && id != GS_CL_TILE_BINNING_MODE_CONFIGURATION);
  for (unsigned i = state ? k + 1 : 0; i < r->nitems[0]; i++) {
    int j = item_id(&items[i]);
    if (state && i > k && (j == id || (shader && (j == GS_CL_GL_SHADER_STATE || j == GS_CL_NV_SHADER_STATE ||
                                                  j == GS_CL_VG_SHADER_STATE || j == GS_CL_VG_INLINE_SHADER_RECORD))))
      break;
    if (items[i].draw >= 0) ADD((unsigned)items[i].draw);
  }
#undef ADD
  return n;
}

/* ---- the report ------------------------------------------------------------------------ */

static const char *const sec_names[3] = {"binning list", "rendering list", "tile list"};
static const char *const op_names[4] = {"same", "changed", "removed", "added"};

typedef struct fd_diff {
  unsigned list;
  fd_op op;
} fd_diff;

static void json_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
    else if (ch < 0x20) fprintf(out, "\\u%04x", ch);
    else fputc(ch, out);
  }
  fputc('"', out);
}

static const fd_item *side_item(const fd_ctx *c, const fd_diff *d, int side) {
  int k = side ? d->op.b : d->op.a;
  return k < 0 ? NULL : &c->run[side].items[d->list][k];
}

static void print_draws(const fd_run *r, unsigned l, int k, FILE *out) {
  unsigned ids[8], n = affected_draws(r, l, (unsigned)k, ids, 8);
  if (!n) fprintf(out, "no draw");
  for (unsigned i = 0; i < n && i < 8; i++) {
    const fd_draw *d = &r->draws[ids[i]];
    if (d->call) fprintf(out, "%sdraw %u (%s)", i ? ", " : "", d->call, d->where);
    else fprintf(out, "%sa draw at 0x%08x not made by the scene", i ? ", " : "", d->addr);
  }
  if (n > 8) fprintf(out, " and %u more", n - 8);
}

static void json_draws(const fd_run *r, unsigned l, int k, FILE *out) {
  unsigned ids[64], n = k < 0 ? 0 : affected_draws(r, l, (unsigned)k, ids, 64);
  fputc('[', out);
  for (unsigned i = 0; i < n && i < 64; i++) {
    const fd_draw *d = &r->draws[ids[i]];
    fprintf(out, "%s{\"draw\": %u, \"where\": ", i ? ", " : "", d->call);
    json_str(out, d->where);
    fputc('}', out);
  }
  fputc(']', out);
}

static void print_item_line(const fd_item *it, const char *side, FILE *out) {
  fprintf(out, "  %s 0x%08x %4d %s", side, it->addr, item_id(it), it->info ? it->info->name : "?");
  if (it->sec != SEC_BIN) fprintf(out, " (tile (%u, %u))", it->tile_x, it->tile_y);
  fputc('\n', out);
}

/* One difference in full (the first) or in one line. */
static void print_diff(const fd_ctx *c, const fd_diff *d, int full, FILE *out) {
  const fd_item *a = side_item(c, d, 0), *b = side_item(c, d, 1), *it = a ? a : b;
  fd_change ch[12];
  unsigned n = a && b ? item_changes(a, b, ch, 12) : 0;
  if (!full) {
    fprintf(out, "  %s %s: %s%s", sec_names[it->sec], op_names[d->op.op], it->info ? it->info->name : "?",
            d->op.op == OP_ADDED ? " in B" : d->op.op == OP_REMOVED ? " in A" : "");
    if (it->sec != SEC_BIN) fprintf(out, " tile (%u, %u)", it->tile_x, it->tile_y);
    if (n) fprintf(out, ": %s: %s vs %s%s", ch[0].name, ch[0].a, ch[0].b, n > 1 ? ", ..." : "");
    fputc('\n', out);
    return;
  }
  fprintf(out, "first difference: %s, packet %s%s:\n", sec_names[it->sec], op_names[d->op.op],
          d->op.op == OP_ADDED ? " in B (A has no such packet here)" : d->op.op == OP_REMOVED ? " from A (B has no such packet here)" : "");
  if (a) print_item_line(a, "A", out);
  if (b) print_item_line(b, "B", out);
  for (unsigned i = 0; i < n && i < 12; i++) fprintf(out, "    %s: %s vs %s\n", ch[i].name, ch[i].a, ch[i].b);
  if (n > 12) fprintf(out, "    and %u more\n", n - 12);
  if (a) {
    fprintf(out, "  affects in A: ");
    print_draws(&c->run[0], d->list, d->op.a, out);
    fputc('\n', out);
  }
  if (b) {
    fprintf(out, "  affects in B: ");
    print_draws(&c->run[1], d->list, d->op.b, out);
    fputc('\n', out);
  }
}

static void json_item(const fd_item *it, FILE *out) {
  if (!it) {
    fputs("null", out);
    return;
  }
  fprintf(out, "{\"address\": %u, \"id\": %d, \"name\": ", it->addr, item_id(it));
  json_str(out, it->info ? it->info->name : "?");
  if (it->sec != SEC_BIN) fprintf(out, ", \"tile\": {\"x\": %u, \"y\": %u}", it->tile_x, it->tile_y);
  fputc('}', out);
}

static void json_diff(const fd_ctx *c, const fd_diff *d, FILE *out) {
  const fd_item *a = side_item(c, d, 0), *b = side_item(c, d, 1), *it = a ? a : b;
  fd_change ch[64];
  unsigned n = a && b ? item_changes(a, b, ch, 64) : 0;
  fprintf(out, "{\"list\": \"%s\", \"change\": \"%s\", \"a\": ", it->sec == SEC_BIN ? "binning" : it->sec == SEC_RENDER ? "rendering" : "tile",
          op_names[d->op.op]);
  json_item(a, out);
  fputs(", \"b\": ", out);
  json_item(b, out);
  fputs(", \"fields\": [", out);
  for (unsigned i = 0; i < n && i < 64; i++) {
    fputs(i ? ", {\"field\": " : "{\"field\": ", out);
    json_str(out, ch[i].name);
    fputs(", \"a\": ", out);
    json_str(out, ch[i].a);
    fputs(", \"b\": ", out);
    json_str(out, ch[i].b);
    fputc('}', out);
  }
  fputs("], \"draws\": {\"a\": ", out);
  json_draws(&c->run[0], d->list, d->op.a, out);
  fputs(", \"b\": ", out);
  json_draws(&c->run[1], d->list, d->op.b, out);
  fputs("}}", out);
}

/* The differences of both lists in order: the binning list's, then the
 * rendering list's (tile lists included). */
static int differences(const fd_ctx *c, fd_diff **out, unsigned *n) {
  unsigned cap = 0;
  *out = NULL, *n = 0;
  for (unsigned l = 0; l < 2; l++) {
    fd_op *ops;
    unsigned nops;
    if (align(c->run[0].items[l], c->run[0].nitems[l], c->run[1].items[l], c->run[1].nitems[l], &ops, &nops) < 0)
      return free(ops), -1;
    for (unsigned i = 0; i < nops; i++) {
      if (ops[i].op == OP_SAME) continue;
      if (!grow((void **)out, *n, &cap, sizeof **out)) return free(ops), -1;
      (*out)[(*n)++] = (fd_diff){l, ops[i]};
    }
    free(ops);
  }
  return 0;
}

typedef struct fd_pixstats {
  uint64_t changed, total;
  uint32_t x0, y0, x1, y1;
  int comparable;
} fd_pixstats;

static void pixel_stats(const fd_ctx *c, fd_pixstats *s) {
  const fd_run *a = &c->run[0], *b = &c->run[1];
  memset(s, 0, sizeof *s);
  s->x0 = s->y0 = UINT32_MAX;
  s->comparable = a->width == b->width && a->height == b->height && a->format == b->format;
  if (!s->comparable) return;
  uint32_t bpp = a->format == GS_DRV_RGBA16F ? 8 : a->format == GS_DRV_BGR565 ? 2 : 4;
  s->total = (uint64_t)a->width * a->height;
  for (uint32_t y = 0; y < a->height; y++)
    for (uint32_t x = 0; x < a->width; x++) {
      size_t o = (size_t)(a->height - 1 - y) * a->stride + (size_t)x * bpp;
      if (!memcmp(a->fb + o, b->fb + o, bpp)) continue;
      s->changed++;
      if (x < s->x0) s->x0 = x;
      if (y < s->y0) s->y0 = y;
      if (x > s->x1) s->x1 = x;
      if (y > s->y1) s->y1 = y;
    }
}

/* The draws only one run has: their draw packets were added in B or
 * removed from A by the binning list's alignment. */
static void draw_changes(const fd_ctx *c, const fd_diff *d, unsigned nd, int json, FILE *out) {
  if (json) fprintf(out, "\"draws\": {\"a\": %u, \"b\": %u", c->run[0].ndraws, c->run[1].ndraws);
  else fprintf(out, "draws: %u in A, %u in B", c->run[0].ndraws, c->run[1].ndraws);
  for (int side = 1; side >= 0; side--) {
    int any = 0;
    if (json) fprintf(out, ", \"%s\": [", side ? "added" : "removed");
    for (unsigned i = 0; i < nd; i++) {
      const fd_item *it = side_item(c, &d[i], side);
      if (d[i].list || d[i].op.op != (side ? OP_ADDED : OP_REMOVED) || it->draw < 0) continue;
      const fd_draw *dr = &c->run[side].draws[it->draw];
      if (json) {
        fprintf(out, "%s{\"draw\": %u, \"where\": ", any ? ", " : "", dr->call);
        json_str(out, dr->where);
        fputc('}', out);
      } else {
        fprintf(out, "%s draw %u (%s)", any ? "," : side ? "; new in B:" : "; only in A:", dr->call, dr->where);
      }
      any = 1;
    }
    if (json) fputc(']', out);
  }
  fputs(json ? "}" : "\n", out);
}

static void print_run_title(const fd_run *r, const char *side, long frame, FILE *out) {
  fprintf(out, "%s: frame %ld of %s", side, frame, r->scene);
  for (int i = 0; i < r->nargs; i++) fprintf(out, " %s", r->args[i]);
  fprintf(out, " (%ux%u)\n", r->width, r->height);
}

static void report_text(const fd_ctx *c, const fd_diff *d, unsigned nd, const fd_pixstats *ps, FILE *out) {
  print_run_title(&c->run[0], "A", c->frame, out);
  print_run_title(&c->run[1], "B", c->frame, out);
  if (!nd && ps->comparable && !ps->changed) {
    fprintf(out, "identical: every packet, record and pixel is the same\n");
    return;
  }
  if (nd) {
    print_diff(c, &d[0], 1, out);
    draw_changes(c, d, nd, 0, out);
    unsigned count[3] = {0, 0, 0};
    for (unsigned i = 0; i < nd; i++) count[(side_item(c, &d[i], 0) ? side_item(c, &d[i], 0) : side_item(c, &d[i], 1))->sec]++;
    fprintf(out, "%u difference%s: %u in the binning list, %u in the rendering list, %u in tile lists\n", nd,
            nd == 1 ? "" : "s", count[0], count[1], count[2]);
    for (unsigned i = 0; i < nd && i < 20; i++) print_diff(c, &d[i], 0, out);
    if (nd > 20) fprintf(out, "  and %u more\n", nd - 20);
  } else {
    fprintf(out, "no packet or record differs\n");
  }
  if (!ps->comparable) {
    fprintf(out, "the frames cannot be compared pixel by pixel: %ux%u format %u vs %ux%u format %u\n", c->run[0].width,
            c->run[0].height, c->run[0].format, c->run[1].width, c->run[1].height, c->run[1].format);
    return;
  }
  if (!ps->changed) {
    fprintf(out, "changed pixels: 0 of %llu\n", (unsigned long long)ps->total);
    return;
  }
  fprintf(out, "changed pixels: %llu of %llu, in x %u..%u, y %u..%u (from the top-left)\n",
          (unsigned long long)ps->changed, (unsigned long long)ps->total, ps->x0, ps->x1, ps->y0, ps->y1);
  for (unsigned i = 0; i < c->npx; i++) {
    fprintf(out, "pixel (%u, %u):\n", c->px[i].x, c->px[i].y);
    for (int s = 0; s < 2; s++) {
      const fd_run *r = &c->run[s];
      fprintf(out, "  %s: %s", s ? "B" : "A", r->pix && r->pix[i].text ? r->pix[i].text : "(not explained)\n");
    }
  }
}

static void report_json(const fd_ctx *c, const fd_diff *d, unsigned nd, const fd_pixstats *ps, FILE *out) {
  fprintf(out, "{\"frame\": %ld, \"identical\": %s", c->frame, !nd && ps->comparable && !ps->changed ? "true" : "false");
  for (int s = 0; s < 2; s++) {
    const fd_run *r = &c->run[s];
    fprintf(out, ", \"%s\": {\"scene\": ", s ? "b" : "a");
    json_str(out, r->scene);
    fputs(", \"args\": [", out);
    for (int i = 0; i < r->nargs; i++) {
      if (i) fputs(", ", out);
      json_str(out, r->args[i]);
    }
    fprintf(out, "], \"width\": %u, \"height\": %u, \"packets\": {\"binning\": %u, \"rendering\": %u}}", r->width,
            r->height, r->nitems[0], r->nitems[1]);
  }
  fputs(", \"first_difference\": ", out);
  if (nd) json_diff(c, &d[0], out);
  else fputs("null", out);
  fputs(", ", out);
  draw_changes(c, d, nd, 1, out);
  fputs(", \"differences\": [", out);
  for (unsigned i = 0; i < nd; i++) {
    if (i) fputs(", ", out);
    json_diff(c, &d[i], out);
  }
  fprintf(out, "], \"pixels\": {\"comparable\": %s, \"total\": %llu, \"changed\": %llu, \"box\": ",
          ps->comparable ? "true" : "false", (unsigned long long)ps->total, (unsigned long long)ps->changed);
  if (ps->changed) fprintf(out, "{\"x0\": %u, \"y0\": %u, \"x1\": %u, \"y1\": %u}", ps->x0, ps->y0, ps->x1, ps->y1);
  else fputs("null", out);
  fputs(", \"samples\": [", out);
  for (unsigned i = 0; i < c->npx; i++) {
    fprintf(out, "%s{\"x\": %u, \"y\": %u, \"a\": %s, \"b\": %s}", i ? ", " : "", c->px[i].x, c->px[i].y,
            c->run[0].pix && c->run[0].pix[i].json ? c->run[0].pix[i].json : "null",
            c->run[1].pix && c->run[1].pix[i].json ? c->run[1].pix[i].json : "null");
  }
  fputs("]}}\n", out);
}

/* ---- the command ------------------------------------------------------------------------- */

static int fd_usage_error(const char *fmt, const char *arg) {
  fputs("gpusim diff --frames: ", stderr);
  fprintf(stderr, fmt, arg);
  fputs("\nTry 'gpusim diff --frames --help' for more information.\n", stderr);
  return FD_ERROR;
}

static int parse_num(const char *t, long lo, long hi, long *v) {
  char *end;
  long n = strtol(t, &end, 10);
  if (!*t || *end || n < lo || n > hi) return -1;
  *v = n;
  return 0;
}

/* Runs scene r headless to c->frame with collect() after its frames. */
static int run_scene(fd_ctx *c, int which, int (*run)(const gs_run_options *, int, char **)) {
  fd_run *r = &c->run[which];
  gs_run_options o;
  memset(&o, 0, sizeof o);
  o.headless = 1;
  o.script = 1;
  o.frames = c->frame + 1;
  o.threads = (int)c->threads;
  o.after_frames = collect;
  o.after_ctx = c;
  char **argv = calloc((size_t)r->nargs + 3, sizeof *argv);
  if (!argv) return fprintf(stderr, "gpusim diff: host out of memory\n"), FD_ERROR;
  argv[0] = (char *)"gpusim";
  argv[1] = (char *)r->scene;
  for (int i = 0; i < r->nargs; i++) argv[2 + i] = r->args[i];
  c->which = which;
  int had = r->collected;
  int rc = run(&o, r->nargs + 2, argv);
  free(argv);
  if (rc != 0) return FD_ERROR;
  if (!had && !r->collected) {
    fprintf(stderr, "gpusim diff: %s registered no frame callback with gpusim.frame: there is no frame to compare\n",
            r->scene);
    return FD_ERROR;
  }
  return 0;
}

int gs_framediff_main(int argc, char **argv, int (*run)(const gs_run_options *, int, char **)) {
  int frames = 0;
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) frames |= strcmp(argv[i], "--frames") == 0;
  if (!frames) return -1;
  static fd_ctx c;
  memset(&c, 0, sizeof c);
  c.pixels = 3;
  const char *scenes[2] = {NULL, NULL};
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i], *v;
    int missing = 0;
    if (strcmp(a, "--frames") == 0) continue;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) return fputs(fd_usage, stdout), 0;
    if (strcmp(a, "--json") == 0) c.json = 1;
    else if ((v = gs_cli_option(argc, argv, &i, "--frame", &missing))) {
      if (parse_num(v, 0, 1000000, &c.frame) < 0) return fd_usage_error("--frame: expected a frame number 0..1000000, got '%s'", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--pixels", &missing))) {
      if (parse_num(v, 0, 100, &c.pixels) < 0) return fd_usage_error("--pixels: expected a count 0..100, got '%s'", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--threads", &missing))) {
      if (parse_num(v, 1, GS_MAX_THREADS, &c.threads) < 0)
        return fd_usage_error("--threads: expected a whole number of threads 1..1024, got '%s'", v);
    } else if (missing) return fd_usage_error("option '%s' needs a value", a);
    else if (strcmp(a, "--") == 0) break;
    else if (a[0] == '-' && a[1]) return fd_usage_error("unknown option '%s'", a);
    else if (!scenes[0]) scenes[0] = a;
    else if (!scenes[1]) scenes[1] = a;
    else return fd_usage_error("more than two scenes ('%s'): give a scene's arguments after --", a);
  }
  if (!scenes[0]) return fd_usage_error("%s", "needs a scene: gpusim diff --frames A.lua [B.lua]");
  /* ARGS_A after the first --, ARGS_B after a second (else A's). */
  int a0 = i < argc ? i + 1 : argc, a1 = a0;
  while (a1 < argc && strcmp(argv[a1], "--")) a1++;
  c.run[0].scene = scenes[0], c.run[0].args = argv + a0, c.run[0].nargs = a1 - a0;
  c.run[1].scene = scenes[1] ? scenes[1] : scenes[0];
  if (a1 < argc) c.run[1].args = argv + a1 + 1, c.run[1].nargs = argc - a1 - 1;
  else c.run[1].args = c.run[0].args, c.run[1].nargs = c.run[0].nargs;
  int rc = run_scene(&c, 0, run);
  if (rc == 0) rc = run_scene(&c, 1, run);
  if (rc == 0 && c.npx) rc = run_scene(&c, 0, run); /* A again: the sample pixels' provenance */
  fd_diff *d = NULL;
  unsigned nd = 0;
  if (rc == 0 && differences(&c, &d, &nd) < 0) {
    fprintf(stderr, "gpusim diff: host out of memory\n");
    rc = FD_ERROR;
  }
  if (rc == 0) {
    fd_pixstats ps;
    pixel_stats(&c, &ps);
    if (c.json) report_json(&c, d, nd, &ps, stdout);
    else report_text(&c, d, nd, &ps, stdout);
    fflush(stdout);
    rc = nd || !ps.comparable || ps.changed ? 1 : 0;
  }
  free(d);
  for (int s = 0; s < 2; s++) free_pixels(&c.run[s], c.npx), free_run(&c.run[s]);
  free(c.px);
  return rc;
}
