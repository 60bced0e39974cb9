/* lagx.c — gpusim.agx: one Apple AGX (G13) SIMD group run alone (issue 11
 * §2; docs/agx-run.md, "Running a program alone"):
 *
 *   r = gpusim.agx.run{program = bytes | source = text, stage = "compute"|"vertex"|"fragment",
 *                      lanes = n, active = mask, registers = {[n|name] = v or {v1, ..., vn}},
 *                      uniforms = {[n] = v}, sr = {[n] = v or {...}}, cf = {[n] = {A, B, C}},
 *                      memory = {base = addr, data = bytes | size = n}, nregs = halves,
 *                      textures = {[N] = gpusim.texture},
 *                      entry = byte address, budget = n, targets = n,
 *                      interpreter = "fast"|"reference"}
 *
 * program: the raw instruction bytes (gpusim.asm("agx", text)), or source:
 * AGX text assembled here (errors at agx.run:line:column). lanes: the
 * present lanes 0..n-1 (1..32; by default the longest per-lane list given,
 * else 1); active: the exec mask (default every present lane). Values: a
 * Lua integer is raw bits, a float f32 bits (f16 for a 16-bit register); a
 * list gives one value per lane. Register keys: n (the 32-bit rN) or a name
 * "r3", "r3l", "r3h". sr: special registers for get_sr and iter (sr80/81:
 * the pixel). cf: coefficient registers as planes of floats. textures: what
 * smpf's tsN samples, bound as the unit binds them (tex.c: the texture's
 * TMU config words at words 2N, 2N + 1 of a stream made for the run).
 *
 * Returns lanes[i] (lane i - 1) = {r = {[n] = raw 32 bits, r3l = .., r3h
 * = .., r3 = ..}, f = {[n] = rN as a float}, r0l = n, active = bool, and for
 * a vertex program uvs = {[w] = float}, uvs_bits = {[w] = raw} (the words
 * st_var stored), for a fragment program colour = {[t] = {r, g, b, a}} from
 * r(4(t+1)).. as f32, depth (r2, a float), stencil (r3l), sample_mask (r3h),
 * killed, tested, and zs_depth/zs_stencil when zs_emit ran}; exec, present,
 * instructions, stopped, memory (the bytes after the run). Errors name the
 * pc (or the byte offset of an instruction that does not decode).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "isa/agx/exec.h"
#include "isa/agx/num.h"
#include "isa/agx/prolog.h"
#include "isa/agx/table.h"
#include "isa/agx/unit_int.h"
#include "isa/uop/uop.h"
#include "lua/lgpusim.h"

#define FN "gpusim.agx.run"

/* luaL_error with printf's formats (lua_pushfstring has no %x or %u). */
static int fail(lua_State *L, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return luaL_error(L, "%s", msg);
}

typedef struct run_state {
  agx_state st;
  agx_instr *insn;
  agx_fast *fast;
  uint8_t *mem;
  gs_isa_binary bin;
  uint32_t sr[256][AGX_LANES];
  uint8_t sr_given[256];
} run_state;

static int state_gc(lua_State *L) {
  run_state *r = luaL_checkudata(L, 1, "gpusim.agx.run_state");
  free(r->insn), r->insn = NULL;
  agx_fast_free(r->fast), r->fast = NULL;
  free(r->mem), r->mem = NULL;
  gs_isa_binary_free(&r->bin);
  return 0;
}

static int sr_get(void *ctx, unsigned lane, unsigned sr, uint32_t *v) {
  run_state *r = ctx;
  if (sr > 255 || !r->sr_given[sr]) return 1;
  *v = r->sr[sr][lane];
  return 0;
}

/* The value at idx as bits of a 32- or 16-bit register. */
static uint32_t value_bits(lua_State *L, int idx, int bits, const char *what) {
  if (lua_isinteger(L, idx)) return (uint32_t)lua_tointeger(L, idx) & (bits == 16 ? 0xffffu : 0xffffffffu);
  if (lua_type(L, idx) == LUA_TNUMBER) {
    uint32_t f = gs_lane_u((float)lua_tonumber(L, idx));
    return bits == 16 ? agx_f32_to_f16(f) : f;
  }
  return (uint32_t)luaL_error(L, FN ": %s must be a number or a list of numbers (one per lane), got %s", what,
                              luaL_typename(L, idx));
}

