-- scene_antialias.lua — scenes/antialias.lua at t = 0, with 4 samples and
-- with 1, against coverage worked out here per sample: the fill rule of
-- docs/rasterization.md (12.4 edge functions, top-left ownership) at the
-- sample points it gives — (6, 2), (14, 6), (2, 10), (10, 14) sixteenths of
-- a pixel with 4 samples, the centre (8, 8) with 1. Each sample takes the
-- colour of the last spoke covering it, else the clear colour; a resolved
-- pixel is the byte average (s0 + s1 + s2 + s3 + 2) // 4. Every pixel must
-- match exactly; 1 and 2 threads give the same bytes.
local gpusim = require "gpusim"
local mem = gpusim.mem

local points = {
  [4] = {{6, 2}, {14, 6}, {2, 10}, {10, 14}},
  [1] = {{8, 8}},
}

local function check(samples)
  local scene = assert(loadfile("scenes/antialias.lua"))(tostring(samples))
  assert(scene.samples == samples)
  local f = gpusim.render {threads = 1, time = 0}
  local tile = samples == 4 and 32 or 64
  assert(f.tiles_x == 256 // tile and f.tiles_y == 256 // tile, f.tiles_x .. "x" .. f.tiles_y)
  -- the spokes in 1/16 pixel, counter-clockwise, with bounding boxes
  local tris = {}
  for k, c in ipairs(scene.spokes(0)) do
    local X, Y = {}, {}
    for i = 1, 3 do X[i], Y[i] = math.tointeger(c[i][1] * 16), math.tointeger(c[i][2] * 16) end
    if (X[2] - X[1]) * (Y[3] - Y[1]) - (X[3] - X[1]) * (Y[2] - Y[1]) < 0 then
      X[2], X[3], Y[2], Y[3] = X[3], X[2], Y[3], Y[2]
    end
    local w = scene.colours[k % 2 + 1]
    tris[k] = {X = X, Y = Y, colour = {w & 0xff, w >> 8 & 0xff, w >> 16 & 0xff, w >> 24 & 0xff},
               x0 = math.min(X[1], X[2], X[3]), x1 = math.max(X[1], X[2], X[3]),
               y0 = math.min(Y[1], Y[2], Y[3]), y1 = math.max(Y[1], Y[2], Y[3])}
  end
  local function covers(t, x, y)
    if x < t.x0 or x > t.x1 or y < t.y0 or y > t.y1 then return false end
    local X, Y = t.X, t.Y
    for i = 1, 3 do
      local j = i % 3 + 1
      local e = (X[j] - X[i]) * (y - Y[i]) - (Y[j] - Y[i]) * (x - X[i])
      if e < 0 then return false end
      if e == 0 and not (Y[j] < Y[i] or (Y[j] == Y[i] and X[j] > X[i])) then return false end
    end
    return true
  end
  local clear = {16, 16, 32, 255}
  local partial = 0
  for py = 0, 255 do
    for px = 0, 255 do
      local sum, n = {0, 0, 0, 0}, 0
      for _, p in ipairs(points[samples]) do
        local x, y, colour = 16 * px + p[1], 16 * py + p[2], clear
        for _, t in ipairs(tris) do
          if covers(t, x, y) then colour = t.colour end
        end
        if colour ~= clear then n = n + 1 end
        for c = 1, 4 do sum[c] = sum[c] + colour[c] end
      end
      if n > 0 and n < #points[samples] then partial = partial + 1 end
      local got = {scene.target:pixel(px, py)}
      for c = 1, 4 do
        local want = samples == 4 and (sum[c] + 2) // 4 or sum[c]
        assert(got[c] == want, string.format("%d samples: pixel (%d, %d) channel %d: %d, want %d (%d covered)",
                                             samples, px, py, c, got[c], want, n))
      end
    end
  end
  local one = mem.read_bytes(f.framebuffer, f.stride * f.height)
  local f2 = gpusim.render {threads = 2, time = 0}
  assert(mem.read_bytes(f2.framebuffer, f2.stride * f2.height) == one, samples .. " samples: 2 threads differ from 1")
  return partial
end

local partial = check(4)
assert(partial > 500, "4 samples: only " .. partial .. " partly covered pixels")
assert(check(1) == 0)
print("scene_antialias: ok, " .. partial .. " partly covered pixels with 4 samples")
