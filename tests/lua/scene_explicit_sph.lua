-- scene_explicit_sph.lua — a scene may give a program's SPH itself
-- (gpusim.shader's `fragment = {source = ..., sph = ...}`), and the pipeline
-- then honours exactly that header, not the declarations.
--
-- scenes/interpolation.lua draws three copies of a leaning quad whose colour
-- varying is declared flat, perspective and screen. Here every fragment
-- program is given an explicit header whose PixelImap asks for another mode
-- (flat -> screen, perspective -> flat, screen -> perspective), as a field
-- table for one copy and as 80 bytes (gpusim.sph.encode) for the others;
-- every pixel is then checked against the formula of the mode the header
-- asks for (tests/lua/lib/interp_check.lua). Then the errors, and a header
-- whose flags forbid what the program does (an exception and a warning).
local gpusim = require "gpusim"
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails
local check = dofile("tests/lua/lib/interp_check.lua")
local here = "scene_explicit_sph.lua:"

local code = {flat = 1, perspective = 2, screen = 3} -- PixelImap
local given = {flat = "screen", perspective = "flat", screen = "perspective"}

-- A pixel shader's header: generic input 0 x, y, z in `mode`, the position's
-- W (which every pixel shader reads), colour target 0 RGBA.
local function ps_header(mode)
  local t = {SphType = 2, Version = 3, ShaderType = 5, ImapPositionW = 1}
  for _, c in ipairs {"Red", "Green", "Blue", "Alpha"} do t["OmapTarget[0]." .. c] = 1 end
  for _, c in ipairs {"X", "Y", "Z"} do t["ImapGenericVector[0]." .. c] = code[mode] end
  return t
end

local real_shader, made = gpusim.shader, 0
gpusim.shader = function(t)
  local declared = t.varyings[1].interpolation
  local header = ps_header(given[declared])
  made = made + 1
  t.fragment = {isa = t.fragment.isa, source = t.fragment.source,
                sph = made == 1 and header or gpusim.sph.encode(header)}
  return real_shader(t)
end
dofile("scenes/interpolation.lua")
gpusim.shader = real_shader
assert(made == 3)
local _, target = gpusim.frame()
local f = gpusim.render {threads = 2}
assert(f.draws == 3 and f.stats.exceptions == 0)
local checked = check(target, {given.flat, given.perspective, given.screen})

-- Errors name the field.
local shaders = require "vc4_shaders"
local fs = "    mov tlb_colour_all, unif\n    thrend\n    nop\n    sbdone\n"
local function shader(fragment)
  return gpusim.shader {isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0), fragment = fragment,
                        inputs = {{name = "position", components = 4}}, varyings = {}}
end
local vtg = {SphType = 1, Version = 3, ShaderType = 1}
fails({here, "'fragment.sph'", "SphType 1", "needs SphType 2"}, function() shader {source = fs, sph = vtg} end)
fails({here, "exactly one of source"}, function() shader {source = fs, binary = string.rep("\0", 8)} end)
fails({here, "exactly one of source"}, function() shader {sph = ps_header("flat")} end)
fails({here, "unknown key colour"}, function() shader {source = fs, colour = 1} end)
fails({"'fragment.sph'", "an SPH is 80 bytes, got 5"}, function() shader {source = fs, sph = "short"} end)
fails({"'fragment.sph'", "\"Nope\" is not an SPH field"}, function() shader {source = fs, sph = {SphType = 2, Nope = 1}} end)
fails({here, "'isa'", "'qpu'", "'nosuch'"}, function()
  gpusim.shader {isa = "nosuch", coordinate = shaders.coordinate, vertex = shaders.vertex(0), fragment = fs,
                 inputs = {{name = "position", components = 4}}, varyings = {}}
end)

-- A header whose OmapTarget maps no colour: the program's colour writes are
-- dropped (the clear colour stays), and the frame counts the exceptions.
local t2 = gpusim.target {width = 64, height = 64}
local vb = gpusim.buffer {format = "f32x4", data = {{-1, -1, 0, 1}, {1, -1, 0, 1}, {0, 1, 0, 1}}}
local VIEWPORT = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}
local no_colour = ps_header("flat")
for _, c in ipairs {"Red", "Green", "Blue", "Alpha"} do no_colour["OmapTarget[0]." .. c] = 0 end
no_colour["ImapGenericVector[0].X"], no_colour["ImapGenericVector[0].Y"], no_colour["ImapGenericVector[0].Z"] = 0, 0, 0
for _, case in ipairs {{header = ps_header("flat"), want = 255, exceptions = 0}, {header = no_colour, want = 0, exceptions = 1}} do
  local hdr = case.header
  for _, c in ipairs {"X", "Y", "Z"} do hdr["ImapGenericVector[0]." .. c] = 0 end
  local s = shader {source = fs, sph = hdr}
  gpusim.frame(function(frame)
    frame:clear {color = {0, 0, 0, 0}}
    frame:draw {vertices = vb, shader = s, uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff0000ff}}}}
  end, t2)
  local r = gpusim.render {threads = 1}
  local red = t2:pixel(32, 32)
  assert(red == case.want, string.format("pixel red %d, want %d", red, case.want))
  assert((r.stats.exceptions > 0) == (case.exceptions > 0), "exceptions: " .. r.stats.exceptions)
end
print(string.format("scene_explicit_sph: ok (%d, %d, %d pixels checked)", checked[given.flat],
                    checked[given.perspective], checked[given.screen]))
