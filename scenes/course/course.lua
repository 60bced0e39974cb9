-- course.lua — what the course's scenes (docs/course/) share, loaded by each
-- with dofile from the directory of the script gpusim runs (the scene, or a
-- lesson's check):
--   local course = dofile((arg[0]:match("^(.*/)") or "./") .. "course.lua")
-- course.shader{...}  a QPU shader whose vertices are a clip-space position
--                     and a colour (r, g, b) that the fragment shader writes
--                     (interpolation: "perspective" unless given; depth =
--                     true: it writes the pixel's Z first, which runs the
--                     depth test, docs/scenes.md; vertex =, coordinate =,
--                     fragment =: other programs, as gpusim.shader takes
--                     them, for the same inputs and varying)
-- course.uniforms     the viewport uniforms its programs read
-- course.vertex(target, x, y, r, g, b [, w])  a vertex at pixel (x, y),
--                     counted from the bottom-left corner, in clip space
--                     with W = w (default 1): (x, y) in NDC times W
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"   -- lua/vc4_shaders.lua: the position shaders
local course = {}

-- the fragment shader: each colour varying (VP x W + C, docs/rasterization.md)
-- scaled to a byte and packed into one word for the tile buffer
local fragment = shaders.colour3

function course.shader(opts)
  opts = opts or {}
  local coordinate, vertex = shaders.coordinate, shaders.vertex(3)
  if opts.vertex then coordinate, vertex = opts.coordinate, opts.vertex end
  return gpusim.shader {
    coordinate = coordinate,
    vertex = vertex,
    fragment = opts.fragment or (opts.depth and "    mov tlb_z, rb15\n" or "") .. fragment,
    inputs = {{name = "position", components = 4}, {name = "color", components = 3}},
    coordinate_inputs = {"position"},
    varyings = {{name = "color", components = 3, interpolation = opts.interpolation or "perspective"}},
  }
end

course.uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}

function course.vertex(target, x, y, r, g, b, w)
  w = w or 1.0
  return {(2 * x / target.width - 1) * w, (2 * y / target.height - 1) * w, 0.0, w, r, g, b}
end

return course
