/* gpusim/luamod.h — the `gpusim` Lua module.
 *
 * The module is linked into the gpusim program (preloaded for every script)
 * and built as gpusim.so for a stock lua5.4:
 *
 *   LUA_CPATH='build/lua/?.so' lua5.4 -e 'print(require("gpusim").version)'
 *
 * Each Lua state has its own simulated GPU (a gs_gpu kept in the registry and
 * freed when the state closes); two states never share memory or QPUs.
 *
 * ---- Lua manual ----------------------------------------------------------
 *
 *   local gpusim = require "gpusim"
 *   gpusim.version                        -- "0.1.0"
 *
 * GPU memory (bus addresses are integers):
 *   a = gpusim.mem.alloc(bytes [, align])  -- zero-filled; align: power of two >= 4, default 16
 *   gpusim.mem.free(a)                     -- a must be the start of an allocation
 *   gpusim.mem.write(a, type, values)      -- values: a sequence, or one number
 *   t = gpusim.mem.read(a, type [, n])     -- a table of n values (default 1)
 *   gpusim.mem.write_bytes(a, str)
 *   s = gpusim.mem.read_bytes(a, n)
 *   gpusim.mem.used()                      -- bytes allocated
 *
 *   Element types: "u8" "u16" "u32" "i8" "i16" "i32" "f32", little-endian.
 *   Writing an integer type accepts any integer in -2^(n-1) .. 2^n-1 (floats
 *   with an exact integer value too) and stores it modulo 2^n, so -1 written
 *   as "u32" is 0xffffffff, the two's-complement word the QPU sees. Reading
 *   "uN" gives 0 .. 2^n-1, reading "iN" gives -2^(n-1) .. 2^(n-1)-1.
 *   "f32" accepts any number and stores the nearest binary32 (overflow gives
 *   ±inf, NaN stays NaN); reading gives a Lua float.
 *   Every access outside allocated memory is an error naming the address;
 *   nothing is written when any value is rejected.
 *
 * Programs (isa: "qpu"; the other ISAs come later):
 *   bin  = gpusim.asm(isa, text [, {name = "prog.s", base = addr}])
 *          -- a binary string: 64-bit words, little-endian, low 32 bits first;
 *          -- errors raise the assembler's "name:line:col: ..." message after the
 *          -- script's file:line:col of the mistake (a literal text found once in
 *          -- the script) or the call's file:line
 *   text = gpusim.disasm(isa, bin [, {base = addr}])
 *   code = gpusim.qpu.load(bin)            -- allocates and copies; free with mem.free
 *   st   = gpusim.qpu.run({{code = c, uniforms = u}, ...}
 *                         [, {interpreter = "fast"|"reference",
 *                             max_instructions = n,  -- watchdog, per program
 *                             rounding = "toward_zero"|"nearest_even",
 *                             qpus = n}])            -- QPUs to use, 1..12
 *          -- st[i] = {ended = bool, host_interrupt = bool, instructions = n, qpu = n};
 *          -- a fault raises the simulator's message (QPU, pc, address)
 *   gpusim.config([{...}])                 -- read/set the defaults of the run options:
 *          -- returns {interpreter, watchdog, rounding, qpus, mem_limit, pica_float, pica_state};
 *          -- pica_float = "f24"|"f32": the PICA200 unit's arithmetic (docs/pica-unit.md)
 *          -- pica_state = "zero"|"persist": what a PICA200 vertex starts from (docs/pica-unit.md)
 *
 * Control lists (src/lua/lv3d.c; docs/pipeline.md):
 *   gpusim.v3d.run{bin = {start, stop}, render = {start, stop} [, threads = n]}
 *          -- runs the binning and rendering control-list threads between those
 *          -- bus addresses, as CT0/CT1 do; the frame is in GPU memory where the
 *          -- rendering list stored it. Errors name the list and the address.
 *
 * Shader Program Headers (src/lua/lsph.c; docs/sph.md, "From Lua"):
 *   t = gpusim.sph.decode(bytes)           -- 80 bytes -> {SphType = 2, Version = 3,
 *          -- ["ImapGenericVector[8].X"] = 2, ...}: every element of the layout
 *   bytes = gpusim.sph.encode(t)           -- the inverse; a missing key is 0
 *
 * Scenes (src/lua/lscene.c; docs/scenes.md): gpusim.target, gpusim.buffer,
 * gpusim.texture, gpusim.shader, gpusim.frame(fn, target), gpusim.render{...}.
 *
 * Bad arguments raise errors naming the function and argument ("bad argument
 * #2 to 'write' (unknown type 'u64' ...)"), prefixed by the script's
 * file:line.
 */
#ifndef GPUSIM_LUAMOD_H
#define GPUSIM_LUAMOD_H

#include <lua.h>
#include "gpusim/gpu.h"

/* Opens the module: returns (pushes) the `gpusim` table, creating the state's
 * GPU context on first use. Raises a Lua error if the host is out of memory.
 * Use with luaL_requiref(L, "gpusim", luaopen_gpusim, 0) or package.preload. */
int luaopen_gpusim(lua_State *L);

/* The GPU context of L's gpusim module, or NULL if the module has not been
 * opened in L (or its context was closed). Owned by L: valid until lua_close. */
gs_gpu *gs_lua_gpu(lua_State *L);

#endif
