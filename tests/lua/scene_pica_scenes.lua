-- scene_pica_scenes.lua — the scenes' PICA200 (3DS) vertex shaders
-- (lua/pica_shaders.lua) paired with the QPU's and the SASS fragment
-- programs: scenes/triangle.lua, scenes/interpolation.lua and
-- scenes/cube.lua as pica:qpu and pica:sass, against the reference images
-- tests/ref/*.png (which tests/lua/scene_triangle.lua, scene_interpolation.lua
-- and scene_cube.lua back with formulas and a ray cast) and against the
-- formulas where a test has them.
--
-- Tolerance. The PICA200 unit computes in float24: 16 fraction bits, so a
-- position or a matrix product is truncated by up to 2^-16 relative (the
-- sum of four truncated products a few times that, 2^-14 of a 256-pixel
-- screen is 0.016 pixel); and the abi snaps the screen position to 12.4
-- rounding to nearest where the scenes' QPU programs truncate (ftoi), so a
-- vertex may move by up to 1/16 pixel. A pixel whose centre lies that
-- close to a triangle's edge, or a texture coordinate that close to a
-- texel boundary, may change; no other pixel may. So each image must equal
-- the reference except in at most 0.5% of the pixels, every one of which
-- lies within one pixel (8-neighbourhood) of a colour change in the
-- reference: a face edge, the triangle's border or a texel boundary. The
-- colours themselves go through the unit exactly (0 and 1 are float24
-- values; the colour fix-up |c| <= 1 leaves them alone), and the SASS pixel
-- program rounds to nearest where the QPU truncates, so a channel may also
-- differ by 1 anywhere (the tolerance of tests/ref/manifest.lua).
-- Measured (by more than 1 in a channel): triangle and interpolation 0
-- pixels in both pairings (pica:sass differs from the interpolation
-- reference by one step in 29 pixels, as qpu:sass does); cube 190 pixels
-- at t = 0, the same image the SASS vertex program gives, one of them 2
-- pixels from a colour change (below), and 54 at t = 1.
local gpusim = require "gpusim"
local sc = dofile("tests/lua/lib/scene_compare.lua") -- render, reference, compare, against_reference
local render, compare, against_reference = sc.render, sc.compare, sc.against_reference

local interp_check = dofile("tests/lua/lib/interp_check.lua")
-- The QPU image of the cube at t = 1, which tests/lua/scene_cube.lua checks
-- by its ray cast.
local qpu_cube_t1 = render("cube", "qpu", 1)
for _, isas in ipairs {"pica:qpu", "pica:sass"} do
  local n = against_reference("triangle", isas)
  print(string.format("scene_pica_scenes triangle %s: ok (%d pixels differ from tests/ref/triangle.png)", isas, n))
  local m, target = against_reference("interpolation", isas)
  local checked = interp_check(target, {"flat", "perspective", "screen"}) -- the formulas, to 1 per channel
  print(string.format("scene_pica_scenes interpolation %s: ok (%d pixels differ; formulas hold at %d, %d, %d "
                      .. "pixels)", isas, m, checked.flat, checked.perspective, checked.screen))
  -- At t = 0 the cube's top face is seen nearly edge-on: there a texel is
  -- less than a pixel high, so a pixel centre moved by a fraction of a
  -- pixel may sample the next texel even where its neighbours and the
  -- texel after show the same checker colour; the nearest colour change is
  -- then 2 pixels away (1 of the 190 pixels). At t = 1 no face is that
  -- steep.
  local c = against_reference("cube", isas, 2)
  local c1 = compare("cube", isas, 1, 256, 256, qpu_cube_t1, 1, "the QPU image")
  print(string.format("scene_pica_scenes cube %s: ok (%d edge or texel-boundary pixels differ from "
                      .. "tests/ref/cube.png at t = 0, %d from the QPU image at t = 1)", isas, c, c1))
end

-- The cube turns: frames at t = 0 and 1 differ, the corner is background.
assert(loadfile("scenes/cube.lua"))("pica:qpu")
local _, target = gpusim.frame()
local f0 = gpusim.render {time = 0, threads = 1}
local a = gpusim.mem.read_bytes(f0.framebuffer, f0.stride * f0.height)
local f1 = gpusim.render {time = 1, threads = 1}
assert(gpusim.mem.read_bytes(f1.framebuffer, f1.stride * f1.height) ~= a, "frames at t = 0 and 1 are the same")
local r, g, b = target:pixel(0, 0)
assert(r == 26 and g == 26 and b == 38, "the corner is background")

-- `pica` alone: the PICA200 vertex shader with the PICA200's fixed-function
-- fragment stage, texture combiners the driver turns into a QPU program
-- (docs/pica-combiners.md). The triangle's combiner passes the colour on
-- with alpha 1, the cube's texture 0's texel, so the images must equal
-- pica:qpu's exactly, whose fragment programs do the same by hand (and
-- which the loop above checks against the references): two routes to the
-- same pixels, byte for byte, alpha included.
local function identical(scene, t)
  local want, wt = render(scene, "pica:qpu", t)
  local w, h = wt.width, wt.height
  local walpha = {}
  for y = 0, h - 1 do
    for x = 0, w - 1 do walpha[y * w + x] = select(4, wt:pixel(x, y)) end
  end
  local got, gt = render(scene, "pica", t)
  for y = 0, h - 1 do
    for x = 0, w - 1 do
      local r, g, b = got(x, y)
      local rr, rg, rb = want(x, y)
      local a = select(4, gt:pixel(x, y))
      assert(r == rr and g == rg and b == rb and a == walpha[y * w + x],
             string.format("%s pica at t = %g: pixel (%d, %d) is %d,%d,%d,%d, pica:qpu's %d,%d,%d,%d", scene, t, x, y,
                           r, g, b, a, rr, rg, rb, walpha[y * w + x]))
    end
  end
end
identical("triangle", 0)
identical("cube", 0)
identical("cube", 1)
print("scene_pica_scenes: pica (texture combiners) equals pica:qpu for the triangle and the cube at t = 0 and 1")
