-- antialias.lua — 4× multisampling. Twelve thin spokes turn around the
-- centre. With `samples = 4` the tile buffer keeps four samples per pixel,
-- each covered or not by its own point of the pixel (Broadcom's Reference Guide, §5;
-- the sample positions are in docs/rasterization.md); the fragment shader
-- still runs once per pixel, and the store averages the four samples, so
-- a pixel half covered by a spoke gets half its colour: the edges are
-- smooth. Tiles are 32×32 pixels in this mode. Run it with
--   gpusim scenes/antialias.lua          (4 samples per pixel)
--   gpusim scenes/antialias.lua 1        (1 sample: compare the stairs)
--   gpusim --headless -o antialias.png scenes/antialias.lua
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"  -- lua/vc4_shaders.lua: the position shaders

local samples = tonumber((...)) or 4
local target = gpusim.target {width = 256, height = 256, samples = samples}

-- Spoke k at angle a: a thin triangle from near the centre out to radius
-- 120, 0.06 rad wide. Corners are rounded to 1/16 pixel, the precision of
-- the rasteriser, so the test can recompute coverage exactly.
local N, WIDTH, INNER, OUTER = 12, 0.06, 12, 120
local function grid(v) return math.floor(v * 16 + 0.5) / 16 end
local function spokes(angle)
  local corners = {}
  for k = 0, N - 1 do
    local a = angle + 2 * math.pi * k / N
    local function at(r, b) return {grid(128 + r * math.cos(b)), grid(128 + r * math.sin(b))} end
    corners[#corners + 1] = {at(INNER, a), at(OUTER, a - WIDTH / 2), at(OUTER, a + WIDTH / 2)}
  end
  return corners
end

-- One colour per spoke, alternating, as a constant per draw: the fragment
-- shader writes its uniform (bytes R, G, B, A) to every covered sample.
local COLOURS = {0xff40c0ff, 0xffffffff}
local shader = gpusim.shader {
  isa = "qpu",
  coordinate = shaders.coordinate,
  vertex = shaders.vertex(0),
  fragment = [[
    mov tlb_colour_all, unif    # all samples the pixel's MS_FLAGS say are covered
    thrend
    nop
    sbdone
]],
  inputs = {{name = "position", components = 4}},
}

local VIEWPORT = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}
local clear_color = {16 / 255, 16 / 255, 32 / 255, 1.0}  -- bytes 16, 16, 32, 255
local buffers = {}  -- one vertex buffer per spoke, rewritten every frame

gpusim.frame(function(frame, t)
  frame:clear {color = clear_color}
  for k, c in ipairs(spokes(t * 0.3)) do
    -- pixels to clip space: x / 128 - 1 is exact for sixteenths of a pixel
    local data = {}
    for i, p in ipairs(c) do data[i] = {p[1] / 128 - 1, p[2] / 128 - 1, 0, 1} end
    buffers[k] = buffers[k] or gpusim.buffer {format = "f32x4", data = data}
    buffers[k]:write(data)
    frame:draw {vertices = buffers[k], shader = shader,
                uniforms = {vertex = VIEWPORT, fragment = {{u32 = COLOURS[k % 2 + 1]}}}}
  end
end, target)

-- What the scene draws, for tests/lua/scene_antialias.lua.
return {spokes = spokes, colours = COLOURS, clear_color = clear_color, samples = samples, target = target}
