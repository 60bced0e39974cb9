-- scene_pica_errors.lua — a PICA200 vertex shader's mistakes in a scene
-- are errors that say where (docs/pica-unit.md, "Errors"): the scene
-- argument `pica` alone or as the fragment side; a PICA200 program as a
-- shader's fragment program (gpusim.shader refuses it); an output map whose varyings do not match the
-- shader's declaration; an output table without a position; BREAK outside
-- a loop (the word address, the lane, the unit); a runaway loop stopped by
-- the watchdog; and the reference interpreter draws the same image as the
-- batch interpreter.
local gpusim = require "gpusim"
local check = dofile("tests/lua/lib/check.lua")
local fails = check.fails

-- the scenes' argument parser (lua/isas.lua)
local isas = require "isas"
fails({"instruction sets 'pica'", "no fragment programs", "fixed function", "pica:qpu or pica:sass"}, isas.parse,
      "pica")
fails({"'qpu:pica'", "no fragment programs"}, isas.parse, "qpu:pica")
fails({"'nosuch'", "give one of qpu, sass"}, isas.parse, "nosuch")
local vs, fs = isas.parse("pica:sass")
assert(vs == "pica" and fs == "sass")

local target = gpusim.target {width = 64, height = 64, format = "rgba8888"}
local vertices = gpusim.buffer {
  format = {"f32x4", "f32x3"},
  data = {{-0.8, -0.8, 0, 1, 1, 0, 0}, {0.8, -0.8, 0, 1, 0, 1, 0}, {0, 0.8, 0, 1, 0, 0, 1}},
}
local sass = require "sass_shaders" -- the fragment program: colour r g b from varyings 0-2

-- A shader of a PICA200 vertex program (picasso text) and the SASS pixel
-- program, or `fragment` as given; renders one frame.
local function draw(vertex, fragment, ncolour)
  local shader = gpusim.shader {
    vertex = {isa = "pica", source = vertex},
    fragment = fragment or {isa = "sass", source = sass.colour()},
    inputs = {{name = "position", components = 4}, {name = "color", components = 3}},
    coordinate_inputs = {"position"},
    varyings = {{name = "color", components = ncolour or 3}},
  }
  gpusim.frame(function(frame)
    frame:clear {color = {0, 0, 0, 1}}
    frame:draw {mode = "triangles", vertices = vertices, shader = shader,
                uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}}
  end, target)
  return gpusim.render {threads = 1}
end

local function program(body, outs)
  return (outs or ".out opos position\n.out oclr color.rgb\n") .. ".proc main\n" .. body .. "\n    end\n.end\n"
end
local pass = program("    mov opos, v0\n    mov oclr, v1")

-- It draws: the centre pixel is inside the triangle, the corner is not.
draw(pass)
local r, g, b = target:pixel(32, 28)
assert(r > 0 and g > 0 and b > 0, "the triangle is drawn")
assert(select(1, target:pixel(0, 63)) == 0, "the corner is clear")
-- the reference interpreter gives the same bytes
local function bytes()
  local f = gpusim.render {threads = 1}
  return gpusim.mem.read_bytes(f.framebuffer, f.stride * f.height)
end
local fast = bytes()
gpusim.config {interpreter = "reference"}
assert(bytes() == fast, "the reference interpreter draws another image")
gpusim.config {interpreter = "fast"}

-- the numeric mode: float24 by default, binary32 on request, nothing else
assert(gpusim.config().pica_float == "f24")
gpusim.config {pica_float = "f32"}
assert(gpusim.config().pica_float == "f32" and bytes() == fast, "the triangle in binary32")
fails({"pica_float", "f24", "f32"}, gpusim.config, {pica_float = "f16"})
gpusim.config {pica_float = "f24"}

-- a PICA200 program as the fragment shader: refused by gpusim.shader
fails({"scene_pica_errors.lua:", "field 'fragment'", "PICA200 has no fragment programs", "fixed function"}, draw,
      pass, {isa = "pica", source = pass})

-- colour r g b a (4 varyings) where the shader declares 3
fails({"output map gives 4 varying component(s)", "declares 3"}, draw,
      program("    mov opos, v0\n    mov oclr, v1", ".out opos position\n.out oclr color\n"))

-- no position in the output table
fails({"no position"}, draw, program("    mov o1, v1", ".out - color o1.xyz\n"))

-- BREAK outside a loop: the GPU would hang (word 1 of the program)
fails({"PICA200 unit", "coordinate shader", "lane 0", "BREAK at 0x001", "the GPU hangs"}, draw,
      program("    mov opos, v0\n    break\n    mov oclr, v1"))

-- an endless loop stops at the watchdog's budget
gpusim.config {watchdog = 5000}
fails({"PICA200 unit", "budget of 5000", "endless loop"}, draw,
      program("top:\n    mov opos, v0\n    jmpu !b0, top\n    mov oclr, v1"))
gpusim.config {watchdog = 1 << 28}
draw(pass) -- the frame the program renders after the script: one that draws
print("scene_pica_errors: ok")
