-- pica_asm.lua — picasso syntax through the Lua API: gpusim.asm("pica"),
-- gpusim.disasm("pica") and gpusim.pica.run's entry by name. Every expected
-- value is worked out by hand.
local gpusim = require "gpusim"
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

-- k = c95 = (2, 0.5, -1, 0.25); o0 = k * v0 + k.y:
-- v0 = (1, 2, 3, 4) gives (2.5, 1.5, -2.5, 1.5), every value exact in float24.
local src = [[
.constf k(2.0, 0.5, -1.0, 0.25)
.alias half k.y
.out opos position
.entry vmain
.proc vmain
    mul r0, k, v0
    add opos, half, r0
    end
.end
]]
local shbin = gpusim.asm("pica", src)
local function check(r)
  local o = r.outputs[0]
  assert(o[1] == 2.5 and o[2] == 1.5 and o[3] == -2.5 and o[4] == 1.5, table.concat(o, " "))
  assert(r.instructions == 3)
end
check(gpusim.pica.run {program = shbin, entry = "vmain", inputs = {[0] = {1, 2, 3, 4}}})
check(gpusim.pica.run {program = shbin, entry = 0, inputs = {[0] = {1, 2, 3, 4}}})
check(gpusim.pica.run {program = shbin, inputs = {[0] = {1, 2, 3, 4}}})
fails({"entry 'main': no DVLE has that name (the SHBIN's: 0 = vmain)"},
      function() gpusim.pica.run {program = shbin, entry = "main"} end)
-- a text without .proc names no DVLE
local plain = gpusim.asm("pica", "    mov o0, v0\n    end\n")
fails({"0 = (no name)"}, function() gpusim.pica.run {program = plain, entry = "main"} end)

-- the listing has the directives and assembles back to the same bytes
local text = gpusim.disasm("pica", shbin)
for _, want in ipairs {".setf c95(2, 0.5, -1, 0.25)\n", ".out - position o0.xyzw\n", ".entry vmain\n.proc vmain\n",
                       "    add o0, c95.y, r0 ", "\n.end\n"} do
  assert(text:find(want, 1, true), "no '" .. want .. "' in:\n" .. text)
end
assert(gpusim.asm("pica", text) == shbin)

-- errors name the line and column
fails({"1:7: this .proc block has no .end"}, gpusim.asm, "pica", ".proc main\n    mov r0, v0\n")
fails({"2:3: .else outside an ifc/ifu block"}, gpusim.asm, "pica", ".proc main\n  .else\n.end\n")
print("pica_asm: ok")
