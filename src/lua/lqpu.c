/* lqpu.c — programs from Lua: gpusim.asm and gpusim.disasm (text <->
 * binary strings for an ISA), gpusim.qpu.load and gpusim.qpu.run (user
 * programs on the QPUs). Manual: include/gpusim/luamod.h.
 *
 * A binary string holds 64-bit instruction words, each little-endian with
 * the low 32-bit word first, exactly the bytes the GPU fetches; it can be
 * written to a file, placed with gpusim.mem.write_bytes, or loaded with
 * gpusim.qpu.load.
 */
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "gpusim/qpu.h"
#include "isa/isa.h"
#include "lua/lgpusim.h"
#include "lua/lsrcmap.h"


/* The instruction set argument arg names (src/isa/isa.h); the error lists
 * the known ones. */
static const gs_isa *check_isa(lua_State *L, int arg) {
  const char *name = luaL_checkstring(L, arg);
  const gs_isa *isa = gs_isa_by_name(name);
  if (!isa) luaL_argerror(L, arg, lua_pushfstring(L, "unknown ISA '%s'; known: %s", name, gs_isa_names()));
  return isa;
}

/* Checks that argument arg is a binary string of whole instructions and
 * returns its length in bytes. */
static size_t check_binary(lua_State *L, int arg, const char **bin) {
  size_t len;
  *bin = luaL_checklstring(L, arg, &len);
  if (len % 8 != 0)
    luaL_argerror(L, arg,
                  lua_pushfstring(L, "binary of %I bytes is not a multiple of 8, the size of an instruction",
                                  (LUAI_UACINT)len));
  return len;
}

/* Reads the optional field `base` (a bus address) of the options table at
 * index arg; 0 if there is no table or no field. */
static uint32_t opt_base(lua_State *L, int arg) {
  lua_Integer base = 0;
  if (lua_isnoneornil(L, arg)) return 0;
  luaL_checktype(L, arg, LUA_TTABLE);
  lgs_optfield_int(L, arg, arg, "base", 0, 0xFFFFFFFF, &base);
  return (uint32_t)base;
}

/* gpusim.asm(isa, text [, {name=, base=}]) -> binary string. A syntax error
 * raises the assembler's "name:line:col: ..." message after the caller's
 * file:line, or, when the text is a literal found once in the calling
 * script, after the mistake's file:line:col there and followed by the
 * call's line, as gpusim.shader does. */
static int l_asm(lua_State *L) {
  const gs_isa *isa = check_isa(L, 1);
  size_t len;
  const char *text = luaL_checklstring(L, 2, &len);
  luaL_argcheck(L, strlen(text) == len, 2, "assembly text contains a NUL byte");
  uint32_t base = opt_base(L, 3);
  const char *name = "asm";
  if (lua_istable(L, 3)) {
    int t = lua_getfield(L, 3, "name"); /* stays on the stack: keeps name alive */
    if (t != LUA_TNIL) {
      luaL_argcheck(L, t == LUA_TSTRING, 3, "field 'name' must be a string");
      name = lua_tostring(L, -1);
    }
  }
  void **box = lgs_newbox(L), **lines = lgs_newbox(L);
  int box_index = lua_gettop(L) - 1;
  gs_isa_binary bin;
  gs_diag d;
  gs_diag_clear(&d);
  int rc = isa->assemble(text, name, base, &bin, &d);
  *box = bin.bytes; /* from here a Lua error cannot leak the binary */
  *lines = bin.lines;
  lgs_asm_place p;
  if (rc < 0 && lgs_asm_place_of(L, name, text, d.msg, &p) && p.script[0]) {
    lua_pushfstring(L, "%s:%d:%d: %s (gpusim.asm called at line %d)", p.script, p.script_line, p.script_col, d.msg,
                    p.call_line);
    return lua_error(L);
  }
  if (rc < 0) return luaL_error(L, "%s", d.msg[0] ? d.msg : "assembly failed");
  luaL_argcheck(L, bin.size <= 0xFFFFFFFFu, 2, "program too large for 32-bit GPU memory");
  lgs_srcmap_note(L, isa, &bin, text); /* the debugger's source lines (lsrcmap.h) */
  lua_pushlstring(L, (const char *)bin.bytes, bin.size);
  lgs_closebox(L, box_index + 1);
  lgs_closebox(L, box_index);
  return 1;
}

