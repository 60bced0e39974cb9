/* report.c — `gpusim report [options] SCENE.lua -o REPORT.html [ARGS...]`:
 * one self-contained HTML file about a frame (docs/report.md): the frame
 * and the inspector's overlays (overlay.c) as PNG data: URIs, the frame's
 * control lists as --dump-cl decodes them (dumpcl.c) with each tile-list
 * packet linked to its tile and each draw to the tiles whose lists hold
 * its primitives, per-tile statistics, and the provenance of every pixel
 * for the browser to show on a click, exactly as gpusim why --json gives
 * it.
 *
 * The provenance comes from ONE run of the frame with the trace following
 * everything (gpusim.why_all's collector, lwhyall.c and v3d/provenance.h),
 * and is written compactly (write_provenance): the fields fragments share
 * with the other fragments of their primitive in their tile and their fate
 * are a table of classes written once as gpusim why --json writes them;
 * each fragment is its class and its own numbers; missed primitives and
 * their lists are tables; per-pixel counts, lists and final colours are
 * run-length coded.
 *
 * The page's script and style are report_js and report_css below: no
 * library, no network, no file besides the HTML.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "app/app.h"
#include "app/image.h"
#include "app/overlay.h"
#include "gpusim/luamod.h"
#include "gpusim/v3d.h"
#include "lua/lgpusim.h"
#include "lua/lwhy.h"

static const char report_usage[] =
    "usage: gpusim report [--frame N] [--threads N] SCENE.lua -o REPORT.html [ARGS...]\n"
    "\n"
    "Writes one self-contained HTML file about a scene's frame, to open in any\n"
    "browser without installing anything: the frame and the overlays (tiles,\n"
    "overdraw, trisize, isa, order), the binning and rendering control lists with\n"
    "their decoded fields (a packet is linked to the tiles it affects), per-tile\n"
    "statistics, and a click on a pixel shows its provenance as gpusim why gives\n"
    "it. The scene runs headless, frames 0..N.\n"
    "\n"
    "  -o REPORT.html  the file to write (whole or not at all; - for stdout)\n"
    "  --frame N       the frame to report (default 0)\n"
    "  --threads N     host threads rendering tiles (the report is the same for any)\n"
    "  ARGS            the scene's arguments, as for gpusim SCENE.lua ARGS\n"
    "\n"
    "Exit status: 0 written, 1 the scene failed or the file cannot be written,\n"
    "2 a usage error.\n";

typedef struct report_request {
  const char *output, *script;
  int written;         /* the report was written (after the frames) */
} report_request;

static int report_usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "gpusim report: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", report_usage);
  return 2;
}

static int parse_long(const char *text, long lo, long hi, long *v) {
  char *end;
  long n = strtol(text, &end, 10);
  if (!*text || *end || n < lo || n > hi) return -1;
  *v = n;
  return 0;
}

/* ---- writing -------------------------------------------------------------------- */

/* Writes n bytes of s as the inside of a JSON string (no quotes); '<' as
 * \u003c so that nothing in it can end the page's <script>. */
static void json_chars(FILE *out, const char *s, size_t n) {
  for (size_t k = 0; k < n; k++) {
    unsigned char c = (unsigned char)s[k];
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c == '\n') fputs("\\n", out);
    else if (c < 0x20 || c == '<') fprintf(out, "\\u%04x", c);
    else fputc(c, out);
  }
}

static void json_string(FILE *out, const char *s) {
  fputc('"', out);
  json_chars(out, s, strlen(s));
  fputc('"', out);
}

static void base64(FILE *out, const unsigned char *p, size_t n) {
  static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    fputc(a[v >> 18 & 63], out);
    fputc(a[v >> 12 & 63], out);
    fputc(i + 1 < n ? a[v >> 6 & 63] : '=', out);
    fputc(i + 2 < n ? a[v & 63] : '=', out);
  }
}

