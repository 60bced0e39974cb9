/* lv3d.c — control lists from Lua: gpusim.v3d.run runs a binning and a
 * rendering list in GPU memory as the CT0/CT1 registers do
 * (include/gpusim/v3d.h).
 *
 *   gpusim.v3d.run{ bin = {start, stop}, render = {start, stop} [, threads = n] }
 *     -- both lists are optional (missing = empty); returns a table of what
 *     -- the run did: tiles, cs_vertices, prims_binned, tile_refs,
 *     -- vs_vertices, prims_drawn, fs_batches, fragments, bin_seconds,
 *     -- render_seconds, exceptions (operations of programs their SPH
 *     -- does not allow, dropped) and, if any, exception (one message
 *     -- naming the shader and pc). A bad list or a faulting shader raises the
 *     -- executor's message, which names the address, tile and QPU pc.
 */
#include <lua.h>
#include <lauxlib.h>
#include "gpusim/v3d.h"
#include "lua/lgpusim.h"

extern const luaL_Reg lgs_v3d_funcs[];

/* Reads field `name` of the options table (argument 1): a pair {start,
 * stop} of bus addresses, or nil for an empty list. */
static void list_field(lua_State *L, const char *name, gs_addr *start, gs_addr *stop) {
  *start = *stop = 0;
  int t = lua_getfield(L, 1, name);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (t != LUA_TTABLE || luaL_len(L, -1) != 2)
    luaL_argerror(L, 1, lua_pushfstring(L, "field '%s' must be a pair {start, stop} of bus addresses", name));
  gs_addr a[2];
  for (int i = 0; i < 2; i++) {
    lua_geti(L, -1, i + 1);
    int isint = 0;
    lua_Integer v = lua_tointegerx(L, -1, &isint);
    if (!isint || v < 0 || v > 0xFFFFFFFF)
      luaL_argerror(L, 1, lua_pushfstring(L, "field '%s'[%d] must be a bus address 0..0xffffffff", name, i + 1));
    a[i] = (gs_addr)v;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  *start = a[0], *stop = a[1];
}

static void set_number(lua_State *L, const char *name, lua_Number v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, name);
}

static void set_integer(lua_State *L, const char *name, uint64_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, name);
}

/* gpusim.v3d.run{bin = {start, stop}, render = {start, stop}, threads = n} */
static int l_run(lua_State *L) {
  gs_gpu *g = lgs_gpu(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  gs_addr bs, be, rs, re;
  list_field(L, "bin", &bs, &be);
  list_field(L, "render", &rs, &re);
  gs_v3d_options o = {0};
  lua_Integer v;
  if (lgs_optfield_int(L, 1, 1, "threads", 1, 64, &v)) o.threads = (unsigned)v;
  gs_v3d_stats st;
  if (gs_v3d_run_stats(g, bs, be, rs, re, &o, &st) < 0) return lgs_error(L, "v3d.run", gs_gpu_error(g));
  lua_createtable(L, 0, 12);
  set_integer(L, "tiles", st.tiles);
  set_integer(L, "cs_vertices", st.cs_vertices);
  set_integer(L, "prims_binned", st.prims_binned);
  set_integer(L, "tile_refs", st.tile_refs);
  set_integer(L, "vs_vertices", st.vs_vertices);
  set_integer(L, "prims_drawn", st.prims_drawn);
  set_integer(L, "fs_batches", st.fs_batches);
  set_integer(L, "fragments", st.fragments);
  set_number(L, "bin_seconds", st.bin_seconds);
  set_number(L, "render_seconds", st.render_seconds);
  set_integer(L, "exceptions", st.exceptions);
  if (st.exceptions) {
    lua_pushstring(L, st.exception);
    lua_setfield(L, -2, "exception");
  }
  return 1;
}

const luaL_Reg lgs_v3d_funcs[] = {
  {"run", l_run},
  {NULL, NULL}
};
