/* lcombiner.c — the PICA200 texture combiners from Lua (docs/pica-combiners.md):
 * a configuration table read into a gs_tev (src/driver/combiner.h), for
 * gpusim.pica.combiners{...} (the generated QPU program's text) and for
 * gpusim.shader{fragment = {combiners = {...}}}.
 *
 *   { {sources = {"texture0", "primary_color"}, func = "modulate"},     -- stage 0
 *     {rgb = {sources = {...}, operands = {...}, func = "...", scale = 2},
 *      alpha = {...}, constant = {r, g, b, a}, buffer = "rgb"},          -- stage 1
 *     buffer_color = {r, g, b, a}, depth = true }
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lauxlib.h>
#include <lua.h>
#include "driver/combiner.h"
#include "lua/lgpusim.h"

static const char *const src_names[] = {"primary_color", "fragment_primary_color", "fragment_secondary_color",
                                        "texture0", "texture1", "texture2", "texture3", "previous_buffer",
                                        "constant", "previous", NULL};
static const uint8_t src_codes[] = {0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0xD, 0xE, 0xF};
static const char *const func_names[] = {"replace", "modulate", "add", "add_signed", "interpolate", "subtract",
                                         "dot3_rgb", "dot3_rgba", "multiply_add", "add_multiply", NULL};
static const char *const rgb_ops[] = {"color", "one_minus_color", "alpha", "one_minus_alpha", "red",
                                      "one_minus_red", "green", "one_minus_green", "blue", "one_minus_blue", NULL};
static const uint8_t rgb_codes[] = {0, 1, 2, 3, 4, 5, 8, 9, 12, 13};
/* In an alpha half "color" means the source's alpha. */
static const char *const alpha_ops[] = {"alpha", "one_minus_alpha", "red", "one_minus_red", "green",
                                        "one_minus_green", "blue", "one_minus_blue", "color", "one_minus_color",
                                        NULL};
static const uint8_t alpha_codes[] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1};

static int fail(lua_State *L, const char *fn, const char *fmt, ...) {
  char msg[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return luaL_error(L, "%s: %s", fn, msg);
}

/* The string at the top as an index into lst (popped); raises naming where. */
static int option(lua_State *L, const char *fn, const char *where, const char *const lst[]) {
  const char *s = lua_tostring(L, -1);
  if (lua_type(L, -1) == LUA_TSTRING)
    for (int i = 0; lst[i]; i++)
      if (strcmp(s, lst[i]) == 0) {
        lua_pop(L, 1);
        return i;
      }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 0; lst[i]; i++) {
    if (i) luaL_addstring(&b, ", ");
    luaL_addstring(&b, lst[i]);
  }
  luaL_pushresult(&b);
  return fail(L, fn, "%s is %s; one of %s", where, lua_type(L, -2) == LUA_TSTRING ? s : luaL_typename(L, -2),
              lua_tostring(L, -1));
}

