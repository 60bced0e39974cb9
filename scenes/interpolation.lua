-- interpolation.lua — the three ways a varying can be interpolated, side by
-- side: three copies of one floor-like quad that leans away from the viewer
-- (W = 1 at its near, bottom edge and W = 4 at its far, top edge), each with
-- a colour varying declared
--   "flat"         (left):   one colour per triangle, the provoking (last)
--                            vertex's;
--   "perspective"  (middle): correct for the leaning plane — the far
--                            vertices' colours are squeezed towards the far
--                            edge, as a texture on the floor would be;
--   "screen"       (right):  linear in screen space, as if the quad were flat.
-- Run it with
--   gpusim scenes/interpolation.lua
--   gpusim --headless -o interpolation.png scenes/interpolation.lua
--   gpusim scenes/interpolation.lua sass        (NVIDIA Maxwell programs; also
--                                                sass:qpu, qpu:sass)
--   gpusim scenes/interpolation.lua pica:qpu    (a 3DS PICA200 vertex shader; also
--                                                pica:sass)
--   gpusim scenes/interpolation.lua agx         (Apple AGX programs; also agx:qpu,
--                                                qpu:agx, sass:agx, pica:agx ...)
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"  -- lua/vc4_shaders.lua: the position shaders
local sass = require "sass_shaders"    -- lua/sass_shaders.lua: Maxwell SASS programs
local pica = require "pica_shaders"    -- lua/pica_shaders.lua: PICA200 vertex shaders
local agx = require "agx_shaders"      -- lua/agx_shaders.lua: Apple AGX programs
-- the instruction sets of the vertex and the fragment programs (lua/isas.lua)
local vertex_isa, fragment_isa = require("isas").parse(..., {"qpu", "sass", "pica", "agx"}, {"qpu", "sass", "agx"})

local target = gpusim.target {width = 384, height = 128, format = "rgba8888"}

-- Each copy is drawn into its own 128×128 viewport, so screen x and y run
-- 0..128 with the centre at 64: a normalised x of (X - 64)/64. Position in
-- clip space = normalised position × W. The quad is two triangles, near
-- left - near right - far right and near left - far right - far left:
--   near edge: y = 8,   x = 8..120, W = 1
--   far edge:  y = 120, x = 50..78, W = 4
local near, far = 1.0, 4.0
local function vertex(x, y, w, r, g, b)
  return {(x - 64) / 64 * w, (y - 64) / 64 * w, 0.0, w, r, g, b}
end
local NL = vertex(8, 8, near,    1, 0, 0)    -- near left: red
local NR = vertex(120, 8, near,  0, 1, 0)    -- near right: green
local FR = vertex(78, 120, far,  0, 0, 1)    -- far right: blue
local FL = vertex(50, 120, far,  1, 1, 0)    -- far left: yellow
local vertices = gpusim.buffer {
  format = {"f32x4", "f32x3"},
  data = {NL, NR, FR,   NL, FR, FL},
}

-- Position shaders from lua/vc4_shaders.lua: the vertex shader passes the
-- colour r, g, b on as three varyings.
local coordinate = shaders.coordinate

local vertex_shader = shaders.vertex(3)

-- Fragment shader: the same for all three modes. The primitive setup gives
-- each pixel VP (read through `vary`) and the triangle's C (in r5) so that
-- VP × W + C is the value in whichever mode the varying was declared.
local fragment = [[
    fmul r0, vary, ra15         # red: VP x W
    fadd r0, r0, r5             #      + C
    fmul r1, vary, ra15         # green
    fadd r1, r1, r5
    fmul r2, vary, ra15         # blue
    fadd r2, r2, r5
    fmul r3.8a, r0, 1.0         # pack red x 255 into byte 0
    fmul r3.8b, r1, 1.0         # green: byte 1
    fmul r3.8c, r2, 1.0         # blue: byte 2
    fmul r3.8d, 1.0, 1.0        # alpha 255: byte 3
    mov tlb_colour_all, r3
    thrend
    nop
    sbdone
]]

-- One shader per mode: the QPU programs are the same, only the declaration
-- of the varying (and so the fragment shader's header) differs. A Maxwell
-- pixel program says how it interpolates in its own code as well, as
-- NVIDIA's compiler writes it: IPA.CONSTANT for flat, IPA.PASS for screen
-- (the plane's value as it is), and for perspective IPA of a/w multiplied
-- by W (lua/sass_shaders.lua). A PICA200 vertex shader (lua/pica_shaders.lua)
-- sends the colour on as its output map's color.rgb; the interpolation is
-- the fragment side's, so it pairs with either (pica:qpu, pica:sass). An
-- Apple AGX fragment program reads the colour through coefficient
-- registers whose shade model the SPH sets (docs/agx-unit.md): `iter` with
-- the W register cf0 for perspective (iterproj divides by the interpolated
-- 1/w), `iter` alone for screen and flat (a flat plane is <0, 0, value>).
local modes = {"flat", "perspective", "screen"}
local shaders = {}
for i, mode in ipairs(modes) do
  local programs = {
    qpu = {coordinate = coordinate, vertex = vertex_shader, fragment = fragment},
    sass = {vertex = sass.vertex(3), fragment = sass.colour(mode)},
    pica = {vertex = pica.vertex("color.rgb")},
    agx = {vertex = agx.vertex(3), fragment = agx.colour(3, mode)},
  }
  shaders[i] = gpusim.shader {
    coordinate = programs[vertex_isa].coordinate,
    vertex = {isa = vertex_isa, source = programs[vertex_isa].vertex},
    fragment = {isa = fragment_isa, source = programs[fragment_isa].fragment},
    inputs = {{name = "position", components = 4}, {name = "color", components = 3}},
    coordinate_inputs = {"position"},
    varyings = {{name = "color", components = 3, interpolation = mode}},
  }
end

gpusim.frame(function(frame, t)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}}
  for i = 1, 3 do
    frame:state {viewport = {(i - 1) * 128, 0, 128, 128}}
    frame:draw {
      mode = "triangles", vertices = vertices, shader = shaders[i],
      uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
    }
  end
end, target)
