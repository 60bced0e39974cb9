/* lpica.c — gpusim.pica: one PICA200 vertex shader invocation run alone
 * (issue 10; docs/pica.md, "Running a program alone"):
 *
 *   r = gpusim.pica.run{program = shbin, entry = name|n, inputs = {[0] = {x, y, z, w}, ...},
 *                       float_uniforms = {[i] = {x, y, z, w}}, int_uniforms = {[i] = {x, y, z, w}},
 *                       bool_uniforms = {[i] = true|false}, float = "f24"|"f32"}
 *
 * program: SHBIN bytes (gpusim.asm("pica", text)); entry: the DVLE, by
 * name (its entry label: the .proc it starts at) or index (0 the first, the
 * default); inputs v0-v15; the uniforms c0-c95, i0-i3 and b0-b15
 * (given ones override the DVLE's constants, which are applied first);
 * float: the arithmetic, float24 (default) or IEEE binary32. Returns
 * {outputs = {[i] = {x, y, z, w}}} for every output register the program
 * writes or the DVLE's output map declares (components never written are
 * 0), written = {[i] = mask} (bit 0 x .. bit 3 w), a0 = {x, y}, aL = n,
 * cmp = {x, y} (booleans), instructions = n. Errors name the word address.
 *
 * A geometry shader's DVLE runs too (its inputs given as the GS input mode
 * would place them: v-registers or float uniforms): the result also has
 * emitted = {{outputs = ..., written = ..., slot = k}, ...}, the vertices
 * EMIT sent in order, and primitives = {{i1, i2, i3, winding = bool}, ...},
 * the triangles an EMIT with SETEMIT's primitive flag made from the emit
 * buffer's three slots (indices into emitted). docs/pica-run.md.
 */
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "isa/pica/exec.h"
#include "isa/pica/unit.h"
#include "isa/uop/uop.h"
#include "lua/lgpusim.h"

typedef struct run_state {
  pica_shbin shbin;
  int have_shbin;
  pica_insn *insn;
  pica_state st;
} run_state;

static int state_gc(lua_State *L) {
  run_state *r = luaL_checkudata(L, 1, "gpusim.pica.run_state");
  if (r->have_shbin) pica_shbin_free(&r->shbin), r->have_shbin = 0;
  free(r->insn), r->insn = NULL;
  return 0;
}

/* The vector t[key] at idx (a table of 4 numbers), into v as f32 bits. */
static void vec4(lua_State *L, int idx, const char *what, lua_Integer key, uint32_t v[4], int integer) {
  if (!lua_istable(L, idx)) luaL_error(L, "gpusim.pica.run: %s[%d] must be a table {x, y, z, w}", what, (int)key);
  for (int k = 0; k < 4; k++) {
    lua_geti(L, idx, k + 1);
    if (integer) {
      lua_Integer n;
      int ok = 0;
      n = lua_tointegerx(L, -1, &ok);
      if (!ok || n < -128 || n > 255)
        luaL_error(L, "gpusim.pica.run: %s[%d] component %d must be an integer 0..255 (or -128..-1)", what, (int)key, k + 1);
      v[k] = (uint32_t)(n & 0xff);
    } else {
      if (lua_type(L, -1) != LUA_TNUMBER)
        luaL_error(L, "gpusim.pica.run: %s[%d] component %d must be a number", what, (int)key, k + 1);
      v[k] = gs_lane_u((float)lua_tonumber(L, -1));
    }
    lua_pop(L, 1);
  }
}

/* For each [key] = value of field `name` (key in 0..max-1): body. */
#define EACH_INDEX(L, name, max, body) \
  LGS_EACH_FIELD(L, name, { lua_Integer key = lgs_index_key(L, "pica.run", name, max); body; })

static void push_vec(lua_State *L, const uint32_t v[4]) {
  lua_createtable(L, 4, 0);
  for (int k = 0; k < 4; k++) {
    lua_pushnumber(L, gs_lane_f(v[k]));
    lua_rawseti(L, -2, k + 1);
  }
}

/* The output registers the program writes (written) or the DVLE declares,
 * as outputs = {[i] = {x, y, z, w}} and written = {[i] = mask}, into the
 * table on top. */
