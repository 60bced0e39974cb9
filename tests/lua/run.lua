-- run.lua — gpusim.qpu.load and gpusim.qpu.run on hand-encoded programs
-- (so this test does not depend on the assembler): statuses, both
-- interpreters, more programs than QPUs, and the errors of runaway programs
-- and of reads outside GPU memory, which must name the QPU, pc and address.
local gpusim = require "gpusim"
local qpu, mem = gpusim.qpu, gpusim.mem

package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

-- Instruction words (reference/vc4.md §1.2), written as 64-bit integers.
local NOP = 0x100009e7009e7000      -- nop ; nop
local THREND = 0x300009e7009e7000   -- nop ; nop ; thrend
-- ldi host_int, 1: sig 14, cond_add always, waddr_add 38 (host_int), waddr_mul 39 (nop)
local LDI_HOST_INT = 0xe00209a700000001
-- or r0, unif, unif: sig 1, cond_add always, waddr_add 32 (r0), op_add 21 (or),
-- raddr_a 32 (unif), raddr_b 39, both add muxes regfile A
local OR_R0_UNIF = 0x1002082715827d80
-- brr -32 (to itself): sig 15, cond_br 15 (always), rel, waddrs 39, imm -32
local BRANCH_SELF = 0xf0f809e7ffffffe0

local function binary(words)
  local parts = {}
  for i, w in ipairs(words) do parts[i] = string.pack("<i8", w) end
  return table.concat(parts)
end

-- load: a fresh allocation holding the bytes
local ending = binary {LDI_HOST_INT, THREND, NOP, NOP}
local code = qpu.load(ending)
assert(code % 8 == 0 and mem.read_bytes(code, #ending) == ending)
assert(mem.read(code, "u32", 2)[1] == 1 and mem.read(code, "u32", 2)[2] == 0xe00209a7,
       "low 32-bit word first")

-- one program, both interpreters
for _, interp in ipairs {"fast", "reference"} do
  local st = qpu.run({{code = code, uniforms = 0}}, {interpreter = interp})
  assert(#st == 1)
  assert(st[1].ended == true, interp)
  assert(st[1].host_interrupt == true, interp)
  assert(st[1].qpu == 0, interp)
  assert(st[1].instructions == 4, interp .. ": " .. st[1].instructions .. " instructions")
end

-- more programs than QPUs: all run, on QPUs 0..11
local many = {}
for i = 1, 13 do many[i] = {code = code} end
local st = qpu.run(many)
assert(#st == 13)
local seen = {}
for i = 1, 13 do
  assert(st[i].ended and st[i].host_interrupt)
  assert(st[i].qpu >= 0 and st[i].qpu < 12)
  seen[st[i].qpu] = true
end
for n = 0, 11 do assert(seen[n], "QPU " .. n .. " was not used") end
st = qpu.run(many, {qpus = 2})
for i = 1, 13 do assert(st[i].qpu < 2) end

-- a program that reads a uniform
local unif = mem.alloc(16)
mem.write(unif, "u32", {42})
local reader = qpu.load(binary {OR_R0_UNIF, THREND, NOP, NOP})
st = qpu.run {{code = reader, uniforms = unif}}
assert(st[1].ended and not st[1].host_interrupt)

-- a uniform read outside memory names the QPU, the pc and the address
local msg = fails({"gpusim.qpu.run", "QPU 0", string.format("pc 0x%08x", reader), "0x00000010"},
                  qpu.run, {{code = reader, uniforms = 0x10}})
assert(msg:find("outside", 1, true), msg)

-- code outside memory
fails({"gpusim.qpu.run", "QPU 0", "0x00000800"}, qpu.run, {{code = 0x800}})

-- a runaway loop hits the watchdog, naming QPU and pc; the budget is per run
local loop = qpu.load(binary {BRANCH_SELF, NOP, NOP, NOP})
local before = gpusim.config().watchdog
for _, interp in ipairs {"fast", "reference"} do
  msg = fails({"gpusim.qpu.run", "QPU 0 at pc 0x", "watchdog"},
              qpu.run, {{code = loop}}, {max_instructions = 1000, interpreter = interp})
  local pc = tonumber(msg:match("pc 0x(%x+)"), 16)
  assert(pc >= loop and pc < loop + 32, msg)
end
assert(gpusim.config().watchdog == before, "run options do not stick")
assert(gpusim.config().interpreter == "fast")

-- the second of several programs fails: its QPU is named
msg = fails({"QPU 1"}, qpu.run, {{code = code}, {code = loop}}, {max_instructions = 500})

-- an error raised in a script carries its file:line
msg = fails({}, function() qpu.run({{code = loop}}, {max_instructions = 100}) end)
assert(msg:match("run%.lua:%d+: gpusim%.qpu%.run: QPU 0 at pc"), msg)

mem.free(code)
mem.free(loop)
print("run: ok")