/* "data:image/png;base64,..." of img, quoted. */
static int png_uri(FILE *out, const gs_image *img, gs_diag *d) {
  unsigned char *png = NULL;
  size_t len = 0;
  int rc = gs_image_encode_png(img, &png, &len, d);
  if (rc != GS_OK) return rc;
  fputs("\"data:image/png;base64,", out);
  base64(out, png, len);
  fputc('"', out);
  free(png);
  return GS_OK;
}

/* A set of distinct strings (the fragments' and missed primitives' JSON),
 * each with its index in order of arrival. */
typedef struct strset {
  char **s;
  size_t n, cap;
  size_t *slot; /* open addressing: index + 1, 0 empty */
  size_t nslot;
} strset;

static size_t str_hash(const char *s) {
  size_t h = 1469598103934665603u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

/* The index of s (taken over: freed when already there), or -1 out of memory. */
static long strset_add(strset *t, char *s) {
  if ((t->n + 1) * 2 > t->nslot) {
    size_t ns = t->nslot ? t->nslot * 2 : 256;
    size_t *slot = calloc(ns, sizeof *slot);
    if (!slot) return free(s), -1;
    for (size_t i = 0; i < t->n; i++) {
      size_t h = str_hash(t->s[i]) & (ns - 1);
      while (slot[h]) h = (h + 1) & (ns - 1);
      slot[h] = i + 1;
    }
    free(t->slot);
    t->slot = slot, t->nslot = ns;
  }
  size_t h = str_hash(s) & (t->nslot - 1);
  for (; t->slot[h]; h = (h + 1) & (t->nslot - 1))
    if (strcmp(t->s[t->slot[h] - 1], s) == 0) return free(s), (long)(t->slot[h] - 1);
  if (t->n == t->cap) {
    size_t nc = t->cap ? t->cap * 2 : 64;
    char **ns = realloc(t->s, nc * sizeof *ns);
    if (!ns) return free(s), -1;
    t->s = ns, t->cap = nc;
  }
  t->s[t->n] = s;
  t->slot[h] = ++t->n;
  return (long)(t->n - 1);
}

static void strset_free(strset *t) {
  for (size_t i = 0; i < t->n; i++) free(t->s[i]);
  free(t->s);
  free(t->slot);
}

/* The JSON of the value at idx (gpusim why --json's writer), malloc'ed. */
static char *lua_json(lua_State *L, int idx) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m) return NULL;
  gs_json_write_lua(L, idx, m);
  if (fclose(m) != 0) return free(buf), NULL;
  return buf;
}

/* A map from 64-bit keys to indices 0, 1, ... in order of arrival. */
typedef struct keymap {
  uint64_t *key;
  size_t *slot; /* open addressing: index + 1, 0 empty */
  size_t n, cap, nslot;
} keymap;

/* The index of key k, *added set when it is new; -1 out of memory. */
static long keymap_add(keymap *m, uint64_t k, int *added) {
  *added = 0;
  if ((m->n + 1) * 2 > m->nslot) {
    size_t ns = m->nslot ? m->nslot * 2 : 256;
    size_t *slot = calloc(ns, sizeof *slot);
    if (!slot) return -1;
    for (size_t i = 0; i < m->n; i++) {
      size_t h = (size_t)(m->key[i] * 0x9e3779b97f4a7c15u >> 20) & (ns - 1);
      while (slot[h]) h = (h + 1) & (ns - 1);
      slot[h] = i + 1;
    }
    free(m->slot);
    m->slot = slot, m->nslot = ns;
  }
  size_t h = (size_t)(k * 0x9e3779b97f4a7c15u >> 20) & (m->nslot - 1);
  for (; m->slot[h]; h = (h + 1) & (m->nslot - 1))
    if (m->key[m->slot[h] - 1] == k) return (long)(m->slot[h] - 1);
  if (m->n == m->cap) {
    size_t nc = m->cap ? m->cap * 2 : 64;
    uint64_t *nk = realloc(m->key, nc * sizeof *nk);
    if (!nk) return -1;
    m->key = nk, m->cap = nc;
  }
  m->key[m->n] = k;
  m->slot[h] = ++m->n;
  *added = 1;
  return (long)(m->n - 1);
}

