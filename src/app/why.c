/* why.c — `gpusim why [--frame N] [--json] [--threads N] SCENE.lua X Y
 * [ARGS...]`: renders the scene's frames 0..N headless (as `gpusim
 * --headless --frames N+1` does), then prints the provenance of pixel
 * (X, Y) of frame N — gpusim.why(X, Y) (src/lua/lwhy.c) — as text or as
 * one JSON object (docs/provenance.md gives the schema). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "app/app.h"

static const char why_usage[] =
    "usage: gpusim why [--frame N] [--json] [--threads N] SCENE.lua X Y [ARGS...]\n"
    "\n"
    "Explains pixel (X, Y) of a scene's frame (X, Y from the top-left corner, as an\n"
    "image viewer shows the PNG): every fragment that reached it in order, with its\n"
    "draw (the scene's file:line), primitive, control-list packets, tile, programs,\n"
    "output and fate (written, blended, depth_failed, stencil_failed, discarded,\n"
    "sample_masked, colour_masked); then every primitive that covers the pixel but\n"
    "made no fragment there, with the reason (clipped, culled, outside_clip_window,\n"
    "not_covered, zero_area); then the final colour. The scene runs headless,\n"
    "frames 0..N, and frame N runs again with the trace following that pixel.\n"
    "\n"
    "  --frame N     the frame to explain (default 0)\n"
    "  --json        one JSON object (docs/provenance.md) instead of text\n"
    "  --threads N   host threads rendering tiles (the answer is the same for any)\n"
    "  ARGS          the scene's arguments, as for gpusim SCENE.lua ARGS\n"
    "\n"
    "Exit status: 0 explained, 1 the scene or the pixel is wrong (outside the\n"
    "image, no frame callback, a Lua error), 2 a usage error.\n";

static int why_usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "gpusim why: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", why_usage);
  return 2;
}

/* A whole number lo..hi from text, or -1. */
static int parse_long(const char *text, long lo, long hi, long *v) {
  char *end;
  long n = strtol(text, &end, 10);
  if (!*text || *end || n < lo || n > hi) return -1;
  *v = n;
  return 0;
}

int gs_why_main(int argc, char **argv, int (*run)(const gs_run_options *, int, char **)) {
  static gs_why_request req;
  gs_run_options o;
  memset(&o, 0, sizeof o);
  memset(&req, 0, sizeof req);
  o.headless = 1;
  o.threads = 0;
  long frame = 0, threads = 0;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i], *v;
    int missing = 0;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(why_usage, stdout);
      return 0;
    } else if (strcmp(a, "--json") == 0) {
      req.json = 1;
    } else if ((v = gs_cli_option(argc, argv, &i, "--frame", &missing))) {
      if (parse_long(v, 0, 1000000, &frame) < 0)
        return why_usage_error("--frame: expected a frame number 0..1000000, got '%s'", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--threads", &missing))) {
      if (parse_long(v, 1, GS_MAX_THREADS, &threads) < 0)
        return why_usage_error("--threads: expected a whole number of threads 1..1024, got '%s'", v);
    } else if (missing) {
      return why_usage_error("option '%s' needs a value", a);
    } else if (strcmp(a, "--") == 0) {
      i++;
      break;
    } else if (a[0] == '-' && a[1] != '\0') {
      return why_usage_error("unknown option '%s'", a);
    } else {
      break;
    }
  }
  if (argc - i < 3) return why_usage_error("%s", "expected SCENE.lua X Y");
  if (parse_long(argv[i + 1], 0, GS_MAX_SIDE - 1, &req.x) < 0)
    return why_usage_error("X: expected a pixel column 0..4094, got '%s'", argv[i + 1]);
  if (parse_long(argv[i + 2], 0, GS_MAX_SIDE - 1, &req.y) < 0)
    return why_usage_error("Y: expected a pixel row 0..4094, got '%s'", argv[i + 2]);
  /* The script's argv as `gpusim SCENE.lua ARGS...` would have it. */
  o.frames = frame + 1;
  o.threads = threads ? (int)threads : 0;
  o.why = &req;
  return gs_cli_run_scene(&o, "why", argv[0], argv[i], argv + i + 3, argc - i - 3, run);
}

/* ---- printing ---------------------------------------------------------------- */