/* Four numbers in [0, 1] at index t, field name, into v (if present). */
static void colour(lua_State *L, const char *fn, int t, const char *name, const char *where, float v[4]) {
  int ty = lua_getfield(L, t, name);
  if (ty == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (ty != LUA_TTABLE) fail(L, fn, "%s%s must be {r, g, b, a}", where, name);
  for (int c = 0; c < 4; c++) {
    lua_geti(L, -1, c + 1);
    int ok;
    lua_Number x = lua_tonumberx(L, -1, &ok);
    if (!ok || !(x >= 0 && x <= 1)) fail(L, fn, "%s%s[%d] must be a number in [0, 1]", where, name, c + 1);
    v[c] = (float)x;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* The half's fields from the table at index t (a stage or its rgb/alpha). */
static void half(lua_State *L, const char *fn, int t, int alpha, const char *where, gs_tev_half *h) {
  char w[96];
  if (lua_getfield(L, t, "sources") != LUA_TNIL) {
    if (!lua_istable(L, -1)) fail(L, fn, "%ssources must be a list of up to three source names", where);
    lua_Integer n = luaL_len(L, -1);
    if (n < 1 || n > 3) fail(L, fn, "%ssources: %d names; 1 to 3", where, (int)n);
    for (lua_Integer k = 1; k <= n; k++) {
      lua_geti(L, -1, k);
      snprintf(w, sizeof w, "%ssources[%d]", where, (int)k);
      h->src[k - 1] = src_codes[option(L, fn, w, src_names)];
    }
  }
  lua_pop(L, 1);
  if (lua_getfield(L, t, "operands") != LUA_TNIL) {
    if (!lua_istable(L, -1)) fail(L, fn, "%soperands must be a list of up to three operand names", where);
    lua_Integer n = luaL_len(L, -1);
    if (n < 1 || n > 3) fail(L, fn, "%soperands: %d names; 1 to 3", where, (int)n);
    for (lua_Integer k = 1; k <= n; k++) {
      lua_geti(L, -1, k);
      snprintf(w, sizeof w, "%soperands[%d]", where, (int)k);
      int i = option(L, fn, w, alpha ? alpha_ops : rgb_ops);
      h->op[k - 1] = alpha ? alpha_codes[i] : rgb_codes[i];
    }
  }
  lua_pop(L, 1);
  if (lua_getfield(L, t, "func") != LUA_TNIL) {
    snprintf(w, sizeof w, "%sfunc", where);
    h->func = (uint8_t)option(L, fn, w, func_names);
  } else {
    lua_pop(L, 1);
  }
  if (lua_getfield(L, t, "scale") != LUA_TNIL) {
    int ok;
    lua_Integer s = lua_tointegerx(L, -1, &ok);
    if (!ok || (s != 1 && s != 2 && s != 4)) fail(L, fn, "%sscale must be 1, 2 or 4", where);
    h->scale = (uint8_t)s;
  }
  lua_pop(L, 1);
}

static void check_keys(lua_State *L, const char *fn, int t, const char *where, const char *const keys[]) {
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    int ok = 0;
    if (lua_type(L, -1) == LUA_TSTRING)
      for (int i = 0; keys[i] && !ok; i++) ok = strcmp(lua_tostring(L, -1), keys[i]) == 0;
    else if (!where[0] && lua_isinteger(L, -1)) ok = lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= GS_TEV_STAGES;
    if (!ok) {
      if (lua_type(L, -1) == LUA_TSTRING) fail(L, fn, "%sunknown key %s", where, lua_tostring(L, -1));
      fail(L, fn, "%sunknown key %s (stages are [1] to [%d])", where, luaL_tolstring(L, -1, NULL), GS_TEV_STAGES);
    }
  }
}

/* Reads the configuration at index idx into *t; raises "fn: where: why". */
void lgs_combiner_arg(lua_State *L, int idx, const char *fn, gs_tev *t) {
  static const char *const top_keys[] = {"buffer_color", "depth", NULL};
  static const char *const stage_keys[] = {"sources", "operands", "func", "scale", "rgb", "alpha", "constant",
                                           "buffer", NULL};
  static const char *const half_keys[] = {"sources", "operands", "func", "scale", NULL};
  static const char *const buffer_names[] = {"none", "rgb", "alpha", "both", NULL};
  idx = lua_absindex(L, idx);
  if (!lua_istable(L, idx)) fail(L, fn, "the combiners must be a table of up to %d stages", GS_TEV_STAGES);
  gs_tev_init(t);
  lua_Integer n = luaL_len(L, idx);
  if (n > GS_TEV_STAGES) fail(L, fn, "%d stages; the PICA200 has %d", (int)n, GS_TEV_STAGES);
  check_keys(L, fn, idx, "", top_keys);
  colour(L, fn, idx, "buffer_color", "", t->buffer_color);
  lua_getfield(L, idx, "depth");
  t->depth = lua_toboolean(L, -1);
  lua_pop(L, 1);
  for (lua_Integer i = 1; i <= n; i++) {
    char where[64];
    snprintf(where, sizeof where, "stage %d: ", (int)i - 1);
    if (lua_geti(L, idx, i) != LUA_TTABLE) fail(L, fn, "%smust be a table", where);
    int st = lua_gettop(L);
    check_keys(L, fn, st, where, stage_keys);
    gs_tev_stage *s = &t->stage[i - 1];
    /* citro3d's C3D_TexEnvInit: sources previous, primary, primary; operands
     * colour / alpha; replace; scale 1. */
    static const gs_tev_half init = {{0xF, 0x0, 0x0}, {0, 0, 0}, 0, 1};
    s->rgb = s->alpha = init;
    half(L, fn, st, 0, where, &s->rgb);
    half(L, fn, st, 1, where, &s->alpha);
    for (int a = 0; a < 2; a++) {
      const char *name = a ? "alpha" : "rgb";
      int ty = lua_getfield(L, st, name);
      if (ty != LUA_TNIL) {
        char w2[96];
        snprintf(w2, sizeof w2, "%s%s.", where, name);
        if (ty != LUA_TTABLE) fail(L, fn, "%s%s must be a table {sources=, operands=, func=, scale=}", where, name);
        check_keys(L, fn, lua_gettop(L), w2, half_keys);
        half(L, fn, lua_gettop(L), a, w2, a ? &s->alpha : &s->rgb);
      }
      lua_pop(L, 1);
    }
    colour(L, fn, st, "constant", where, s->constant);
    if (lua_getfield(L, st, "buffer") != LUA_TNIL) {
      char w2[96];
      snprintf(w2, sizeof w2, "%sbuffer", where);
      int b = option(L, fn, w2, buffer_names);
      if (b && i > 4) fail(L, fn, "%sbuffer: only stages 0-3 update the combiner buffer", where);
      s->update_rgb = (uint8_t)(b & 1);
      s->update_alpha = (uint8_t)(b >> 1 & 1);
    } else {
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
}

/* gpusim.pica.combiners(config, varyings) -> the QPU fragment program's
 * text. varyings: the list gpusim.shader takes ({name=, components=}...). */
int lgs_pica_combiners(lua_State *L) {
  const char *fn = "gpusim.pica.combiners";
  gs_tev t;
  lgs_combiner_arg(L, 1, fn, &t);
  gs_tev_varying v[GS_TEV_MAX_VARYINGS];
  size_t n = 0;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer len = luaL_len(L, 2);
    if (len > GS_TEV_MAX_VARYINGS) fail(L, fn, "%d varyings; at most %d", (int)len, GS_TEV_MAX_VARYINGS);
    for (lua_Integer i = 1; i <= len; i++, n++) {
      lua_geti(L, 2, i);
      lua_getfield(L, -1, "name");
      lua_getfield(L, -2, "components");
      int ok;
      lua_Integer c = lua_tointegerx(L, -1, &ok);
      if (lua_type(L, -2) != LUA_TSTRING || !ok || c < 1 || c > 4)
        fail(L, fn, "varyings[%d] must be {name = string, components = 1..4}", (int)i);
      v[n].name = lua_tostring(L, -2); /* the table at argument 2 keeps it */
      v[n].components = (unsigned)c;
      lua_pop(L, 3);
    }
  }
  char *text;
  gs_diag d;
  if (gs_tev_qpu_source(&t, v, n, &text, &d) < 0) return lgs_error(L, "pica.combiners", d.msg);
  lua_pushstring(L, text);
  free(text);
  return 1;
}