static void keymap_free(keymap *m) {
  free(m->key);
  free(m->slot);
}

/* Room for n longs in *a (capacity *cap): 1, or 0 out of memory. */
static int grow_longs(long **a, size_t *cap, size_t n) {
  if (n <= *cap) return 1;
  size_t c = *cap ? *cap : 64;
  while (c < n) c *= 2;
  long *q = realloc(*a, c * sizeof *q);
  if (!q) return 0;
  *a = q, *cap = c;
  return 1;
}

/* Run-length encoding of a stream of values, written as "v,run,v,run...". */
typedef struct rle {
  FILE *out;
  char last[64];
  unsigned long run;
  int any;
} rle;

static void rle_flush(rle *r) {
  if (!r->run) return;
  fprintf(r->out, "%s%s,%lu", r->any ? "," : "", r->last, r->run);
  r->any = 1, r->run = 0;
}

static void rle_put(rle *r, const char *v) {
  if (r->run && strcmp(v, r->last) == 0) {
    r->run++;
    return;
  }
  rle_flush(r);
  snprintf(r->last, sizeof r->last, "%s", v);
  r->run = 1;
}

/* Writes the JSON in set as a table "name": [...]. */
static void write_set(FILE *out, const char *name, const strset *s) {
  fprintf(out, ",\n\"%s\": [", name);
  for (size_t i = 0; i < s->n; i++) {
    fputs(i ? ",\n" : "\n", out);
    /* already JSON: only '<' needs escaping, and occurs only in strings */
    for (const char *c = s->s[i]; *c; c++)
      if (*c == '<') fputs("\\u003c", out);
      else fputc(*c, out);
  }
  fputc(']', out);
}

/* The fields of a fragment that its class does not hold (report_page.c
 * puts them back from the fragment's own numbers). */
static const char *const own_keys[] = {"lane", "depth", "stored_depth", "stored_stencil", "output", "tile_colour"};

/* A cleared depth-stencil word: depth 1.0 (0xffffff), stencil 0. */
#define ZS_CLEARED 0xffffff00LL

/* The provenance of every pixel, from one traced run of the frame
 * (gpusim.why_all's collector, gs_provall), in the compact form
 * docs/report.md describes:
 *   "classes": the fields fragments share (gpusim why --json's fragment
 *     less own_keys; "$z", "$o", "$t" say which own numbers follow);
 *   "frags": per fragment its class, lane, depth, then the tested depth-
 *     stencil word ($z), the output word(s) ($o: 1 or 2), the tile colour
 *     read ($t), pixel after pixel from the image's top-left; the depth as
 *     the difference from the last fragment of its class (0 at first), the
 *     depth-stencil word from what the pixel's z-tested fragment before it
 *     left (its own word when it failed a test, else its depth and
 *     stencil; a cleared buffer, ZS_CLEARED, at first); a single output
 *     word as the difference from its class's last;
 *   "counts": the fragments of each pixel, run-length coded (n, run, ...);
 *   "missed", "msets", "mpix": the distinct missed entries, the distinct
 *     lists of them, and each pixel's list, run-length coded;
 *   "finals": each pixel's final colour, run-length coded: -1 the output of
 *     its last fragment with one output word, else the colour's word(s).
 * 0, or -1 with the message in err. */
static int collect(lua_State *L) {
  lgs_why_all(L, -1);
  return 1;
}

