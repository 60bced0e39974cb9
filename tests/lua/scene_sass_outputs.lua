-- scene_sass_outputs.lua — a Maxwell pixel program's outputs in the
-- pipeline, as its SPH lays them out (NVIDIA's SPH description; nouveau and
-- yuzu for the register places): with OmapDepth, depth is R(4N + 1) — R5
-- with one colour target — and is what the depth test sees; with
-- KillsPixels, KIL discards; without it KIL does nothing and the frame
-- reports an exception. All values worked out by hand.
local gpusim = require "gpusim"
local sass = require "sass_shaders"

local target = gpusim.target {width = 64, height = 64, format = "rgba8888", depth = true}
local quad = gpusim.buffer {   -- a triangle covering the whole target, Zc = 0: Zs = 0.5
  format = {"f32x4", "f32x3"},
  data = {{-1, -1, 0, 1, 0, 0, 0}, {3, -1, 0, 1, 0, 0, 0}, {-1, 3, 0, 1, 0, 0, 0}},
}
local decl = {
  inputs = {{name = "position", components = 4}, {name = "c", components = 3}},
  varyings = {{name = "c", components = 3}},
}
local function shader(fs, flags)
  local t = {vertex = {isa = "sass", source = sass.vertex(3)}, fragment = {isa = "sass", source = fs}}
  for k, v in pairs(decl) do t[k] = v end
  if flags then
    local probe = gpusim.shader(t)
    local h = gpusim.sph.decode(string.pack("<" .. string.rep("I4", 20), table.unpack(probe:sph("fragment"))))
    for k, v in pairs(flags) do h[k] = v end
    t.fragment.sph = h
  end
  return gpusim.shader(t)
end
local function solid(r, g, b, depth)
  return string.format([[
    MOV32I R0, 0x%08x ;
    MOV32I R1, 0x%08x ;
    MOV32I R2, 0x%08x ;
    MOV32I R3, 0x3f800000 ;
    MOV32I R5, 0x%08x ;        // depth: R(4N + 1), N = 1 target
    EXIT ;
]], string.unpack("<I4", string.pack("<f", r)), string.unpack("<I4", string.pack("<f", g)),
    string.unpack("<I4", string.pack("<f", b)), string.unpack("<I4", string.pack("<f", depth or 0)))
end
local uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}
local function render(draws)
  gpusim.frame(function(frame)
    frame:clear {color = {0, 0, 1, 1}, depth = 1.0}
    frame:state {depth_test = "less"}
    for _, s in ipairs(draws) do frame:draw {mode = "triangles", vertices = quad, shader = s, uniforms = uniforms} end
  end, target)
  return gpusim.render {threads = 1}
end

-- Depth: red writes depth 0.75 from R5, then green at the rasterised 0.5
-- passes "less" (0.5 < 0.75). Were R5 ignored, red's depth would be 0.5 and
-- green would fail (0.5 < 0.5 is false).
render {shader(solid(1, 0, 0, 0.75), {OmapDepth = 1}), shader(solid(0, 1, 0))}
assert(select(2, target:pixel(10, 10)) == 255, "green passes over red's depth 0.75")
-- the same red without OmapDepth: its depth is the rasterised 0.5 and green fails
render {shader(solid(1, 0, 0, 0.75)), shader(solid(0, 1, 0))}
assert(target:pixel(10, 10) == 255, "red stays: its depth is the rasterised 0.5")
-- and red writing depth 0.25 keeps green out
render {shader(solid(1, 0, 0, 0.25), {OmapDepth = 1}), shader(solid(0, 1, 0))}
assert(target:pixel(10, 10) == 255)

-- KIL on the left half (window x < 32, IPA of a[0x70] is x + 0.5).
local kil = [[
    IPA.PASS R4, a[0x70] ;
    FSETP.LT.AND P0, PT, R4, 32, PT ;
    @P0 KIL ;
    MOV32I R0, 0x3f800000 ;
    MOV R1, RZ ;
    MOV R2, RZ ;
    MOV32I R3, 0x3f800000 ;
    EXIT ;
]]
local f = render {shader(kil, {KillsPixels = 1})}
local function rgb(x, y) local r, g, b = target:pixel(x, y); return r, g, b end
local r, g, b = rgb(31, 5)
assert(r == 0 and g == 0 and b == 255, "x = 31 discarded: the clear colour")
r, g, b = rgb(32, 5)
assert(r == 255 and g == 0 and b == 0, "x = 32 red")
assert(f.stats.exceptions == 0)
-- without KillsPixels: nothing discarded, and an exception reported
f = render {shader(kil)}
r = rgb(5, 5)
assert(r == 255, "KIL without KillsPixels does nothing")
assert(f.stats.exceptions > 0)
print("scene_sass_outputs: ok")
