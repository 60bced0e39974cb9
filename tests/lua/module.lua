-- module.lua — the gpusim module as a whole: loading, version, the
-- subtables registered for require, gpusim.config, the script's `arg`, and
-- the argument checks of the program functions that need no assembler.
local gpusim = require "gpusim"

package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

-- loading
assert(require "gpusim" == gpusim)
assert(type(gpusim.version) == "string" and gpusim.version:match("^%d+%.%d+%.%d+"))
assert(require "gpusim.mem" == gpusim.mem and require "gpusim.qpu" == gpusim.qpu)
for _, name in ipairs {"asm", "disasm", "config"} do assert(type(gpusim[name]) == "function") end
for _, name in ipairs {"alloc", "free", "read", "write", "read_bytes", "write_bytes", "used"} do
  assert(type(gpusim.mem[name]) == "function", name)
end
assert(type(gpusim.qpu.run) == "function" and type(gpusim.qpu.load) == "function")

-- the script's arguments, as the lua interpreter gives them
assert(arg and arg[0]:match("module%.lua$"), "arg[0] is the script")
assert(arg[-1] == "--headless" or arg[-1]:match("gpusim"), "arg[-1] is an option or the program")

-- config: read, change, restore; bad values leave it unchanged
local c = gpusim.config()
assert(c.interpreter == "fast" and c.rounding == "toward_zero")
assert(c.watchdog > 0 and c.qpus == 12 and c.mem_limit > 0)
local c2 = gpusim.config {interpreter = "reference", watchdog = 1000, qpus = 4, rounding = "nearest_even"}
assert(c2.interpreter == "reference" and c2.watchdog == 1000 and c2.qpus == 4 and c2.rounding == "nearest_even")
fails({"bad argument #1", "'interpreter'", "'fast', 'reference'"}, gpusim.config, {interpreter = "slow"})
fails({"bad argument #1", "'qpus'", "1..12"}, gpusim.config, {qpus = 13})
fails({"bad argument #1", "'watchdog'"}, gpusim.config, {watchdog = 0})
fails({"bad argument #1", "mem_limit"}, gpusim.config, {mem_limit = 1})
fails({"bad argument #1", "table expected"}, gpusim.config, 5)
assert(gpusim.config().watchdog == 1000 and gpusim.config().qpus == 4)
gpusim.config {interpreter = c.interpreter, watchdog = c.watchdog, qpus = c.qpus, rounding = c.rounding}
assert(gpusim.config().interpreter == "fast" and gpusim.config().watchdog == c.watchdog)

-- ISA names and binaries are checked before any assembler runs
fails({"bad argument #1", "unknown ISA 'nosuch'", "known: qpu, sass"}, gpusim.asm, "nosuch", "nop")
fails({"bad argument #1", "unknown ISA"}, gpusim.disasm, "nosuch", "")
fails({"bad argument #2", "string expected"}, gpusim.asm, "qpu", nil)
fails({"bad argument #2", "NUL byte"}, gpusim.asm, "qpu", "nop\0nop")
fails({"bad argument #3", "'base'"}, gpusim.asm, "qpu", "nop", {base = -1})
fails({"bad argument #3", "'name'"}, gpusim.asm, "qpu", "nop", {name = 5})
fails({"bad argument #2", "13 bytes", "multiple of 8"}, gpusim.disasm, "qpu", string.rep("x", 13))
assert(gpusim.disasm("qpu", "") == "")
fails({"bad argument #1", "multiple of 8"}, gpusim.qpu.load, "1234567")
fails({"bad argument #1", "empty"}, gpusim.qpu.load, "")

-- qpu.run argument checks
fails({"bad argument #1", "table expected"}, gpusim.qpu.run, nil)
fails({"bad argument #1", "program 2", "table"}, gpusim.qpu.run, {{code = 0x1000}, 7})
fails({"bad argument #1", "program 1", "'code'"}, gpusim.qpu.run, {{uniforms = 0}})
fails({"bad argument #1", "program 1", "'uniforms'"}, gpusim.qpu.run, {{code = 8, uniforms = "u"}})
fails({"bad argument #2", "'interpreter'"}, gpusim.qpu.run, {}, {interpreter = "jit"})
fails({"bad argument #2", "'max_instructions'"}, gpusim.qpu.run, {}, {max_instructions = 0})
fails({"gpusim.qpu.run", "0x00001003", "not 8-byte aligned"}, gpusim.qpu.run, {{code = 0x1003}})
assert(#gpusim.qpu.run({}) == 0)

-- the script's file:line comes first in every error raised from Lua code
local msg = fails({}, function() gpusim.asm("nosuch", "nop") end)
assert(msg:match("module%.lua:%d+: bad argument #1 to 'asm'"), msg)

print("module: ok")
