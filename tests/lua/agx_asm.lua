-- agx_asm.lua — Apple AGX text through the Lua API: gpusim.asm("agx") gives
-- the raw instruction bytes, gpusim.disasm("agx") takes bytes of any length
-- (instructions are 2 to 12 bytes) and prints Mesa's disassembler syntax.
-- The bytes are Mesa's (src/asahi/isa/test/cases.txt) for the same text.
local gpusim = require "gpusim"
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

local function hex(s) return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end)) end

-- 62000000 ldimm r0l, 0 (4 bytes); 520941000000 if r0h, 0, 1, ine (6); 8800 stop (2)
local bin = gpusim.asm("agx", "ldimm r0l, 0\nif r0h, 0, 1, ine\nstop\n")
assert(hex(bin) == "62000000520941000000" .. "8800", hex(bin))
local text = gpusim.disasm("agx", bin)
assert(text:find("ldimm    r0l, 0", 1, true) and text:find("if       r0h, 0, 1, ine", 1, true), text)
assert(gpusim.asm("agx", text) == bin)
-- 12 bytes: not a multiple of 8 is fine here
assert(#gpusim.asm("agx", "fadd r0, r10.neg, r11\n") == 6)
-- a truncated instruction names its byte offset; an assembler error its place
fails({"agx", "byte offset 0x4", "truncated"}, gpusim.disasm, "agx", bin:sub(1, 7))
fails({"x.s:2:14:", "0.3"}, gpusim.asm, "agx", "stop\nfadd r0, r1, 0.3\n", {name = "x.s"})
