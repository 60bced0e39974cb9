-- agx_shaders.lua — Apple AGX (G13) programs for the scenes, in Mesa's AGX
-- disassembler syntax (docs/agx.md): the counterparts of lua/sass_shaders.lua's
-- and lua/pica_shaders.lua's programs, written as Mesa's Asahi
-- compiler lays such programs out under its vertex ABI.
--
-- gpusim's AGX unit (docs/agx-unit.md) starts a vertex program as the
-- driver's vertex prolog would leave it: r5 = the vertex id, r6 = the
-- instance id, input k of the scene's `inputs` (attribute a = k - 1) in
-- r(8 + 4a) .. r(8 + 4a + 3) (missing components (0, 0, 0, 1)). The prolog's
-- uniforms take the first 3n + 3 uniform registers, laid out for n = 8
-- attributes; word j of the draw's uniform stream is u(27 + j). The program stores the
-- clip-space position in UVS words 0-3 and varying component j in word 4 + j
-- with st_var, the final store marked `last`; the divide by W and the
-- viewport transform are fixed function, which the unit does, so the same
-- program serves as the coordinate shader.
local shaders = {}

-- the first uniform register of the stream (AGX_VS_UNIFORM_BASE, src/isa/agx/unit.h)
local UBASE = 27

-- st_var lines for registers regs[1..] into UVS words first.., the last `last`
local function stores(regs, first)
  local out = {}
  for i, r in ipairs(regs) do
    out[#out + 1] = string.format("    st_var r%d, %d%s", r, first + i - 1, i == #regs and ", last" or "")
  end
  return table.concat(out, "\n")
end

-- A vertex program for a position already in clip space (input 1: r8-r11)
-- that passes the n components of input 2 (r12..) on as varying 1.
function shaders.vertex(n)
  local vary = {}
  for c = 0, n - 1 do vary[#vary + 1] = 12 + c end
  return string.format([[
    // position in clip space (attribute 0, r8-r11), attribute 1 as %d varying word(s)
    st_var r8, 0  // Xc: the unit divides by W
    st_var r9, 1  // Yc
    st_var r10, 2  // Zc
    st_var r11, 3  // Wc
%s
    stop
]], n, stores(vary, 4))
end

-- A vertex program that transforms the position (input 1: x y z in r8-r10,
-- w taken as 1) by the 4x4 matrix in the first 16 words of the uniform
-- stream, row by row (u27-u42), and passes
-- the n components of input 2 (r12..) on as varying 1. ffma is fused: one
-- rounding per multiply-add, as the SASS program's FFMA.
function shaders.vertex_mvp(n)
  local b, rows = UBASE, {}
  for r = 0, 3 do
    local u = b + 4 * r
    rows[#rows + 1] = string.format([[
    fmul r%d, r8, u%d  // row %d: M%d1 x
    ffma r%d, r9, u%d, r%d  //   + M%d2 y
    ffma r%d, r10, u%d, r%d  //   + M%d3 z
    fadd r%d, r%d, u%d  //   + M%d4]], r, u, r + 1, r + 1, r, u + 1, r, r + 1, r, u + 2, r, r + 1,
      r, r, u + 3, r + 1)
  end
  local vary = {}
  for c = 0, n - 1 do vary[#vary + 1] = 12 + c end
  return string.format([[
    // the position (attribute 0, r8-r10; w = 1) through the matrix in u%d-u%d
%s
    st_var r0, 0  // Xc Yc Zc Wc
    st_var r1, 1
    st_var r2, 2
    st_var r3, 3
%s
    stop
]], b, b + 15, table.concat(rows, "\n"), stores(vary, 4))
end

-- A fragment program that interpolates the n components of varying 1 (cf1..,
-- loaded by the unit's coefficient setup; cf0 is the fragment W binding)
-- into r4.. with the shade model `interp` ("perspective": iter with the W
-- coefficient, which divides by the interpolated 1/w; "screen": iter alone;
-- "flat": iter of a plane <0, 0, C>, the provoking vertex's value), alpha 1
-- where n < 4, and leaves render target 0's colour in r4-r7, where the
-- driver's epilog takes it (Mesa's fragment ABI: target i at r(4(i + 1))).
function shaders.colour(n, interp)
  local regs = {}
  for c = 0, n - 1 do regs[#regs + 1] = "r" .. (4 + c) end
  local w = interp == "perspective" and ", cf0" or ""
  local alpha = n < 4 and "    ldimm r7, 1065353216            // alpha = 1.0 (0x3f800000)\n" or ""
  return string.format([[
    // colour (%s): %d component(s) of varying 1 into %s
    iter %s, cf1%s
%s    stop
]], interp, n, table.concat(regs, " "), table.concat(regs, "_"), w, alpha)
end

-- A fragment program that samples texture 0 at varying 1's (u, v),
-- perspective-correct, and leaves the texel (R, G, B, A, each byte / 255)
-- in r4-r7 for the epilog. iter with cf0 divides the planes of u/w and v/w
-- by the interpolated 1/w; smpf reads the coordinates from r0-r1 and
-- samples texture state ts0 with sampler state ss0, whose meaning in
-- gpusim is the TMU config words at words 0 and 1 of the fragment uniform
-- stream (the scene's uniform list starts with the texture) and the
-- filters and wraps they give (docs/agx-unit.md, Textures); auto_lod:
-- level 0, as the QPU and SASS programs sample. The result is pending
-- until `wait a`, the group smpf names.
shaders.textured = [[
    // texture 0 (ts0: fragment uniform words 0-1) at varying 1's (u, v)
    iter r0_r1, cf1, cf0  // u, v = (u/w, v/w planes) / (1/w plane)
    smpf r4_r5_r6_r7, ts0, ss0, r0, 0, 2d, xyzw, auto_lod, a  // R G B A into r4-r7
    wait a  // the sample's results arrive
    stop
]]

return shaders
