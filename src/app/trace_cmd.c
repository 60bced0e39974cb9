/* trace_cmd.c — `gpusim trace [--frame N] [--lane L] SCENE.lua X Y
 * [ARGS...]` or `gpusim trace [--frame N] [--lane L] --draw K --vertex I
 * [--stage vertex|coordinate] SCENE.lua [ARGS...]` (the vertex-program — or
 * coordinate-shader — invocation that shaded vertex I of draw K:
 * gpusim.debug{draw = K, vertex = I, stage = S}): renders the scene's frames 0..N headless, then prints the
 * lane trace of the fragment program invocation that last shaded pixel
 * (X, Y) of frame N: each step's pc, source line, disassembly and the
 * registers it wrote with their values — gpusim.debug{x = X, y = Y}:trace() (src/lua/
 * ldebug.c; docs/debugger.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "app/app.h"

static const char trace_usage[] =
    "usage: gpusim trace [--frame N] [--lane L] SCENE.lua X Y [ARGS...]\n"
    "       gpusim trace [--frame N] [--lane L] --draw K --vertex I [--stage S] SCENE.lua [ARGS...]\n"
    "\n"
    "Prints the lane trace of the fragment program invocation that last shaded\n"
    "pixel (X, Y) of a scene's frame (X, Y from the top-left corner, as an image\n"
    "viewer shows the PNG): a header naming the ISA, the program, the pixel, its\n"
    "lane and the batch's lanes, then one line a step: the step, the pc, the\n"
    "source (file:line of the Lua text the program was assembled from, when the\n"
    "scene assembled it), the instruction (the ISA's own disassembly) and every\n"
    "register it changed in the lane (and the group's registers), with the new\n"
    "value in hex and, when it reads as a number, as a binary32 float; then\n"
    "'end', or the error the program stopped with. The program runs on its\n"
    "ISA's reference interpreter (docs/debugger.md); the image is unchanged.\n"
    "\n"
    "With --draw K --vertex I (and no X Y) it prints the trace of the vertex\n"
    "program invocation that shaded vertex I (the index its primitives use) of\n"
    "draw K (the frame's K-th draw call, from 1) instead, as\n"
    "gpusim.debug{draw = K, vertex = I}:trace() does; with --stage coordinate,\n"
    "the coordinate-shader run of that vertex (the binning pass's).\n"
    "\n"
    "  --frame N     the frame (default 0)\n"
    "  --draw K      trace a vertex of draw K (needs --vertex)\n"
    "  --vertex I    the vertex of index I (needs --draw)\n"
    "  --stage S     with --draw: vertex (the default) or coordinate\n"
    "  --lane L      trace lane L of the batch instead of the pixel's lane\n"
    "  ARGS          the scene's arguments, as for gpusim SCENE.lua ARGS\n"
    "\n"
    "Exit status: 0 traced, 1 the scene or the pixel is wrong (outside the\n"
    "image, no fragment shaded it: the message says what gpusim why says, a Lua\n"
    "error) or the draw or vertex is (no such draw, no such vertex run), 2 a\n"
    "usage error (also --draw without --vertex, a pixel with --draw, or --stage\n"
    "without --draw).\n";

static int trace_usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "gpusim trace: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", trace_usage);
  return 2;
}

static int whole(const char *text, long lo, long hi, long *v) {
  char *end;
  long n = strtol(text, &end, 10);
  if (!*text || *end || n < lo || n > hi) return -1;
  *v = n;
  return 0;
}

int gs_trace_main(int argc, char **argv, int (*run)(const gs_run_options *, int, char **)) {
  static gs_trace_request req;
  gs_run_options o;
  memset(&o, 0, sizeof o);
  memset(&req, 0, sizeof req);
  req.lane = -1;
  req.draw = -1;
  req.vertex = -1;
  o.headless = 1;
  long frame = 0;
  int i = 1, stage = 0;
  for (; i < argc; i++) {
    const char *a = argv[i], *v;
    int missing = 0;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(trace_usage, stdout);
      return 0;
    } else if ((v = gs_cli_option(argc, argv, &i, "--frame", &missing))) {
      if (whole(v, 0, 1000000, &frame) < 0)
        return trace_usage_error("--frame: expected a frame number 0..1000000, got '%s'", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--lane", &missing))) {
      if (whole(v, 0, 31, &req.lane) < 0) return trace_usage_error("--lane: expected a lane 0..31, got '%s'", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--draw", &missing))) {
      if (whole(v, 1, 0x7fffffff, &req.draw) < 0)
        return trace_usage_error("--draw: expected a draw number 1.. (the frame's draw calls, from 1), got '%s'", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--vertex", &missing))) {
      if (whole(v, 0, 0x7fffffff, &req.vertex) < 0)
        return trace_usage_error("--vertex: expected a vertex index 0.., got '%s'", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--stage", &missing))) {
      if (strcmp(v, "vertex") && strcmp(v, "coordinate"))
        return trace_usage_error("--stage: expected vertex or coordinate, got '%s'", v);
      req.coordinate = strcmp(v, "coordinate") == 0;
      stage = 1;
    } else if (missing) {
      return trace_usage_error("option '%s' needs a value", a);
    } else if (strcmp(a, "--") == 0) {
      i++;
      break;
    } else if (a[0] == '-' && a[1] != '\0') {
      return trace_usage_error("unknown option '%s'", a);
    } else {
      break;
    }
  }
  if (stage && req.draw < 0) return trace_usage_error("%s", "--stage goes with --draw K --vertex I");
  if ((req.draw < 0) != (req.vertex < 0))
    return trace_usage_error("%s", req.draw < 0 ? "--vertex needs --draw K" : "--draw needs --vertex I");
  if (req.draw >= 0) {
    if (argc - i < 1) return trace_usage_error("%s", "expected SCENE.lua after --draw K --vertex I");
    /* a pixel as well: two numbers right after the scene */
    if (argc - i >= 3 && whole(argv[i + 1], 0, GS_MAX_SIDE - 1, &req.x) == 0 &&
        whole(argv[i + 2], 0, GS_MAX_SIDE - 1, &req.y) == 0)
      return trace_usage_error("%s", "give either a pixel (X Y) or --draw K --vertex I, not both");
    o.frames = frame + 1;
    o.trace = &req;
    return gs_cli_run_scene(&o, "trace", argv[0], argv[i], argv + i + 1, argc - i - 1, run);
  }
  if (argc - i < 3) return trace_usage_error("%s", "expected SCENE.lua X Y");
  if (whole(argv[i + 1], 0, GS_MAX_SIDE - 1, &req.x) < 0)
    return trace_usage_error("X: expected a pixel column 0..4094, got '%s'", argv[i + 1]);
  if (whole(argv[i + 2], 0, GS_MAX_SIDE - 1, &req.y) < 0)
    return trace_usage_error("Y: expected a pixel row 0..4094, got '%s'", argv[i + 2]);
  o.frames = frame + 1;
  o.trace = &req;
  return gs_cli_run_scene(&o, "trace", argv[0], argv[i], argv + i + 3, argc - i - 3, run);
}

void gs_trace_print(struct lua_State *L, const gs_trace_request *t) {
  int top = lua_gettop(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "gpusim");
  lua_getfield(L, -1, "debug");
  lua_createtable(L, 0, 3);
  if (t->draw >= 0 && t->coordinate) {
    lua_pushliteral(L, "coordinate");
    lua_setfield(L, -2, "stage");
  }
  lua_pushinteger(L, t->draw >= 0 ? t->draw : t->x);
  lua_setfield(L, -2, t->draw >= 0 ? "draw" : "x");
  lua_pushinteger(L, t->draw >= 0 ? t->vertex : t->y);
  lua_setfield(L, -2, t->draw >= 0 ? "vertex" : "y");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "trace");
  lua_pushvalue(L, -2);
  if (t->lane >= 0) lua_pushinteger(L, t->lane);
  else lua_pushnil(L);
  lua_call(L, 2, 1);
  fputs(lua_tostring(L, -1), stdout);
  fflush(stdout);
  lua_settop(L, top);
}
