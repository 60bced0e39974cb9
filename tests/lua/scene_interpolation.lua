-- scene_interpolation.lua — scenes/interpolation.lua: three copies of a
-- quad leaning away from the viewer (W = 1 near, 4 far) whose colour is
-- declared flat, perspective and screen. Every pixel whose centre is
-- clearly inside a triangle is checked against the formula worked out here,
-- to 1 per 8-bit channel:
--   perspective: interpolate a/w and 1/w linearly in screen space, divide;
--   screen:      interpolate a linearly in screen space;
--   flat:        the provoking (last) vertex's value.
-- Pixels clearly outside keep the clear colour.
local gpusim = require "gpusim"
local check = dofile("tests/lua/lib/interp_check.lua")

dofile("scenes/interpolation.lua")
local _, target = gpusim.frame()
local f = gpusim.render {threads = 1}
assert(f.draws == 3 and f.width == 384 and f.height == 128)
local checked = check(target, {"flat", "perspective", "screen"})
print(string.format("scene_interpolation: ok (%d, %d, %d pixels checked)",
                    checked.flat, checked.perspective, checked.screen))
