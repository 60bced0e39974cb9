/* report.c — `gpusim report [options] SCENE.lua -o REPORT.html [ARGS...]`:
 * one self-contained HTML file about a frame (docs/report.md): the frame
 * and the inspector's overlays (overlay.c) as PNG data: URIs, the frame's
 * control lists as --dump-cl decodes them (dumpcl.c) with each tile-list
 * packet linked to its tile and each draw to the tiles whose lists hold
 * its primitives, per-tile statistics, and the provenance of the frame's
 * pixels (gpusim.why, lwhy.c) for the browser to show on a click.
 *
 * The provenance of every pixel would cost one run of the frame each, so
 * the report explains the pixels of a grid (--step S: every S-th column
 * and row, each cell's centre; the default keeps the grid at about 1,200
 * pixels) and a click shows the nearest explained pixel, naming it. Pixels
 * refer to a table of distinct fragments and of distinct missed
 * primitives, each written once as gpusim why --json writes it, less the
 * fields a fragment shares with its primitive's other fragments in its
 * tile (draw, packets, programs, tile...), which are a table of their own.
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

static const char report_usage[] =
    "usage: gpusim report [--frame N] [--step S] [--threads N] SCENE.lua -o REPORT.html [ARGS...]\n"
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
    "  --step S        explain every S-th pixel of each row and column (1: every\n"
    "                  pixel; default: the step that keeps about 1,200 pixels)\n"
    "  --threads N     host threads rendering tiles (the report is the same for any)\n"
    "  ARGS            the scene's arguments, as for gpusim SCENE.lua ARGS\n"
    "\n"
    "Exit status: 0 written, 1 the scene failed or the file cannot be written,\n"
    "2 a usage error.\n";

typedef struct report_request {
  const char *output, *script;
  long step;
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

/* The fields a fragment shares with the other fragments of its primitive
 * in its tile: written once as a context the fragment names. */
static const char *const context_keys[] = {"clipped", "draw", "packet", "primitive", "record",
                                           "source", "tile", "tile_packet", "vertices", "where"};

/* Appends to out the indices (in set) of the entries of the array field k
 * of the table at t. With ctxs, the context_keys of each entry move to a
 * table of their own, added to ctxs, and the entry names it as "context".
 * 0, or -1 out of memory. */
static int add_entries(lua_State *L, int t, const char *k, strset *set, strset *ctxs, FILE *out) {
  lua_getfield(L, t, k);
  lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  fputc('[', out);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    int e = lua_gettop(L);
    if (ctxs) {
      lua_createtable(L, 0, (int)(sizeof context_keys / sizeof *context_keys));
      for (size_t c = 0; c < sizeof context_keys / sizeof *context_keys; c++) {
        lua_getfield(L, e, context_keys[c]);
        lua_setfield(L, -2, context_keys[c]);
        lua_pushnil(L);
        lua_setfield(L, e, context_keys[c]);
      }
      char *cj = lua_json(L, -1);
      lua_pop(L, 1);
      long cid = cj ? strset_add(ctxs, cj) : -1;
      if (cid < 0) return lua_pop(L, 2), -1;
      lua_pushinteger(L, cid);
      lua_setfield(L, e, "context");
    }
    char *j = lua_json(L, e);
    lua_pop(L, 1);
    long id = j ? strset_add(set, j) : -1;
    if (id < 0) return lua_pop(L, 1), -1;
    fprintf(out, "%s%ld", i > 1 ? "," : "", id);
  }
  fputc(']', out);
  lua_pop(L, 1);
  return 0;
}

/* The provenance of the grid's pixels: "pixels": [[x, y, [fragments],
 * [missed], final], ...], then "fragments", "missed" and "contexts", the
 * distinct entries (a fragment's context_keys are in its context). 0, or -1 with the message in err (gpusim.why's error). */
