/* lgpusim.c — the `gpusim` Lua module: opening it, the per-state GPU
 * context, gpusim.config and the helpers the other module files share.
 * The Lua-side manual, with the value conversion rules of gpusim.mem, is at
 * the top of include/gpusim/luamod.h.
 *
 * The context follows liolib's pattern: the userdata is created in a safe
 * "closed" state (gpu == NULL) with its metatable set before gs_gpu_new runs,
 * so an out-of-memory error at any point leaves nothing to leak, and __gc
 * or __close frees it exactly once. It is stored in the registry so that
 * opening the module twice in one state gives the same GPU.
 */
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "gpusim/luamod.h"
#include "lua/lgpusim.h"

#define CONTEXT_TYPE "gpusim.GPU"
#define CONTEXT_KEY "gpusim.context" /* registry field */
#define BOX_TYPE "gpusim.Box"

typedef struct lgs_context {
  gs_gpu *gpu; /* NULL once closed */
} lgs_context;

/* ---- the context userdata ------------------------------------------------ */

static int context_close(lua_State *L) {
  lgs_context *c = luaL_checkudata(L, 1, CONTEXT_TYPE);
  gs_gpu_free(c->gpu);
  c->gpu = NULL;
  return 0;
}

static int context_tostring(lua_State *L) {
  lgs_context *c = luaL_checkudata(L, 1, CONTEXT_TYPE);
  if (c->gpu) lua_pushfstring(L, "gpusim.GPU (%p)", (void *)c->gpu);
  else lua_pushliteral(L, "gpusim.GPU (closed)");
  return 1;
}

static const luaL_Reg context_metameth[] = {
  {"__gc", context_close},
  {"__close", context_close},
  {"__tostring", context_tostring},
  {NULL, NULL}
};

/* Pushes the context of L, creating it (and its metatable) on first use.
 * Raises on host out of memory. */
static void push_context(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, CONTEXT_KEY) == LUA_TUSERDATA) return;
  lua_pop(L, 1);
  if (luaL_newmetatable(L, CONTEXT_TYPE)) luaL_setfuncs(L, context_metameth, 0);
  lua_pop(L, 1);
  lgs_context *c = lua_newuserdatauv(L, sizeof *c, 0);
  c->gpu = NULL; /* safe before the resource exists */
  luaL_setmetatable(L, CONTEXT_TYPE);
  c->gpu = gs_gpu_new(NULL);
  if (!c->gpu) luaL_error(L, "gpusim: cannot create the GPU context: host out of memory");
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, CONTEXT_KEY);
}

gs_gpu *gs_lua_gpu(lua_State *L) {
  gs_gpu *g = NULL;
  if (lua_getfield(L, LUA_REGISTRYINDEX, CONTEXT_KEY) == LUA_TUSERDATA) {
    lgs_context *c = luaL_testudata(L, -1, CONTEXT_TYPE);
    if (c) g = c->gpu;
  }
  lua_pop(L, 1);
  return g;
}

gs_gpu *lgs_gpu(lua_State *L) {
  lgs_context *c = lua_touserdata(L, lua_upvalueindex(1));
  if (!c || !c->gpu) luaL_error(L, "gpusim: the GPU context is closed");
  return c->gpu;
}

/* ---- shared helpers ------------------------------------------------------ */

gs_addr lgs_checkaddr(lua_State *L, int arg) {
  lua_Integer a = luaL_checkinteger(L, arg);
  luaL_argcheck(L, a >= 0 && a <= 0xFFFFFFFF, arg, "bus address out of range 0..0xffffffff");
  return (gs_addr)a;
}

int lgs_optfield_int(lua_State *L, int arg, int t, const char *name, lua_Integer lo,
                     lua_Integer hi, lua_Integer *out) {
  int type = lua_getfield(L, t, name);
  if (type == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  int isint = 0;
  lua_Integer v = lua_tointegerx(L, -1, &isint);
  if (!isint || v < lo || v > hi)
    return luaL_argerror(L, arg,
                         lua_pushfstring(L, "field '%s' must be an integer in %I..%I, got %s", name,
                                         (LUAI_UACINT)lo, (LUAI_UACINT)hi,
                                         luaL_tolstring(L, -1, NULL)));
  lua_pop(L, 1);
  *out = v;
  return 1;
}

int lgs_option_value(lua_State *L, int arg, const char *what, const char *const lst[]) {
  const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  for (int i = 0; s && lst[i]; i++)
    if (strcmp(s, lst[i]) == 0) {
      lua_pop(L, 1);
      return i;
    }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 0; lst[i]; i++) {
    luaL_addstring(&b, i ? ", '" : "'");
    luaL_addstring(&b, lst[i]);
    luaL_addchar(&b, '\'');
  }
  luaL_pushresult(&b);
  const char *known = lua_tostring(L, -1);
  const char *got = luaL_tolstring(L, -2, NULL);
  return luaL_argerror(L, arg, lua_pushfstring(L, "field '%s' must be one of %s, got %s", what, known, got));
}

