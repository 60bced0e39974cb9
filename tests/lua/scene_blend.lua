-- scene_blend.lua — scenes/blend.lua: three translucent squares blended
-- "source over" (frame:state{blend = "alpha"}: the driver links loadc,
-- v8muld and v8adds into the fragment shader). Every pixel of the frame is
-- compared, with tolerance 0, against the blend worked out here with the
-- exact byte formulas of the QPU:
--   colour pack  c = floor(f × 255 + 0.5), clamped to 0..255 (gpusim's
--                rounding, src/isa/qpu/alu.h; for the scene's 0, 0.5 and 1
--                it gives 0, 128 and 255),
--   v8muld(a, b) = (a·b + 127) // 255,  v8adds(a, b) = min(a + b, 255),
--   not(alpha) = 255 − alpha in every byte.
-- Integer byte arithmetic has no rounding freedom, so no tolerance is
-- needed. Chosen pixels of each single, double and triple overlap are also
-- checked against numbers worked out by hand, and 1 and 4 render threads
-- give the same bytes.
local gpusim = require "gpusim"
local mem = gpusim.mem

local scene = dofile("scenes/blend.lua")
local f = gpusim.render {threads = 1}
assert(f.draws == 3 and f.width == 256 and f.height == 256)

local function pack(x) -- the MUL colour pack of a float 0..1
  if not (x > 0) then return 0 end
  if x >= 1 then return 255 end
  return math.floor(x * 255 + 0.5)
end
local function muld(a, b) return (a * b + 127) // 255 end
local function adds(a, b) return math.min(a + b, 255) end

-- The clear colour as the tile buffer holds it (Clear Colors, 114).
local clear = {}
for k = 1, 4 do clear[k] = pack(scene.clear_color[k]) end
assert(clear[1] == 26 and clear[2] == 26 and clear[3] == 38 and clear[4] == 255)

-- The expected colour of pixel (x, y), y from the bottom row: the clear
-- colour, then each square over it in draw order.
local function expected(x, y)
  local dst = {table.unpack(clear)}
  for _, s in ipairs(scene.squares) do
    local x0, y0, x1, y1 = table.unpack(s.rect)
    if x >= x0 and x < x1 and y >= y0 and y < y1 then
      local a = pack(s.color[4])
      for k = 1, 4 do
        dst[k] = adds(muld(pack(s.color[k]), a), muld(dst[k], 255 - a))
      end
    end
  end
  return dst
end

local px = mem.read(f.framebuffer, "u8", f.stride * f.height)
local function pixel(x, y)
  local i = y * f.stride + x * 4 + 1
  return {px[i], px[i + 1], px[i + 2], px[i + 3]}
end

for y = 0, f.height - 1 do
  for x = 0, f.width - 1 do
    local got, want = pixel(x, y), expected(x, y)
    for k = 1, 4 do
      assert(got[k] == want[k], string.format("pixel (%d, %d): %d,%d,%d,%d, blend gives %d,%d,%d,%d",
        x, y, got[1], got[2], got[3], got[4], want[1], want[2], want[3], want[4]))
    end
  end
end

-- One pixel in each region, worked out by hand (alpha byte 128, 255 − 128
-- = 127). Over the clear colour (26, 26, 38, 255):
--   red:   R = muld(255, 128) + muld(26, 127) = 128 + 13 = 141;
--          G = 0 + muld(26, 127) = 13; B = muld(38, 127) = 19;
--          A = muld(128, 128) + muld(255, 127) = 64 + 127 = 191.
-- Green over red: R = muld(141, 127) = 70, G = 128 + muld(13, 127) = 134,
-- B = muld(19, 127) = 9, A = 64 + muld(191, 127) = 64 + 95 = 159; and so on.
local regions = {
  {"clear",           10,  10, {26, 26, 38, 255}},
  {"red",             40,  40, {141, 13, 19, 191}},
  {"green",          200,  40, {13, 141, 19, 191}},
  {"blue",           128, 200, {13, 13, 147, 191}},
  {"red+green",      128,  40, {70, 134, 9, 159}},
  {"red+blue",        80, 128, {70, 6, 137, 159}},
  {"green+blue",     176, 128, {6, 70, 137, 159}},
  {"red+green+blue", 128, 128, {35, 67, 132, 143}},
}
for _, r in ipairs(regions) do
  local name, x, y, want = table.unpack(r)
  local got = pixel(x, y)
  for k = 1, 4 do
    assert(got[k] == want[k], string.format("%s at (%d, %d): channel %d is %d, by hand %d",
      name, x, y, k, got[k], want[k]))
  end
end

-- 4 threads: the same bytes.
local one = mem.read_bytes(f.framebuffer, f.stride * f.height)
mem.write_bytes(f.framebuffer, string.rep("\0", f.stride * f.height))
local f4 = gpusim.render {threads = 4}
assert(mem.read_bytes(f4.framebuffer, f4.stride * f4.height) == one, "4 threads differ from 1")

