-- scene_texture.lua — gpusim.texture: texels made in Lua and read from a
-- PNG in assets/, tiled in the layout the TMU reads (LT for small, T for
-- large textures), and their config words as fragment-shader uniforms.
-- A quad covering the target samples with nearest filtering one texel per
-- pixel, so every pixel must equal its texel.
local gpusim = require "gpusim"

package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails
local here = "scene_texture.lua:"

-- ---- objects and errors
local small = gpusim.texture {width = 2, height = 2, filter = "nearest", wrap = "clamp",
                              data = {{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}}}
assert(small.width == 2 and small.height == 2 and small.layout == "lt" and small.address % 4096 == 0)
assert(small.filter == "nearest" and small.wrap_s == "clamp" and small.wrap_t == "clamp")
local cfg = small.config
-- P0: base | type 0 | 1 level; P1: height 2 << 20 | width 2 << 8 | nearest mag/min | clamp t/s
assert(cfg[1] == small.address and cfg[2] == (2 << 20 | 2 << 8 | 1 << 7 | 1 << 4 | 1 << 2 | 1))
assert(tostring(small):match("2x2 LT, nearest"))
fails({here, "bad argument #1 to 'texture'", "'width' is required"}, function() gpusim.texture {data = {}} end)
fails({here, "3 texels of 4 bytes for a 2x2 texture of 4"},
      function() gpusim.texture {width = 2, height = 2, data = {1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}} end)
fails({here, "'filter'", "'linear', 'nearest'"}, function() gpusim.texture {width = 1, height = 1, data = {0, 0, 0, 0}, filter = "cubic"} end)
fails({here, "'wrap_t'", "'repeat', 'clamp', 'mirror'"},
      function() gpusim.texture {width = 1, height = 1, data = {0, 0, 0, 0}, wrap_t = "border"} end)
fails({here, "either 'file' or 'data'"}, function() gpusim.texture {file = "../../assets/checker.png", width = 2} end)
fails({here, "field 'file'", "nothing.png"}, function() gpusim.texture {file = "../../assets/nothing.png"} end)
fails({here, "'width' must be an integer in 1..2048"}, function() gpusim.texture {width = 4096, height = 1, data = {}} end)

-- ---- sampling
-- a quad over the whole target with texture coordinates 0..1
local quad = gpusim.buffer {format = {"f32x4", "f32x2"}, data = {
  {-1, -1, 0, 1, 0, 0}, {1, -1, 0, 1, 1, 0}, {1, 1, 0, 1, 1, 1}, {-1, 1, 0, 1, 0, 1}}}
local ib = gpusim.buffer {format = "u8", data = {0, 1, 2, 0, 2, 3}}
local coordinate = require("vc4_shaders").coordinate
local shader = gpusim.shader {
  coordinate = coordinate,
  vertex = [[
    ldi vr_setup, 0x00601a00    # read 6 rows: Xc Yc Zc Wc, s t
    ldi vw_setup, 0x00001a00
    mov ra0, vpm
    mov ra1, vpm
    mov ra2, vpm
    mov r3, vpm
    mov sfu_recip, r3
    mov ra4, vpm                # s
    mov ra5, vpm                # t
    nop
    fmul r0, ra0, r4
    fmul r1, ra1, r4
    fmul r0, r0, unif
    fmul r1, r1, unif
    ftoi ra3.16a, r0
    ftoi ra3.16b, r1
    fmul r2, ra2, r4
    fmul r2, r2, unif
    fadd r2, r2, unif
    mov vpm, ra3
    mov vpm, r2
    mov vpm, r4
    mov vpm, ra4                # varying 0: s
    mov vpm, ra5                # varying 1: t
    thrend
    nop
    nop
  ]],
  fragment = [[
    fmul r0, vary, ra15         # s
    fadd r0, r0, r5
    fmul r1, vary, ra15         # t
    fadd r1, r1, r5
    mov tmu0_t, r1              # pops config parameter 0 from the uniforms
    mov tmu0_s, r0              # pops parameter 1 and starts the lookup
    nop ; nop ; ldtmu0          # r4 = the texel, bytes R G B A
    mov tlb_colour_all, r4
    thrend
    nop
    sbdone
  ]],
  inputs = {{name = "position", components = 4}, {name = "uv", components = 2}},
  coordinate_inputs = {"position"},
  varyings = {{name = "uv", components = 2}},
}

local function sample(tex, w, h)
  local target = gpusim.target {width = w, height = h}
  gpusim.frame(function(frame)
    frame:draw {vertices = quad, indices = ib, shader = shader,
                uniforms = {vertex = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
                            fragment = {tex}}}
  end, target)
  gpusim.render()
  return target
end

-- 2×2 texels on 4×4 pixels: each texel covers a 2×2 block, row 0 at the bottom
local t = sample(small, 4, 4)
local want = {[0] = {255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}}
for y = 0, 3 do
  for x = 0, 3 do
    local r, g, b = t:pixel(x, y)
    local w = want[(y // 2) * 2 + x // 2]
    assert(r == w[1] and g == w[2] and b == w[3], string.format("(%d, %d): %d %d %d", x, y, r, g, b))
  end
end

-- 64×32 texels (T-format: wider and taller than 4 micro-tiles), one per pixel
local W, H = 64, 32
local data = {}
for y = 0, H - 1 do
  for x = 0, W - 1 do data[#data + 1] = {x * 4, y * 8, (x + y) % 256, 255} end
end
local big = gpusim.texture {width = W, height = H, filter = "nearest", data = data}
assert(big.layout == "t" and big.bytes == 8192)       -- two 4 KB tiles
t = sample(big, W, H)
for y = 0, H - 1 do
  for x = 0, W - 1 do
    local r, g, b = t:pixel(x, y)
    assert(r == x * 4 and g == y * 8 and b == (x + y) % 256, string.format("(%d, %d): %d %d %d", x, y, r, g, b))
  end
end

-- the PNG: 16×16, quadrants red (top left), green, blue, white, each a
-- checker of full and half intensity; upright in the image, so the PNG's
-- top row is the texture's last row (t = 1)
local png = gpusim.texture {file = "../../assets/checker.png", filter = "nearest"}
assert(png.width == 16 and png.height == 16)
t = sample(png, 16, 16)
for y = 0, 15 do
  for x = 0, 15 do
    local top = y >= 8                                   -- y counts from the bottom row
    local c = top and (x < 8 and {255, 0, 0} or {0, 255, 0}) or (x < 8 and {0, 0, 255} or {255, 255, 255})
    local row_in_png = 15 - y
    if ((x // 2) + (row_in_png // 2)) % 2 == 1 then for i = 1, 3 do c[i] = c[i] // 2 end end
    local r, g, b = t:pixel(x, y)
    assert(r == c[1] and g == c[2] and b == c[3], string.format("png (%d, %d): %d %d %d", x, y, r, g, b))
  end
end
print("scene_texture: ok")
