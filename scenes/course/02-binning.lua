-- 02-binning.lua — lesson 02 of the course (docs/course/02-binning.md): a
-- small triangle near the corner where four 64 x 64 tiles meet. The binner
-- appends it to the list of every tile where it covers a pixel centre:
--   gpusim --headless --dump-cl - scenes/course/02-binning.lua
--   gpusim --headless --overlay tiles -o tiles.png scenes/course/02-binning.lua
-- The exercise: move the triangle (change OFFSET, not its shape) so that it
-- lands in exactly one tile list, then run
--   gpusim --headless scenes/course/02-check.lua
local gpusim = require "gpusim"
local course = dofile((arg[0]:match("^(.*/)") or "./") .. "course.lua")  -- the shared shader

local target = gpusim.target {width = 320, height = 240, format = "rgba8888"}

-- where the triangle is moved to, in pixels (x right, y up)
local OFFSET = {x = 0, y = 0}

-- the triangle's corners in pixels from the bottom-left corner of the frame
local corners = {{112, 112, 1, 0, 0}, {150, 112, 0, 1, 0}, {120, 150, 0, 0, 1}}
local data = {}
for i, c in ipairs(corners) do
  data[i] = course.vertex(target, c[1] + OFFSET.x, c[2] + OFFSET.y, c[3], c[4], c[5])
end
local vertices = gpusim.buffer {format = {"f32x4", "f32x3"}, data = data}
local shader = course.shader()

gpusim.frame(function(frame)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}}
  frame:draw {mode = "triangles", vertices = vertices, shader = shader, uniforms = course.uniforms}
end, target)