/* The value at idx for every lane into v[]: a number for all, or a list. */
static void lane_values(lua_State *L, int idx, int bits, unsigned lanes, const char *what, uint32_t v[AGX_LANES]) {
  idx = lua_absindex(L, idx);
  if (!lua_istable(L, idx)) {
    uint32_t x = value_bits(L, idx, bits, what);
    for (unsigned l = 0; l < AGX_LANES; l++) v[l] = x;
    return;
  }
  lua_Integer n = luaL_len(L, idx);
  if (n > (lua_Integer)lanes)
    luaL_error(L, FN ": %s has %d values but the group has %d lanes", what, (int)n, (int)lanes);
  for (unsigned l = 0; l < AGX_LANES; l++) {
    v[l] = 0;
    if (l < (unsigned)n) {
      lua_geti(L, idx, (lua_Integer)l + 1);
      v[l] = value_bits(L, -1, bits, what);
      lua_pop(L, 1);
    }
  }
}

/* A register key at idx: n (rN) or "rN", "rNl", "rNh". Returns the first
 * half and sets *bits; luaL_error otherwise. */
static unsigned reg_key(lua_State *L, int idx, int *bits) {
  *bits = 32;
  if (lua_isinteger(L, idx)) {
    lua_Integer k = lua_tointeger(L, idx);
    if (k < 0 || k > 127) luaL_error(L, FN ": registers: register %d is not 0..127", (int)k);
    *bits = 32;
    return 2 * (unsigned)k;
  }
  const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : "";
  unsigned n = 0;
  int used = 0;
  char half = 0;
  if (s[0] == 'r' && s[1] >= '0' && s[1] <= '9' && sscanf(s, "r%u%n", &n, &used) == 1 && n <= 127) {
    half = s[used];
    if ((half == 'l' || half == 'h') && !s[used + 1]) {
      *bits = 16;
      return 2 * n + (half == 'h');
    }
    if (!half) {
      *bits = 32;
      return 2 * n;
    }
  }
  luaL_error(L, FN ": registers: key %s is not a register (n, \"rN\", \"rNl\" or \"rNh\", N 0..127)",
             luaL_tolstring(L, idx, NULL));
  return 0;
}

