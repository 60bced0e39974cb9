-- triangle.lua — a Gouraud triangle: three vertices with a red, a green and
-- a blue colour, interpolated across the triangle by the hardware's
-- varyings. The smallest complete scene: a render target, a vertex buffer,
-- a shader of three QPU programs, and a frame callback that clears and
-- draws. Run it with
--   gpusim scenes/triangle.lua                          (a window)
--   gpusim --headless -o triangle.png scenes/triangle.lua
--   gpusim scenes/triangle.lua sass                     (NVIDIA Maxwell programs;
--                                                        also sass:qpu, qpu:sass)
--   gpusim scenes/triangle.lua pica:qpu                 (a 3DS PICA200 vertex shader;
--                                                        also pica:sass, and pica with
--                                                        texture combiners)
-- docs/scenes.md explains every call.
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"  -- lua/vc4_shaders.lua: the position shaders
local sass = require "sass_shaders"    -- lua/sass_shaders.lua: the same in Maxwell SASS
local pica = require "pica_shaders"    -- lua/pica_shaders.lua: a PICA200 vertex shader
local agx = require "agx_shaders"     -- lua/agx_shaders.lua: Apple AGX vertex programs
-- the instruction sets of the vertex and the fragment programs (lua/isas.lua)
local vertex_isa, fragment_isa = require("isas").parse(..., {"qpu", "sass", "pica", "agx"}, {"qpu", "sass", "pica", "agx"})

local target = gpusim.target {width = 320, height = 240, format = "rgba8888"}

-- One vertex per row: the position in clip space (x, y, z, w), then the
-- colour (r, g, b). The buffer packs them as two attributes of 16 and 12
-- bytes, 28 bytes per vertex.
local vertices = gpusim.buffer {
  format = {"f32x4", "f32x3"},
  data = {
    {-0.8, -0.8, 0.0, 1.0,   1.0, 0.0, 0.0},   -- bottom left: red
    { 0.8, -0.8, 0.0, 1.0,   0.0, 1.0, 0.0},   -- bottom right: green
    { 0.0,  0.8, 0.0, 1.0,   0.0, 0.0, 1.0},   -- top: blue
  },
}

-- The coordinate shader (binning pass) and the vertex shader (rendering
-- pass) turn the clip-space position into the rows the tile binner and the
-- primitive setup read; the vertex shader also passes the three colour words
-- on as varyings. Both are in lua/vc4_shaders.lua, commented line by line.
local coordinate = shaders.coordinate

local vertex = shaders.vertex(3)   -- position, then r g b

-- The fragment shader runs for 16 pixels at a time. Reading `vary` gives
-- each pixel's part of a varying and puts the triangle's constant in r5:
-- value = vary x W + r5, with W in ra15. The colour is packed into one
-- 32-bit word (byte 0 red ... byte 3 alpha) and written to the tile buffer.
local fragment = [[
    fmul r0, vary, ra15         # red: vary x W
    fadd r0, r0, r5             #      + C
    fmul r1, vary, ra15         # green
    fadd r1, r1, r5
    fmul r2, vary, ra15         # blue
    fadd r2, r2, r5
    fmul r3.8a, r0, 1.0         # byte 0 = red x 255 (the MUL unit's colour pack)
    fmul r3.8b, r1, 1.0         # byte 1 = green
    fmul r3.8c, r2, 1.0         # byte 2 = blue
    fmul r3.8d, 1.0, 1.0        # byte 3 = alpha 255
    mov tlb_colour_all, r3      # write the covered pixels of the tile buffer
    thrend
    nop
    sbdone                      # let the next batch touch these pixels
]]

-- The same in NVIDIA Maxwell SASS (lua/sass_shaders.lua): a vertex program
-- that stores the clip-space position and the colour (its unit does the
-- divide and the viewport transform, and it serves as the coordinate
-- shader too), and a pixel program that interpolates the colour
-- perspective-correct and leaves it in R0-R3. And a PICA200 vertex shader
-- (lua/pica_shaders.lua) whose output map sends the position and the
-- colour's r, g, b (three varyings) on; the PICA200 has no fragment
-- programs, so it pairs with the others' (pica:qpu, pica:sass), or with its
-- own fixed-function fragment stage (pica): one texture combiner stage that
-- takes the colour's r, g, b and a constant alpha of 1, which the driver
-- turns into a QPU program (docs/pica-combiners.md).
local programs = {
  qpu = {coordinate = coordinate, vertex = vertex, fragment = fragment},
  sass = {vertex = sass.vertex(3), fragment = sass.colour("perspective")},
  pica = {vertex = pica.vertex("color.rgb"),
          combiners = {{rgb = {sources = {"primary_color"}}, alpha = {sources = {"constant"}}, constant = {0, 0, 0, 1}}}},
  agx = {vertex = agx.vertex(3), fragment = agx.colour(3, "perspective")},
}

local shader = gpusim.shader {
  coordinate = programs[vertex_isa].coordinate,
  vertex = {isa = vertex_isa, source = programs[vertex_isa].vertex},
  fragment = fragment_isa == "pica" and {combiners = programs.pica.combiners}
             or {isa = fragment_isa, source = programs[fragment_isa].fragment},
  inputs = {
    {name = "position", components = 4},
    {name = "color", components = 3},
  },
  coordinate_inputs = {"position"},   -- the coordinate shader loads only the position
  varyings = {
    {name = "color", components = 3, interpolation = "perspective"},
  },
}

gpusim.frame(function(frame, t)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}}
  frame:draw {
    mode = "triangles",
    vertices = vertices,
    shader = shader,
    -- the same stream for the three programs; the fragment shader reads none
    uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
  }
end, target)
