-- scene_interpolation.lua — scenes/interpolation.lua: three copies of a
-- quad leaning away from the viewer (W = 1 near, 4 far) whose colour is
-- declared flat, perspective and screen. Every pixel whose centre is
-- clearly inside a triangle is checked against the formula worked out here,
-- to 1 per 8-bit channel:
--   perspective: interpolate a/w and 1/w linearly in screen space, divide;
--   screen:      interpolate a linearly in screen space;
--   flat:        the provoking (last) vertex's value.
-- Pixels clearly outside keep the clear colour. The same checks hold for
-- every pairing of instruction sets the scene takes (qpu, sass, sass:qpu,
-- qpu:sass): the formulas are the independent truth for all four, whose
-- images may differ by rounding (the QPU's float ops round toward zero,
-- Maxwell's to nearest) within the tolerance of 1.
local gpusim = require "gpusim"
local check = dofile("tests/lua/lib/interp_check.lua")

for _, isas in ipairs {"qpu", "sass", "sass:qpu", "qpu:sass"} do
  assert(loadfile("scenes/interpolation.lua"))(isas)
  local _, target = gpusim.frame()
  local f = gpusim.render {threads = 1}
  assert(f.draws == 3 and f.width == 384 and f.height == 128)
  local checked = check(target, {"flat", "perspective", "screen"})
  print(string.format("scene_interpolation %s: ok (%d, %d, %d pixels checked)", isas,
                      checked.flat, checked.perspective, checked.screen))
end
