-- scene_primitives.lua — scenes/primitives.lua: each 128×128 cell is
-- checked pixel by pixel against the set of pixels worked out here, and its
-- covered count against the count by hand:
--   points (size 4, on pixel corners): the 4×4 pixels around each, 9 × 16;
--   lines (width 1, centre to centre, x-major): one pixel per column from
--     the first endpoint's column up to but excluding the last's, the row
--     whose centre is within half a pixel of the line (the geometry keeps
--     the line off pixel boundaries, so this is never a tie); a loop adds
--     the closing segment, a strip's shared vertex is drawn once;
--   triangles, strip, fan: the pixels whose centres are inside the shape,
--     which is the exact area for shapes with whole-pixel corners (no
--     centre lies on an edge here).
-- Every covered pixel has the cell's colour.
local gpusim = require "gpusim"

dofile("scenes/primitives.lua")
local _, target = gpusim.frame()
local f = gpusim.render {threads = 1}
assert(f.draws == 7 and f.width == 512 and f.height == 256)

local function key(x, y) return y * 1000 + x end

local function points(list, size)
  local set, h = {}, size // 2
  for _, p in ipairs(list) do
    for y = p[2] - h, p[2] + h - 1 do for x = p[1] - h, p[1] + h - 1 do set[key(x, y)] = true end end
  end
  return set
end

local function line(set, a, b)
  if a[1] > b[1] then a, b = b, a end
  local slope = (b[2] - a[2]) / (b[1] - a[1])
  assert(math.abs(slope) <= 1, "x-major lines only")
  for c = math.floor(a[1]), math.floor(b[1]) - 1 do
    local y = a[2] + (c + 0.5 - a[1]) * slope
    assert(y ~= math.floor(y), "the line passes a pixel boundary")
    set[key(c, math.floor(y))] = true
  end
end
local function lines(list, how)
  local set = {}
  if how == "pairs" then
    for i = 1, #list, 2 do line(set, list[i], list[i + 1]) end
  else
    for i = 1, #list - 1 do line(set, list[i], list[i + 1]) end
    if how == "loop" then line(set, list[#list], list[1]) end
  end
  return set
end

-- Pixels whose centre is strictly inside a convex polygon (counter-clockwise).
local function polygon(set, poly)
  for y = 0, 127 do
    for x = 0, 127 do
      local cx, cy, inside = x + 0.5, y + 0.5, true
      for i = 1, #poly do
        local a, b = poly[i], poly[i % #poly + 1]
        local e = (b[1] - a[1]) * (cy - a[2]) - (b[2] - a[2]) * (cx - a[1])
        assert(e ~= 0, "a pixel centre on an edge")
        if e < 0 then inside = false end
      end
      if inside then set[key(x, y)] = true end
    end
  end
  return set
end

local square = {{16, 16}, {112, 16}, {112, 112}, {16, 112}}
local cells = {
  {col = 0, row = 1, rgb = {255, 64, 64}, count = 9 * 16,
   set = points({{32, 32}, {32, 64}, {32, 96}, {64, 32}, {64, 64}, {64, 96}, {96, 32}, {96, 64}, {96, 96}}, 4)},
  {col = 1, row = 1, rgb = {64, 255, 64},
   set = lines({{8.5, 16.5}, {120.5, 16.5}, {8.5, 24.5}, {98.5, 114.5}, {20.5, 110.5}, {119.5, 77.5}}, "pairs")},
  {col = 2, row = 1, rgb = {64, 64, 255},
   set = lines({{16.5, 32.5}, {112.5, 32.5}, {64.5, 48.5}}, "loop")},
  {col = 3, row = 1, rgb = {255, 255, 64}, count = 119 - 8,
   set = lines({{8.5, 30.5}, {47.5, 69.5}, {86.5, 30.5}, {119.5, 52.5}}, "strip")},
  {col = 0, row = 0, rgb = {255, 64, 255}, count = 64 * 48 + 96 * 32,
   set = polygon(polygon({}, {{16, 16}, {80, 16}, {112, 64}, {48, 64}}), {{16, 80}, {112, 80}, {112, 112}, {16, 112}})},
  {col = 1, row = 0, rgb = {64, 255, 255}, count = 96 * 96, set = polygon({}, square)},
  {col = 2, row = 0, rgb = {255, 128, 64}, count = 96 * 96, set = polygon({}, square)},
  {col = 3, row = 0, rgb = {}, count = 0, set = {}},                 -- the empty cell
}
-- By hand: the lines light 112 + 90 + 99 pixels (the diagonal and the
-- falling line cross between pixels, sharing none); the loop 96 + 48 + 48
-- less 3 it shares with its base: columns 16 and 17 (the closing edge rises
-- only 1/3 pixel a column) and column 111 (the middle edge starts there).
cells[2].count = 112 + 90 + 99
cells[3].count = 96 + 48 + 48 - 3

local clear = {26, 26, 38}
for _, c in ipairs(cells) do
  local n, covered = 0, 0
  for _ in pairs(c.set) do n = n + 1 end
  if c.count then assert(n == c.count, string.format("cell %d,%d: formula %d, by hand %d", c.col, c.row, n, c.count)) end
  for y = 0, 127 do
    for x = 0, 127 do
      local r, g, b, a = target:pixel(c.col * 128 + x, c.row * 128 + y)
      local want = c.set[key(x, y)]
      local is_clear = r == clear[1] and g == clear[2] and b == clear[3]
      assert(a == 255)
      if want then
        covered = covered + 1
        assert(r == c.rgb[1] and g == c.rgb[2] and b == c.rgb[3],
               string.format("cell %d,%d pixel (%d, %d): %d,%d,%d", c.col, c.row, x, y, r, g, b))
      else
        assert(is_clear, string.format("cell %d,%d: pixel (%d, %d) covered, not expected", c.col, c.row, x, y))
      end
    end
  end
  assert(covered == n)
end
print("scene_primitives: ok")