int lgs_optfield_option(lua_State *L, int arg, int t, const char *name, int def,
                        const char *const lst[]) {
  if (lua_getfield(L, t, name) == LUA_TNIL) {
    lua_pop(L, 1);
    return def;
  }
  return lgs_option_value(L, arg, name, lst);
}

int lgs_error(lua_State *L, const char *fn, const char *msg) {
  size_t n = strlen(fn);
  if (strncmp(msg, fn, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ') msg += n + 2;
  return luaL_error(L, "gpusim.%s: %s", fn, msg);
}

static int box_close(lua_State *L) {
  void **slot = luaL_checkudata(L, 1, BOX_TYPE);
  free(*slot);
  *slot = NULL;
  return 0;
}

void **lgs_newbox(lua_State *L) {
  void **slot = lua_newuserdatauv(L, sizeof *slot, 0);
  *slot = NULL;
  if (luaL_newmetatable(L, BOX_TYPE)) {
    lua_pushcfunction(L, box_close);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, box_close);
    lua_setfield(L, -2, "__close");
  }
  lua_setmetatable(L, -2);
  return slot;
}

void lgs_closebox(lua_State *L, int idx) {
  void **slot = luaL_checkudata(L, idx, BOX_TYPE);
  free(*slot);
  *slot = NULL;
}

void *lgs_newstate(lua_State *L, size_t size, const char *tname, lua_CFunction gc) {
  void *p = lua_newuserdatauv(L, size, 0);
  memset(p, 0, size);
  if (luaL_newmetatable(L, tname)) {
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return p;
}

lua_Integer lgs_index_key(lua_State *L, const char *fn, const char *name, lua_Integer max) {
  int ok = 0;
  lua_Integer k = lua_tointegerx(L, -2, &ok);
  if (!ok || k < 0 || k >= max)
    luaL_error(L, "gpusim.%s: %s: index %s is not 0..%d", fn, name, luaL_tolstring(L, -2, NULL), (int)max - 1);
  return k;
}

/* ---- gpusim.config ------------------------------------------------------- */

static const char *const interpreter_names[] = {"fast", "reference", NULL};   /* GS_INTERP_* */
static const char *const rounding_names[] = {"toward_zero", "nearest_even", NULL}; /* GS_ROUND_* */
static const char *const pica_float_names[] = {"f24", "f32", NULL};                /* GS_PICA_* */
_Static_assert(GS_PICA_F24 == 0 && GS_PICA_F32 == 1, "pica_float_names follows GS_PICA_*");
static const char *const pica_state_names[] = {"zero", "persist", NULL};           /* GS_PICA_STATE_* */
_Static_assert(GS_PICA_STATE_ZERO == 0 && GS_PICA_STATE_PERSIST == 1, "pica_state_names follows GS_PICA_STATE_*");
_Static_assert(GS_INTERP_FAST == 0 && GS_INTERP_REFERENCE == 1, "interpreter_names follows GS_INTERP_*");
_Static_assert(GS_ROUND_TOWARD_ZERO == 0 && GS_ROUND_NEAREST_EVEN == 1, "rounding_names follows GS_ROUND_*");

void lgs_read_config(lua_State *L, int arg, gs_gpu_config *cfg, const char *watchdog_field) {
  luaL_checktype(L, arg, LUA_TTABLE);
  gs_gpu_config next = *cfg;
  lua_Integer v;
  next.interpreter = lgs_optfield_option(L, arg, arg, "interpreter", cfg->interpreter, interpreter_names);
  next.rounding = lgs_optfield_option(L, arg, arg, "rounding", cfg->rounding, rounding_names);
  next.pica_float = lgs_optfield_option(L, arg, arg, "pica_float", cfg->pica_float, pica_float_names);
  next.pica_state = lgs_optfield_option(L, arg, arg, "pica_state", cfg->pica_state, pica_state_names);
  if (lgs_optfield_int(L, arg, arg, watchdog_field, 1, LUA_MAXINTEGER, &v)) next.watchdog = (uint64_t)v;
  if (lgs_optfield_int(L, arg, arg, "qpus", 1, 12, &v)) next.qpus = (int)v;
  *cfg = next;
}

/* gpusim.config([t]): sets the fields given in t (interpreter, watchdog,
 * rounding, qpus, pica_float, pica_state), then returns a table of all current
 * settings. */
static int l_config(lua_State *L) {
  gs_gpu_config *cfg = gs_gpu_config_of(lgs_gpu(L));
  if (!lua_isnoneornil(L, 1)) {
    gs_gpu_config next = *cfg;
    lgs_read_config(L, 1, &next, "watchdog");
    if (lua_getfield(L, 1, "mem_limit") != LUA_TNIL && (size_t)lua_tointeger(L, -1) != cfg->mem_limit)
      return luaL_argerror(L, 1, "field 'mem_limit' is fixed when the context is created");
    lua_pop(L, 1);
    *cfg = next;
  }
  lua_createtable(L, 0, 7);
  lua_pushstring(L, interpreter_names[cfg->interpreter == GS_INTERP_REFERENCE]);
  lua_setfield(L, -2, "interpreter");
  lua_pushstring(L, rounding_names[cfg->rounding == GS_ROUND_NEAREST_EVEN]);
  lua_setfield(L, -2, "rounding");
  lua_pushinteger(L, (lua_Integer)cfg->watchdog);
  lua_setfield(L, -2, "watchdog");
  lua_pushinteger(L, cfg->qpus);
  lua_setfield(L, -2, "qpus");
  lua_pushinteger(L, (lua_Integer)cfg->mem_limit);
  lua_setfield(L, -2, "mem_limit");
  lua_pushstring(L, pica_float_names[cfg->pica_float == GS_PICA_F32]);
  lua_setfield(L, -2, "pica_float");
  lua_pushstring(L, pica_state_names[cfg->pica_state == GS_PICA_STATE_PERSIST]);
  lua_setfield(L, -2, "pica_state");
  return 1;
}

static const luaL_Reg gpusim_funcs[] = {
  {"config", l_config},
  {NULL, NULL}
};

/* Adds the functions of l to the table on top, each a closure over the
 * context at index ctx. */
static void set_closures(lua_State *L, int ctx, const luaL_Reg *l) {
  lua_pushvalue(L, ctx);
  luaL_setfuncs(L, l, 1);
}

/* Adds the subtable `name` of closures l to the module table on top and
 * registers it as package.loaded["gpusim.<name>"]: then require finds it,
 * and argument errors raised through pcall name "gpusim.<name>.<fn>". */
static void open_subtable(lua_State *L, int ctx, const char *name, const luaL_Reg *l) {
  lua_newtable(L);
  set_closures(L, ctx, l);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_pushfstring(L, "gpusim.%s", name);
  lua_pushvalue(L, -3);
  lua_settable(L, -3); /* loaded["gpusim.<name>"] = subtable */
  lua_pop(L, 1);
  lua_setfield(L, -2, name);
}

int luaopen_gpusim(lua_State *L) {
  luaL_checkversion(L);
  push_context(L);
  int ctx = lua_gettop(L);
  lua_createtable(L, 0, 8);
  set_closures(L, ctx, gpusim_funcs);
  set_closures(L, ctx, lgs_prog_funcs);
  open_subtable(L, ctx, "mem", lgs_mem_funcs);
  open_subtable(L, ctx, "qpu", lgs_qpu_funcs);
  { extern void lgs_open_scene(lua_State *L, int ctx); lgs_open_scene(L, ctx); } /* lscene.c */
  { extern const luaL_Reg lgs_v3d_funcs[]; open_subtable(L, ctx, "v3d", lgs_v3d_funcs); } /* lv3d.c */
  { extern const luaL_Reg lgs_sph_funcs[]; open_subtable(L, ctx, "sph", lgs_sph_funcs); } /* lsph.c */
  { extern const luaL_Reg lgs_sass_funcs[]; open_subtable(L, ctx, "sass", lgs_sass_funcs); } /* lsass.c */
  { extern const luaL_Reg lgs_pica_funcs[]; open_subtable(L, ctx, "pica", lgs_pica_funcs); } /* lpica.c */
  { extern const luaL_Reg lgs_agx_funcs[]; open_subtable(L, ctx, "agx", lgs_agx_funcs); } /* lagx.c */
  lua_pushliteral(L, GS_VERSION);
  lua_setfield(L, -2, "version");
  return 1;
}
