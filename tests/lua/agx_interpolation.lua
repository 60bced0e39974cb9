-- agx_interpolation.lua — scenes/interpolation.lua with Apple AGX programs:
-- the three shade models (flat, perspective, screen-linear) through the AGX
-- unit's coefficient registers (iter with the W register cf0 for
-- perspective, iter alone for screen and flat), with every vertex side
-- (agx, qpu:agx, sass:agx, pica:agx) and the AGX vertex program with the
-- QPU's fragment program (agx:qpu), against tests/ref/interpolation.png
-- and against the formulas of tests/lua/lib/interp_check.lua.
--
-- Tolerance, and why. The AGX fragment program's colour is rounded to
-- nearest into 8 bits by the epilog (what st_tile's u8norm does) where the
-- QPU program that made the reference truncates (fmul .8a), so a channel may
-- differ by 1 anywhere; by more than 1 only within one pixel of a colour
-- change, at most 0.5% of the pixels (scene_compare.lua; vertices may move
-- by 1/16 pixel, the AGX abi's 12.4 snap rounding to nearest). The planes
-- are fitted through the pipeline's per-pixel values and rounded once to
-- binary32, far below one 8-bit step. Measured: no pixel differs by more
-- than 1 in any pairing; 30 pixels differ by exactly 1 with an AGX fragment
-- program, 0 with agx:qpu (the vertices are exact in 12.4), which the test
-- asserts; each image is also within 1 of the formulas at every pixel
-- clearly inside a triangle.
local gpusim = require "gpusim"
local sc = dofile("tests/lua/lib/scene_compare.lua") -- render, reference, compare, against_reference
local check = dofile("tests/lua/lib/interp_check.lua")
local modes = {"flat", "perspective", "screen"}

local w, h, ref = sc.reference("interpolation")
for _, isas in ipairs {"agx", "qpu:agx", "sass:agx", "pica:agx", "agx:qpu"} do
  local more = sc.against_reference("interpolation", isas)
  assert(more == 0, string.format("interpolation %s: %d pixels differ by more than 1", isas, more))
  local got, target = sc.render("interpolation", isas, 0)
  local by1 = 0
  for y = 0, h - 1 do
    for x = 0, w - 1 do
      local r, g, b = got(x, y)
      local rr, rg, rb = ref(x, y)
      if r ~= rr or g ~= rg or b ~= rb then by1 = by1 + 1 end
    end
  end
  if isas == "agx:qpu" then assert(by1 == 0, "interpolation agx:qpu: " .. by1 .. " pixels differ") end
  assert(by1 <= w * h // 200, string.format("interpolation %s: %d pixels differ by 1", isas, by1))
  local checked = check(target, modes)
  print(string.format("agx_interpolation %s: ok (%d pixels differ from tests/ref/interpolation.png, by 1; "
                      .. "%d/%d/%d pixels within 1 of the formulas)", isas, by1, checked.flat,
                      checked.perspective, checked.screen))
end

-- The PICA200 has no fragment programs and this scene no combiner
-- configuration: agx:pica is refused with the pairs that would do.
local ok, err = pcall(loadfile("scenes/interpolation.lua"), "agx:pica")
assert(not ok and tostring(err):find("give pica:qpu or pica:sass or pica:agx", 1, true), tostring(err))
print("agx_interpolation: agx:pica refused (the PICA200 has no fragment programs)")