static int write_provenance(lua_State *L, const lgs_frame_info *fi, FILE *out, char *err, size_t errlen) {
  int top = lua_gettop(L);
  lua_pushcfunction(L, collect); /* its errors (gpusim.why's) become err: the caller frees the page */
  if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
    snprintf(err, errlen, "%s", lua_tostring(L, -1));
    lua_settop(L, top);
    return -1;
  }
  gs_provall *a = lua_touserdata(L, -1); /* its first member (lwhyall.c) */
  lgs_frame_info fr;
  lgs_last_frame(L, &fr);
  int frame = lua_gettop(L);
  gs_gpu *g = gs_lua_gpu(L);
  const gs_drv_frame *f = &fi->frame;
  strset classes = {0}, missed = {0}, msets = {0};
  keymap cmap = {0};
  long *cls = NULL; /* the class of each key of cmap */
  size_t capcls = 0;
  long *lastd = NULL, *lasto = NULL; /* each class's last depth and last output word */
  size_t caplastd = 0, caplasto = 0, nlastd = 0;
  int nomem = 0;
  char *counts = NULL, *mpix = NULL, *finals = NULL;
  size_t ncounts = 0, nmpix = 0, nfinals = 0;
  FILE *fc = open_memstream(&counts, &ncounts), *fm = open_memstream(&mpix, &nmpix),
       *ff = open_memstream(&finals, &nfinals);
  if (!fc || !fm || !ff) nomem = 1;
  rle rc = {fc, "", 0, 0}, rm = {fm, "", 0, 0}, rf = {ff, "", 0, 0};
  fprintf(out, ",\n\"frags\": [");
  int firstf = 1;
  for (uint32_t iy = 0; iy < f->height && !nomem; iy++) {
    for (uint32_t x = 0; x < f->width && !nomem; x++) {
      uint32_t y = f->height - 1 - iy;
      gs_prov p;
      if (gs_provall_pixel(a, (int32_t)x, (int32_t)y, &p) < 0) {
        gs_prov_free(&p);
        nomem = 1;
        break;
      }
      char v[64];
      uint32_t predicted = 0;
      int have = 0;
      long long zs_next = ZS_CLEARED;
      for (unsigned i = 0; i < p.nfragments && !nomem; i++) {
        const gs_prov_fragment *fg = &p.fragments[i];
        uint64_t key = (uint64_t)fg->context << 16 | (uint64_t)fg->fate << 8 | (fg->early ? 0x80u : 0) |
                       (fg->read_tile ? 0x40u : 0) | (fg->z_tested ? 0x20u : 0) | fg->noutput;
        int added;
        long k = keymap_add(&cmap, key, &added);
        if (k < 0) {
          nomem = 1;
          break;
        }
        if (added) { /* the class: why's fragment without its own fields */
          lgs_why_push_fragment(L, frame, &fr, fg);
          for (size_t o = 0; o < sizeof own_keys / sizeof *own_keys; o++) {
            lua_pushnil(L);
            lua_setfield(L, -2, own_keys[o]);
          }
          lua_pushinteger(L, fg->z_tested ? 1 : 0);
          lua_setfield(L, -2, "$z");
          lua_pushinteger(L, fg->noutput);
          lua_setfield(L, -2, "$o");
          lua_pushinteger(L, fg->read_tile ? 1 : 0);
          lua_setfield(L, -2, "$t");
          char *j = lua_json(L, -1);
          lua_pop(L, 1);
          long c = j ? strset_add(&classes, j) : -1; /* two keys may give one class */
          if (c < 0 || !grow_longs(&cls, &capcls, (size_t)k + 1)) {
            nomem = 1;
            break;
          }
          cls[k] = c;
        }
        long c = cls[k];
        if (!grow_longs(&lastd, &caplastd, classes.n) || !grow_longs(&lasto, &caplasto, classes.n)) {
          nomem = 1;
          break;
        }
        for (; nlastd < classes.n; nlastd++) lastd[nlastd] = 0, lasto[nlastd] = 0;
        fprintf(out, "%s%ld,%d,%ld", firstf ? "" : ",", c, fg->lane, (long)fg->z - lastd[c]);
        lastd[c] = (long)fg->z;
        firstf = 0;
        if (fg->z_tested) { /* against what the fragment before it left, or a cleared buffer */
          long long zs = fg->zs_before;
          fprintf(out, ",%lld", zs - zs_next);
          int failed = fg->fate == GS_FATE_DEPTH_FAILED || fg->fate == GS_FATE_STENCIL_FAILED;
          zs_next = failed ? zs : (long long)fg->z * 256 + (zs & 255);
        }
        if (fg->noutput == 1) { /* the difference from its class's last output */
          fprintf(out, ",%lld", (long long)fg->output[0] - lasto[c]);
          lasto[c] = fg->output[0];
        }
        for (unsigned w = 0; fg->noutput == 2 && w < 2; w++) fprintf(out, ",%lu", (unsigned long)fg->output[w]);
        if (fg->read_tile) fprintf(out, ",%lu", (unsigned long)fg->loaded);
        if (fg->noutput == 1) predicted = fg->output[0], have = 1;
      }
      snprintf(v, sizeof v, "%u", p.nfragments);
      rle_put(&rc, v);
      /* the missed entries, as a list of their indices */
      char *list = NULL;
      size_t nlist = 0;
      FILE *fl = open_memstream(&list, &nlist);
      if (!fl) nomem = 1;
      for (unsigned i = 0; i < p.nmissed && fl && !nomem; i++) {
        lgs_why_push_missed(L, frame, &fr, &p.missed[i]);
        char *j = lua_json(L, -1);
        lua_pop(L, 1);
        long k = j ? strset_add(&missed, j) : -1;
        if (k < 0) nomem = 1;
        else fprintf(fl, "%s%ld", i ? "," : "[", k);
      }
      if (fl) {
        if (!p.nmissed) fputc('[', fl);
        fputc(']', fl);
        if (fclose(fl) != 0) nomem = 1;
      }
      long ms = !nomem && list ? strset_add(&msets, list) : (free(list), -1);
      if (ms < 0) nomem = 1;
      snprintf(v, sizeof v, "%ld", ms);
      rle_put(&rm, v);
      uint32_t fin[2] = {0, 0};
      if (!lgs_why_final(g, f, x, y, fin)) {
        gs_prov_free(&p);
        snprintf(err, errlen, "the frame buffer at 0x%08x has been released", f->framebuffer);
        nomem = 2;
        break;
      }
      if (f->format == GS_DRV_RGBA16F) snprintf(v, sizeof v, "[%lu,%lu]", (unsigned long)fin[0], (unsigned long)fin[1]);
      else if (have && predicted == fin[0]) snprintf(v, sizeof v, "-1");
      else snprintf(v, sizeof v, "%lu", (unsigned long)fin[0]);
      rle_put(&rf, v);
      gs_prov_free(&p);
    }
  }
  fputc(']', out);
  rle_flush(&rc), rle_flush(&rm), rle_flush(&rf);
  if ((fc && fclose(fc) != 0) || (fm && fclose(fm) != 0) || (ff && fclose(ff) != 0)) nomem = nomem ? nomem : 1;
  if (!nomem) {
    fprintf(out, ",\n\"counts\": [%s],\n\"mpix\": [%s],\n\"finals\": [%s]", counts, mpix, finals);
    write_set(out, "classes", &classes);
    write_set(out, "missed", &missed);
    write_set(out, "msets", &msets);
    fprintf(out, ",\n\"kept\": {\"fragments\": %llu, \"contexts\": %u, \"primitives\": %u, \"bytes\": %llu}",
            (unsigned long long)a->nfrags, a->nctx, a->nrecs, (unsigned long long)gs_provall_bytes(a));
  }
  free(counts), free(mpix), free(finals);
  strset_free(&classes), strset_free(&missed), strset_free(&msets);
  keymap_free(&cmap);
  free(cls), free(lastd), free(lasto);
  lua_settop(L, top);
  if (nomem == 1) snprintf(err, errlen, "host out of memory");
  return nomem ? -1 : 0;
}

