-- 01-control-lists.lua — lesson 01 of the course (docs/course/01-control-lists.md):
-- one draw of a vertex buffer that holds two triangles. The driver turns the
-- frame into two control lists (the binning list and the rendering list);
-- dump them with
--   gpusim --headless --dump-cl - scenes/course/01-control-lists.lua
-- The exercise: change one value below so that the same draw also draws the
-- second triangle, then run  gpusim --headless scenes/course/01-check.lua
local gpusim = require "gpusim"
local course = dofile((arg[0]:match("^(.*/)") or "./") .. "course.lua")  -- the shared shader

local target = gpusim.target {width = 320, height = 240, format = "rgba8888"}

-- position in clip space (x, y, z, w), then a colour (r, g, b)
local vertices = gpusim.buffer {
  format = {"f32x4", "f32x3"},
  data = {
    {-0.9, -0.8, 0.0, 1.0,   1.0, 0.0, 0.0},   -- triangle 0: on the left
    {-0.1, -0.8, 0.0, 1.0,   0.0, 1.0, 0.0},
    {-0.5,  0.8, 0.0, 1.0,   0.0, 0.0, 1.0},
    { 0.1, -0.8, 0.0, 1.0,   1.0, 1.0, 0.0},   -- triangle 1: on the right
    { 0.9, -0.8, 0.0, 1.0,   0.0, 1.0, 1.0},
    { 0.5,  0.8, 0.0, 1.0,   1.0, 0.0, 1.0},
  },
}

local shader = course.shader()

gpusim.frame(function(frame)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}}
  frame:draw {
    mode = "triangles",
    vertices = vertices,
    shader = shader,
    first = 0,
    count = 3,          -- how many vertices the draw reads, from `first` on
    uniforms = course.uniforms,
  }
end, target)
