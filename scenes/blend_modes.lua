-- blend_modes.lua — eight blend states side by side. The background is a
-- horizontal gradient (red rising, blue falling, every 64 pixels), and
-- each 64 × 64 cell blends the same foreground over it — red with a green
-- and an alpha that rise upwards — with another `frame:state{blend =}`:
--
--   top row:     min        max       multiply   dst − src
--   bottom row:  alpha  premultiplied   add       screen
--
-- Both shaders compute their colour from the pixel's coordinates with
-- integer operations, so every byte of the picture can be worked out by
-- hand (tests/lua/scene_blend_modes.lua does). `print(fg:variant{blend =
-- "screen"})` shows the code the driver adds for a cell (docs/blending.md).
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"  -- lua/vc4_shaders.lua: the position shaders

local target = gpusim.target {width = 256, height = 128}
local screen = gpusim.buffer {format = "f32x4", data = {{-1, -1, 0, 1}, {1, -1, 0, 1}, {-1, 1, 0, 1}, {1, 1, 0, 1}}}

local function shader(fragment)
  return gpusim.shader {isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0),
                        fragment = fragment, inputs = {{name = "position", components = 4}}}
end

-- Background: u = 4 · (x mod 64); colour (u, 128, 255 − u, 255).
local bg = shader [[
    ldi r1, 63
    and r0, x_coord, r1         # x mod 64
    shl r0, r0, 2               # u: red, byte 0
    ldi r1, 255
    sub r2, r1, r0              # 255 − u: blue
    ldi r3, 16
    shl r2, r2, r3              # into byte 2
    or r0, r0, r2
    ldi r1, 0xff008000          # alpha 255, green 128
    or tlb_colour_all, r0, r1
    thrend
    nop
    sbdone
]]

-- Foreground: v = 4 · (y mod 64); colour (255, v, 64, v): alpha rises too.
local fg = shader [[
    ldi r1, 63
    and r0, y_coord, r1         # y mod 64
    shl r0, r0, 2               # v
    shl r2, r0, 8               # v as green, byte 1
    ldi r3, 24
    shl r3, r0, r3              # v as alpha, byte 3
    or r2, r2, r3
    ldi r1, 0x004000ff          # red 255, blue 64
    or tlb_colour_all, r2, r1
    thrend
    nop
    sbdone
]]

-- The cells, left to right from the bottom row: {x, y} of the cell and its blend.
local cells = {
  {0, 0, "alpha"}, {64, 0, "premultiplied"}, {128, 0, "add"}, {192, 0, "screen"},
  {0, 64, "min"}, {64, 64, "max"}, {128, 64, "multiply"},
  {192, 64, {equation = "reverse_subtract", src = "one", dst = "one"}},   -- dst − src
}
local VIEWPORT = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}

gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0}}
  frame:draw {mode = "strip", vertices = screen, shader = bg, uniforms = {vertex = VIEWPORT}}
  for _, c in ipairs(cells) do
    frame:state {blend = c[3], scissor = {c[1], c[2], 64, 64}}   -- the scissor keeps the draw in its cell
    frame:draw {mode = "strip", vertices = screen, shader = fg, uniforms = {vertex = VIEWPORT}}
  end
end, target)

-- What the scene drew, for tests/lua/scene_blend_modes.lua.
return {cells = cells, fg = fg}
