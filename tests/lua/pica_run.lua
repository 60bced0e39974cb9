-- pica_run.lua — gpusim.pica.run: one PICA200 vertex shader invocation run
-- alone. Every expected value is worked out by hand.
local gpusim = require "gpusim"
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

-- o0 = c1 x (c0 + v0): with v0 = (1, 2, 3, 4), c0 = 1, c1 = 2: (4, 6, 8, 10).
local prog = gpusim.asm("pica", [[
    mov r0, v0
    add r1, c0, r0
    mul o0, c1, r1
    end
]])
local r = gpusim.pica.run {
  program = prog,
  inputs = {[0] = {1, 2, 3, 4}},
  float_uniforms = {[0] = {1, 1, 1, 1}, [1] = {2, 2, 2, 2}},
}
local o = r.outputs[0]
assert(o[1] == 4 and o[2] == 6 and o[3] == 8 and o[4] == 10, table.concat(o, " "))
assert(r.written[0] == 15 and r.instructions == 4)
assert(r.outputs[1] == nil)

-- float24 keeps 16 fraction bits: 1 + 2^-20 is 1 there, and stays itself in binary32.
local mov = gpusim.asm("pica", "    mov o1, v2\n    end\n")
local x = 1 + 2 ^ -20
assert(gpusim.pica.run {program = mov, inputs = {[2] = {x, 0, 0, 0}}}.outputs[1][1] == 1.0)
assert(gpusim.pica.run {program = mov, inputs = {[2] = {x, 0, 0, 0}}, float = "f32"}.outputs[1][1] == x)

-- A loop over i0 = (2, 5, 3): three passes adding c0 (1.0) to r0, then o0 = r0;
-- aL = 5 + 3 x 3 = 14 afterwards. A compare sets the flags: 3 >= 2, 3 < 2.
local loop = gpusim.asm("pica", [[
    for i0, body
body:
    add r0, c0, r0
    cmp c2, ge, lt, r0
    mov o0, r0
    end
]])
r = gpusim.pica.run {program = loop, int_uniforms = {[0] = {2, 5, 3, 0}},
                     float_uniforms = {[0] = {1, 1, 1, 1}, [2] = {2, 2, 2, 2}}}
assert(r.outputs[0][1] == 3.0, r.outputs[0][1])
assert(r.aL == 14, r.aL)
-- cmp c2, ge, lt, r0: cmp.x = c2.x >= r0.x = 2 >= 3 false; cmp.y = c2.y < r0.y = 2 < 3 true
assert(r.cmp[1] == false and r.cmp[2] == true)

-- A bool uniform picks the branch: ifu b3 runs word 2 (then) or word 3 (else).
local ifu = gpusim.asm("pica", [[
    ifu b3, else, 1
    mov o0, c0
else:
    mov o0, c1
    end
]])
for _, b in ipairs {true, false} do
  r = gpusim.pica.run {program = ifu, bool_uniforms = {[3] = b},
                       float_uniforms = {[0] = {7, 7, 7, 7}, [1] = {9, 9, 9, 9}}}
  assert(r.outputs[0][1] == (b and 7 or 9))
end

-- Errors.
fails({"gpusim.pica.run", "BREAK", "0x000", "hangs"}, gpusim.pica.run,
      {program = gpusim.asm("pica", "    break\n    end\n")})
fails({"entry 1", "1 executable"}, gpusim.pica.run, {program = prog, entry = 1})
fails({"inputs", "index 16"}, gpusim.pica.run, {program = prog, inputs = {[16] = {0, 0, 0, 0}}})
fails({"SHBIN bytes"}, gpusim.pica.run, {})
print("pica_run: ok")
