-- scene_sass_linkage.lua — the SPH linkage with Maxwell SASS programs: a
-- fragment input component the vertex program's header does not output
-- reads its default, 0 — or 1.0 for the fourth component of a vector — as
-- ALD does (NVIDIA's ALD description; docs/sph.md); the components it does
-- output arrive interpolated. The vertex program's header is given
-- explicitly with only generic 0's x in its OMAP; the fragment program
-- puts x, y, w of that vector in red, green, blue. Also with the QPU's
-- fragment program reading the same vector (sass:qpu): the same defaults.
local gpusim = require "gpusim"
local sass = require "sass_shaders"
local shaders = require "vc4_shaders"

local target = gpusim.target {width = 64, height = 64, format = "rgba8888"}
local vertices = gpusim.buffer {
  format = {"f32x4", "f32x4"},
  data = {
    {-1, -1, 0, 1,   0.5, 0.25, 0.75, 0.5},
    { 3, -1, 0, 1,   0.5, 0.25, 0.75, 0.5},
    {-1,  3, 0, 1,   0.5, 0.25, 0.75, 0.5},
  },
}
local decl = {
  inputs = {{name = "position", components = 4}, {name = "v", components = 4}},
  varyings = {{name = "v", components = 4, interpolation = "screen"}},
}
local function shader(t)
  for k, v in pairs(decl) do t[k] = v end
  return gpusim.shader(t)
end

-- The vertex program's own header: as built from the declaration, less
-- generic 0's y, z and w in its OMAP.
local probe = shader {vertex = {isa = "sass", source = sass.vertex(4)},
                      fragment = {isa = "sass", source = sass.colour("screen")}}
local words = probe:sph("vertex")
local h = gpusim.sph.decode(string.pack("<" .. string.rep("I4", 20), table.unpack(words)))
assert(h["OmapGenericVector[0].X"] == 1 and h["OmapGenericVector[0].W"] == 1)
h["OmapGenericVector[0].Y"], h["OmapGenericVector[0].Z"], h["OmapGenericVector[0].W"] = 0, 0, 0

local sass_fs = [[
    IPA.PASS R0, a[0x80] ;     // x: output by the vertex program
    IPA.PASS R1, a[0x84] ;     // y: not output, reads 0
    IPA.PASS R2, a[0x8c] ;     // w: not output, reads 1.0
    MOV32I R3, 0x3f800000 ;
    EXIT ;
]]
local qpu_fs = [[
    fmul r0, vary, ra15         # x
    fadd r0, r0, r5
    fmul r1, vary, ra15         # y
    fadd r1, r1, r5
    fmul r3, vary, ra15         # z
    fmul r2, vary, ra15         # w
    fadd r2, r2, r5
    fmul r3.8a, r0, 1.0
    fmul r3.8b, r1, 1.0
    fmul r3.8c, r2, 1.0
    fmul r3.8d, 1.0, 1.0
    mov tlb_colour_all, r3
    thrend
    nop
    sbdone
]]

for _, fs in ipairs {{"sass", sass_fs}, {"qpu", qpu_fs}} do
  local s = shader {vertex = {isa = "sass", source = sass.vertex(4), sph = h},
                    fragment = {isa = fs[1], source = fs[2]}}
  gpusim.frame(function(frame)
    frame:clear {color = {0, 0, 0, 0}}
    frame:draw {mode = "triangles", vertices = vertices, shader = s,
                uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}}
  end, target)
  local f = gpusim.render {threads = 1}
  assert(f.stats.fragments == 64 * 64)
  for _, p in ipairs {{0, 0}, {31, 17}, {63, 63}} do
    local r, g, b, a = target:pixel(p[1], p[2])
    -- 0.5 x 255 = 127.5 rounds to 128 (SASS, to nearest) or 127 (the QPU's pack)
    assert((r == 128 or (fs[1] == "qpu" and r == 127)) and g == 0 and b == 255 and a == 255,
           string.format("%s fragment program, pixel (%d, %d): %d %d %d %d", fs[1], p[1], p[2], r, g, b, a))
  end
end
print("scene_sass_linkage: ok")
