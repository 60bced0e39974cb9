-- pica_gsh.lua — a PICA200 geometry shader run alone (gpusim.pica.run on a
-- geometry DVLE; docs/pica-run.md, "Geometry shaders"), worked by hand.
-- SETEMIT picks the emit buffer's slot and whether the next EMIT ends a
-- triangle of the three slots (and its winding); EMIT sends the output
-- registers and then swaps them with the second bank of output registers,
-- so a register not written since reads what it held two EMITs before.
local gpusim = require "gpusim"

local shbin = gpusim.asm("pica", [[
.gsh point c0
.out outpos position
.out outclr color
.proc main
    setemit 0
    mov outpos, v0
    mov outclr, v1
    emit                 ; vertex 1 in slot 0: v0, v1
    setemit 1
    mov outpos, v2
    emit                 ; vertex 2 in slot 1: v2, and the second bank's colour, never written: 0
    setemit 2, prim
    mov outpos, v3
    emit                 ; vertex 3 in slot 2: v3, the colour of two EMITs before (v1); triangle 1 2 3
    setemit 0, prim inv
    mov outpos, v4
    emit                 ; vertex 4 in slot 0: v4, colour 0 again; triangle 4 2 3, winding inverted
    end
.end
]])
local P = {[0] = {1, 2, 3, 4}, {0.5, 0.25, 1, 1}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}}
local r = gpusim.pica.run {program = shbin, inputs = P}

local function vec(got, want, what)
  for k = 1, 4 do
    assert(got[k] == want[k], string.format("%s: component %d is %s, want %s", what, k, got[k], want[k]))
  end
end
local zero = {0, 0, 0, 0}
local want = {{P[0], P[1], 15, 0}, {P[2], zero, 0, 1}, {P[3], P[1], 15, 2}, {P[4], zero, 0, 0}}
assert(#r.emitted == 4, "4 vertices emitted, got " .. #r.emitted)
for i, w in ipairs(want) do
  local e = r.emitted[i]
  vec(e.outputs[0], w[1], "vertex " .. i .. " position")
  vec(e.outputs[1], w[2], "vertex " .. i .. " colour")
  assert(e.written[1] == w[3], string.format("vertex %d colour written mask %d, want %d", i, e.written[1], w[3]))
  assert(e.slot == w[4], string.format("vertex %d slot %d, want %d", i, e.slot, w[4]))
end
assert(#r.primitives == 2, "2 triangles, got " .. #r.primitives)
local p1, p2 = r.primitives[1], r.primitives[2]
assert(p1[1] == 1 and p1[2] == 2 and p1[3] == 3 and p1.winding == false, "triangle 1")
assert(p2[1] == 4 and p2[2] == 2 and p2[3] == 3 and p2.winding == true, "triangle 2")
-- after the last EMIT the banks swapped once more: o0 holds vertex 3's position (v3)
vec(r.outputs[0], P[3], "o0 after the run")

-- a triangle before its three slots were filled
local early = gpusim.asm("pica", ".gsh point c0\n.out outpos position\n.proc main\n    setemit 0\n    emit\n"
                         .. "    setemit 1, prim\n    emit\n    end\n.end\n")
local ok, err = pcall(gpusim.pica.run, {program = early})
assert(not ok and tostring(err):find("EMIT at 0x003 ends a primitive, but vertex slot 2 of the emit buffer was never "
                                     .. "emitted", 1, true), tostring(err))
-- in a vertex shader's DVLE, EMIT is refused by name
local vs = gpusim.asm("pica", ".out outpos position\n.proc main\n    mov outpos, v0\n    emit\n    end\n.end\n")
ok, err = pcall(gpusim.pica.run, {program = vs})
assert(not ok and tostring(err):find("emit at 0x001 is a geometry-shader instruction", 1, true), tostring(err))
print("pica_gsh: ok")
