-- scene.lua VARIANT — the frame diff's test scene (tests/cli/framediff.sh).
-- A 64x64 target with a depth buffer, cleared to black (depth 1). In image
-- coordinates (x right, y down from the top-left, as a PNG viewer shows
-- them), every rectangle has its edges on pixel boundaries, so it covers
-- exactly the pixels whose centres lie inside it:
--   draw 1: red   x 16..48, y 16..48, z 0.5   (1024 pixels)
--   draw 2: blue  x 32..64, y  0..32, z 0.75  (behind draw 1 where they overlap)
-- VARIANT (one change each from "base"):
--   colour  draw 1 green instead of red (its fragment uniforms)
--   vertex  draw 1's right edge at x 40 instead of 48 (its vertex data)
--   depth   the depth test "always" instead of "less" (CONFIGURATION_BITS)
--   extra   a third draw: green x 0..8, y 0..8, z 0.1
--   insert  the same green draw, between draws 1 and 2 (the blue one is draw 3)
--   sass    draw 1's fragment program in NVIDIA Maxwell SASS, writing the
--           same red as the QPU program: another program, the same picture
--   texred, texgreen, texmoved: draw 1's colour from a 1x1 texture instead
--           of its uniforms: red, green, or red placed 8 KB further in GPU
--           memory (its address goes to standard error)
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"
local variant = ... or "base"

local target = gpusim.target {width = 64, height = 64, format = "rgba8888", depth = true}

-- Clip coordinates of image pixel edges: x/32 - 1 and 1 - y/32.
local function rect(x0, y0, x1, y1, z)
  local l, r, t, b = x0 / 32 - 1, x1 / 32 - 1, 1 - y0 / 32, 1 - y1 / 32
  return gpusim.buffer {
    format = {"f32x4"},
    data = {{l, t, z, 1}, {r, t, z, 1}, {r, b, z, 1}, {l, t, z, 1}, {r, b, z, 1}, {l, b, z, 1}},
  }
end

-- texmoved: 8 KB of buffer before the texture moves it to another address.
local pad = variant == "texmoved" and gpusim.buffer {format = {"f32x4"}, data = (function()
  local t = {}
  for i = 1, 512 do t[i] = {0, 0, 0, 0} end
  return t
end)()}
local texture = variant:match("^tex") and gpusim.texture {
  width = 1, height = 1, data = {variant == "texgreen" and {0, 255, 0, 255} or {255, 0, 0, 255}},
}
if texture then io.stderr:write(string.format("texture at 0x%08x\n", texture.address)) end

local red_rect = rect(16, 16, variant == "vertex" and 40 or 48, 48, 0.5)
local blue_rect = rect(32, 0, 64, 32, 0.75)
local green_rect = rect(0, 0, 8, 8, 0.1)

-- A flat colour from the fragment uniforms: r, g, b, a as floats; the Z
-- write first, as a depth test needs (docs/scenes.md).
local flat = [[
    mov tlb_z, rb15             # the depth test needs the Z write
    fmul r0.8a, unif, 1.0
    fmul r0.8b, unif, 1.0
    fmul r0.8c, unif, 1.0
    fmul r0.8d, unif, 1.0
    mov tlb_colour_all, r0
    thrend
    nop
    sbdone
]]
-- Red (1, 0, 0, 1) in Maxwell SASS: R0-R3 are render target 0's colour.
local sass_red = [[
    MOV32I R0, 0x3f800000 ;
    MOV32I R1, 0x0 ;
    MOV32I R2, 0x0 ;
    MOV32I R3, 0x3f800000 ;
    EXIT ;
]]

-- The texel at (0.5, 0.5) of the texture whose config words are the first
-- two fragment uniforms.
local textured = [[
    mov tlb_z, rb15
    mov tmu0_t, 0.5             # t (pops texture parameter 0)
    mov tmu0_s, 0.5             # s (pops parameter 1, starts the lookup)
    nop ; nop ; ldtmu0          # r4 = the texel
    mov tlb_colour_all, r4
    thrend
    nop
    sbdone
]]

local function make_shader(isa, fragment)
  return gpusim.shader {
    coordinate = shaders.coordinate,
    vertex = shaders.vertex(0),
    fragment = {isa = isa, source = fragment},
    inputs = {{name = "position", components = 4}},
    coordinate_inputs = {"position"},
    varyings = {},
  }
end
local qpu_shader = make_shader("qpu", flat)
local red_shader = variant == "sass" and make_shader("sass", sass_red) or texture and make_shader("qpu", textured)
                   or qpu_shader

local viewport = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}
local function colour(r, g, b) return {vertex = viewport, fragment = {r, g, b, 1.0}} end

gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 1}, depth = 1.0}
  frame:state {depth_test = variant == "depth" and "always" or "less"}
  frame:draw {vertices = red_rect, shader = red_shader,
              uniforms = texture and {vertex = viewport, fragment = {texture}}
                         or variant == "colour" and colour(0, 1, 0) or colour(1, 0, 0)}
  if variant == "insert" then
    frame:draw {vertices = green_rect, shader = qpu_shader, uniforms = colour(0, 1, 0)}
  end
  frame:draw {vertices = blue_rect, shader = qpu_shader, uniforms = colour(0, 0, 1)}
  if variant == "extra" then
    frame:draw {vertices = green_rect, shader = qpu_shader, uniforms = colour(0, 1, 0)}
  end
end, target)
