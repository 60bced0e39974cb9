/* lgpusim.h — what the files of the `gpusim` Lua module share: the GPU
 * context upvalue, address and option checks, malloc boxes and the way
 * simulator errors become Lua errors. The Lua-side manual is in
 * include/gpusim/luamod.h.
 *
 * Every function of the module is a C closure whose upvalue 1 is the
 * state's context userdata ("gpusim.GPU"), so no function needs a global or
 * a registry lookup to find its gs_gpu.
 */
#ifndef GS_LUA_LGPUSIM_H
#define GS_LUA_LGPUSIM_H

#include <stddef.h>
#include <stdint.h>
#include <lua.h>
#include <lauxlib.h>
#include "gpusim/driver.h"
#include "gpusim/gpu.h"
#include "gpusim/mem.h"
#include "gpusim/sph.h"

/* The functions of the subtables, registered with the context as upvalue. */
extern const luaL_Reg lgs_mem_funcs[];   /* gpusim.mem.*  (lmem.c) */
extern const luaL_Reg lgs_qpu_funcs[];   /* gpusim.qpu.*  (lqpu.c) */
extern const luaL_Reg lgs_prog_funcs[];  /* gpusim.asm, gpusim.disasm (lqpu.c) */

/* The context of the running closure; raises if it has been closed. */
gs_gpu *lgs_gpu(lua_State *L);

/* Checks that argument arg is an integer bus address (0 .. 2^32-1). */
gs_addr lgs_checkaddr(lua_State *L, int arg);

/* Reads the optional integer field `name` of the table at index t into *out,
 * checking lo <= value <= hi; returns 0 if the field is nil. Errors name
 * argument arg and the field. */
int lgs_optfield_int(lua_State *L, int arg, int t, const char *name, lua_Integer lo,
                     lua_Integer hi, lua_Integer *out);

/* The value on top of the stack (field `what` of argument arg) as an index
 * into lst, popping it; else an argument error listing the choices. */
int lgs_option_value(lua_State *L, int arg, const char *what, const char *const lst[]);

/* Like luaL_checkoption for the optional string field `name` of the table
 * at index t: returns the index of its value in lst, or def if nil. */
int lgs_optfield_option(lua_State *L, int arg, int t, const char *name, int def,
                        const char *const lst[]);

/* Reads the run options of the table at index arg into *cfg: interpreter
 * ("fast"|"reference"), rounding ("toward_zero"|"nearest_even"), qpus
 * (1..12) and the watchdog under the name watchdog_field. Fields that are
 * nil keep their value; *cfg is changed only if every field is valid. */
void lgs_read_config(lua_State *L, int arg, gs_gpu_config *cfg, const char *watchdog_field);

/* Raises "gpusim.<fn>: <msg>", leaving out a copy of "<fn>: " that msg
 * already starts with. Never returns. */
int lgs_error(lua_State *L, const char *fn, const char *msg);

/* The SPH at idx — an 80-byte string or a table of fields as
 * gpusim.sph.encode takes it — into *out; raises "<what>: <why>"
 * otherwise (lsph.c). */
int lgs_sph_arg(lua_State *L, int idx, const char *what, gs_sph *out);

/* Where an assembly error lies (lscene.c). */
typedef struct lgs_asm_place {
  int line, col;            /* in the text, from 1 */
  const char *rest;         /* the message after "<name>:line:col: " */
  char script[LUA_IDSIZE];  /* the calling script's short name, "" if not found */
  int script_line, script_col, call_line;  /* the mistake's place in it; the call's line */
} lgs_asm_place;

/* Reads the assembler's message "<name>:L:C: ..." about `text` into *p;
 * returns 0 if msg is not of that form. When text is a literal found
 * exactly once in the file of the Lua function that called the running C
 * function (a [[long string]] holds its text verbatim), p->script names
 * that file and p->script_line:script_col is line L, column C of the text
 * there. */
int lgs_asm_place_of(lua_State *L, const char *name, const char *text, const char *msg, lgs_asm_place *p);

/* The last frame gpusim.render made (lscene.c), for gpusim.why (lwhy.c):
 * pushes its frame userdata (user values: 1 the target, 3 each draw
 * call's "file:line:", 4 its blend and colour-mask bits) and returns 1
 * with *out filled, or pushes nothing and returns 0. */
struct gs_driver;
typedef struct lgs_frame_info {
  gs_drv_frame frame;
  int ran;
  unsigned threads;
  lua_Integer number;
  struct gs_driver *drv;
} lgs_frame_info;
int lgs_last_frame(lua_State *L, lgs_frame_info *out);
/* gpusim.why(x, y) (lwhy.c). */
int lgs_why(lua_State *L);
/* gpusim.why_all([{threads = N}]) (lwhyall.c). */
int lgs_why_all_lua(lua_State *L);
/* gpusim.debug{x = X, y = Y} or {draw = K, vertex = I} (ldebug.c). */
int lgs_debug(lua_State *L);

/* Pushes a box: a userdata holding one malloc'ed pointer (NULL at first)
 * that is freed when the box is collected or closed, so a C result survives
 * a Lua error raised while it is being converted. Returns the slot to pass
 * to the C call that allocates. */
void **lgs_newbox(lua_State *L);
/* Frees the pointer in the box at index idx now. */
void lgs_closebox(lua_State *L, int idx);

/* Pushes a zeroed userdata of size bytes whose metatable tname has gc as
 * __gc (the state of a call such as gpusim.pica.run, freed by the
 * collector even when the call raises an error); returns it. */
void *lgs_newstate(lua_State *L, size_t size, const char *tname, lua_CFunction gc);

/* Runs body for each entry of the table field `name` of argument 1, if
 * given (anything but a table is an argument error), with the key at -2
 * and the value at -1. */
#define LGS_EACH_FIELD(L, name, body)                                             \
  do {                                                                            \
    if (lua_getfield(L, 1, name) != LUA_TNIL) {                                   \
      luaL_argexpected(L, lua_istable(L, -1), 1, "field '" name "' as a table"); \
      lua_pushnil(L);                                                             \
      while (lua_next(L, -2)) {                                                   \
        body;                                                                     \
        lua_pop(L, 1);                                                            \
      }                                                                           \
    }                                                                             \
    lua_pop(L, 1);                                                                \
  } while (0)
/* The key at -2 (during LGS_EACH_FIELD) as an index 0..max-1, or raises
 * "gpusim.<fn>: <name>: index K is not 0..max-1". */
lua_Integer lgs_index_key(lua_State *L, const char *fn, const char *name, lua_Integer max);

#endif