static void push_outputs(lua_State *L, const uint32_t o[16][4], const uint16_t written[16], uint16_t declared) {
  lua_newtable(L); /* outputs */
  lua_newtable(L); /* written */
  for (int k = 0; k < 16; k++) {
    if (!written[k] && !(declared >> k & 1)) continue;
    push_vec(L, o[k]);
    lua_rawseti(L, -3, k);
    lua_pushinteger(L, written[k]);
    lua_rawseti(L, -2, k);
  }
  lua_setfield(L, -3, "written");
  lua_setfield(L, -2, "outputs");
}

/* A geometry shader's emitted vertices and primitives (exec.h's emit). */
typedef struct emit_ctx {
  lua_State *L;
  int emitted, primitives; /* stack indices of the two lists */
  lua_Integer n, nprim;
  lua_Integer slot[3];     /* the emitted vertex in each slot of the emit buffer, 0: none yet */
  uint16_t declared;
} emit_ctx;

static int on_emit(void *ctx, const pica_state *s, gs_diag *d) {
  emit_ctx *e = ctx;
  lua_State *L = e->L;
  if (s->emit_prim) {
    for (int k = 0; k < 3; k++)
      if (!e->slot[k] && k != s->emit_vtx)
        return gs_diag_set(d, GS_EINVAL, "PICA200 shader: EMIT at 0x%03x ends a primitive, but vertex slot %d of the "
                           "emit buffer was never emitted", s->pc, k);
  }
  lua_createtable(L, 0, 3);
  push_outputs(L, s->o, s->written, e->declared);
  lua_pushinteger(L, s->emit_vtx), lua_setfield(L, -2, "slot");
  lua_rawseti(L, e->emitted, ++e->n);
  e->slot[s->emit_vtx] = e->n;
  if (s->emit_prim) {
    lua_createtable(L, 3, 1);
    for (int k = 0; k < 3; k++) lua_pushinteger(L, e->slot[k]), lua_rawseti(L, -2, k + 1);
    lua_pushboolean(L, s->emit_winding), lua_setfield(L, -2, "winding");
    lua_rawseti(L, e->primitives, ++e->nprim);
  }
  return GS_OK;
}