/* The longest per-lane list among the fields' values (registers, sr). */
static unsigned longest_list(lua_State *L, const char *field) {
  unsigned m = 0;
  if (lua_getfield(L, 1, field) == LUA_TTABLE) {
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      if (lua_istable(L, -1)) {
        lua_Integer n = luaL_len(L, -1);
        if (n > (lua_Integer)m) m = n > AGX_LANES ? AGX_LANES + 1 : (unsigned)n;
      }
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  return m;
}

/* Decodes the whole binary into r->insn; errors name the byte offset. */
static size_t decode_all(lua_State *L, run_state *r, const uint8_t *b, size_t size) {
  if (!(r->insn = calloc(size / 2 + 1, sizeof *r->insn))) luaL_error(L, FN ": out of memory");
  size_t n = 0;
  for (size_t off = 0; off < size; n++) {
    unsigned len = 0;
    char why[160];
    if (!agx_decode(b + off, size - off, &r->insn[n], &len, why, sizeof why))
      fail(L, FN ": program byte offset 0x%04x: %s", (unsigned)off, why);
    off += r->insn[n].len;
  }
  return n;
}

static void push_fragment(lua_State *L, const agx_state *s, unsigned l, unsigned targets) {
  lua_createtable(L, 0, (int)targets);
  for (unsigned t = 0; t < targets; t++) {
    lua_createtable(L, 4, 0);
    for (unsigned c = 0; c < 4; c++) {
      lua_pushnumber(L, gs_lane_f(agx_reg32(s, l, 4 * (t + 1) + c)));
      lua_rawseti(L, -2, c + 1);
    }
    lua_rawseti(L, -2, t);
  }
  lua_setfield(L, -2, "colour");
  lua_pushnumber(L, gs_lane_f(agx_reg32(s, l, 2))), lua_setfield(L, -2, "depth");
  lua_pushinteger(L, s->r[l][6]), lua_setfield(L, -2, "stencil");
  lua_pushinteger(L, s->r[l][7]), lua_setfield(L, -2, "sample_mask");
  lua_pushinteger(L, s->killed[l]), lua_setfield(L, -2, "killed");
  lua_pushinteger(L, s->tested[l]), lua_setfield(L, -2, "tested");
  if (s->zs_done >> l & 1) {
    lua_pushnumber(L, gs_lane_f(s->depth[l])), lua_setfield(L, -2, "zs_depth");
    lua_pushinteger(L, s->stencil[l]), lua_setfield(L, -2, "zs_stencil");
  }
}

static void push_result(lua_State *L, const run_state *r, unsigned lanes, int stage, unsigned targets) {
  const agx_state *s = &r->st;
  unsigned nhalves = s->nregs ? s->nregs : AGX_HALVES;
  lua_createtable(L, 0, 8);
  lua_createtable(L, (int)lanes, 0);
  for (unsigned l = 0; l < lanes; l++) {
    lua_createtable(L, 0, 10);
    lua_createtable(L, 128, (int)(nhalves / 2 * 3));
    lua_createtable(L, 128, 0);
    for (unsigned n = 0; 2 * n < nhalves; n++) {
      char name[8];
      uint32_t v = agx_reg32(s, l, n);
      lua_pushinteger(L, v), lua_rawseti(L, -3, n);
      lua_pushnumber(L, gs_lane_f(v)), lua_rawseti(L, -2, n);
      snprintf(name, sizeof name, "r%u", n);
      lua_pushinteger(L, v), lua_setfield(L, -3, name);
      snprintf(name, sizeof name, "r%ul", n);
      lua_pushinteger(L, v & 0xffff), lua_setfield(L, -3, name);
      snprintf(name, sizeof name, "r%uh", n);
      lua_pushinteger(L, v >> 16), lua_setfield(L, -3, name);
    }
    lua_setfield(L, -3, "f");
    lua_setfield(L, -2, "r");
    lua_pushinteger(L, s->r[l][0]), lua_setfield(L, -2, "r0l");
    lua_pushboolean(L, s->exec >> l & 1), lua_setfield(L, -2, "active");
    if (stage == 'v') {
      lua_newtable(L);
      lua_newtable(L);
      for (unsigned w = 0; w < AGX_UVS_WORDS; w++)
        if (s->uvs_written[l] >> w & 1) {
          lua_pushnumber(L, gs_lane_f(s->uvs[l][w])), lua_rawseti(L, -3, w);
          lua_pushinteger(L, s->uvs[l][w]), lua_rawseti(L, -2, w);
        }
      lua_setfield(L, -3, "uvs_bits");
      lua_setfield(L, -2, "uvs");
    } else if (stage == 'f') {
      push_fragment(L, s, l, targets);
    }
    lua_rawseti(L, -2, l + 1);
  }
  lua_setfield(L, -2, "lanes");
  lua_pushinteger(L, s->exec), lua_setfield(L, -2, "exec");
  lua_pushinteger(L, s->present), lua_setfield(L, -2, "present");
  lua_pushinteger(L, (lua_Integer)s->steps), lua_setfield(L, -2, "instructions");
  lua_pushboolean(L, s->stopped), lua_setfield(L, -2, "stopped");
}

static int l_run(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  run_state *r = lgs_newstate(L, sizeof *r, "gpusim.agx.run_state", state_gc);
  gs_diag d;
  gs_diag_clear(&d);

  /* the program: bytes, or text assembled here */
  const uint8_t *code;
  size_t size;
  int has_prog = lua_getfield(L, 1, "program") != LUA_TNIL, has_src = lua_getfield(L, 1, "source") != LUA_TNIL;
  if (has_prog == has_src)
    return luaL_error(L, FN ": give program (the bytes, gpusim.asm(\"agx\", text)) or source (AGX text), one of them");
  if (has_src) {
    const char *src = luaL_checkstring(L, -1);
    if (agx_asm(src, "agx.run", &r->bin, &d) < 0) return lgs_error(L, "agx.run", d.msg);
    code = r->bin.bytes, size = r->bin.size;
  } else {
    if (lua_type(L, -2) != LUA_TSTRING) return luaL_error(L, FN ": program must be a string of instruction bytes");
    code = (const uint8_t *)lua_tolstring(L, -2, &size);
  }
  lua_pop(L, 2);
  if (!size) return luaL_error(L, FN ": the program is empty");
  agx_program prog = {r->insn, 0};
  prog.n = decode_all(L, r, code, size);
  prog.insn = r->insn;

  const char *stage_s = (lua_getfield(L, 1, "stage"), luaL_optstring(L, -1, "compute"));
  if (strcmp(stage_s, "compute") && strcmp(stage_s, "vertex") && strcmp(stage_s, "fragment"))
    return luaL_error(L, FN ": stage '%s': \"compute\", \"vertex\" or \"fragment\"", stage_s);
  int stage = stage_s[0];
  lua_pop(L, 1);
  const char *interp = (lua_getfield(L, 1, "interpreter"), luaL_optstring(L, -1, "fast"));
  if (strcmp(interp, "fast") && strcmp(interp, "reference"))
    return luaL_error(L, FN ": interpreter '%s': \"fast\" or \"reference\"", interp);
  int fast = interp[0] == 'f';
  lua_pop(L, 1);

  unsigned lanes = longest_list(L, "registers"), m = longest_list(L, "sr");
  if (m > lanes) lanes = m;
  lua_Integer nl = (lua_getfield(L, 1, "lanes"), luaL_optinteger(L, -1, lanes ? lanes : 1));
  lua_pop(L, 1);
  if (nl < 1 || nl > AGX_LANES) return luaL_error(L, FN ": lanes %d: a SIMD group has 1 to 32", (int)nl);
  lanes = (unsigned)nl;
  agx_state *s = &r->st;
  agx_state_init(s, lanes);
  if (lua_getfield(L, 1, "active") != LUA_TNIL) {
    lua_Integer a = luaL_checkinteger(L, -1);
    if (a < 0 || a > 0xffffffffLL || ((uint32_t)a & ~s->present))
      return fail(L, FN ": active 0x%x names lanes that are not present (0x%x)", (unsigned)a, s->present);
    s->exec = (uint32_t)a;
  }
  lua_pop(L, 1);
  lua_Integer nregs = (lua_getfield(L, 1, "nregs"), luaL_optinteger(L, -1, 0));
  lua_pop(L, 1);
  if (nregs < 0 || nregs > AGX_HALVES) return luaL_error(L, FN ": nregs %d: halves 0..256 (0 = all)", (int)nregs);
  s->nregs = (unsigned)nregs;
  lua_Integer targets = (lua_getfield(L, 1, "targets"), luaL_optinteger(L, -1, 1));
  lua_pop(L, 1);
  if (targets < 0 || targets > 8) return luaL_error(L, FN ": targets %d: 0..8", (int)targets);

  uint32_t v[AGX_LANES];
  LGS_EACH_FIELD(L, "registers", {
    int bits;
    unsigned h = reg_key(L, -2, &bits);
    char what[32];
    snprintf(what, sizeof what, "registers[%s]", luaL_tolstring(L, -2, NULL));
    lua_pop(L, 1);
    lane_values(L, -1, bits, lanes, what, v);
    for (unsigned l = 0; l < lanes; l++) {
      s->r[l][h] = (uint16_t)v[l];
      if (bits == 32) s->r[l][h + 1] = (uint16_t)(v[l] >> 16);
    }
  });
  LGS_EACH_FIELD(L, "uniforms", {
    unsigned n = (unsigned)lgs_index_key(L, "agx.run", "uniforms", 256);
    if (lua_istable(L, -1)) luaL_error(L, FN ": uniforms[%d] is one value shared by the lanes, not a list", (int)n);
    agx_set_unif32(s, n, value_bits(L, -1, 32, "a uniform"));
  });
  LGS_EACH_FIELD(L, "sr", {
    unsigned n = (unsigned)lgs_index_key(L, "agx.run", "sr", 256);
    lane_values(L, -1, 32, lanes, "sr value", r->sr[n]);
    r->sr_given[n] = 1;
  });
  LGS_EACH_FIELD(L, "cf", {
    unsigned n = (unsigned)lgs_index_key(L, "agx.run", "cf", AGX_CFS);
    if (!lua_istable(L, -1) || luaL_len(L, -1) != 3) luaL_error(L, FN ": cf[%d] must be a plane {A, B, C}", (int)n);
    for (int k = 0; k < 3; k++) {
      lua_geti(L, -1, k + 1);
      s->cf[n][k] = value_bits(L, -1, 32, "a cf coefficient");
      lua_pop(L, 1);
    }
  });
  s->sr = sr_get, s->sr_ctx = r;
  agx_flat_mem fm = {0, NULL, 0};
  if (lua_getfield(L, 1, "memory") != LUA_TNIL) {
    luaL_argexpected(L, lua_istable(L, -1), 1, "field 'memory' as a table {base = addr, data = bytes | size = n}");
    fm.base = (uint64_t)(lua_getfield(L, -1, "base"), luaL_optinteger(L, -1, 0));
    lua_pop(L, 1);
    size_t dn = 0;
    const char *data = (lua_getfield(L, -1, "data"), lua_tolstring(L, -1, &dn));
    lua_Integer sz = (lua_getfield(L, -2, "size"), luaL_optinteger(L, -1, (lua_Integer)dn));
    if (sz < (lua_Integer)dn || sz > (1 << 26))
      return luaL_error(L, FN ": memory size %d: at least the data's %d bytes and at most 64 MiB", (int)sz, (int)dn);
    if (!(r->mem = calloc(sz ? (size_t)sz : 1, 1))) return luaL_error(L, FN ": out of memory");
    if (dn) memcpy(r->mem, data, dn);
    fm.data = r->mem, fm.size = (size_t)sz;
    s->mem = agx_flat_mem_access, s->mem_ctx = &fm;
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  /* textures: tsN's config words at words 2N, 2N + 1 of a stream in the
   * context's memory, made for the run (docs/agx-unit.md, Textures) */
  uint32_t tsw[2 * 256];
  unsigned nts = 0;
  memset(tsw, 0, sizeof tsw);
  LGS_EACH_FIELD(L, "textures", {
    unsigned n = (unsigned)lgs_index_key(L, "agx.run", "textures", 256);
    if (!lua_isuserdata(L, -1) || lua_getfield(L, -1, "config") != LUA_TTABLE)
      luaL_error(L, FN ": textures[%d] is not a gpusim.texture", (int)n);
    for (int k = 0; k < 2; k++) {
      lua_geti(L, -1, k + 1);
      tsw[2 * n + k] = (uint32_t)lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (n + 1 > nts) nts = n + 1;
  });
  lua_Integer entry = (lua_getfield(L, 1, "entry"), luaL_optinteger(L, -1, 0));
  lua_Integer budget = (lua_getfield(L, 1, "budget"), luaL_optinteger(L, -1, 1 << 24));
  lua_pop(L, 2);
  if (entry < 0 || entry > 0xffffffffLL || budget < 1) return luaL_error(L, FN ": entry or budget out of range");

  uint32_t started = s->exec;
  int rc;
  if (fast && agx_fast_compile(&prog, &r->fast, &d) < 0) return lgs_error(L, "agx.run", d.msg);
  gs_gpu *g = nts ? lgs_gpu(L) : NULL;
  gs_addr stream = 0;
  agx_tex_ctx tc;
  if (nts) { /* no Lua error from here to the release */
    gs_stage_program sp = {0, 0, 0};
    if (gs_mem_alloc(gs_gpu_mem(g), 8 * nts, 4, &stream, &d) < 0 ||
        gs_mem_write(gs_gpu_mem(g), stream, tsw, 8 * nts, &d) < 0)
      return lgs_error(L, "agx.run", d.msg);
    sp.uniforms = stream, sp.unif_end = stream + 8 * nts;
    agx_tex_attach(s, &tc, g, &sp);
  }
  if (fast) rc = agx_run_fast(s, r->fast, (uint32_t)entry, (uint64_t)budget, &d);
  else rc = agx_run_ref(s, &prog, (uint32_t)entry, (uint64_t)budget, &d);
  if (nts) gs_mem_release(gs_gpu_mem(g), stream, NULL), s->tex = NULL;
  if (rc) return lgs_error(L, "agx.run", d.msg);
  if (stage == 'v')
    for (unsigned l = 0; l < lanes; l++)
      if ((started >> l & 1) && !(s->var_done >> l & 1))
        return fail(L, FN ": vertex lane %u ended (pc 0x%04x) without a final st_var (last) or no_var", l,
                          (unsigned)s->pc);
  push_result(L, r, lanes, stage, (unsigned)targets);
  if (r->mem) {
    lua_pushlstring(L, (const char *)r->mem, fm.size);
    lua_setfield(L, -2, "memory");
  }
  return 1;
}

/* gpusim.agx.prolog{inputs = {n | mask, ...}, attributes = {{size =, stride =,
 * offset =, slot =, align =}, ...}, slots = n}: the vertex prolog the unit
 * builds (src/isa/agx/prolog.c; docs/agx-unit.md): inputs[a + 1] the
 * components of generic input a the SPH maps (a count n: the first n, or
 * {mask = m}); each attribute record's size and stride in bytes, its offset
 * among the input words (default: after the previous record, in words),
 * its uniform slot (default its place in the list, from 0) and the
 * alignment of its array (4, 2 or 1; default 4); slots: the uniform layout's
 * n (default 8, the unit's). Returns the bytes and their listing. */
/* One entry of inputs (key at -2, value at -1): its component mask. */
static void prolog_input(lua_State *L, uint8_t *masks) {
  lua_Integer a = lgs_index_key(L, "agx.prolog", "inputs", AGX_PROLOG_MAX_ATTRS + 1) - 1, v;
  if (a < 0) luaL_error(L, "gpusim.agx.prolog: inputs: index 0 is not 1..%d", AGX_PROLOG_MAX_ATTRS);
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "mask");
    v = luaL_checkinteger(L, -1) & 15;
    lua_pop(L, 1);
  } else {
    v = luaL_checkinteger(L, -1);
    v = v >= 4 ? 15 : v <= 0 ? 0 : (1 << v) - 1;
  }
  masks[a] = (uint8_t)v;
}

static uint32_t opt_field(lua_State *L, const char *name, lua_Integer def) {
  lua_getfield(L, -1, name);
  lua_Integer v = luaL_optinteger(L, -1, def);
  lua_pop(L, 1);
  return (uint32_t)v;
}

/* One entry of attributes (key at -2, value at -1); *off: the next free
 * input word. */
static void prolog_attr(lua_State *L, agx_prolog_key *k, uint32_t *off) {
  lua_Integer i = lgs_index_key(L, "agx.prolog", "attributes", AGX_PROLOG_MAX_ATTRS + 1) - 1;
  luaL_argexpected(L, lua_istable(L, -1) && i >= 0, 1, "attributes as a list of tables");
  agx_prolog_attr *a = &k->attr[i];
  a->size = opt_field(L, "size", 16);
  a->stride = opt_field(L, "stride", a->size);
  a->vpm_offset = 4 * opt_field(L, "offset", *off);
  a->slot = (uint8_t)opt_field(L, "slot", i);
  a->align = (uint8_t)opt_field(L, "align", 4);
  *off = a->vpm_offset / 4 + (a->size + 3) / 4;
  if ((unsigned)i + 1 > k->nattrs) k->nattrs = (unsigned)i + 1;
}

static int l_prolog(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  uint8_t masks[AGX_PROLOG_MAX_ATTRS] = {0}, regs[4 * AGX_PROLOG_MAX_ATTRS];
  agx_prolog_key k;
  memset(&k, 0, sizeof k);
  uint32_t off = 0;
  LGS_EACH_FIELD(L, "inputs", prolog_input(L, masks));
  LGS_EACH_FIELD(L, "attributes", prolog_attr(L, &k, &off));
  lua_getfield(L, 1, "slots");
  unsigned n = (unsigned)luaL_optinteger(L, -1, 8);
  lua_pop(L, 1);
  agx_prolog_inputs in = {agx_prolog_words(masks, regs), regs, masks};
  gs_isa_binary b;
  gs_diag d = {0};
  uint32_t reads;
  char *text = NULL;
  if (agx_prolog_build(&k, &in, n, &b, &reads, &d) < 0 || agx_disasm(b.bytes, b.size, &text, &d) < 0) {
    gs_isa_binary_free(&b);
    return lgs_error(L, "agx.prolog", d.msg);
  }
  lua_pushlstring(L, (const char *)b.bytes, b.size);
  lua_pushstring(L, text);
  free(text);
  gs_isa_binary_free(&b);
  return 2;
}

const luaL_Reg lgs_agx_funcs[] = {
  {"run", l_run},
  {"prolog", l_prolog},
  {NULL, NULL}
};
