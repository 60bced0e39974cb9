/* lgpusim.c — PLACEHOLDER for the Lua module. */
#include <lua.h>
#include <lauxlib.h>
int luaopen_gpusim(lua_State *L) { lua_newtable(L); return 1; }
