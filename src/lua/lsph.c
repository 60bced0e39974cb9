/* lsph.c — the Shader Program Header from Lua (gpusim/sph.h, docs/sph.md):
 *
 *   t = gpusim.sph.decode(bytes)   -- bytes: a string of exactly 80 bytes
 *   bytes = gpusim.sph.encode(t)   -- the inverse: encode(decode(b)) == b
 *
 * t is flat: one integer per element of the header's layout, keyed by the
 * element's name as gs_sph_dump and the validator give it ("SphType",
 * "ImapGenericVector[8].X", "OmapTarget[0].Red"; a name several fields
 * share adds its place: "Reserved@w0[23:21]"). Every element of the
 * layout is there, reserved ones included. encode takes 0 for a missing
 * key; an unknown key, a value that is not an integer or does not fit its
 * field, and a non-zero element of the other layout are errors naming the
 * key. The names come from the C field table (gs_sph_element_get), never
 * from a list of this file's own.
 */
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "gpusim/sph.h"
#include "lua/lgpusim.h"

extern const luaL_Reg lgs_sph_funcs[];

/* Registry key of the key maps: {[1] = VTG map, [2] = PS map}, each
 * key -> element index. */
#define KEYMAP_KEY "gpusim.sph.keys"

/* Pushes the key maps, building them on first use. */
static void push_keymaps(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, KEYMAP_KEY) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_createtable(L, 2, 0);
  for (uint32_t type = GS_SPH_TYPE_VTG; type <= GS_SPH_TYPE_PS; type++) {
    gs_sph s;
    gs_sph_element e;
    unsigned n = gs_sph_element_count(type);
    gs_sph_init(&s, type, NULL);
    lua_createtable(L, 0, (int)n);
    for (unsigned k = 0; k < n; k++) {
      gs_sph_element_get(&s, k, &e);
      lua_pushinteger(L, k);
      lua_setfield(L, -2, e.key);
    }
    lua_rawseti(L, -2, type);
  }
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, KEYMAP_KEY);
}

/* gpusim.sph.decode(bytes) */
static int l_decode(lua_State *L) {
  size_t len;
  const char *b = luaL_checklstring(L, 1, &len);
  gs_sph s;
  gs_sph_element e;
  gs_diag d;
  if (len != GS_SPH_BYTES)
    return luaL_error(L, "gpusim.sph.decode: %d bytes, but an SPH is %d (20 little-endian words)",
                      (int)len, GS_SPH_BYTES);
  if (gs_sph_decode_bytes((const unsigned char *)b, &s, &d) < 0) return lgs_error(L, "sph.decode", d.msg);
  unsigned n = gs_sph_element_count(s.sph_type);
  lua_createtable(L, 0, (int)n);
  for (unsigned k = 0; k < n; k++) {
    gs_sph_element_get(&s, k, &e);
    lua_pushinteger(L, e.value);
    lua_setfield(L, -2, e.key);
  }
  return 1;
}

/* The value on top of the stack, the value of field `key`, as an integer
 * (a float with an integer value too); else an error naming the key. */
static long long field_integer(lua_State *L, const char *key) {
  int isint = 0;
  lua_Integer v = lua_tointegerx(L, -1, &isint);
  if (!isint || lua_type(L, -1) != LUA_TNUMBER) /* no strings such as "3" */
    luaL_error(L, "gpusim.sph.encode: field \"%s\": %s is not an integer", key,
               luaL_tolstring(L, -1, NULL));
  return (long long)v;
}

/* gpusim.sph.encode(t) */
static int l_encode(lua_State *L) {
  gs_sph s;
  gs_diag d;
  luaL_checktype(L, 1, LUA_TTABLE);
  long long type = 0;
  if (lua_getfield(L, 1, "SphType") != LUA_TNIL) type = field_integer(L, "SphType");
  lua_pop(L, 1);
  if (gs_sph_init(&s, type, &d) < 0) return lgs_error(L, "sph.encode", d.msg);
  uint32_t other = s.sph_type == GS_SPH_TYPE_VTG ? GS_SPH_TYPE_PS : GS_SPH_TYPE_VTG;
  push_keymaps(L);
  int maps = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      lua_pushvalue(L, -2); /* luaL_tolstring must not convert the key lua_next needs */
      return luaL_error(L, "gpusim.sph.encode: key %s is not an SPH field name",
                        luaL_tolstring(L, -1, NULL));
    }
    const char *key = lua_tostring(L, -2);
    long long v = field_integer(L, key);
    uint32_t layout = s.sph_type;
    lua_rawgeti(L, maps, layout);
    if (lua_getfield(L, -1, key) == LUA_TNIL) {
      lua_pop(L, 2);
      lua_rawgeti(L, maps, layout = other);
      lua_getfield(L, -1, key);
    }
    if (lua_isnil(L, -1))
      return luaL_error(L, "gpusim.sph.encode: \"%s\" is not an SPH field (the names are those "
                        "gpusim.sph.decode gives, docs/sph.md)", key);
    unsigned k = (unsigned)lua_tointeger(L, -1);
    if (gs_sph_element_set(&s, layout, k, v, &d) < 0) return lgs_error(L, "sph.encode", d.msg);
    lua_pop(L, 3); /* element index, map, value */
  }
  unsigned char b[GS_SPH_BYTES];
  if (gs_sph_encode_bytes(&s, b, &d) < 0) return lgs_error(L, "sph.encode", d.msg);
  lua_pushlstring(L, (const char *)b, sizeof b);
  return 1;
}

int lgs_sph_arg(lua_State *L, int idx, const char *what, gs_sph *out) {
  gs_diag d;
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) == LUA_TTABLE) { /* through encode: its checks and messages */
    lua_pushcfunction(L, l_encode);
    lua_pushvalue(L, idx);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
      const char *msg = lua_tostring(L, -1), *p = "gpusim.sph.encode: ";
      if (msg && strncmp(msg, p, strlen(p)) == 0) msg += strlen(p);
      return luaL_error(L, "%s: %s", what, msg ? msg : "not an SPH");
    }
  } else if (lua_type(L, idx) == LUA_TSTRING) {
    lua_pushvalue(L, idx);
  } else {
    return luaL_error(L, "%s must be an 80-byte SPH string or a table of SPH fields, got %s", what,
                      luaL_typename(L, idx));
  }
  size_t len;
  const char *b = lua_tolstring(L, -1, &len);
  if (len != GS_SPH_BYTES) return luaL_error(L, "%s: an SPH is %d bytes, got %d", what, GS_SPH_BYTES, (int)len);
  if (gs_sph_decode_bytes((const unsigned char *)b, out, &d) < 0) return luaL_error(L, "%s: %s", what, d.msg);
  lua_pop(L, 1);
  return 0;
}

const luaL_Reg lgs_sph_funcs[] = {
  {"decode", l_decode},
  {"encode", l_encode},
  {NULL, NULL}
};
