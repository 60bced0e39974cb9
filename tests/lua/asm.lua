-- asm.lua — gpusim.asm and gpusim.disasm: binary strings (64-bit words,
-- little-endian, low word first), the round trip text -> binary -> text ->
-- binary, assembler errors with name:line:col, and an assembled program
-- that runs.
local gpusim = require "gpusim"

package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

local function words(bin)
  local t = {}
  for i = 1, #bin, 8 do t[#t + 1] = string.unpack("<i8", bin, i) end
  return t
end

-- the canonical nop and a thread end (reference/vc4.md §1.2)
local bin = gpusim.asm("qpu", "nop\nnop ; nop ; thrend\nnop\nnop\n")
assert(#bin == 32, "4 instructions are 32 bytes")
local w = words(bin)
assert(w[1] == 0x100009e7009e7000, string.format("nop is 0x%016x", w[1]))
assert(w[2] == 0x300009e7009e7000, string.format("thrend is 0x%016x", w[2]))
assert(bin:sub(1, 4) == "\x00\x70\x9e\x00", "low 32-bit word first, little-endian")

-- round trip: the disassembly assembles back to the same words
local source = [[
start:
        or r0, unif, unif
        ldi r1, 0x12345678
        fadd r2, r0, r1 ; fmul r3, r0, r1
        mov r0, elem_num
        shl r0, r0, 2
        sub.setf r0, r0, 1
        brr.anyz start
        nop
        nop
        nop
        nop ; nop ; thrend
        nop
        nop
]]
bin = gpusim.asm("qpu", source, {name = "round.s"})
assert(#bin % 8 == 0 and #bin > 0)
local text = gpusim.disasm("qpu", bin)
assert(type(text) == "string" and #text > 0)
local again = gpusim.asm("qpu", text, {name = "disassembly"})
assert(again == bin, "disassembly re-assembles to the same binary:\n" .. text)

-- base: absolute addresses in the disassembly follow it, the binary does not change
-- for relative branches
local based = gpusim.asm("qpu", source, {base = 0x100000})
assert(based == bin)
local text_based = gpusim.disasm("qpu", bin, {base = 0x100000})
assert(gpusim.asm("qpu", text_based, {base = 0x100000}) == bin)

-- errors carry name:line:col
local msg = fails({"bad.s:3:"}, gpusim.asm, "qpu", "nop\nnop\n  frobnicate r0, r1\n", {name = "bad.s"})
assert(msg:match("bad%.s:3:%d+:"), msg)
msg = fails({":2:"}, gpusim.asm, "qpu", "nop\nadd r0, r1\n")
assert(msg:match("asm:2:%d+:"), "default name is 'asm': " .. msg)
fails({":1:"}, gpusim.asm, "qpu", "ldi r0, 0x123456789")
fails({":1:"}, gpusim.asm, "qpu", "brr nowhere")
-- raised from Lua code: the script's file:line first (file:line:col of the
-- mistake when the text is a literal found once in the script, then the
-- call's line: tests/lua/asm_error_place.lua)
msg = fails({}, function() gpusim.asm("qpu", "bogus", {name = "x.s"}) end)
assert(msg:match("^[^:]*asm%.lua:%d+:%d+: x%.s:1:%d+: .*%(gpusim%.asm called at line %d+%)$"), msg)
msg = fails({}, function() gpusim.asm("qpu", ("bo"):rep(2), {name = "x.s"}) end)
assert(msg:match("^[^:]*asm%.lua:%d+: x%.s:1:%d+:"), msg)

-- disasm of something that is not whole instructions
fails({"bad argument #2", "13 bytes", "multiple of 8"}, gpusim.disasm, "qpu", string.rep("\0", 13))

-- an assembled program runs: every QPU adds its uniforms and raises the host interrupt
local prog = gpusim.qpu.load(gpusim.asm("qpu", [[
        or r0, unif, unif
        or r1, unif, unif
        add r0, r0, r1
        or host_int, r0, r0
        nop ; nop ; thrend
        nop
        nop
]]))
local unif = gpusim.mem.alloc(8)
gpusim.mem.write(unif, "u32", {2, 3})
local st = gpusim.qpu.run {{code = prog, uniforms = unif}}
assert(st[1].ended and st[1].host_interrupt and st[1].instructions == 7)

-- loads and stores outside GPU memory name the QPU, the pc and the address
local bad = gpusim.mem.alloc(4)
gpusim.mem.write(bad, "u32", {0x40})
local load = gpusim.qpu.load(gpusim.asm("qpu", "mov r0, unif\nmov tmu0_s, r0\nldtmu0\nthrend\nnop\nnop"))
fails({"gpusim.qpu.run", "QPU 0 at pc 0x", "0x00000040", "outside"},
      gpusim.qpu.run, {{code = load, uniforms = bad}})
local store = gpusim.qpu.load(gpusim.asm("qpu", [[
        ldi vw_setup, 0x80904000    # VDW: one row of 16 words from VPM row 0
        mov vw_addr, unif
        mov -, vw_wait
        thrend
        nop
        nop
]]))
fails({"gpusim.qpu.run", "QPU 0 at pc 0x", "0x00000040", "outside"},
      gpusim.qpu.run, {{code = store, uniforms = bad}})

print("asm: ok")
