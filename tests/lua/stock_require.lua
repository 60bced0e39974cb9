-- stock_require.lua — the module loads from a stock lua5.4 with
-- LUA_CPATH=<build>/lua/?.so (GS_SOURCE_DIR names the source tree). It uses
-- only gpusim.mem and asm/disasm. Under `gpusim --headless` the module is
-- preloaded, so the same checks run there too.
local gpusim = require "gpusim"
assert(package.loaded.gpusim == gpusim)
assert(type(gpusim.version) == "string")

-- memory
local mem = gpusim.mem
local a = mem.alloc(256)
mem.write(a, "u32", {1, 2, 3, 0xffffffff})
local t = mem.read(a, "u32", 4)
assert(t[1] == 1 and t[3] == 3 and t[4] == 0xffffffff)
mem.write(a, "f32", {0.5, -2})
t = mem.read(a, "f32", 2)
assert(t[1] == 0.5 and t[2] == -2)
local ok, msg = pcall(mem.read, a + 256, "u32", 1)
assert(not ok and msg:find(string.format("0x%08x", a + 256), 1, true), msg)

-- the sample program of the CLI tests, assembled and disassembled
local source_dir = os.getenv("GS_SOURCE_DIR") or "."
local f = assert(io.open(source_dir .. "/tests/cli/square.s", "r"))
local source = f:read("a")
f:close()
local bin = gpusim.asm("qpu", source, {name = "square.s"})
assert(#bin > 0 and #bin % 8 == 0)
local text = gpusim.disasm("qpu", bin)
assert(gpusim.asm("qpu", text) == bin, "round trip")
mem.write_bytes(a, bin)
assert(mem.read_bytes(a, #bin) == bin)
mem.free(a)

-- everything this script allocated is released
assert(mem.used() == 0)

print("stock_require: ok")
