/* lsass.c — gpusim.sass: a Maxwell SASS program run alone (src/isa/sass/solo.h).
 *
 *   r = gpusim.sass.run{code = bin, sph = bytes_or_table, inputs = {...},
 *                       cb = {[0] = {...}}, budget = n, interpreter = "fast"|"reference"}
 *
 * code: the program's code (gpusim.asm("sass", text)); sph: its 80-byte
 * header or a field table (gpusim.sph); without one a header is built from
 * `stage` ("vertex", the default, or "pixel") and the addresses lane 1's
 * inputs name: a vertex program reads those components and may write the
 * position and every generic vector; a pixel program reads them
 * perspective-correct and writes render target 0. inputs: one table per
 * lane (1 to 32), keyed by attribute byte address; a pixel lane also takes
 * x, y (the pixel), z (0..1), w (W, 1 by default) and back (a boolean).
 * Values: a Lua float is a float, a Lua integer its raw 32 bits. cb: the
 * constant buffers by bank (0-17), each a table of such values (word i at
 * byte 4i) or a string of bytes.
 *
 * r.lanes[i]: out (vertex: the written output words by address, as floats),
 * r (registers 0-254, raw 32-bit integers), p (P0-P6 as booleans, from 0),
 * and for a pixel program colour ([t] = {r, g, b, a} floats, for each
 * target the header maps), depth (a float), sample_mask, killed. r.steps:
 * instructions run; r.exceptions and r.warning: broken SPH gates
 * (docs/sass.md, "Running a program alone"). Errors name the pc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "isa/sass/solo.h"
#include "isa/sass/table.h"
#include "isa/uop/uop.h"
#include "lua/lgpusim.h"

/* The value at idx as 32 bits: a float's bits or an integer's own. */
static uint32_t word_arg(lua_State *L, int idx, const char *what) {
  if (lua_isinteger(L, idx)) return (uint32_t)lua_tointeger(L, idx);
  if (lua_type(L, idx) == LUA_TNUMBER) return gs_lane_u((float)lua_tonumber(L, idx));
  return (uint32_t)luaL_error(L, "gpusim.sass.run: %s must be a number, got %s", what, luaL_typename(L, idx));
}

/* An attribute address key at -2 (during lua_next), checked. */
static unsigned addr_key(lua_State *L, const char *what) {
  if (!lua_isinteger(L, -2)) return (unsigned)-1;
  lua_Integer a = lua_tointeger(L, -2);
  if (a < 0 || a > 0x3fc || (a & 3))
    luaL_error(L, "gpusim.sass.run: %s: attribute address %d is not a multiple of 4 in 0..0x3fc", what, (int)a);
  return (unsigned)a;
}

typedef struct run_state {
  sass_program prog;
  sass_solo *solo; /* its warp's registers are 64-byte aligned (exec.h), more than a userdata is: its own block */
  uint8_t *cb[SASS_CBANKS];
} run_state;

static int state_gc(lua_State *L) {
  run_state *st = luaL_checkudata(L, 1, "gpusim.sass.run_state");
  sass_program_free(&st->prog);
  for (int k = 0; k < SASS_CBANKS; k++) free(st->cb[k]), st->cb[k] = NULL;
  free(st->solo), st->solo = NULL;
  return 0;
}