static lua_Integer field_int(lua_State *L, int t, const char *k) {
  lua_getfield(L, t, k);
  lua_Integer v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

static const char *field_str(lua_State *L, int t, const char *k) {
  lua_getfield(L, t, k);
  const char *s = lua_tostring(L, -1); /* the table keeps it alive */
  lua_pop(L, 1);
  return s;
}

/* Prints the colour table at field k of t: "r g b a". */
static void print_colour(lua_State *L, int t, const char *k, FILE *out) {
  lua_getfield(L, t, k);
  for (int c = 1; c <= 4; c++) {
    lua_rawgeti(L, -1, c);
    if (lua_isinteger(L, -1)) fprintf(out, "%s%lld", c > 1 ? " " : "", (long long)lua_tointeger(L, -1));
    else fprintf(out, "%s%.9g", c > 1 ? " " : "", lua_tonumber(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* "draw 2 (scene.lua:30), triangle 5 (vertices 15, 16, 17)" of the entry at t. */
static void print_source(lua_State *L, int t, FILE *out) {
  static const char *const kinds[4] = {"primitive", "point", "line", "triangle"};
  if (lua_getfield(L, t, "draw") == LUA_TNIL) fprintf(out, "a draw not made by the scene");
  else fprintf(out, "draw %lld (%s)", (long long)lua_tointeger(L, -1), field_str(L, t, "where"));
  lua_pop(L, 1);
  lua_getfield(L, t, "vertices");
  lua_Integer nv = (lua_Integer)lua_rawlen(L, -1);
  if (lua_getfield(L, t, "primitive") != LUA_TNIL)
    fprintf(out, ", %s %lld", kinds[nv >= 0 && nv <= 3 ? nv : 0], (long long)lua_tointeger(L, -1));
  lua_pop(L, 1);
  fprintf(out, " (vert%s", nv == 1 ? "ex" : "ices");
  for (lua_Integer k = 1; k <= nv; k++) {
    lua_rawgeti(L, -1, k);
    fprintf(out, "%s%lld", k > 1 ? ", " : " ", (long long)lua_tointeger(L, -1));
    lua_pop(L, 1);
  }
  fprintf(out, ")");
  lua_pop(L, 1);
}

static void print_packet(lua_State *L, int t, const char *k, FILE *out) {
  lua_getfield(L, t, k);
  if (lua_istable(L, -1))
    fprintf(out, "0x%08llx %s", (unsigned long long)field_int(L, lua_gettop(L), "address"),
            field_str(L, lua_gettop(L), "name"));
  else fprintf(out, "(none)");
  lua_pop(L, 1);
}

static void print_text(lua_State *L, int r, const char *script, FILE *out) {
  fprintf(out, "pixel (%lld, %lld) of frame %lld of %s (%lldx%lld)\n", (long long)field_int(L, r, "x"),
          (long long)field_int(L, r, "y"), (long long)field_int(L, r, "frame"), script,
          (long long)field_int(L, r, "width"), (long long)field_int(L, r, "height"));
  lua_getfield(L, r, "fragments");
  int fr = lua_gettop(L);
  lua_Integer n = (lua_Integer)lua_rawlen(L, fr);
  fprintf(out, "%lld fragment%s, in the order they reached the pixel%s\n", (long long)n, n == 1 ? "" : "s",
          n ? ":" : ".");
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, fr, i);
    int f = lua_gettop(L);
    fprintf(out, "  %lld. ", (long long)i);
    print_source(L, f, out);
    fprintf(out, "\n     packet ");
    print_packet(L, f, "packet", out);
    fprintf(out, "; tile list ");
    print_packet(L, f, "tile_packet", out);
    lua_getfield(L, f, "tile");
    long long tx = (long long)field_int(L, lua_gettop(L), "x"), ty = (long long)field_int(L, lua_gettop(L), "y");
    lua_getfield(L, f, "clipped");
    fprintf(out, " in tile (%lld, %lld)%s\n", tx, ty, lua_toboolean(L, -1) ? " (a piece of a clipped primitive)" : "");
    lua_pop(L, 2);
    lua_getfield(L, f, "source");
    int s = lua_gettop(L);
    fprintf(out, "     fragment program: %s at 0x%08llx (uniforms 0x%08llx)", field_str(L, s, "isa"),
            (unsigned long long)field_int(L, s, "program"), (unsigned long long)field_int(L, s, "uniforms"));
    if (field_str(L, s, "vertex_isa"))
      fprintf(out, "; vertex program: %s at 0x%08llx", field_str(L, s, "vertex_isa"),
              (unsigned long long)field_int(L, s, "vertex_program"));
    lua_pop(L, 1);
    fprintf(out, "\n     lane %lld, depth 0x%06llx", (long long)field_int(L, f, "lane"),
            (long long)field_int(L, f, "depth"));
    if (lua_getfield(L, f, "stored_depth") != LUA_TNIL)
      fprintf(out, " (the buffer held 0x%06llx, stencil %lld)", (long long)lua_tointeger(L, -1),
              (long long)field_int(L, f, "stored_stencil"));
    lua_pop(L, 1);
    if (lua_getfield(L, f, "output") != LUA_TNIL) {
      fprintf(out, ", output ");
      print_colour(L, f, "output", out);
    }
    lua_pop(L, 1);
    if (lua_getfield(L, f, "tile_colour") != LUA_TNIL) {
      fprintf(out, ", read the tile's ");
      print_colour(L, f, "tile_colour", out);
    }
    lua_pop(L, 1);
    lua_getfield(L, f, "early_z");
    fprintf(out, "\n     fate: %s%s\n", field_str(L, f, "fate"), lua_toboolean(L, -1) ? " (early Z, before shading)" : "");
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  lua_getfield(L, r, "missed");
  int m = lua_gettop(L);
  n = (lua_Integer)lua_rawlen(L, m);
  fprintf(out, "%lld primitive%s cover%s the pixel without a fragment there%s\n", (long long)n, n == 1 ? "" : "s",
          n == 1 ? "s" : "", n ? ":" : ".");
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, m, i);
    fprintf(out, "  ");
    print_source(L, lua_gettop(L), out);
    fprintf(out, ": %s\n", field_str(L, lua_gettop(L), "reason"));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  fprintf(out, "final colour: ");
  print_colour(L, r, "final", out);
  fprintf(out, "\n");
}

/* Writes the value at idx as JSON: tables with keys 1..n as arrays, others
 * as objects with their keys sorted, so that the output is stable. */
static void write_json(lua_State *L, int idx, FILE *out) {
  idx = lua_absindex(L, idx);
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) fprintf(out, "%lld", (long long)lua_tointeger(L, idx));
    else fprintf(out, "%.17g", lua_tonumber(L, idx));
    return;
  case LUA_TBOOLEAN: fputs(lua_toboolean(L, idx) ? "true" : "false", out); return;
  case LUA_TSTRING: {
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    fputc('"', out);
    for (size_t k = 0; k < n; k++) {
      unsigned char c = (unsigned char)s[k];
      if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
      else if (c < 0x20) fprintf(out, "\\u%04x", c);
      else fputc(c, out);
    }
    fputc('"', out);
    return;
  }
  case LUA_TTABLE: break;
  default: fputs("null", out); return;
  }
  lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
  int count = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) count++, lua_pop(L, 1);
  if (count == n) {
    fputc('[', out);
    for (lua_Integer k = 1; k <= n; k++) {
      if (k > 1) fputs(", ", out);
      lua_rawgeti(L, idx, k);
      write_json(L, -1, out);
      lua_pop(L, 1);
    }
    fputc(']', out);
    return;
  }
  /* the keys, sorted */
  lua_createtable(L, count, 0);
  int keys = lua_gettop(L), k = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, keys, ++k);
  }
  lua_getglobal(L, "table");
  lua_getfield(L, -1, "sort");
  lua_remove(L, -2);
  lua_pushvalue(L, keys);
  lua_call(L, 1, 0);
  fputc('{', out);
  for (int i = 1; i <= k; i++) {
    if (i > 1) fputs(", ", out);
    lua_rawgeti(L, keys, i);
    write_json(L, -1, out);
    fputs(": ", out);
    lua_gettable(L, idx);
    write_json(L, -1, out);
    lua_pop(L, 1);
  }
  fputc('}', out);
  lua_pop(L, 1); /* keys */
}

void gs_why_print(struct lua_State *L, const gs_why_request *w, const char *script) {
  int top = lua_gettop(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "gpusim");
  lua_getfield(L, -1, "why");
  lua_pushinteger(L, w->x);
  lua_pushinteger(L, w->y);
  lua_call(L, 2, 1);
  if (w->json) {
    write_json(L, -1, stdout);
    fputc('\n', stdout);
  } else {
    print_text(L, lua_gettop(L), script, stdout);
  }
  fflush(stdout);
  lua_settop(L, top);
}

void gs_json_write_lua(struct lua_State *L, int idx, FILE *out) { write_json(L, idx, out); }

void gs_why_print_colour(struct lua_State *L, int t, const char *k, FILE *out) { print_colour(L, t, k, out); }

/* The answer at idx as text (app.h): the window's inspector shows it. */
void gs_why_text(struct lua_State *L, int idx, const char *script, FILE *out) {
  print_text(L, lua_absindex(L, idx), script, out);
}