/* Per tile (pipeline rows, index ty * tiles_x + tx): [primitives,
 * fragments, pixels reached, most fragments on a pixel, rendering rank,
 * pixels last written by each ISA, fragment batches shaded by each ISA]
 * (ISAs as overlay.h counts them: qpu, sass, pica, agx). */
static void write_tiles(const gs_overlay_data *od, FILE *out) {
  fprintf(out, ",\n\"tiles\": [");
  for (unsigned ty = 0; ty < od->tiles_y; ty++) {
    for (unsigned tx = 0; tx < od->tiles_x; tx++) {
      unsigned long long frags = 0, reached = 0, most = 0, isa[GS_OVERLAY_ISAS] = {0};
      for (unsigned y = ty * od->tile_h; y < (ty + 1) * od->tile_h && y < (unsigned)od->height; y++) {
        for (unsigned x = tx * od->tile_w; x < (tx + 1) * od->tile_w && x < (unsigned)od->width; x++) {
          size_t p = (size_t)y * (size_t)od->width + x;
          uint32_t n = od->overdraw[p];
          frags += n, reached += n > 0;
          if (n > most) most = n;
          if (od->isa[p] < GS_OVERLAY_ISAS) isa[od->isa[p]]++;
        }
      }
      unsigned t = ty * od->tiles_x + tx;
      fprintf(out, "%s[%u,%llu,%llu,%llu,%d", t ? "," : "", od->tile_prims[t], frags, reached, most,
              (int)od->tile_rank[t]);
      for (int k = 1; k < GS_OVERLAY_ISAS; k++) fprintf(out, ",%llu", isa[k]);
      for (int k = 1; k < GS_OVERLAY_ISAS; k++) fprintf(out, ",%u", od->tile_batches[t * GS_OVERLAY_ISAS + k]);
      fputc(']', out);
    }
  }
  fprintf(out, "]");
}

