-- agx_run_tex.lua — gpusim.agx.run with textures (docs/agx-run.md, "Running a
-- program alone"): textures = {[N] = gpusim.texture} binds texture state tsN
-- as the AGX unit does (the texture's TMU config words at words 2N, 2N + 1
-- of the stream the run makes), so smpf samples it through the neutral
-- sampler, each byte b coming back as b / 255. Every value by hand, with
-- both interpreters: a 2 x 2 nearest, clamped texture whose bytes are
-- multiples of 51, so that each channel is k / 5 as binary32 (0.2 =
-- 0x3e4ccccd, 0.4 = 0x3ecccccd, 0.6 = 0x3f19999a, 0.8 = 0x3f4ccccd, 1.0 =
-- 0x3f800000) or, in a 16-bit register, as binary16 (0.2 = 0x3266, 0.4 =
-- 0x3666, 0.6 = 0x38cd, 0.8 = 0x3a66, 1.0 = 0x3c00).
local gpusim = require "gpusim"

local f32 = {[0] = 0, [51] = 0x3e4ccccd, [102] = 0x3ecccccd, [153] = 0x3f19999a, [204] = 0x3f4ccccd,
             [255] = 0x3f800000}
local f16 = {[0] = 0, [51] = 0x3266, [102] = 0x3666, [153] = 0x38cd, [204] = 0x3a66, [255] = 0x3c00}

-- texel (x, y), row 0 (t = 0) first
local texels = {{255, 0, 51, 255}, {0, 102, 0, 255}, {153, 0, 0, 204}, {0, 0, 255, 51}}
local tex = gpusim.texture {width = 2, height = 2, filter = "nearest", wrap = "clamp", data = texels}

-- lane i samples at the centre of texel i - 1 (x = (i - 1) % 2, y = (i - 1) // 2); lane 5 at
-- (1.7, -3.0), clamped to texel (1, 0)
local s = {0.25, 0.75, 0.25, 0.75, 1.7}
local t = {0.25, 0.25, 0.75, 0.75, -3.0}
local want = {texels[1], texels[2], texels[3], texels[4], texels[2]}

for _, interp in ipairs {"fast", "reference"} do
  local r = gpusim.agx.run {
    source = [[
      smpf r4_r5_r6_r7, ts2, ss0, r0, 0, 2d, xyzw, auto_lod, a
      smpf r8l_r8h, ts2, ss0, r0, 0, 2d, yw, auto_lod, b
      wait a
      wait b
      stop
    ]],
    stage = "fragment", interpreter = interp, textures = {[2] = tex},
    registers = {r0 = s, r1 = t},
  }
  for i = 1, 5 do
    local lane, w = r.lanes[i], want[i]
    for c = 1, 4 do
      assert(lane.r[3 + c] == f32[w[c]], string.format("%s lane %d channel %d: 0x%08x, want 0x%08x", interp, i - 1, c,
                                                       lane.r[3 + c], f32[w[c]]))
    end
    assert(lane.r.r8l == f16[w[2]] and lane.r.r8h == f16[w[4]],
           string.format("%s lane %d: r8l 0x%04x r8h 0x%04x, want 0x%04x 0x%04x", interp, i - 1, lane.r.r8l,
                         lane.r.r8h, f16[w[2]], f16[w[4]]))
  end
  print(string.format("agx_run_tex: %s: ts2 sampled in 5 lanes, 32- and 16-bit", interp))
end

local function fails(want, args)
  local ok, err = pcall(gpusim.agx.run, args)
  assert(not ok and tostring(err):find(want, 1, true), tostring(err))
end
local one = "smpf r4, ts%d, ss0, r0, 0, 2d, x, auto_lod, a\nwait a\nstop\n"
-- ts3 is past the stream of ts0..ts2
fails("pc 0x0000: smpf ts3, ss0: texture state ts3: its config words, words 6 and 7 of the fragment uniform stream, "
      .. "are past the stream's end (6 words)", {source = one:format(3), textures = {[2] = tex}})
-- no textures: no sampler
fails("pc 0x0000: smpf with no sampler attached", {source = one:format(0)})
fails("textures[1] is not a gpusim.texture", {source = one:format(1), textures = {[1] = 5}})
fails("textures: index 256 is not 0..255", {source = one:format(1), textures = {[256] = tex}})
print("agx_run_tex: errors ok")
