-- scene_sass_texture.lua — Maxwell texture instructions in the pipeline
-- (docs/sass-unit.md, "Textures"): the handle is the word of c[0x0] where
-- the texture's TMU config words are (the first fragment uniform here, so
-- 0x0). A 2x2 texture (row 0, t = 0: red, green; row 1: blue, white),
-- nearest: TEXS at (s, t) = (0.75, 0.25) samples texel (1, 0), green; TLDS
-- 2D.LZ at integer (1, 1) fetches white, and at (5, 0), outside the level,
-- reads 0; TLD.LZ 2D at (0, 1) fetches blue. Worked out by hand.
local gpusim = require "gpusim"
local sass = require "sass_shaders"

local target = gpusim.target {width = 16, height = 16, format = "rgba8888"}
local tex = gpusim.texture {width = 2, height = 2, filter = "nearest", wrap = "clamp",
                            data = {{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}}}
local quad = gpusim.buffer {
  format = {"f32x4", "f32x3"},
  data = {{-1, -1, 0, 1, 0, 0, 0}, {3, -1, 0, 1, 0, 0, 0}, {-1, 3, 0, 1, 0, 0, 0}},
}
local function draw(fs)
  local s = gpusim.shader {
    vertex = {isa = "sass", source = sass.vertex(3)}, fragment = {isa = "sass", source = fs},
    inputs = {{name = "position", components = 4}, {name = "c", components = 3}},
    varyings = {{name = "c", components = 3}},
  }
  gpusim.frame(function(frame)
    frame:clear {color = {0.5, 0.5, 0.5, 0.5}}
    frame:draw {mode = "triangles", vertices = quad, shader = s,
                uniforms = {vertex = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
                            fragment = {tex}}}
  end, target)
  gpusim.render {threads = 1}
  return target:pixel(7, 9)
end
local function expect(name, want, ...)
  local got = {...}
  for k = 1, 4 do
    assert(got[k] == want[k], string.format("%s: got %d %d %d %d", name, got[1], got[2], got[3], got[4]))
  end
end

expect("TEXS", {0, 255, 0, 255}, draw [[
    MOV32I R0, 0x3f400000 ;        // s = 0.75
    MOV32I R1, 0x3e800000 ;        // t = 0.25
    TEXS R2, R0, R0, R1, 0x0, 2D, RGBA ;
    EXIT ;
]])
expect("TLDS 2D.LZ", {255, 255, 255, 255}, draw [[
    MOV32I R4, 0x1 ;
    MOV32I R5, 0x1 ;
    TLDS.LZ R2, R0, R4, R5, 0x0, 2D, RGBA ;
    EXIT ;
]])
expect("TLDS outside the level", {0, 0, 0, 0}, draw [[
    MOV32I R4, 0x5 ;
    TLDS.LZ R2, R0, R4, RZ, 0x0, 2D, RGBA ;
    EXIT ;
]])
expect("TLD.LZ 2D", {0, 0, 255, 255}, draw [[
    MOV R4, RZ ;
    MOV32I R5, 0x1 ;
    TLD.LZ R0, R4, RZ, 0x0, 2D, 0xf ;
    EXIT ;
]])
print("scene_sass_texture: ok")