/* The frame's two control lists as --dump-cl prints them (fi: the frame,
 * rendered). 0, or -1 out of memory. */
static int write_lists(lua_State *L, const lgs_frame_info *fi, FILE *out) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return -1;
  gs_diag d;
  gs_diag_clear(&d);
  const gs_drv_frame *f = &fi->frame;
  int rc = gs_dumpcl_frame(gs_gpu_mem(gs_lua_gpu(L)), f->bin_start, f->bin_end, f->render_start, f->render_end, m, &d);
  if (rc != GS_OK) fprintf(m, "# %s\n", d.msg);
  if (fclose(m) != 0) return free(text), -1;
  fprintf(out, ",\n\"lists\": \"");
  json_chars(out, text, len);
  fputc('"', out);
  free(text);
  return 0;
}

extern const char report_css[], report_js[];

/* After the frames (gs_run_options.after_frames): the whole page, then the file. */
static void report_after(lua_State *L, void *ctx) {
  report_request *req = ctx;
  lgs_frame_info fi;
  int top = lua_gettop(L);
  int ran = lgs_last_frame(L, &fi) && fi.ran;
  lua_settop(L, top);
  if (!ran) luaL_error(L, "gpusim report: no frame has been rendered");
  gs_overlay_data od;
  gs_image frame = {0, 0, 0, NULL};
  gs_diag d;
  gs_diag_clear(&d);
  if (gs_overlay_collect(L, -1, &od, &frame, &d) != GS_OK) luaL_error(L, "gpusim report: %s", d.msg);
  char *page = NULL, err[1024] = "host out of memory";
  size_t len = 0;
  FILE *out = open_memstream(&page, &len);
  if (!out) {
    gs_overlay_data_free(&od), gs_image_free(&frame);
    luaL_error(L, "gpusim report: host out of memory");
  }
  fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>gpusim report: ");
  for (const char *c = req->script; *c; c++) /* the title: the scene's name, escaped */
    if (*c == '<') fputs("&lt;", out);
    else if (*c == '&') fputs("&amp;", out);
    else fputc(*c, out);
  fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<script>\nconst R = {\n\"scene\": ", report_css);
  json_string(out, req->script);
  fprintf(out, ",\n\"frame\": %lld, \"width\": %d, \"height\": %d, \"tiles_x\": %u, \"tiles_y\": %u,"
               " \"tile_w\": %u, \"tile_h\": %u,\n\"images\": {\"frame\": ",
          (long long)fi.number, od.width, od.height, od.tiles_x, od.tiles_y, od.tile_w, od.tile_h);
  int rc = png_uri(out, &frame, &d);
  for (int k = GS_OVERLAY_TILES; k < GS_OVERLAY_KINDS && rc == GS_OK; k++) {
    gs_image img = {0, 0, 0, NULL};
    rc = gs_overlay_compose(&od, (gs_overlay_kind)k, &frame, 1, -1, &img, &d);
    if (rc == GS_OK) {
      fprintf(out, ",\n\"%s\": ", gs_overlay_name((gs_overlay_kind)k));
      rc = png_uri(out, &img, &d);
    }
    gs_image_free(&img);
  }
  fputc('}', out);
  if (rc == GS_OK) write_tiles(&od, out);
  else snprintf(err, sizeof err, "%s", d.msg);
  gs_overlay_data_free(&od);
  gs_image_free(&frame);
  if (rc == GS_OK && write_lists(L, &fi, out) < 0) rc = -1;
  if (rc == GS_OK && write_provenance(L, &fi, out, err, sizeof err) < 0) rc = -1;
  if (rc == GS_OK) fprintf(out, "\n};\n%s</script>\n</body></html>\n", report_js);
  if (fclose(out) != 0 && rc == GS_OK) rc = -1, snprintf(err, sizeof err, "host out of memory");
  if (rc == GS_OK && gs_cli_write_file(req->output, page, len) != 0)
    rc = -1, snprintf(err, sizeof err, "cannot write %s: %s", req->output, strerror(errno));
  free(page);
  lua_settop(L, top);
  if (rc != GS_OK) luaL_error(L, "gpusim report: %s", err);
  req->written = 1;
}