static int write_provenance(lua_State *L, FILE *out, int width, int height, long step, char *err, size_t errlen) {
  strset frags = {0}, missed = {0}, ctxs = {0};
  int top = lua_gettop(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "gpusim");
  lua_getfield(L, -1, "why");
  int why = lua_gettop(L);
  fprintf(out, ",\n\"pixels\": [");
  int first = 1, nomem = 0;
  for (long y = step / 2; y < height && !nomem; y += step) {
    for (long x = step / 2; x < width && !nomem; x += step) {
      lua_pushvalue(L, why);
      lua_pushinteger(L, x);
      lua_pushinteger(L, y);
      lua_createtable(L, 0, 1); /* one thread: each run traces one pixel, faster than the pool's handoffs */
      lua_pushinteger(L, 1);
      lua_setfield(L, -2, "threads");
      if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        snprintf(err, errlen, "%s", lua_tostring(L, -1));
        strset_free(&frags), strset_free(&missed), strset_free(&ctxs);
        lua_settop(L, top);
        return -1;
      }
      int r = lua_gettop(L);
      fprintf(out, "%s\n[%ld,%ld,", first ? "" : ",", x, y);
      first = 0;
      if (add_entries(L, r, "fragments", &frags, &ctxs, out) < 0) nomem = 1;
      fputc(',', out);
      if (!nomem && add_entries(L, r, "missed", &missed, NULL, out) < 0) nomem = 1;
      fputc(',', out);
      lua_getfield(L, r, "final");
      gs_json_write_lua(L, -1, out);
      fputc(']', out);
      lua_settop(L, why);
    }
  }
  fprintf(out, "]");
  static const char *const names[3] = {"fragments", "missed", "contexts"};
  const strset *sets[3] = {&frags, &missed, &ctxs};
  for (int pass = 0; pass < 3 && !nomem; pass++) {
    const strset *s = sets[pass];
    fprintf(out, ",\n\"%s\": [", names[pass]);
    for (size_t i = 0; i < s->n; i++) {
      fputs(i ? ",\n" : "\n", out);
      /* already JSON: only '<' needs escaping, and occurs only in strings */
      for (const char *c = s->s[i]; *c; c++)
        if (*c == '<') fputs("\\u003c", out);
        else fputc(*c, out);
    }
    fprintf(out, "]");
  }
  strset_free(&frags), strset_free(&missed), strset_free(&ctxs);
  lua_settop(L, top);
  if (nomem) snprintf(err, errlen, "host out of memory");
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
  long step = req->step;
  if (step <= 0) { /* about 1,200 pixels */
    step = 1;
    while ((long)od.width / step * ((long)od.height / step) > 1200) step++;
  }
  if (step > od.width) step = od.width; /* at least one pixel: the grid starts at step / 2 */
  if (step > od.height) step = od.height;
  fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>gpusim report: ");
  for (const char *c = req->script; *c; c++) /* the title: the scene's name, escaped */
    if (*c == '<') fputs("&lt;", out);
    else if (*c == '&') fputs("&amp;", out);
    else fputc(*c, out);
  fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<script>\nconst R = {\n\"scene\": ", report_css);
  json_string(out, req->script);
  fprintf(out, ",\n\"frame\": %lld, \"width\": %d, \"height\": %d, \"tiles_x\": %u, \"tiles_y\": %u,"
               " \"tile_w\": %u, \"tile_h\": %u, \"step\": %ld,\n\"images\": {\"frame\": ",
          (long long)fi.number, od.width, od.height, od.tiles_x, od.tiles_y, od.tile_w, od.tile_h, step);
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
  int w = od.width, h = od.height;
  gs_overlay_data_free(&od);
  gs_image_free(&frame);
  if (rc == GS_OK && write_lists(L, &fi, out) < 0) rc = -1;
  if (rc == GS_OK && write_provenance(L, out, w, h, step, err, sizeof err) < 0) rc = -1;
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
    } else if ((v = gs_cli_option(argc, argv, &i, "--step", &missing))) {
      if (parse_long(v, 1, GS_MAX_SIDE, &req.step) < 0)
        return report_usage_error("--step: expected a whole number of pixels 1..4095, got '%s'", v);
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
