-- 04-interpolation.lua — lesson 04 of the course (docs/course/04-interpolation.md):
-- one triangle whose top vertex is four times as far away (W = 4) as the two
-- at the bottom (W = 1), with a red, a green and a blue corner. MODE says
-- how the colour varying is interpolated: "perspective", "screen" or "flat".
--   gpusim why scenes/course/04-interpolation.lua 64 87
-- The exercise: work out by hand the colour of pixel (64, 40) counted from
-- the bottom-left (its centre at (64.5, 40.5)) in MODE "perspective", write
-- it into PREDICTED, then run
--   gpusim --headless scenes/course/04-check.lua
local gpusim = require "gpusim"
local course = dofile((arg[0]:match("^(.*/)") or "./") .. "course.lua")  -- the shared shader

local MODE = (...) or "perspective"   -- or give it on the command line: ... 04-interpolation.lua screen
local PREDICTED = nil   -- {red, green, blue} as bytes 0..255, e.g. {10, 20, 30}

local target = gpusim.target {width = 128, height = 128, format = "rgba8888"}

-- pixels from the bottom-left corner, then the colour, then W
local vertices = gpusim.buffer {
  format = {"f32x4", "f32x3"},
  data = {
    course.vertex(target, 8, 8,     1, 0, 0,  1.0),   -- A: near, red
    course.vertex(target, 120, 8,   0, 1, 0,  1.0),   -- B: near, green
    course.vertex(target, 64, 120,  0, 0, 1,  4.0),   -- C: far, blue
  },
}
local shader = course.shader {interpolation = MODE}

gpusim.frame(function(frame)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}}
  frame:draw {mode = "triangles", vertices = vertices, shader = shader, uniforms = course.uniforms}
end, target)

return {mode = MODE, predicted = PREDICTED}   -- what scenes/course/04-check.lua reads
