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

-- Coordinate shader (binning pass): the 7 rows the tile binner reads, as in
-- triangle.lua.
local coordinate = [[
    ldi vr_setup, 0x00401a00    # read 4 rows: Xc Yc Zc Wc
    ldi vw_setup, 0x00001a00    # write rows from row 0
    mov ra0, vpm                # Xc
    mov ra1, vpm                # Yc
    mov ra2, vpm                # Zc
    mov r3, vpm                 # Wc
    mov sfu_recip, r3           # r4 = 1/Wc
    mov vpm, ra0                # rows 0-3: Xc Yc Zc Wc
    mov vpm, ra1
    mov vpm, ra2
    mov vpm, r3
    fmul r0, ra0, r4            # Xc/Wc
    fmul r1, ra1, r4            # Yc/Wc
    fmul r0, r0, unif           # Xs in 1/16 pixel
    fmul r1, r1, unif           # Ys
    ftoi ra3.16a, r0
    ftoi ra3.16b, r1
    fmul r2, ra2, r4            # Zc/Wc
    fmul r2, r2, unif
    fadd r2, r2, unif           # Zs
    mov vpm, ra3                # row 4: Ys|Xs
    mov vpm, r2                 # row 5: Zs
    mov vpm, r4                 # row 6: 1/Wc
    thrend
    nop
    nop
]]

-- Vertex shader (rendering pass): only Ys|Xs, Zs and 1/Wc — no varyings.
local vertex = [[
    ldi vr_setup, 0x00401a00    # read 4 rows: Xc Yc Zc Wc
    ldi vw_setup, 0x00001a00
    mov ra0, vpm                # Xc
    mov ra1, vpm                # Yc
    mov ra2, vpm                # Zc
    mov r3, vpm                 # Wc
    mov sfu_recip, r3           # r4 = 1/Wc, readable three instructions on
    nop
    nop
    nop
    fmul r0, ra0, r4            # Xc/Wc
    fmul r1, ra1, r4            # Yc/Wc
    fmul r0, r0, unif           # Xs in 1/16 pixel
    fmul r1, r1, unif           # Ys
    ftoi ra3.16a, r0
    ftoi ra3.16b, r1
    fmul r2, ra2, r4            # Zc/Wc
    fmul r2, r2, unif
    fadd r2, r2, unif           # Zs
    mov vpm, ra3                # row 0: Ys|Xs
    mov vpm, r2                 # row 1: Zs
    mov vpm, r4                 # row 2: 1/Wc
    thrend
    nop
    nop
]]

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