/* gpusim.disasm(isa, bin [, {base=}]) -> text, one instruction per line. */
static int l_disasm(lua_State *L) {
  const gs_isa *isa = check_isa(L, 1);
  const char *bin;
  size_t len;
  if (isa->id == GS_ISA_PICA || isa->id == GS_ISA_AGX) /* a SHBIN file; AGX's 2-12 byte instructions */
    bin = luaL_checklstring(L, 2, &len);
  else len = check_binary(L, 2, &bin);
  uint32_t base = opt_base(L, 3);
  if (len == 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  void **box = lgs_newbox(L);
  int box_index = lua_gettop(L);
  char *text = NULL;
  gs_diag d;
  gs_diag_clear(&d);
  int rc = isa->disassemble((const uint8_t *)bin, len, base, &text, &d);
  *box = text;
  if (rc < 0) return lgs_error(L, "disasm", d.msg[0] ? d.msg : "disassembly failed");
  lua_pushstring(L, text ? text : "");
  lgs_closebox(L, box_index);
  return 1;
}

/* gpusim.qpu.load(bin) -> bus address of a new allocation holding bin. */
static int l_load(lua_State *L) {
  gs_gpu *g = lgs_gpu(L);
  const char *bin;
  size_t len = check_binary(L, 1, &bin);
  luaL_argcheck(L, len > 0, 1, "empty program");
  luaL_argcheck(L, len <= 0xFFFFFFF0u, 1, "program too large for 32-bit GPU memory");
  gs_diag d;
  gs_addr a;
  if (gs_mem_alloc(gs_gpu_mem(g), (uint32_t)len, 16, &a, &d) < 0) return lgs_error(L, "qpu.load", d.msg);
  if (gs_mem_write(gs_gpu_mem(g), a, bin, (uint32_t)len, &d) < 0) return lgs_error(L, "qpu.load", d.msg);
  lua_pushinteger(L, (lua_Integer)a);
  return 1;
}

/* Reads field `name` of the program table on top of the stack, the i-th of
 * argument 1, as a bus address; def if nil and def >= 0. */
static gs_addr program_field(lua_State *L, lua_Integer i, const char *name, lua_Integer def) {
  int t = lua_getfield(L, -1, name);
  int isint = 0;
  lua_Integer v = lua_tointegerx(L, -1, &isint);
  if (t == LUA_TNIL && def >= 0) v = def, isint = 1;
  if (!isint || v < 0 || v > 0xFFFFFFFF)
    luaL_argerror(L, 1,
                  lua_pushfstring(L, "program %I: field '%s' must be a bus address, got %s", (LUAI_UACINT)i,
                                  name, luaL_tolstring(L, -1, NULL)));
  lua_pop(L, 1);
  return (gs_addr)v;
}

static void set_bool(lua_State *L, const char *k, int v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

/* gpusim.qpu.run({{code=, uniforms=}, ...} [, options]) -> statuses.
 * The options apply to this run only; a fault raises the simulator's
 * message, which names the QPU, pc and address. */
static int l_run(lua_State *L) {
  gs_gpu *g = lgs_gpu(L);
  lua_settop(L, 2); /* scratch userdata go above the arguments */
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Integer n = luaL_len(L, 1);
  luaL_argcheck(L, n >= 0 && n <= (1 << 20), 1, "between 0 and 1048576 programs expected");
  gs_qpu_program *progs = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *progs, 0);
  gs_qpu_status *st = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *st, 0);
  for (lua_Integer i = 1; i <= n; i++) {
    if (lua_geti(L, 1, i) != LUA_TTABLE)
      luaL_argerror(L, 1,
                    lua_pushfstring(L, "program %I must be a table {code=, uniforms=}, got %s", (LUAI_UACINT)i,
                                    luaL_typename(L, -1)));
    progs[i - 1].code = program_field(L, i, "code", -1);
    progs[i - 1].uniforms = program_field(L, i, "uniforms", 0);
    lua_pop(L, 1);
  }
  gs_gpu_config *cfg = gs_gpu_config_of(g);
  gs_gpu_config saved = *cfg;
  if (!lua_isnoneornil(L, 2)) lgs_read_config(L, 2, cfg, "max_instructions");
  int rc = gs_qpu_run_user(g, progs, (size_t)n, st);
  *cfg = saved;
  if (rc < 0) return lgs_error(L, "qpu.run", gs_gpu_error(g));
  lua_createtable(L, (int)n, 0);
  for (lua_Integer i = 0; i < n; i++) {
    lua_createtable(L, 0, 4);
    set_bool(L, "ended", st[i].ended);
    set_bool(L, "host_interrupt", st[i].host_interrupt);
    set_int(L, "instructions", (lua_Integer)st[i].instructions);
    set_int(L, "qpu", st[i].qpu);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

const luaL_Reg lgs_prog_funcs[] = {
  {"asm", l_asm},
  {"disasm", l_disasm},
  {NULL, NULL}
};

const luaL_Reg lgs_qpu_funcs[] = {
  {"load", l_load},
  {"run", l_run},
  {NULL, NULL}
};
