-- primitives.lua — every primitive type the pipeline draws, one per cell of
-- a 4×2 grid of 128×128 cells:
--   top row:    points (size 4), lines, line_loop, line_strip (width 1)
--   bottom row: triangles, strip, fan
-- Each cell is a viewport of its own, so the vertices below are pixel
-- positions inside a cell (x, y from its bottom-left corner). Every cell is
-- one flat colour, given to the fragment shader as a uniform.
-- Run it with
--   gpusim scenes/primitives.lua
--   gpusim --headless -o primitives.png scenes/primitives.lua
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"  -- lua/vc4_shaders.lua: the position shaders

local target = gpusim.target {width = 512, height = 256, format = "rgba8888"}

-- A vertex buffer of positions from pixel positions: clip x = (X - 64)/64
-- (the cell's centre is at 64), W = 1.
local function positions(points)
  local data = {}
  for i, p in ipairs(points) do data[i] = {(p[1] - 64) / 64, (p[2] - 64) / 64, 0.0, 1.0} end
  return gpusim.buffer {format = {"f32x4"}, data = data}
end

-- Points on pixel corners: a size-4 point covers the 4×4 pixels around it.
local points = {}
for i = 0, 2 do for j = 0, 2 do points[#points + 1] = {32 + 32 * i, 32 + 32 * j} end end

-- Lines go from pixel centre to pixel centre (x.5, y.5).
local cells = {
  {mode = "points", col = 0, row = 1, color = 0xff4040ff, vertices = points},
  {mode = "lines", col = 1, row = 1, color = 0xff40ff40, vertices = {
    {8.5, 16.5}, {120.5, 16.5},          -- horizontal
    {8.5, 24.5}, {98.5, 114.5},          -- diagonal (slope 1)
    {20.5, 110.5}, {119.5, 77.5},        -- falling, slope -1/3
  }},
  {mode = "line_loop", col = 2, row = 1, color = 0xffff4040, vertices = {
    {16.5, 32.5}, {112.5, 32.5}, {64.5, 48.5},     -- a thin triangle, closed
  }},
  {mode = "line_strip", col = 3, row = 1, color = 0xff40ffff, vertices = {
    {8.5, 30.5}, {47.5, 69.5}, {86.5, 30.5}, {119.5, 52.5},   -- a zigzag
  }},
  {mode = "triangles", col = 0, row = 0, color = 0xffff40ff, vertices = {
    {16, 16}, {80, 16}, {112, 64},   {16, 16}, {112, 64}, {48, 64},     -- a parallelogram
    {16, 80}, {112, 80}, {112, 112}, {16, 80}, {112, 112}, {16, 112},   -- a rectangle
  }},
  {mode = "strip", col = 1, row = 0, color = 0xffffff40, vertices = {
    {16, 16}, {16, 112}, {48, 16}, {48, 112}, {80, 16}, {80, 112}, {112, 16}, {112, 112},
  }},
  {mode = "fan", col = 2, row = 0, color = 0xff4080ff, vertices = {
    {64, 64}, {16, 16}, {112, 16}, {112, 112}, {16, 112}, {16, 16},   -- a rectangle from its centre
  }},
}
for _, c in ipairs(cells) do c.buffer = positions(c.vertices) end

-- Position shaders from lua/vc4_shaders.lua; the vertex shader passes no
-- varyings (the colour comes from the fragment shader's uniforms).
local coordinate = shaders.coordinate

local vertex = shaders.vertex(0)

-- Fragment shaders: the colour is the first fragment uniform, a packed
-- RGBA word. Points get two extra varyings (the sprite coordinates s, t)
-- and lines one (the line coordinate), which the shader must read first:
-- one fragment shader per primitive class.
local function fragment(skip)
  return string.rep("    mov -, vary                 # skip an extra varying\n", skip) .. [[
    mov tlb_colour_all, unif    # the cell's colour
    thrend
    nop
    sbdone
]]
end

local function shader(skip)
  return gpusim.shader {
    isa = "qpu", coordinate = coordinate, vertex = vertex, fragment = fragment(skip),
    inputs = {{name = "position", components = 4}},
  }
end
local shaders = {points = shader(2), lines = shader(1), triangles = shader(0)}
local class = {points = "points", lines = "lines", line_loop = "lines", line_strip = "lines",
               triangles = "triangles", strip = "triangles", fan = "triangles"}

gpusim.frame(function(frame, t)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}}
  frame:state {point_size = 4, line_width = 1}
  for _, c in ipairs(cells) do
    frame:state {viewport = {c.col * 128, c.row * 128, 128, 128}}
    frame:draw {
      mode = c.mode, vertices = c.buffer, shader = shaders[class[c.mode]],
      uniforms = {vertex = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
                  fragment = {{u32 = c.color}}},
    }
  end
end, target)