int gs_report_main(int argc, char **argv, int (*run)(const gs_run_options *, int, char **)) {
  static report_request req;
  gs_run_options o;
  memset(&o, 0, sizeof o);
  memset(&req, 0, sizeof req);
  o.headless = 1;
  long frame = 0, threads = 0;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i], *v;
    int missing = 0;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(report_usage, stdout);
      return 0;
    } else if ((v = gs_cli_option(argc, argv, &i, "-o", &missing))) {
      req.output = v;
    } else if ((v = gs_cli_option(argc, argv, &i, "--frame", &missing))) {
      if (parse_long(v, 0, 1000000, &frame) < 0)
        return report_usage_error("--frame: expected a frame number 0..1000000, got '%s'", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--threads", &missing))) {
      if (parse_long(v, 1, GS_MAX_THREADS, &threads) < 0)
        return report_usage_error("--threads: expected a whole number of threads 1..1024, got '%s'", v);
    } else if (missing) {
      return report_usage_error("option '%s' needs a value", a);
    } else if (strcmp(a, "--") == 0) {
      i++;
      break;
    } else if (a[0] == '-' && a[1] != '\0') {
      return report_usage_error("unknown option '%s'", a);
    } else {
      break;
    }
  }
  if (i >= argc) return report_usage_error("%s", "expected SCENE.lua");
  /* -o may also come after the scene, before its arguments */
  int n = 0;
  char **args = calloc((size_t)(argc - i) + 2, sizeof *args);
  if (!args) return fprintf(stderr, "gpusim report: out of memory\n"), 1;
  args[n++] = argv[0];
  args[n++] = argv[i];
  for (int k = i + 1; k < argc; k++) {
    int missing = 0;
    const char *v = gs_cli_option(argc, argv, &k, "-o", &missing);
    if (missing) return free(args), report_usage_error("option '%s' needs a value", "-o");
    if (v) req.output = v;
    else args[n++] = argv[k];
  }
  if (!req.output) return free(args), report_usage_error("%s", "expected -o REPORT.html");
  req.script = argv[i];
  o.script = 1;
  o.frames = frame + 1;
  o.threads = (int)threads;
  o.after_frames = report_after;
  o.after_ctx = &req;
  int rc = run(&o, n, args);
  free(args);
  if (rc == 0 && !req.written) { /* the script ran without a frame callback: no frame */
    fprintf(stderr, "gpusim report: %s registered no frame callback with gpusim.frame: there is no frame to report\n",
            req.script);
    return 1;
  }
  return rc;
}
