-- overlay_counts.lua — gpusim.overlay (src/app/overlay.c, docs/inspector.md)
-- on a 128x64 frame (two 64x64 tiles, tests/lua/lib/overlay_scene.lua) whose
-- every number is worked out by hand from its geometry (image coordinates: x right, y down; pixel
-- (x, y) has its centre at (x + 0.5, y + 0.5)):
--   D1  rectangle A, x 0..48, y 8..40, two triangles, QPU fragment program
--   D2  rectangle B, x 32..96, y 24..56, two triangles, SASS fragment program
--   D3  triangle C (100, 10), (120.5, 10), (100, 30.5), QPU
-- Rectangle edges are whole numbers and C's long edge is x + y = 130.5, so
-- no pixel centre lies on an edge except on the rectangles' diagonals,
-- where the fill rule gives each centre to exactly one of the two halves.
--   tiles:    tile 0 (x 0..63) holds A's 2 triangles and B's 2 (each half of
--             B has pixels on both sides of x = 64): 4; tile 1: B's 2 and C: 3
--   overdraw: A: 48 x 32 = 1536 pixels, B: 64 x 32 = 2048, overlap x 32..47,
--             y 24..39: 16 x 16 = 256 pixels with 2; C: centres with
--             x >= 100, y >= 10, x + y <= 129: 20 x 21 / 2 = 210 pixels
--   isa:      the last writer: B's pixels (the overlap too) sass, the rest of
--             A and C qpu, nothing else
--   trisize:  A's halves 48 x 32 / 2 = 768 pixels, B's 64 x 32 / 2 = 1024,
--             C 20.5 x 20.5 / 2 = 210.125
--   order:    the rendering list renders tile 0, then tile 1
-- and with {draws = K} only the first K draws: K = 1 leaves A alone. Then
-- scenes/triangle.lua in seven ISA combinations: its pixels named by the
-- fragment program's ISA.
local gpusim = require "gpusim"
dofile("tests/lua/lib/overlay_scene.lua") -- the frame described above
local W, H = 128, 64

local f = gpusim.render {threads = 2}
local image = gpusim.mem.read_bytes(f.framebuffer, f.stride * f.height)

local function inA(x, y) return x < 48 and y >= 8 and y < 40 end
local function inB(x, y) return x >= 32 and x < 96 and y >= 24 and y < 56 end
local function inC(x, y) return x >= 100 and y >= 10 and x + y <= 129 end

local function check_pixels(name, got, want)
  local bad = 0
  for y = 0, H - 1 do
    for x = 0, W - 1 do
      local g, w = got.pixels[y * W + x + 1], want(x, y)
      if g ~= w then
        bad = bad + 1
        if bad <= 5 then print(string.format("%s (%d, %d): %s, want %s", name, x, y, tostring(g), tostring(w))) end
      end
    end
  end
  assert(bad == 0, name .. ": " .. bad .. " pixels differ")
end

-- tiles
local t = gpusim.overlay("tiles")
assert(t.width == W and t.height == H and t.tiles_x == 2 and t.tiles_y == 1, "grid")
assert(t.tile_width == 64 and t.tile_height == 64, "tile size")
assert(t.draws == 3, "draws " .. t.draws)
assert(t.tiles[1] == 4 and t.tiles[2] == 3, string.format("tiles: %d %d, want 4 3", t.tiles[1], t.tiles[2]))

-- overdraw, isa, trisize
check_pixels("overdraw", gpusim.overlay("overdraw"), function(x, y)
  return (inA(x, y) and 1 or 0) + (inB(x, y) and 1 or 0) + (inC(x, y) and 1 or 0)
end)
check_pixels("isa", gpusim.overlay("isa"), function(x, y)
  return inB(x, y) and "sass" or (inA(x, y) or inC(x, y)) and "qpu" or ""
end)
check_pixels("trisize", gpusim.overlay("trisize"), function(x, y)
  return inB(x, y) and 1024.0 or inA(x, y) and 768.0 or inC(x, y) and 210.125 or 0.0
end)

-- order
local o = gpusim.overlay("order")
assert(o.tiles[1] == 1 and o.tiles[2] == 2, "order")

-- the first K draws
local one = gpusim.overlay("overdraw", {draws = 1})
assert(one.draws == 1)
check_pixels("overdraw, 1 draw", one, function(x, y) return inA(x, y) and 1 or 0 end)
check_pixels("overdraw, 0 draws", gpusim.overlay("overdraw", {draws = 0}), function() return 0 end)
local two = gpusim.overlay("tiles", {draws = 2})
assert(two.tiles[1] == 4 and two.tiles[2] == 2, "tiles with 2 draws")
-- past the end: every draw
assert(gpusim.overlay("tiles", {draws = 99}).draws == 3)

-- the overlays leave the frame as it was (and gpusim.why still agrees)
assert(gpusim.mem.read_bytes(f.framebuffer, f.stride * f.height) == image, "an overlay changed the frame")
assert(#gpusim.why(40, 30).fragments == 2)

-- scenes/triangle.lua with each ISA combination: every pixel the triangle
-- wrote (overdraw 1) is named by its fragment ISA (the PICA200's texture
-- combiners run as a QPU program), every other pixel by none
for _, combo in ipairs {{"qpu", "qpu"}, {"sass", "sass"}, {"agx", "agx"}, {"pica:qpu", "qpu"}, {"pica", "qpu"},
                        {"sass:agx", "agx"}, {"agx:sass", "sass"}} do
  assert(loadfile("scenes/triangle.lua"))(combo[1])
  gpusim.render {}
  local isa, od = gpusim.overlay("isa"), gpusim.overlay("overdraw")
  local written = 0
  for i = 1, isa.width * isa.height do
    local want = od.pixels[i] == 1 and combo[2] or ""
    assert(od.pixels[i] <= 1 and isa.pixels[i] == want,
           string.format("%s: pixel %d: isa %q, overdraw %d", combo[1], i - 1, isa.pixels[i], od.pixels[i]))
    if want ~= "" then written = written + 1 end
  end
  assert(written > 10000, combo[1] .. ": " .. written .. " pixels written")
end

-- frame 5 of the cube (a depth test, early Z, no culling): at pixels on a
-- grid, the overdraw is the number of fragments gpusim why lists (early-Z
-- failures included), the isa names the written fragment's ISA
assert(loadfile("scenes/cube.lua"))("qpu")
gpusim.render {time = 5 / 60}
local cube_od, cube_isa = gpusim.overlay("overdraw"), gpusim.overlay("isa")
local twos = 0
for y = 8, 248, 24 do
  for x = 8, 248, 24 do
    local w = gpusim.why(x, y)
    local n = cube_od.pixels[y * cube_od.width + x + 1]
    assert(n == #w.fragments, string.format("cube (%d, %d): overdraw %d, why lists %d", x, y, n, #w.fragments))
    local last
    for _, fr in ipairs(w.fragments) do if fr.fate == "written" then last = fr.source.isa end end
    assert(cube_isa.pixels[y * cube_od.width + x + 1] == (last or ""), string.format("cube (%d, %d): isa", x, y))
    if n == 2 then twos = twos + 1 end
  end
end
assert(twos > 10, "the cube's far faces: " .. twos .. " grid pixels with 2 fragments")

-- errors
local ok, err = pcall(gpusim.overlay, "nope")
assert(not ok and err:find("unknown overlay 'nope'"), err)
print("overlay_counts: ok")
