-- 01-control-lists.lua — lesson 01 of the course (docs/course/01-control-lists.md):
-- one draw of a vertex buffer that holds two triangles. The driver turns the
-- frame into two control lists (the binning list and the rendering list);
-- dump them with
--   gpusim --headless --dump-cl - scenes/course/01-control-lists.lua
-- The exercise: change one value below so that the same draw also draws the
-- second triangle, then run  gpusim --headless scenes/course/01-check.lua
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"   -- lua/vc4_shaders.lua: the position shaders

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

-- the fragment shader: the colour varying (VP x W + C) packed into one word
local fragment = [[
    fmul r0, vary, ra15
    fadd r0, r0, r5
    fmul r1, vary, ra15
    fadd r1, r1, r5
    fmul r2, vary, ra15
    fadd r2, r2, r5
    fmul r3.8a, r0, 1.0
    fmul r3.8b, r1, 1.0
    fmul r3.8c, r2, 1.0
    fmul r3.8d, 1.0, 1.0
    mov tlb_colour_all, r3
    thrend
    nop
    sbdone
]]

local shader = gpusim.shader {
  coordinate = shaders.coordinate,
  vertex = shaders.vertex(3),
  fragment = fragment,
  inputs = {{name = "position", components = 4}, {name = "color", components = 3}},
  coordinate_inputs = {"position"},
  varyings = {{name = "color", components = 3, interpolation = "perspective"}},
}

gpusim.frame(function(frame)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}}
  frame:draw {
    mode = "triangles",
    vertices = vertices,
    shader = shader,
    first = 0,
    count = 3,          -- how many vertices the draw reads, from `first` on
    uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
  }
end, target)