static int l_run(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  run_state *r = lgs_newstate(L, sizeof *r, "gpusim.pica.run_state", state_gc);
  gs_diag d;
  gs_diag_clear(&d);
  size_t size;
  if (lua_getfield(L, 1, "program") != LUA_TSTRING)
    return luaL_error(L, "gpusim.pica.run: program must be SHBIN bytes (gpusim.asm(\"pica\", text))");
  const char *bytes = lua_tolstring(L, -1, &size);
  if (pica_shbin_read((const uint8_t *)bytes, size, &r->shbin, &d) < 0) return lgs_error(L, "pica.run", d.msg);
  r->have_shbin = 1;
  lua_pop(L, 1);
  const pica_shbin *sb = &r->shbin;
  lua_Integer entry = 0;
  if (lua_getfield(L, 1, "entry") == LUA_TSTRING) { /* a DVLE's name: its entry label */
    const char *name = lua_tostring(L, -1);
    entry = -1;
    for (size_t k = 0; k < sb->ndvle && entry < 0; k++)
      if (pica_dvle_name(&sb->dvle[k]) && !strcmp(pica_dvle_name(&sb->dvle[k]), name)) entry = (lua_Integer)k;
    if (entry < 0) {
      luaL_Buffer b;
      luaL_buffinit(L, &b);
      for (size_t k = 0; k < sb->ndvle; k++) {
        const char *n = pica_dvle_name(&sb->dvle[k]);
        lua_pushfstring(L, "%s%d = %s", k ? ", " : "", (int)k, n ? n : "(no name)");
        luaL_addvalue(&b);
      }
      luaL_pushresult(&b);
      return luaL_error(L, "gpusim.pica.run: entry '%s': no DVLE has that name (the SHBIN's: %s)", name,
                        lua_tostring(L, -1));
    }
  } else
    entry = luaL_optinteger(L, -1, 0);
  lua_pop(L, 1);
  if (entry < 0 || (size_t)entry >= sb->ndvle)
    return luaL_error(L, "gpusim.pica.run: entry %d: the SHBIN has %d executable(s) (DVLE 0..%d)", (int)entry,
                      (int)sb->ndvle, (int)sb->ndvle - 1);
  const pica_dvle *dv = &sb->dvle[entry];
  const char *fl = (lua_getfield(L, 1, "float"), luaL_optstring(L, -1, "f24"));
  if (strcmp(fl, "f24") && strcmp(fl, "f32")) return luaL_error(L, "gpusim.pica.run: float '%s': \"f24\" or \"f32\"", fl);
  lua_pop(L, 1);
  pica_state *st = &r->st;
  st->mode = fl[1] == '3' ? PICA_NUM_F32 : PICA_NUM_F24;
  /* the DVLE's constants (as the pipeline unit applies them), then what the call gives */
  pica_dvle_apply_consts(dv, st);
  uint32_t v[4];
  EACH_INDEX(L, "float_uniforms", 96, {
    vec4(L, -1, "float_uniforms", key, v, 0);
    for (int j = 0; j < 4; j++) st->c[key][j] = pica_num_load(v[j], st->mode);
  });
  EACH_INDEX(L, "int_uniforms", 4, {
    vec4(L, -1, "int_uniforms", key, v, 1);
    for (int j = 0; j < 4; j++) st->i[key][j] = (uint8_t)v[j];
  });
  EACH_INDEX(L, "bool_uniforms", 16, {
    st->b = (uint16_t)((st->b & ~(1u << key)) | ((unsigned)lua_toboolean(L, -1) << key));
  });
  EACH_INDEX(L, "inputs", 16, {
    vec4(L, -1, "inputs", key, v, 0);
    for (int j = 0; j < 4; j++) st->v[key][j] = pica_num_load(v[j], st->mode);
  });
  /* decode, then run from the DVLE's main */
  if (!(r->insn = calloc(sb->ncode ? sb->ncode : 1, sizeof *r->insn))) return luaL_error(L, "gpusim.pica.run: out of memory");
  for (size_t k = 0; k < sb->ncode; k++)
    if (pica_decode(sb->code[k], (uint32_t)k, sb->opdesc, sb->nopdesc, &r->insn[k], &d) < 0)
      return lgs_error(L, "pica.run", d.msg);
  pica_program p = {r->insn, sb->ncode};
  uint16_t declared = 0;
  for (size_t k = 0; k < dv->noutputs; k++) declared |= (uint16_t)(1u << (dv->outputs[k].reg & 15));
  emit_ctx ec = {L, 0, 0, 0, 0, {0, 0, 0}, declared};
  if (dv->type == 1) { /* a geometry shader: EMIT and SETEMIT run */
    lua_newtable(L);
    ec.emitted = lua_gettop(L);
    lua_newtable(L);
    ec.primitives = lua_gettop(L);
    st->emit = on_emit, st->emit_ctx = &ec;
  }
  if (pica_run_ref(st, &p, dv->main, 1u << 24, &d) < 0) return lgs_error(L, "pica.run", d.msg);

  lua_createtable(L, 0, 8);
  push_outputs(L, st->o, st->written, declared);
  if (dv->type == 1) {
    lua_pushvalue(L, ec.emitted), lua_setfield(L, -2, "emitted");
    lua_pushvalue(L, ec.primitives), lua_setfield(L, -2, "primitives");
  }
  lua_createtable(L, 2, 0);
  lua_pushinteger(L, st->a0[0]), lua_rawseti(L, -2, 1);
  lua_pushinteger(L, st->a0[1]), lua_rawseti(L, -2, 2);
  lua_setfield(L, -2, "a0");
  lua_pushinteger(L, st->al), lua_setfield(L, -2, "aL");
  lua_createtable(L, 2, 0);
  lua_pushboolean(L, st->cmp[0]), lua_rawseti(L, -2, 1);
  lua_pushboolean(L, st->cmp[1]), lua_rawseti(L, -2, 2);
  lua_setfield(L, -2, "cmp");
  lua_pushinteger(L, (lua_Integer)st->steps), lua_setfield(L, -2, "instructions");
  return 1;
}

int lgs_pica_combiners(lua_State *L); /* lcombiner.c */

const luaL_Reg lgs_pica_funcs[] = {
  {"run", l_run},
  {"combiners", lgs_pica_combiners},
  {NULL, NULL}
};
