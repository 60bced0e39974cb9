-- scene_agx_scenes.lua — the scenes' Apple AGX vertex programs
-- (lua/agx_shaders.lua) paired with the QPU's and the SASS fragment
-- programs: scenes/triangle.lua and scenes/cube.lua as agx:qpu and
-- agx:sass; then the AGX fragment programs (the triangle's colour, the
-- cube's texture sample) with every vertex side; against the reference
-- images tests/ref/*.png (which tests/lua/scene_triangle.lua and
-- scene_cube.lua back with formulas and a ray cast) or the QPU image, and
-- against the SASS programs, which compute the same.
--
-- Tolerance. The AGX unit computes in IEEE binary32 (fmul, then ffma fused
-- with one rounding, then fadd: the SASS program's FMUL, FFMA, FFMA, FADD
-- exactly), and its abi snaps the screen position to 12.4 rounding to
-- nearest where the scenes' QPU programs truncate (ftoi), so a vertex may
-- move by up to 1/16 pixel: a pixel whose centre lies that close to a
-- triangle's edge, or a texture coordinate that close to a texel boundary,
-- may change; no other pixel may. So each image must equal the reference
-- except in at most 0.5% of the pixels, each within one pixel (two for the
-- cube at t = 0, whose top face is seen nearly edge-on: see
-- scene_pica_scenes.lua) of a colour change in the reference; a channel may
-- also differ by 1 anywhere (the SASS pixel program rounds to nearest where
-- the QPU truncates; tests/ref/manifest.lua). The triangle's vertices are
-- exact in 12.4 (0.8 x 160 = 128 pixels), so agx:qpu must equal the
-- reference in every pixel. And since the AGX and SASS vertex programs do
-- the same binary32 operations in the same order, through the same abi
-- (gs_vertex_io_put), agx:X must equal sass:X byte for byte.
local gpusim = require "gpusim"
local sc = dofile("tests/lua/lib/scene_compare.lua") -- render, reference, compare, against_reference
local render, compare, against_reference = sc.render, sc.compare, sc.against_reference

local function identical(scene, a, b, t)
  local want, wt = render(scene, b, t)
  local got = render(scene, a, t)
  for y = 0, wt.height - 1 do
    for x = 0, wt.width - 1 do
      local r, g, bl = got(x, y)
      local rr, rg, rb = want(x, y)
      assert(r == rr and g == rg and bl == rb, string.format("%s %s at t = %g: pixel (%d, %d) is %d,%d,%d, %s's "
                                                            .. "%d,%d,%d", scene, a, t, x, y, r, g, bl, b, rr, rg, rb))
    end
  end
end

local qpu_cube_t1 = render("cube", "qpu", 1)
for _, isas in ipairs {"agx:qpu", "agx:sass"} do
  local n = against_reference("triangle", isas)
  if isas == "agx:qpu" then assert(n == 0, "triangle agx:qpu: " .. n .. " pixels differ from the reference") end
  print(string.format("scene_agx_scenes triangle %s: ok (%d pixels differ from tests/ref/triangle.png)", isas, n))
  local c = against_reference("cube", isas, 2)
  local c1 = compare("cube", isas, 1, 256, 256, qpu_cube_t1, 1, "the QPU image")
  print(string.format("scene_agx_scenes cube %s: ok (%d edge or texel-boundary pixels differ from "
                      .. "tests/ref/cube.png at t = 0, %d from the QPU image at t = 1)", isas, c, c1))
  local sass_isas = isas:gsub("^agx", "sass")
  identical("triangle", isas, sass_isas, 0)
  identical("cube", isas, sass_isas, 0)
  identical("cube", isas, sass_isas, 1)
  print(string.format("scene_agx_scenes: %s equals %s byte for byte (triangle; cube at t = 0 and 1)", isas,
                      sass_isas))
end

-- The cube turns under the AGX program: frames at t = 0 and 1 differ, the
-- corner is background.
assert(loadfile("scenes/cube.lua"))("agx:qpu")
local _, target = gpusim.frame()
local f0 = gpusim.render {time = 0, threads = 1}
local a = gpusim.mem.read_bytes(f0.framebuffer, f0.stride * f0.height)
local f1 = gpusim.render {time = 1, threads = 1}
assert(gpusim.mem.read_bytes(f1.framebuffer, f1.stride * f1.height) ~= a, "frames at t = 0 and 1 are the same")
local r, g, b = target:pixel(0, 0)
assert(r == 26 and g == 26 and b == 38, "the corner is background")

-- The AGX fragment program (iter r4_r5_r6, cf1, cf0: perspective-correct
-- through the coefficient registers the unit sets up) with every vertex
-- side. Its colour is rounded to nearest into 8 bits where the QPU program
-- truncates, so a channel may differ by 1 (the tolerance of compare); the
-- coefficient planes are fitted through the pipeline's per-pixel values and
-- rounded to binary32, which moves a value by far less than one 8-bit step
-- but may tip a rounding: the count of such pixels is part of the 0.5%.
-- Measured: 0 pixels differ by more than 1 in every pairing, and `agx`
-- equals `sass` (whose pixel program also rounds to nearest) byte for byte,
-- which is asserted: a tipped rounding would show there first.
for _, isas in ipairs {"agx", "qpu:agx", "sass:agx", "pica:agx"} do
  local n = against_reference("triangle", isas)
  print(string.format("scene_agx_scenes triangle %s: ok (%d pixels differ from tests/ref/triangle.png by more "
                      .. "than 1)", isas, n))
end
identical("triangle", "agx", "sass", 0)
print("scene_agx_scenes: triangle agx equals sass byte for byte")

-- The cube's AGX fragment program (lua/agx_shaders.lua's textured: iter
-- r0_r1, cf1, cf0 for (u, v), smpf ts0 at them, wait, r4-r7 to the epilog)
-- with every vertex side, against the QPU image at t = 0 and t = 1. The
-- texel is the same sampler's (the TMU config words at fragment uniform
-- words 0-1, level 0 through the nearest filter) and its bytes come back
-- as b / 255, which the epilog's round-to-nearest store turns back into
-- b exactly; so a pixel may change only where (u, v) lands on the other
-- side of a texel boundary than the QPU's (the coefficient planes are
-- fitted through the pipeline's per-pixel values and rounded to binary32,
-- and iter evaluates them in another order than the QPU's fmul/fadd), or
-- where the vertex side moves an edge (within 1/16 pixel: see above).
-- The tolerance is compare's: each differing pixel (by more than 1 in a
-- channel) within one pixel of a colour change in the QPU image (two at
-- t = 0, where the top face is seen nearly edge-on), at most 0.5% of the
-- pixels. Measured: qpu:agx differs from the QPU image in 0 pixels at
-- both times; agx, sass:agx and pica:agx differ exactly as their vertex
-- side's sass pairing does (190 pixels at t = 0 from tests/ref/cube.png,
-- 54 at t = 1 from the QPU image). And the AGX pixel program equals the
-- SASS one (IPA then TEXS through the same sampler) byte for byte with
-- every vertex side, which is asserted: a texel-boundary tip shows there
-- first.
local qpu_cube_t0 = render("cube", "qpu", 0)
for _, isas in ipairs {"agx", "qpu:agx", "sass:agx", "pica:agx"} do
  local c0 = compare("cube", isas, 0, 256, 256, qpu_cube_t0, 2, "the QPU image")
  local c1 = compare("cube", isas, 1, 256, 256, qpu_cube_t1, 1, "the QPU image")
  local r0 = against_reference("cube", isas, 2)
  if isas == "qpu:agx" then
    assert(c0 == 0 and c1 == 0, string.format("cube qpu:agx: %d and %d pixels differ from the QPU image", c0, c1))
  end
  print(string.format("scene_agx_scenes cube %s: ok (%d and %d pixels differ from the QPU image at t = 0 and 1, "
                      .. "%d from tests/ref/cube.png)", isas, c0, c1, r0))
  local sass_isas = isas == "agx" and "sass" or isas:gsub("agx$", "sass")
  identical("cube", isas, sass_isas, 0)
  identical("cube", isas, sass_isas, 1)
  print(string.format("scene_agx_scenes: cube %s equals %s byte for byte (t = 0 and 1)", isas, sass_isas))
end

-- The texture is really sampled: a pixel inside the front face's checker
-- squares takes the texture's colours, not one flat colour.
do
  local got = render("cube", "agx", 0)
  local seen = {}
  for y = 100, 140 do
    for x = 100, 140 do
      local r, g, b = got(x, y)
      seen[r .. "," .. g .. "," .. b] = true
    end
  end
  local n = 0
  for _ in pairs(seen) do n = n + 1 end
  assert(n >= 2, "cube agx: the middle of the image has one colour")
end

-- A sample whose texture state is not in the stream: the draw fails with the
-- error naming the tile, the unit, the program, the block, the pc and the
-- state (the cube's fragment uniforms are the texture's two words: ts0 only).
do
  local agx = require "agx_shaders"
  local textured = agx.textured
  agx.textured = textured:gsub("ts0", "ts1")
  assert(loadfile("scenes/cube.lua"))("agx")
  local ok, err = pcall(gpusim.render, {time = 0, threads = 1})
  agx.textured = textured
  assert(loadfile("scenes/cube.lua"))("agx") -- the scene the program renders after this script
  assert(not ok, "a sample of ts1 rendered")
  for _, want in ipairs {"fragment shader at 0x", "AGX unit 0, fragment shader 0x", ": AGX shader: pc 0x0004: smpf ts1, "
                         .. "ss0: texture state ts1: its config words, words 2 and 3 of the fragment uniform stream, "
                         .. "are past the stream's end (2 words)"} do
    assert(tostring(err):find(want, 1, true), tostring(err))
  end
  print("scene_agx_scenes: cube agx sampling ts1 fails naming the block, the pc and the state")
end