static void read_cb(lua_State *L, run_state *st, int t) {
  if (lua_getfield(L, t, "cb") == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  luaL_argexpected(L, lua_istable(L, -1), t, "cb as a table of constant buffers by bank");
  for (int k = 0; k < SASS_CBANKS; k++) {
    int ty = lua_geti(L, -1, k);
    if (ty == LUA_TSTRING) {
      size_t n;
      const char *b = lua_tolstring(L, -1, &n);
      if (!(st->cb[k] = malloc(n ? n : 1))) luaL_error(L, "gpusim.sass.run: out of memory");
      memcpy(st->cb[k], b, n);
      st->solo->cb_size[k] = (uint32_t)n;
    } else if (ty == LUA_TTABLE) {
      size_t n = (size_t)luaL_len(L, -1);
      if (!(st->cb[k] = calloc(n ? n : 1, 4))) luaL_error(L, "gpusim.sass.run: out of memory");
      for (size_t i = 0; i < n; i++) {
        char what[48];
        lua_geti(L, -1, (lua_Integer)i + 1);
        snprintf(what, sizeof what, "cb[%d][%zu]", k, i + 1);
        uint32_t v = word_arg(L, -1, what);
        lua_pop(L, 1);
        for (int j = 0; j < 4; j++) st->cb[k][4 * i + j] = (uint8_t)(v >> (8 * j));
      }
      st->solo->cb_size[k] = (uint32_t)(4 * n);
    } else if (ty != LUA_TNIL) {
      luaL_error(L, "gpusim.sass.run: cb[%d] must be a table of words or a string of bytes, got %s", k,
                 luaL_typename(L, -1));
    }
    st->solo->cb[k] = st->cb[k];
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* Builds a header for `stage` from the addresses lane 1's inputs name. */
static void default_sph(lua_State *L, int inputs, int pixel, gs_sph *out) {
  gs_sph_io in[64], outs[33];
  size_t nin = 0;
  lua_geti(L, inputs, 1);
  if (lua_istable(L, -1)) {
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      unsigned a = addr_key(L, "inputs[1]");
      lua_pop(L, 1);
      if (a == (unsigned)-1 || nin == 64) continue;
      if (pixel && (a < 0x80 || a >= 0x280)) continue; /* system values need no IMAP */
      in[nin++] = (gs_sph_io){a & ~15u, 1u << ((a >> 2) & 3), pixel ? GS_PIXEL_IMAP_PERSPECTIVE : GS_PIXEL_IMAP_UNUSED};
    }
  }
  lua_pop(L, 1);
  gs_sph_decl decl = {.stage = pixel ? GS_SPH_PIXEL : GS_SPH_VERTEX, .inputs = in, .n_inputs = nin};
  if (pixel) {
    decl.render_targets = 0xF;
  } else {
    outs[0] = (gs_sph_io){0x70, 0xF, GS_PIXEL_IMAP_UNUSED};
    for (unsigned g = 0; g < 32; g++) outs[1 + g] = (gs_sph_io){0x80 + 16 * g, 0xF, GS_PIXEL_IMAP_UNUSED};
    decl.outputs = outs, decl.n_outputs = 33;
  }
  gs_diag d;
  if (gs_sph_build(&decl, out, &d) < 0) luaL_error(L, "gpusim.sass.run: building the header: %s", d.msg);
}

static void read_lanes(lua_State *L, run_state *st, int inputs, int pixel) {
  for (unsigned l = 0; l < st->solo->lanes; l++) {
    sass_solo_lane *ln = &st->solo->lane[l];
    char what[32];
    snprintf(what, sizeof what, "inputs[%u]", l + 1);
    sass_attr_buf_clear(&ln->in, 0);
    ln->w = 1.0f;
    if (lua_geti(L, inputs, l + 1) != LUA_TTABLE) luaL_error(L, "gpusim.sass.run: %s must be a table", what);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      unsigned a = addr_key(L, what);
      if (a != (unsigned)-1) {
        uint32_t v = word_arg(L, -1, what);
        if (pixel) ln->value[a / 4] = gs_lane_f(v);
        else sass_attr_buf_store(&ln->in, a, v);
      } else if (lua_type(L, -2) == LUA_TSTRING && pixel) {
        const char *k = lua_tostring(L, -2);
        if (strcmp(k, "x") == 0) ln->x = (uint32_t)luaL_checkinteger(L, -1);
        else if (strcmp(k, "y") == 0) ln->y = (uint32_t)luaL_checkinteger(L, -1);
        else if (strcmp(k, "z") == 0) ln->z = (float)luaL_checknumber(L, -1);
        else if (strcmp(k, "w") == 0) ln->w = (float)luaL_checknumber(L, -1);
        else if (strcmp(k, "back") == 0) ln->back = lua_toboolean(L, -1);
        else luaL_error(L, "gpusim.sass.run: %s: unknown key \"%s\" (x, y, z, w, back or an address)", what, k);
      } else {
        luaL_error(L, "gpusim.sass.run: %s: keys are attribute addresses%s", what, pixel ? " or x, y, z, w, back" : "");
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
}

static void push_result(lua_State *L, const run_state *st, int pixel) {
  const sass_solo *s = st->solo;
  lua_createtable(L, 0, 4);
  lua_createtable(L, (int)s->lanes, 0);
  for (unsigned l = 0; l < s->lanes; l++) {
    const sass_solo_lane *ln = &s->lane[l];
    lua_createtable(L, 0, 8);
    lua_createtable(L, 254, 1);
    for (int r = 0; r < 255; r++) {
      lua_pushinteger(L, s->warp.r[r][l]);
      lua_rawseti(L, -2, r);
    }
    lua_setfield(L, -2, "r");
    lua_createtable(L, 6, 1);
    for (int p = 0; p < 7; p++) {
      lua_pushboolean(L, (s->warp.p[l] >> p) & 1);
      lua_rawseti(L, -2, p);
    }
    lua_setfield(L, -2, "p");
    if (pixel) {
      lua_newtable(L);
      for (int t = 0; t < 8; t++) {
        if (s->out_map.target_reg[t] == SASS_PS_NONE) continue;
        lua_createtable(L, 4, 0);
        for (int c = 0; c < 4; c++) {
          lua_pushnumber(L, gs_lane_f(ln->colour[t][c]));
          lua_rawseti(L, -2, c + 1);
        }
        lua_rawseti(L, -2, t);
      }
      lua_setfield(L, -2, "colour");
      lua_pushnumber(L, gs_lane_f(ln->depth));
      lua_setfield(L, -2, "depth");
      lua_pushinteger(L, ln->sample_mask);
      lua_setfield(L, -2, "sample_mask");
      lua_pushboolean(L, ln->killed);
      lua_setfield(L, -2, "killed");
    } else {
      lua_newtable(L);
      for (unsigned a = 0; a < SASS_ATTR_WORDS; a++)
        if (gs_sph_attr_has(&ln->out.written, 4 * a)) {
          lua_pushnumber(L, gs_lane_f(ln->out.v[a]));
          lua_rawseti(L, -2, 4 * a);
        }
      lua_setfield(L, -2, "out");
    }
    lua_rawseti(L, -2, l + 1);
  }
  lua_setfield(L, -2, "lanes");
  lua_pushinteger(L, (lua_Integer)s->warp.steps);
  lua_setfield(L, -2, "steps");
  lua_pushinteger(L, (lua_Integer)s->report.exceptions);
  lua_setfield(L, -2, "exceptions");
  if (s->report.exceptions) {
    lua_pushstring(L, s->report.first);
    lua_setfield(L, -2, "warning");
  }
}

/* gpusim.sass.run{...} */
static int l_run(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  run_state *st = lgs_newstate(L, sizeof *st, "gpusim.sass.run_state", state_gc);
  int ud = lua_gettop(L);
  size_t solo_size = (sizeof *st->solo + 63) / 64 * 64;
  if (!(st->solo = aligned_alloc(64, solo_size))) return luaL_error(L, "gpusim.sass.run: out of memory");
  memset(st->solo, 0, solo_size);

  size_t size;
  if (lua_getfield(L, 1, "code") != LUA_TSTRING) luaL_error(L, "gpusim.sass.run: code must be the program's bytes (gpusim.asm(\"sass\", text))");
  const char *code = lua_tolstring(L, -1, &size);
  if (lua_getfield(L, 1, "inputs") != LUA_TTABLE) luaL_error(L, "gpusim.sass.run: inputs must be a table of lanes, one table each");
  int inputs = lua_gettop(L);
  lua_Integer lanes = luaL_len(L, inputs);
  if (lanes < 1 || lanes > SASS_LANES) luaL_error(L, "gpusim.sass.run: %d lanes: a warp has 1 to 32", (int)lanes);
  st->solo->lanes = (unsigned)lanes;

  gs_sph sph;
  int pixel;
  if (lua_getfield(L, 1, "sph") != LUA_TNIL) {
    lgs_sph_arg(L, -1, "gpusim.sass.run: sph", &sph);
    pixel = sph.shader_type == GS_SPH_PIXEL;
  } else {
    const char *stage = (lua_getfield(L, 1, "stage"), luaL_optstring(L, -1, "vertex"));
    if (strcmp(stage, "vertex") && strcmp(stage, "pixel"))
      luaL_error(L, "gpusim.sass.run: stage \"%s\": \"vertex\" or \"pixel\"", stage);
    pixel = stage[0] == 'p';
    lua_pop(L, 1);
    default_sph(L, inputs, pixel, &sph);
  }
  lua_pop(L, 1);
  st->solo->budget = (lua_getfield(L, 1, "budget"), (uint64_t)luaL_optinteger(L, -1, 0));
  lua_pop(L, 1);
  const char *interp = (lua_getfield(L, 1, "interpreter"), luaL_optstring(L, -1, "fast"));
  if (strcmp(interp, "fast") && strcmp(interp, "reference"))
    return luaL_error(L, "gpusim.sass.run: interpreter '%s': \"fast\" or \"reference\"", interp);
  st->solo->interpreter = interp[0] == 'r' ? GS_INTERP_REFERENCE : GS_INTERP_FAST;
  lua_pop(L, 1);
  read_cb(L, st, 1);
  read_lanes(L, st, inputs, pixel);

  gs_diag d;
  gs_diag_clear(&d);
  if (sass_program_init(&st->prog, (const uint8_t *)code, size, &sph, &d) < 0) return lgs_error(L, "sass.run", d.msg);
  st->solo->prog = &st->prog;
  if (sass_solo_run(st->solo, &d) < 0) return lgs_error(L, "sass.run", d.msg);
  push_result(L, st, pixel);
  (void)ud;
  return 1;
}

const luaL_Reg lgs_sass_funcs[] = {
  {"run", l_run},
  {NULL, NULL}
};
