-- scene_tiles.lua — scenes/tiles.lua: every pixel against values worked
-- out here, independently of the renderer: coverage by the fill rule of
-- docs/rasterization.md (12.4 edge functions at the pixel centre, top-left
-- ownership of edge samples), and the colour the fragment shader's integer
-- arithmetic gives for the pixel's tile; the binner put the triangle into
-- exactly the tiles it overlaps (a separating-axis test here); 1 and 4
-- render threads give the same bytes.
local gpusim = require "gpusim"
local mem = gpusim.mem

local scene = dofile("scenes/tiles.lua")
local f = gpusim.render {threads = 1}
assert(f.width == 256 and f.height == 256 and f.tiles_x == 4 and f.tiles_y == 4)

-- The corners in 1/16 pixel, counter-clockwise.
local X, Y = {}, {}
for i, c in ipairs(scene.corners) do X[i], Y[i] = c[1] * 16, c[2] * 16 end
assert((X[2] - X[1]) * (Y[3] - Y[1]) - (X[3] - X[1]) * (Y[2] - Y[1]) > 0, "corners must run counter-clockwise")

-- Pixel (px, py) is covered when its centre is inside every edge, or on an
-- edge that owns it: one running downwards, or horizontal towards larger x.
local function covers(px, py)
  local sx, sy = 16 * px + 8, 16 * py + 8
  for i = 1, 3 do
    local j = i % 3 + 1
    local e = (X[j] - X[i]) * (sy - Y[i]) - (Y[j] - Y[i]) * (sx - X[i])
    if e < 0 then return false end
    if e == 0 and not (Y[j] < Y[i] or (Y[j] == Y[i] and X[j] > X[i])) then return false end
  end
  return true
end

local clear = {26, 26, 38, 255}  -- 0.1, 0.1, 0.15, 1 × 255, rounded
local px = mem.read(f.framebuffer, "u8", f.stride * f.height)
local covered, tiles_with_pixels = 0, {}
for y = 0, 255 do
  for x = 0, 255 do
    local i = y * f.stride + 4 * x + 1
    local got = {px[i], px[i + 1], px[i + 2], px[i + 3]}
    local want = clear
    if covers(x, y) then
      covered = covered + 1
      tiles_with_pixels[(y // 64) * 4 + x // 64] = true
      want = {(x & 0xc0) + 0x30, (y & 0xc0) + 0x30, 0xc0, 0xff}
    end
    for k = 1, 4 do
      assert(got[k] == want[k], string.format("pixel (%d, %d) channel %d: %d, want %d", x, y, k, got[k], want[k]))
    end
  end
end
assert(f.stats.fragments == covered, "fragments " .. f.stats.fragments .. ", covered " .. covered)

-- The tiles the triangle overlaps: no separating axis between the triangle
-- and the tile's square (the square's two axes, the triangle's three edge
-- normals), strictly.
local function overlaps(tx, ty)
  local qx = {tx * 1024, tx * 1024 + 1024, tx * 1024 + 1024, tx * 1024}
  local qy = {ty * 1024, ty * 1024, ty * 1024 + 1024, ty * 1024 + 1024}
  local function separated(ax, ay)
    local tmin, tmax, smin, smax = math.huge, -math.huge, math.huge, -math.huge
    for i = 1, 3 do
      local d = ax * X[i] + ay * Y[i]
      tmin, tmax = math.min(tmin, d), math.max(tmax, d)
    end
    for i = 1, 4 do
      local d = ax * qx[i] + ay * qy[i]
      smin, smax = math.min(smin, d), math.max(smax, d)
    end
    return tmax <= smin or smax <= tmin
  end
  if separated(1, 0) or separated(0, 1) then return false end
  for i = 1, 3 do
    local j = i % 3 + 1
    if separated(Y[j] - Y[i], X[i] - X[j]) then return false end
  end
  return true
end
local binned = 0
for ty = 0, 3 do
  for tx = 0, 3 do
    if overlaps(tx, ty) then
      binned = binned + 1
    else
      assert(not tiles_with_pixels[ty * 4 + tx], "pixels in tile (" .. tx .. ", " .. ty .. ") it does not overlap")
    end
  end
end
-- Worked out by hand from the edges: rows 0 and 1 all four tiles; row 2
-- columns 0..2 (the right edge crosses y = 128 at x = 177.9, y = 192 at
-- x = 122.3); row 3 column 1 only (the left edge crosses y = 192 at x = 69.3).
assert(binned == 12, "the triangle overlaps 12 of the 16 tiles, got " .. binned)
assert(f.stats.tile_refs == binned, "tile_refs " .. f.stats.tile_refs .. ", overlapped tiles " .. binned)

-- 4 threads: the same bytes.
local one = mem.read_bytes(f.framebuffer, f.stride * f.height)
mem.write_bytes(f.framebuffer, string.rep("\0", f.stride * f.height))
local f4 = gpusim.render {threads = 4}
assert(mem.read_bytes(f4.framebuffer, f4.stride * f4.height) == one, "4 threads differ from 1")
print("scene_tiles: ok, " .. covered .. " pixels in " .. binned .. " tiles")
