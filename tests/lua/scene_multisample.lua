-- scene_multisample.lua — render targets with 4 samples and RGBA16F through
-- the Lua scene API (docs/scenes.md, "Multisampling and 64-bit colour").
--
-- 4 samples: a 64x64 target has 32x32 tiles (2 x 2). One triangle in a
-- constant colour over a clear black target, with corners on 1/16-pixel
-- positions the shaders map exactly: every pixel of the resolved image is
-- the byte average of its covered samples (the colour) and the others
-- (black), (n·c + 2) // 4, with n counted here per sample at the positions
-- docs/rasterization.md gives and with its fill rule; pixels with 1, 2 and
-- 3 covered samples exist; 1 and 4 threads give the same bytes.
--
-- RGBA16F: the fragment shader writes RG16F then BA16F; target:pixel gives
-- the halves as floats; the clear colour is the RGBA8888 one widened.
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"
local mem = gpusim.mem

local function shader_with(fragment)
  return gpusim.shader {
    isa = "qpu",
    coordinate = shaders.coordinate,
    vertex = shaders.vertex(0),
    fragment = fragment,
    inputs = {{name = "position", components = 4}},
    coordinate_inputs = {"position"},
    varyings = {},
  }
end

local constant = shader_with [[
    ldi r0, 0xff336699       # R 0x99, G 0x66, B 0x33, A 0xff
    mov tlb_colour_all, r0
    thrend
    nop
    sbdone
]]

-- Screen (pixels) to clip space on a 64x64 target: x = 32 xc + 32, exact
-- for sixteenths of a pixel (xc a multiple of 1/512).
local function clip(x, y) return {(x - 32) / 32, (y - 32) / 32, 0.0, 1.0} end
local tri = {{10.5, 5.375}, {60, 5.375}, {10.5, 50.0625}}
local vertices = gpusim.buffer {
  format = {"f32x4"},
  data = {clip(tri[1][1], tri[1][2]), clip(tri[2][1], tri[2][2]), clip(tri[3][1], tri[3][2])},
}
local uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}

-- The fill rule per sample (docs/rasterization.md), in 12.4 integers.
local sx, sy = {6, 14, 2, 10}, {2, 6, 10, 14}
local X, Y = {}, {}
for k = 1, 3 do X[k], Y[k] = math.floor(tri[k][1] * 16 + 0.5), math.floor(tri[k][2] * 16 + 0.5) end
local function covered(px, py)                       -- X, Y counter-clockwise
  local n = 0
  for s = 1, 4 do
    local x, y, inside = 16 * px + sx[s], 16 * py + sy[s], true
    for i = 1, 3 do
      local j = i % 3 + 1
      local e = (X[j] - X[i]) * (y - Y[i]) - (Y[j] - Y[i]) * (x - X[i])
      local owns = Y[j] < Y[i] or (Y[j] == Y[i] and X[j] > X[i])
      if e < 0 or (e == 0 and not owns) then inside = false end
    end
    if inside then n = n + 1 end
  end
  return n
end

local ms = gpusim.target {width = 64, height = 64, samples = 4}
assert(ms.samples == 4 and tostring(ms):find("4 samples"))
gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 0}}
  frame:draw {mode = "triangles", vertices = vertices, shader = constant, uniforms = uniforms}
end, ms)
local f = gpusim.render {threads = 1}
assert(f.tiles_x == 2 and f.tiles_y == 2, f.tiles_x .. "x" .. f.tiles_y)
local seen = {}
for py = 0, 63 do
  for px = 0, 63 do
    local n = covered(px, py)
    seen[n] = true
    local r, g, b, a = ms:pixel(px, py)
    local want = {(n * 0x99 + 2) // 4, (n * 0x66 + 2) // 4, (n * 0x33 + 2) // 4, (n * 0xff + 2) // 4}
    for c, v in ipairs {r, g, b, a} do
      assert(v == want[c], string.format("pixel (%d, %d) channel %d: %d, want %d (%d samples)", px, py, c, v,
                                         want[c], n))
    end
  end
end
assert(seen[1] and seen[2] and seen[3] and seen[4] and seen[0])
-- by hand: (10, 10) has samples 1 and 3 (x >= 10.5): R (2·0x99 + 2) // 4 = 77
assert(covered(10, 10) == 2 and ms:pixel(10, 10) == 77)
local one = mem.read_bytes(f.framebuffer, f.stride * f.height)
local f4 = gpusim.render {threads = 4}
assert(mem.read_bytes(f4.framebuffer, f4.stride * f4.height) == one, "4 threads differ from 1")

-- RGBA16F: 64x32 tiles; R -1.0, G 2.0 | B 0.25, A 0.5 inside; the clear
-- colour (0, 0, 0, 1) becomes the halves 0, 0, 0, 1.0.
local hdr = gpusim.target {width = 64, height = 64, format = "rgba16f"}
assert(hdr.stride == 64 * 8 and hdr.format == "rgba16f")
local halves = shader_with [[
    ldi r0, 0x4000bc00       # RG16F: R -1.0, G 2.0
    ldi r1, 0x38003400       # BA16F: B 0.25, A 0.5
    mov tlb_colour_all, r0
    mov tlb_colour_all, r1
    thrend
    nop
    sbdone
]]
gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 1}}
  frame:draw {mode = "triangles", vertices = vertices, shader = halves, uniforms = uniforms}
end, hdr)
f = gpusim.render {threads = 2}
assert(f.tiles_x == 1 and f.tiles_y == 2 and f.format == "rgba16f")
local r, g, b, a = hdr:pixel(20, 20)
assert(r == -1.0 and g == 2.0 and b == 0.25 and a == 0.5, string.format("%g %g %g %g", r, g, b, a))
r, g, b, a = hdr:pixel(5, 5)
assert(r == 0 and g == 0 and b == 0 and a == 1.0, string.format("%g %g %g %g", r, g, b, a))

-- 2 samples: the VideoCore IV has 1 or 4
local ok, err = pcall(gpusim.target, {width = 8, height = 8, samples = 2})
assert(not ok and err:find("2 samples"), err)
print("scene_multisample: ok")
