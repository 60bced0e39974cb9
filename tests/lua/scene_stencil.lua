-- scene_stencil.lua — scenes/stencil.lua: a diamond drawn into the stencil
-- buffer only, yellow rows where the stencil is 1, red columns where it is
-- not. Every pixel is compared, tolerance 0, with the picture worked out
-- from the geometry: a pixel is inside the diamond when its centre is,
-- |x + 0.5 − 128| + |y + 0.5 − 128| < 96.5 (the sum of two half-integer
-- distances is a whole number, so no centre lies on an edge); rows cover
-- y mod 16 < 8, columns x mod 16 < 8; everything else keeps the clear
-- colour. So the mask pass wrote no colour, the rows stayed inside and the
-- columns outside. 1 and 4 render threads give the same bytes.
local gpusim = require "gpusim"
local mem = gpusim.mem

local scene = dofile("scenes/stencil.lua")
local f = gpusim.render {threads = 1}
assert(f.width == 256 and f.height == 256 and f.draws == 3)

local function byte(v) return math.floor(v * 255 + 0.5) end
local c = scene.clear_color
local CLEAR = 0xff000000 | byte(c[3]) << 16 | byte(c[2]) << 8 | byte(c[1])
assert(CLEAR == 0xff401a14)

local px = mem.read(f.framebuffer, "u32", 256 * 256)
local counts = {inside = 0, yellow = 0, red = 0}
for y = 0, 255 do
  for x = 0, 255 do
    local inside = math.abs(x + 0.5 - 128) + math.abs(y + 0.5 - 128) < scene.radius
    local want = CLEAR
    if inside and y % 16 < 8 then want = scene.yellow
    elseif not inside and x % 16 < 8 then want = scene.red end
    local got = px[y * 256 + x + 1]
    if got ~= want then
      error(string.format("pixel (%d, %d) %s the diamond: 0x%08x, want 0x%08x", x, y,
                          inside and "inside" or "outside", got, want))
    end
    if inside then counts.inside = counts.inside + 1 end
    if want == scene.yellow then counts.yellow = counts.yellow + 1 end
    if want == scene.red then counts.red = counts.red + 1 end
  end
end
-- Pixel centres in the diamond: for |dy| = k + 0.5 (k = 0..95), |dx| < 96 − k
-- gives 2(96 − k) columns, above and below: 4 · Σ(96 − k) = 4 · 4656 = 18624.
assert(counts.inside == 18624, counts.inside)
assert(counts.yellow > 8000 and counts.red > 20000)

local one = mem.read_bytes(f.framebuffer, f.stride * f.height)
mem.write_bytes(f.framebuffer, string.rep("\0", f.stride * f.height))
local f4 = gpusim.render {threads = 4}
assert(mem.read_bytes(f4.framebuffer, f4.stride * f4.height) == one, "4 threads differ from 1")
print("scene_stencil: ok")
