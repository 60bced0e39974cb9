-- 08-four-isas.lua — lesson 08 of the course (docs/course/08-four-isas.md):
-- lesson 04's triangle (W = 1 at the red and green base, W = 4 at the blue
-- apex), its colour interpolated perspective-correct, with its programs in
-- any of four instruction sets: the first argument (lua/isas.lua) — qpu
-- (VideoCore IV), sass (NVIDIA Maxwell), agx (Apple G13), pica:qpu (a 3DS
-- PICA200 vertex shader with a QPU fragment program).
--   gpusim --headless -o isas.png scenes/course/08-four-isas.lua --compare qpu sass agx pica:qpu
-- The exercise: a port went wrong — one instruction set's pictures differ
-- from the others'. Find which and why, fix MODES, then run
--   gpusim --headless scenes/course/08-check.lua
local gpusim = require "gpusim"
local course = dofile((arg[0]:match("^(.*/)") or "./") .. "course.lua")  -- the QPU programs
local sass = require "sass_shaders"    -- lua/sass_shaders.lua: Maxwell SASS programs
local pica = require "pica_shaders"    -- lua/pica_shaders.lua: PICA200 vertex shaders
local agx = require "agx_shaders"      -- lua/agx_shaders.lua: Apple AGX programs
local vertex_isa, fragment_isa = require("isas").parse(..., {"qpu", "sass", "pica", "agx"}, {"qpu", "sass", "agx"})

-- how each fragment program's colour varying is interpolated
local MODES = {qpu = "perspective", sass = "perspective", agx = "screen"}

local target = gpusim.target {width = 128, height = 128, format = "rgba8888"}
local vertices = gpusim.buffer {
  format = {"f32x4", "f32x3"},
  data = {
    course.vertex(target, 8, 8,     1, 0, 0,  1.0),
    course.vertex(target, 120, 8,   0, 1, 0,  1.0),
    course.vertex(target, 64, 120,  0, 0, 1,  4.0),
  },
}

local mode = MODES[fragment_isa]
-- the programs of each instruction set; the QPU's are the course's own (the default)
local vertex = {
  sass = {isa = "sass", source = sass.vertex(3)},
  pica = {isa = "pica", source = pica.vertex("color.rgb")},
  agx = {isa = "agx", source = agx.vertex(3)},
}
local fragment = {
  sass = {isa = "sass", source = sass.colour(mode)},
  agx = {isa = "agx", source = agx.colour(3, mode)},
}
local shader = course.shader {interpolation = mode, vertex = vertex[vertex_isa], fragment = fragment[fragment_isa]}

gpusim.frame(function(frame)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}}
  frame:draw {mode = "triangles", vertices = vertices, shader = shader, uniforms = course.uniforms}
end, target)
