-- stencil.lua — the stencil buffer as a stencil: a diamond is drawn into
-- the stencil buffer only (colour writes off), then yellow horizontal
-- stripes are drawn where the stencil is 1 (inside the diamond) and red
-- vertical stripes where it is not. The fragment shader only writes a
-- colour: for the stencil state the driver adds the TLB_STENCIL_SETUP
-- words and the Z write that runs the test (docs/blending.md). Run it with
--   gpusim scenes/stencil.lua
--   gpusim --headless -o stencil.png scenes/stencil.lua
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"  -- lua/vc4_shaders.lua: the position shaders

local target = gpusim.target {width = 256, height = 256}

-- Pixels to clip space on the 256 × 256 target.
local function clip(x, y) return {x / 128 - 1, y / 128 - 1, 0, 1} end

-- The diamond: centre (128, 128), 96.5 pixels to each corner, so that no
-- pixel centre lies on an edge. A strip of left, bottom, top, right.
local R = 96.5
local diamond = gpusim.buffer {format = "f32x4",
  data = {clip(128 - R, 128), clip(128, 128 - R), clip(128, 128 + R), clip(128 + R, 128)}}

-- Stripes 8 pixels wide every 16, as triangles (two per stripe).
local function stripes(vertical)
  local data = {}
  for k = 0, 15 do
    local a, b = 16 * k, 16 * k + 8
    local x0, y0, x1, y1 = 0, a, 256, b
    if vertical then x0, y0, x1, y1 = a, 0, b, 256 end
    for _, v in ipairs {{x0, y0}, {x1, y0}, {x0, y1}, {x0, y1}, {x1, y0}, {x1, y1}} do
      data[#data + 1] = clip(v[1], v[2])
    end
  end
  return gpusim.buffer {format = "f32x4", data = data}
end
local rows, columns = stripes(false), stripes(true)

-- The colour is a uniform word: bytes R, G, B, A.
local shader = gpusim.shader {
  isa = "qpu",
  coordinate = shaders.coordinate,
  vertex = shaders.vertex(0),
  fragment = [[
    mov tlb_colour_all, unif    # the stencil test decides which pixels keep it
    thrend
    nop
    sbdone
]],
  inputs = {{name = "position", components = 4}},
}

local YELLOW, RED = 0xff20d0f0, 0xff2020e0
local VIEWPORT = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}
local clear_color = {0.08, 0.1, 0.25}

gpusim.frame(function(frame)
  frame:clear {color = clear_color, stencil = 0}
  -- 1. the mask: stencil = 1 inside the diamond, colour untouched
  frame:state {stencil = {func = "always", ref = 1, zpass = "replace"}, color_mask = {false, false, false, false}}
  frame:draw {mode = "strip", vertices = diamond, shader = shader,
              uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xffffffff}}}}
  -- 2. yellow rows inside, 3. red columns outside; the stencil is kept
  frame:state {stencil = {func = "equal", ref = 1}, color_mask = {true, true, true, true}}
  frame:draw {vertices = rows, shader = shader, uniforms = {vertex = VIEWPORT, fragment = {{u32 = YELLOW}}}}
  frame:state {stencil = {func = "notequal", ref = 1}}
  frame:draw {vertices = columns, shader = shader, uniforms = {vertex = VIEWPORT, fragment = {{u32 = RED}}}}
end, target)

-- What the scene drew, for tests/lua/scene_stencil.lua.
return {radius = R, yellow = YELLOW, red = RED, clear_color = clear_color}
