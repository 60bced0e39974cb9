-- sass_shaders.lua — NVIDIA Maxwell SASS programs for the scenes, in
-- commented assembly (docs/sass.md): the counterparts of lua/vc4_shaders.lua
-- and of the scenes' QPU fragment shaders, written as NVIDIA's compiler
-- writes such programs.
--
-- A Maxwell vertex program loads its inputs from the attribute space with
-- ALD (input i of the scene's `inputs` is generic vector i - 1, at byte
-- address 0x80 + 16 (i - 1)) and stores the clip-space position (a[0x70])
-- and its outputs (varying j at 0x80 + 16 (j - 1)) with AST; the divide by
-- W and the viewport transform are fixed function, which gpusim's SASS unit
-- does with the draw's viewport. The same program serves as the coordinate
-- shader. A pixel program reads its inputs with IPA and leaves render
-- target 0's colour in R0-R3 at EXIT. Uniforms are constant buffer 0:
-- c[0x0][4 k] is word k of the program's uniform list.
local shaders = {}

local sizes = {"", ".64", ".96", ".128"}

-- A vertex program for a position already in clip space (input 1) that
-- passes the n components of input 2 on as varying 1.
function shaders.vertex(n)
  return string.format([[
    ALD.128 R0, a[0x80] ;          // position: Xc Yc Zc Wc
    ALD%s R4, a[0x90] ;            // input 2, %d component(s)
    AST.128 a[0x70], R0 ;          // the clip-space position
    AST%s a[0x80], R4 ;            // varying 1
    EXIT ;
]], sizes[n], n, sizes[n])
end

-- A vertex program that transforms the position (input 1: x y z, w taken
-- as 1) by the 4x4 matrix in c[0x0][0x0..0x3c], row by row (the uniform
-- list starts with the matrix), and passes the n components of input 2 on
-- as varying 1. FFMA is fused: one rounding per multiply-add.
function shaders.vertex_mvp(n)
  local rows = {}
  for r = 0, 3 do
    local o = 16 * r
    rows[#rows + 1] = string.format([[
    FMUL R%d, R0, c[0x0][0x%x] ;     // row %d: M%d1 x
    FFMA R%d, R1, c[0x0][0x%x], R%d ; //   + M%d2 y
    FFMA R%d, R2, c[0x0][0x%x], R%d ; //   + M%d3 z
    FADD R%d, R%d, c[0x0][0x%x] ;    //   + M%d4]], 4 + r, o, r + 1, r + 1, 4 + r, o + 4, 4 + r, r + 1, 4 + r,
      o + 8, 4 + r, r + 1, 4 + r, 4 + r, o + 12, r + 1)
  end
  return string.format([[
    ALD.128 R0, a[0x80] ;          // position: x y z (w = 1)
%s
    AST.128 a[0x70], R4 ;          // Xc Yc Zc Wc
    ALD%s R8, a[0x90] ;            // input 2, %d component(s)
    AST%s a[0x80], R8 ;            // varying 1
    EXIT ;
]], table.concat(rows, "\n"), sizes[n], n, sizes[n])
end

-- How a pixel program reads component k of varying 1 into register r, as
-- NVIDIA's compiler does for each GLSL interpolation: perspective (smooth)
-- multiplies the interpolated a/w by W, which R8 holds (see `w` below);
-- screen (noperspective) takes the plane's value as it is; flat takes the
-- provoking vertex's.
local function ipa(mode, r, k)
  local a = 0x80 + 4 * k
  if mode == "flat" then return string.format("    IPA.CONSTANT R%d, a[0x%x] ;", r, a) end
  if mode == "screen" then return string.format("    IPA.PASS R%d, a[0x%x] ;", r, a) end
  return string.format("    IPA R%d, a[0x%x], R8 ;        // (a/w) x W", r, a)
end

-- W for perspective inputs: a[0x7c] interpolates 1/w; its reciprocal is W.
local w = [[
    IPA.PASS R8, a[0x7c] ;         // 1/W
    MUFU.RCP R8, R8 ;              // W
]]

-- A pixel program whose colour is varying 1's red, green and blue
-- (interpolated per `mode`: "perspective", "screen" or "flat"), alpha 1.
function shaders.colour(mode)
  mode = mode or "perspective"
  return (mode == "perspective" and w or "") .. table.concat({ipa(mode, 0, 0), ipa(mode, 1, 1), ipa(mode, 2, 2)}, "\n")
    .. [[

    MOV32I R3, 0x3f800000 ;        // alpha 1.0
    EXIT ;                         // R0-R3: render target 0
]]
end

-- A pixel program that looks texture 0 up at varying 1's (u, v),
-- perspective-correct. The texture's config words are the first two of
-- the fragment uniforms: handle 0x0 (a word offset into c[0x0]).
shaders.textured = w .. [[
    IPA R0, a[0x80], R8 ;          // u
    IPA R1, a[0x84], R8 ;          // v
    TEXS R2, R0, R0, R1, 0x0, 2D, RGBA ; // R0 G R1 (first pair), B R2 A R3
    EXIT ;
]]

return shaders
