-- sass_run.lua — gpusim.sass.run: a Maxwell SASS program run alone.
--
-- Expected values are worked out by hand; W and the inputs are chosen so
-- that every step is exact in binary32.
local gpusim = require "gpusim"
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

-- A vertex program: position = generic0 × c[0][0] + c[0][4], generic1.x = lane id.
local code = gpusim.asm("sass", [[
  ALD.128 R0, a[0x80] ;
  MOV R8, c[0x0][0x4] ;
  FFMA R0, R0, c[0x0][0x0], R8 ;
  FFMA R1, R1, c[0x0][0x0], R8 ;
  FFMA R2, R2, c[0x0][0x0], R8 ;
  FFMA R3, R3, c[0x0][0x0], R8 ;
  AST.128 a[0x70], R0 ;
  S2R R4, SR_LANEID ;
  I2F.F32.U32 R4, R4 ;
  AST a[0x90], R4 ;
  EXIT ;
]])
local r = gpusim.sass.run{
  code = code,
  inputs = {{[0x80] = 1.0, [0x84] = 2.0, [0x88] = 3.0, [0x8c] = 4.0},
            {[0x80] = -1.0, [0x84] = 0.5, [0x88] = 0.0, [0x8c] = 8.0}},
  cb = {[0] = {3.0, 0.5}},
}
assert(#r.lanes == 2)
local want = {{3.5, 6.5, 9.5, 12.5}, {-2.5, 2.0, 0.5, 24.5}}
for l = 1, 2 do
  local out = r.lanes[l].out
  for c = 1, 4 do
    assert(out[0x70 + 4 * (c - 1)] == want[l][c], string.format("lane %d component %d: %s", l, c, out[0x70 + 4 * (c - 1)]))
  end
  assert(out[0x90] == l - 1)
  assert(out[0x94] == nil) -- not written
end
assert(r.steps == 11)
assert(r.lanes[2].r[8] == 0x3f000000) -- registers are raw bits

-- A pixel program: the compiler's perspective pattern, written to target 0.
local ps = gpusim.asm("sass", [[
  IPA.PASS R8, a[0x7c] ;
  MUFU.RCP R8, R8 ;
  IPA R0, a[0x80], R8 ;
  IPA R1, a[0x84], R8 ;
  IPA.PASS R2, a[0x70] ;   // the pixel centre x
  MOV32I R3, 0x3f800000 ;
  EXIT ;
]])
r = gpusim.sass.run{
  code = ps, stage = "pixel",
  inputs = {{[0x80] = 0.25, [0x84] = 0.75, x = 3, y = 1, w = 2.0},
            {[0x80] = 1.0, [0x84] = 0.5, x = 4, y = 1, w = 8.0}},
}
local c = r.lanes[1].colour[0]
assert(c[1] == 0.25 and c[2] == 0.75 and c[3] == 3.5 and c[4] == 1.0)
c = r.lanes[2].colour[0]
assert(c[1] == 1.0 and c[2] == 0.5 and c[3] == 4.5)
assert(r.lanes[1].killed == false)

-- KIL under the header's gate: with KillsPixels 0 it is a no-op and an exception.
local kil = gpusim.asm("sass", "  KIL ;\n  EXIT ;\n")
r = gpusim.sass.run{code = kil, stage = "pixel", inputs = {{}}}
assert(r.exceptions == 1 and r.warning:find("KillsPixels", 1, true))
assert(r.lanes[1].killed == false)
local h = gpusim.sph.decode(gpusim.sph.encode{SphType = 2, Version = 3, ShaderType = 5, KillsPixels = 1,
                                              ["OmapTarget[0].Red"] = 1})
r = gpusim.sass.run{code = kil, sph = h, inputs = {{}}}
assert(r.exceptions == 0 and r.lanes[1].killed == true)

-- The reference interpreter gives the same words as the fast one (the default).
local ref = gpusim.sass.run{code = code, interpreter = "reference",
                            inputs = {{[0x80] = 1.0, [0x84] = 2.0, [0x88] = 3.0, [0x8c] = 4.0}}, cb = {[0] = {3.0, 0.5}}}
local fast = gpusim.sass.run{code = code, inputs = {{[0x80] = 1.0, [0x84] = 2.0, [0x88] = 3.0, [0x8c] = 4.0}},
                             cb = {[0] = {3.0, 0.5}}}
for a = 0x70, 0x7c, 4 do assert(ref.lanes[1].out[a] == fast.lanes[1].out[a] and ref.lanes[1].out[a] ~= nil) end
assert(ref.steps == fast.steps)

-- Errors: what and where.
fails({"gpusim.sass.run", "budget of 100", "pc 0x0008"}, gpusim.sass.run,
      {code = gpusim.asm("sass", "l:\n  BRA l ;\n"), inputs = {{}}, budget = 100})
fails({"c[0x1][0x0]", "constant buffer 1"}, gpusim.sass.run,
      {code = gpusim.asm("sass", "  MOV R0, c[0x1][0x0] ;\n  EXIT ;\n"), inputs = {{}}})
fails({"1 to 32"}, gpusim.sass.run, {code = code, inputs = {}})
fails({"inputs[1]", "0x3fc"}, gpusim.sass.run, {code = code, inputs = {{[0x81] = 1.0}}})
fails({"stage"}, gpusim.sass.run, {code = code, stage = "geometry", inputs = {{}}})
fails({"interpreter", "reference"}, gpusim.sass.run, {code = code, interpreter = "jit", inputs = {{}}})
print("sass_run: ok")