-- Stencil by hand, checked pixel by pixel (docs/blending.md: what the
-- stencil state makes the driver insert): the fragment shader writes a
-- TLB_STENCIL_SETUP word (43),
-- passed as a {u32 = word} uniform, before TLB_Z (44), whose write runs the
-- stencil test and clears MS_FLAGS where it fails. Draw 1 marks square A
-- with stencil 1 (func always, z-pass op replace) and paints it red; draw 2
-- paints square B green where stencil = 1; draw 3 paints the bottom strip C
-- blue where stencil ~= 1. Expected: A and B green, C outside A blue, the
-- rest of A red, the rest the clear colour. Each draw's test shows: without
-- it B outside A would be green, or A and C blue, or (no replace) A and B
-- red.
local function stencil_word(func, zpass, ref)
  -- reference/vc4.md section 3.6: WSEL 3 (both faces), write mask code 3
  -- (0xff), z-fail op, z-pass op, stencil-fail op (1 = keep), function,
  -- reference, value mask 0xff
  return 3 << 30 | 3 << 28 | 1 << 25 | zpass << 22 | 1 << 19 | func << 16 | ref << 8 | 0xff
end
local ALWAYS, EQUAL, NOTEQUAL, KEEP, REPLACE = 7, 2, 5, 1, 2
assert(stencil_word(ALWAYS, REPLACE, 1) == 0xf28f01ff)

local stencil_shader = gpusim.shader {
  isa = "qpu",
  coordinate = require("vc4_shaders").coordinate,
  vertex = require("vc4_shaders").vertex(0),
  fragment = [[
    mov tlb_stencil, unif       # the stencil setup word (a uniform)
    mov r0, unif                # the colour word
    mov tlb_z, rb15             # Z write: stencil test, MS_FLAGS cleared where it fails
    nop                         # keep instructions between TLB_Z and thrend (HW-2806)
    nop
    mov tlb_colour_all, r0      # only where the test passed
    thrend
    nop
    sbdone
]],
  inputs = {{name = "position", components = 4}},
  varyings = {},
}
local A, B, C = {32, 32, 160, 160}, {96, 96, 224, 224}, {0, 0, 256, 96}
local quad_data = {}
for _, r in ipairs {A, B, C} do
  local x0, y0, x1, y1 = table.unpack(r)
  for _, v in ipairs {{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} do
    quad_data[#quad_data + 1] = {v[1] / 128 - 1, v[2] / 128 - 1, 0, 1}
  end
end
local quads = gpusim.buffer {format = "f32x4", data = quad_data}
local RED, GREEN, BLUE = 0xff0000ff, 0xff00ff00, 0xffff0000   -- bytes R, G, B, A
local _, scene_target = gpusim.frame()
gpusim.frame(function(frame)
  frame:clear {color = scene.clear_color, stencil = 0}
  for _, d in ipairs {{0, stencil_word(ALWAYS, REPLACE, 1), RED},
                      {4, stencil_word(EQUAL, KEEP, 1), GREEN},
                      {8, stencil_word(NOTEQUAL, KEEP, 1), BLUE}} do
    frame:draw {mode = "strip", vertices = quads, first = d[1], count = 4, shader = stencil_shader,
                uniforms = {vertex = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale",
                                      "viewport_z_offset"},
                            fragment = {{u32 = d[2]}, {u32 = d[3]}}}}
  end
end, scene_target)
local fs = gpusim.render {threads = 2}
px = mem.read(fs.framebuffer, "u8", fs.stride * fs.height)
local function inside(r, x, y) return x >= r[1] and x < r[3] and y >= r[2] and y < r[4] end
local counts = {}
for y = 0, fs.height - 1 do
  for x = 0, fs.width - 1 do
    local a, b, c = inside(A, x, y), inside(B, x, y), inside(C, x, y)
    local want, name = clear, "clear"
    if a and b then want, name = {0, 255, 0, 255}, "A and B"
    elseif a then want, name = {255, 0, 0, 255}, "A only"
    elseif c then want, name = {0, 0, 255, 255}, "C outside A" end
    counts[name] = (counts[name] or 0) + 1
    local got = pixel(x, y)
    for k = 1, 4 do
      assert(got[k] == want[k], string.format("stencil frame, pixel (%d, %d) in %s: %d,%d,%d,%d", x, y, name,
        got[1], got[2], got[3], got[4]))
    end
  end
end
assert(counts["A and B"] == 64 * 64 and counts["A only"] == 128 * 128 - 64 * 64)
assert(counts["C outside A"] == 256 * 96 - 128 * 64)
print("scene_blend: ok")
