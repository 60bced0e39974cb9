-- pica_shaders.lua — DMP PICA200 (Nintendo 3DS) vertex shaders for the
-- scenes, in picasso's syntax (docs/pica.md): the counterparts of
-- lua/vc4_shaders.lua's position shaders and of lua/sass_shaders.lua's
-- vertex programs, written as 3DS homebrew writes them.
--
-- gpusim's PICA200 unit (docs/pica-unit.md) gives a vertex shader input k
-- of the scene's `inputs` in v(k - 1) (`.alias` names them here; the
-- components an input lacks read (0, 0, 0, 1)) and the draw's uniform
-- stream as the float uniforms c0, c1, ...: words 4k..4k+3 are ck's x, y,
-- z, w, so `.fvec` uniforms, which picasso allocates upward from c0, take
-- the stream's words in order. The shader writes the clip-space position
-- and its other outputs to the o-registers its `.out` lines name; the
-- output map's semantics (color, texcoord0, ...) become the varyings in a
-- fixed order (colour r g b a, texcoord0 u v, texcoord0w, texcoord1,
-- texcoord2, normalquat, view). The divide by W and the viewport transform
-- are fixed function, as on the 3DS: the same program serves as the
-- coordinate shader. The PICA200's fragment stage is fixed function too, so
-- a scene pairs these with QPU or SASS fragment programs.
local shaders = {}

-- A vertex shader for a position already in clip space (input 1) that
-- passes input 2 on as the output `out`, a semantic with its components
-- ("color.rgb": three varyings r g b; "texcoord0": u v).
function shaders.vertex(out)
  return string.format([[
; position in clip space, input 2 as %s
.out outpos position
.out outvary %s
.alias inpos v0
.alias invary v1

.proc main
    mov outpos, inpos        ; Xc Yc Zc Wc: the unit divides by W
    mov outvary, invary
    end
.end
]], out, out)
end

-- A vertex shader that transforms the position (input 1: x y z, w = 1) by
-- the 4x4 matrix `mvp`, row by row in the first 16 words of the uniform
-- stream (c0-c3), and passes input 2 on as the output `out`. DP4 is the
-- hardware's dot product: float24 products, each sum truncated to 16
-- fraction bits (docs/pica-numerics.md).
function shaders.vertex_mvp(out)
  return string.format([[
; the position through the matrix in c0-c3, input 2 as %s
.fvec mvp[4]                 ; uniforms c0-c3: the matrix, row by row
.constf one(1.0, 1.0, 1.0, 1.0)
.out outpos position
.out outvary %s
.alias inpos v0
.alias invary v1

.proc main
    mov r0.xyz, inpos        ; x y z
    mov r0.w, one            ; w = 1
    dp4 outpos.x, mvp[0], r0 ; Xc = row 1 . (x, y, z, 1)
    dp4 outpos.y, mvp[1], r0 ; Yc
    dp4 outpos.z, mvp[2], r0 ; Zc
    dp4 outpos.w, mvp[3], r0 ; Wc
    mov outvary, invary
    end
.end
]], out, out)
end

return shaders
