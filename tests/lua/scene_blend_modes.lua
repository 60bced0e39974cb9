-- scene_blend_modes.lua — scenes/blend_modes.lua: eight blend states over
-- one background. Every pixel is compared, tolerance 0, with the colour
-- worked out here: the background (u, 128, 255 − u, 255) with
-- u = 4 · (x mod 64), the foreground (255, v, 64, v) with v = 4 · (y mod 64),
-- and the cell's blend in the QPU's byte arithmetic (reference/vc4.md §1.9:
-- v8muld(a, b) = (a·b + 127) // 255, saturating v8adds and v8subs, v8min,
-- v8max; 255 − x for "one minus"). The scissor keeps each draw in its
-- cell, so a pixel sees exactly one blend. 1 and 4 threads give the same
-- bytes.
local gpusim = require "gpusim"
local mem = gpusim.mem

local scene = dofile("scenes/blend_modes.lua")
local f = gpusim.render {threads = 1}
assert(f.width == 256 and f.height == 128 and f.draws == 9)

local function muld(a, b) return (a * b + 127) // 255 end

-- The blends of the scene, per channel k (1..4) of source s over destination d.
local blends = {
  alpha = function(s, d, k) return math.min(muld(s[k], s[4]) + muld(d[k], 255 - s[4]), 255) end,
  premultiplied = function(s, d, k) return math.min(s[k] + muld(d[k], 255 - s[4]), 255) end,
  add = function(s, d, k) return math.min(s[k] + d[k], 255) end,
  screen = function(s, d, k) return math.min(s[k] + muld(d[k], 255 - s[k]), 255) end,
  min = function(s, d, k) return math.min(s[k], d[k]) end,
  max = function(s, d, k) return math.max(s[k], d[k]) end,
  multiply = function(s, d, k) return muld(s[k], d[k]) end,
  subtract = function(s, d, k) return math.max(d[k] - s[k], 0) end,
}
local names = {"alpha", "premultiplied", "add", "screen", "min", "max", "multiply", "subtract"}

-- Hand-worked pixel: (10, 20) in "alpha": u = 40, v = 80; background
-- (40, 128, 215, 255), foreground (255, 80, 64, 80): R = 255·80 → 80,
-- + 40·175 → 27: 107; G = 80·80 → 25, + 128·175 → 88: 113;
-- B = 64·80 → 20, + 215·175 → 148: 168; A = 80·80 → 25, + 255·175 → 175: 200.
local px = mem.read(f.framebuffer, "u8", f.stride * f.height)
local function pixel(x, y)
  local i = y * f.stride + 4 * x + 1
  return {px[i], px[i + 1], px[i + 2], px[i + 3]}
end
local p = pixel(10, 20)
assert(p[1] == 107 and p[2] == 113 and p[3] == 168 and p[4] == 200,
       string.format("alpha at (10, 20): %d,%d,%d,%d", p[1], p[2], p[3], p[4]))

for y = 0, 127 do
  for x = 0, 255 do
    local u, v = 4 * (x % 64), 4 * (y % 64)
    local d, s = {u, 128, 255 - u, 255}, {255, v, 64, v}
    local name = names[(y // 64) * 4 + x // 64 + 1]
    local got = pixel(x, y)
    for k = 1, 4 do
      local want = blends[name](s, d, k)
      if got[k] ~= want then
        error(string.format("%s cell, pixel (%d, %d) channel %d: %d, the blend gives %d", name, x, y, k, got[k], want))
      end
    end
  end
end

-- The scene's cells are the blends named here.
for i, c in ipairs(scene.cells) do
  if type(c[3]) == "string" then assert(c[3] == names[i]) else assert(c[3].equation == "reverse_subtract") end
end

local one = mem.read_bytes(f.framebuffer, f.stride * f.height)
mem.write_bytes(f.framebuffer, string.rep("\0", f.stride * f.height))
local f4 = gpusim.render {threads = 4}
assert(mem.read_bytes(f4.framebuffer, f4.stride * f4.height) == one, "4 threads differ from 1")
print("scene_blend_modes: ok")
