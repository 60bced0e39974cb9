-- blend.lua — three translucent squares, red, green and blue with alpha
-- 0.5, blended "source over": frame:state{blend = "alpha"}. The VideoCore
-- IV has no blending unit (Broadcom's Reference Guide, §5), so the driver links a
-- variant of the fragment shader that loads the tile's colour (the `loadc`
-- signal), mixes it with the shader's colour using the MUL ALU's per-byte
-- operations and writes the result back, as Mesa's vc4 driver compiles a
-- shader variant per blend state. Run it with
--   gpusim scenes/blend.lua
--   gpusim --headless -o blend.png scenes/blend.lua
-- docs/blending.md shows the code the driver adds.
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"  -- lua/vc4_shaders.lua: the position shaders

local target = gpusim.target {width = 256, height = 256, format = "rgba8888"}

-- The squares in pixels (x0, y0, x1, y1; y up from the bottom row) and
-- their colour {r, g, b, alpha}, drawn in this order. Each edge lies on a
-- pixel boundary, so a pixel is either fully in a square or not at all.
local squares = {
  {rect = {32, 32, 160, 160},  color = {1.0, 0.0, 0.0, 0.5}},   -- red, bottom left
  {rect = {96, 32, 224, 160},  color = {0.0, 1.0, 0.0, 0.5}},   -- green, bottom right
  {rect = {64, 96, 192, 224},  color = {0.0, 0.0, 1.0, 0.5}},   -- blue, top
}
local clear_color = {0.1, 0.1, 0.15, 1.0}

-- Each square is a triangle strip of four vertices, in clip space:
-- clip x = pixel x / 128 - 1 on a 256-pixel-wide target.
local data = {}
for _, s in ipairs(squares) do
  local x0, y0, x1, y1 = table.unpack(s.rect)
  local function v(x, y) data[#data + 1] = {x / 128 - 1, y / 128 - 1, 0, 1} end
  v(x0, y0); v(x1, y0); v(x0, y1); v(x1, y1)
end
local vertices = gpusim.buffer {format = "f32x4", data = data}

-- Position shaders from lua/vc4_shaders.lua; the vertex shader passes no
-- varyings (the colour comes from the fragment shader's uniforms).
local coordinate = shaders.coordinate

local vertex = shaders.vertex(0)

-- The fragment shader only writes the square's colour; its uniforms are
-- r, g, b and alpha as floats, which the MUL colour pack turns into bytes
-- (round(f × 255)). The blend state does the rest:
--     result = src × alpha + dst × (1 − alpha)      for every byte
local fragment = [[
    fmul r0.8a, unif, 1.0       # byte 0 = red × 255 (the MUL colour pack)
    fmul r0.8b, unif, 1.0       # byte 1 = green × 255
    fmul r0.8c, unif, 1.0       # byte 2 = blue × 255
    fmul r0.8d, unif, 1.0       # byte 3 = alpha × 255
    mov tlb_colour_all, r0      # the driver blends this write
    thrend
    nop
    sbdone                      # let the next batch touch these pixels
]]

local shader = gpusim.shader {
  isa = "qpu",
  coordinate = coordinate,
  vertex = vertex,
  fragment = fragment,
  inputs = {{name = "position", components = 4}},
  varyings = {},
}

gpusim.frame(function(frame, t)
  frame:clear {color = clear_color}
  frame:state {blend = "alpha"}  -- src_alpha, one_minus_src_alpha for all four bytes
  for i, s in ipairs(squares) do
    frame:draw {
      mode = "strip",
      vertices = vertices,
      first = 4 * (i - 1),
      count = 4,
      shader = shader,
      uniforms = {
        vertex = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
        fragment = s.color,
      },
    }
  end
end, target)

-- What the scene drew, for tests/lua/scene_blend.lua.
return {squares = squares, clear_color = clear_color}
