/* lsrcmap.h — the source lines of assembled programs, for the shader
 * debugger (docs/debugger.md, "Source lines").
 *
 * Programs reach GPU memory as bytes: a scene's text is assembled by
 * gpusim.shader or gpusim.asm and the bytes are written where the pipeline
 * fetches them. So each assembly made in a Lua state records, in a registry
 * the state keeps, the program's bytes with the line of each instruction
 * (the assembler's line table, gs_isa_binary.lines): the Lua file and line
 * where the assembly text was written, and the line's text. The debugger
 * finds the map of the program it runs by its bytes: the program header in
 * front of the code gives the program's length, and an entry of the same
 * ISA, length and bytes (an FNV-1a hash first, then the bytes) is its map;
 * code without a header (or a program the driver linked more code into)
 * takes the entry that shares the longest run of first bytes with it, for
 * the instructions within that run (a blending variant of a QPU fragment
 * program: the original's instructions before its colour write).
 * Code given as bytes that no assembly of this state made (and that does
 * not begin with one's instructions) has no map.
 *
 * Where the text was written: the Lua files of the functions on the call
 * stack of the assembly, and of the functions the loaded modules
 * (package.loaded) hold, are searched for the text. Found exactly once
 * (a [[long string]] holds its text verbatim), instruction line L of the
 * text is line S + L - 1 of that file, S the file's line the text starts
 * on; otherwise each instruction's line is looked for alone, as a whole
 * line of those files, and taken where it is found exactly once (a
 * program a Lua function puts together from lines of its file); else the
 * place is "<asm>" and the line L of the text.
 */
#ifndef GS_LUA_LSRCMAP_H
#define GS_LUA_LSRCMAP_H

#include <stddef.h>
#include <stdint.h>
#include <lua.h>
#include "gpusim/mem.h"
#include "isa/isa.h"

typedef struct lgs_src_row {
  uint32_t offset;     /* byte offset of the instruction in the assembled binary */
  uint32_t line;       /* line in file (or in the text, when file is NULL) */
  const char *file;    /* the Lua file's name as Lua loaded it ("@" left out), or NULL: "<asm>" */
  const char *text;    /* the source line, without its leading and trailing blanks */
} lgs_src_row;

typedef struct lgs_srcmap_entry {
  const gs_isa *isa;
  uint8_t *bytes;
  size_t size;
  uint64_t hash;
  uint32_t origin;     /* the offset of the assembler's first line-table entry (the PICA200's
                        * instruction word 0 in the SHBIN: its line table has every word) */
  lgs_src_row *rows;   /* in offset order */
  size_t nrows;
  char *text;          /* the rows' texts */
} lgs_srcmap_entry;

/* Records bin (just assembled from text by isa) in the state's registry.
 * Out of memory it records nothing (the debugger then shows no source). */
void lgs_srcmap_note(lua_State *L, const gs_isa *isa, const gs_isa_binary *bin, const char *text);

/* The map of the program of ISA `isa` (gs_isa.name) at code, or NULL, and
 * in *same how many of its first bytes the code has: all of them for the
 * program itself; fewer for a program the driver linked code into (a
 * blending variant of a QPU fragment program keeps the original's
 * instructions up to its colour write) or code that only begins as an
 * assembly does — the rows of the instructions past them are not the
 * code's. The entry lives as long as the Lua state. */
const lgs_srcmap_entry *lgs_srcmap_find(lua_State *L, const char *isa, const gs_mem *m, gs_addr code,
                                        size_t *same);

/* The row of the instruction at `pc` (the debugger's user pc: the QPU's bus
 * address, SASS's and AGX's byte offset in the program, the PICA200's
 * word index; code: the program's address), or NULL (also when the
 * instruction's bytes are not all within the first `same`). */
const lgs_src_row *lgs_srcmap_row(const lgs_srcmap_entry *e, size_t same, gs_addr code, int64_t pc);

/* The row's place as "file:line" (the file's last path component) or
 * "<asm>:line", into buf. */
void lgs_src_place(const lgs_src_row *r, char *buf, size_t n);

#endif
