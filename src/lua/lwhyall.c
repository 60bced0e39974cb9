/* lwhyall.c — gpusim.why_all([{threads = N}]): the provenance of every
 * pixel of the last frame gpusim.render ran, from ONE run of its control
 * lists with the trace following everything (v3d/provenance.h, gs_provall),
 * where gpusim.why(x, y) runs the frame once per pixel. It returns an
 * object whose :pixel(x, y) gives exactly the table gpusim.why(x, y) gives
 * (docs/provenance.md, "Every pixel from one run"); gpusim report uses the
 * same collector (lgs_why_all). */
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "gpusim/luamod.h"
#include "lua/lgpusim.h"
#include "lua/lwhy.h"

#define WHY_ALL_TYPE "gpusim.why_all"

typedef struct why_all {
  gs_provall a;                /* first: the userdata is also the gs_provall (lwhy.h) */
  int ready;                   /* a holds the answers (the run succeeded) */
  lua_Integer number;          /* the frame's number and lists: the frame it explains */
  gs_addr bin_start, framebuffer;
} why_all;

static int why_all_gc(lua_State *L) {
  why_all *w = luaL_checkudata(L, 1, WHY_ALL_TYPE);
  gs_provall_free(&w->a);
  w->ready = 0;
  return 0;
}

/* The last frame (pushed) when it is the one w explains; raises otherwise. */
static void check_frame(lua_State *L, const why_all *w, lgs_frame_info *fi) {
  if (!w->ready) luaL_error(L, "gpusim.why_all: the answers are gone");
  if (!lgs_last_frame(L, fi) || !fi->ran || fi->number != w->number || fi->frame.bin_start != w->bin_start ||
      fi->frame.framebuffer != w->framebuffer)
    luaL_error(L, "gpusim.why_all: another frame has been rendered since (call gpusim.why_all() again)");
}

/* w:pixel(x, y): gpusim.why(x, y)'s table, from the collected run. */
static int why_all_pixel(lua_State *L) {
  why_all *w = luaL_checkudata(L, 1, WHY_ALL_TYPE);
  lua_Integer x = luaL_checkinteger(L, 2), y = luaL_checkinteger(L, 3);
  lua_settop(L, 3);
  lgs_frame_info fi;
  check_frame(L, w, &fi);
  int frame = lua_gettop(L);
  const gs_drv_frame *f = &fi.frame;
  if (x < 0 || y < 0 || x >= (lua_Integer)f->width || y >= (lua_Integer)f->height)
    return luaL_error(L, "gpusim.why_all: pixel (%d, %d) is outside the %dx%d image (x 0..%d, y 0..%d from the top-left)",
                      (int)x, (int)y, (int)f->width, (int)f->height, (int)f->width - 1, (int)f->height - 1);
  uint32_t final[2] = {0, 0};
  int32_t py = (int32_t)(f->height - 1 - (uint32_t)y);
  gs_gpu *g = gs_lua_gpu(L);
  if (!g || !lgs_why_final(g, f, (uint32_t)x, (uint32_t)py, final))
    return luaL_error(L, "gpusim.why_all: the frame buffer at 0x%08x has been released", f->framebuffer);
  gs_prov p;
  if (gs_provall_pixel(&w->a, (int32_t)x, py, &p) < 0) {
    gs_prov_free(&p);
    return luaL_error(L, "gpusim.why_all: host out of memory");
  }
  lgs_why_push_answer(L, frame, &fi, &p, x, y, final);
  gs_prov_free(&p);
  return 1;
}

/* w:stats(): {fragments, contexts, primitives, bytes} — what the one run
 * kept and the host memory it takes. */
static int why_all_stats(lua_State *L) {
  why_all *w = luaL_checkudata(L, 1, WHY_ALL_TYPE);
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, (lua_Integer)w->a.nfrags);
  lua_setfield(L, -2, "fragments");
  lua_pushinteger(L, (lua_Integer)w->a.nctx);
  lua_setfield(L, -2, "contexts");
  lua_pushinteger(L, (lua_Integer)w->a.nrecs);
  lua_setfield(L, -2, "primitives");
  lua_pushinteger(L, (lua_Integer)gs_provall_bytes(&w->a));
  lua_setfield(L, -2, "bytes");
  return 1;
}

gs_provall *lgs_why_all(lua_State *L, int threads) {
  lgs_frame_info fi;
  int top = lua_gettop(L);
  if (!lgs_last_frame(L, &fi) || !fi.ran)
    luaL_error(L, "gpusim.why_all: no frame has been rendered (call gpusim.render() first)");
  lua_settop(L, top);
  gs_gpu *g = gs_lua_gpu(L);
  if (!g) luaL_error(L, "gpusim: the GPU context is closed");
  why_all *w = lgs_newstate(L, sizeof *w, WHY_ALL_TYPE, why_all_gc);
  luaL_getmetatable(L, WHY_ALL_TYPE);
  if (lua_getfield(L, -1, "__index") == LUA_TNIL) {
    static const luaL_Reg methods[] = {{"pixel", why_all_pixel}, {"stats", why_all_stats}, {NULL, NULL}};
    luaL_newlib(L, methods);
    lua_setfield(L, -3, "__index");
  }
  lua_pop(L, 2);
  if (gs_provall_init(&w->a, fi.frame.width, fi.frame.height) < 0)
    luaL_error(L, "gpusim.why_all: host out of memory");
  gs_trace t = {gs_provall_event, &w->a, {0, 0, 0, 0, 0}};
  gs_trace_filter_all(&t.filter);
  int rc = lgs_why_rerun(L, g, &fi, &t, threads >= 0 ? (unsigned)threads : fi.threads);
  if (rc > 0)
    luaL_error(L, "gpusim.why_all: running frame %d again gave another image: a buffer, texture or program it uses "
               "changed after gpusim.render()", (int)fi.number);
  if (rc < 0) luaL_error(L, "gpusim.why_all: running frame %d again failed: %s", (int)fi.number, gs_gpu_error(g));
  if (gs_provall_finish(&w->a) < 0) luaL_error(L, "gpusim.why_all: host out of memory");
  w->number = fi.number, w->bin_start = fi.frame.bin_start, w->framebuffer = fi.frame.framebuffer;
  w->ready = 1;
  return &w->a;
}

int lgs_why_all_lua(lua_State *L) {
  lua_Integer threads = -1;
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lgs_optfield_int(L, 1, 1, "threads", 0, 1024, &threads);
  }
  lua_settop(L, 1);
  lgs_why_all(L, (int)threads);
  return 1;
}
