-- scene_api.lua — the scene API: targets, buffers, shaders, frames, draws
-- and gpusim.render; the objects' properties, and the errors of bad
-- arguments, which name this file and line and the bad field.
local gpusim = require "gpusim"

package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails
local here = "scene_api.lua:"

-- ---- targets
local t = gpusim.target {width = 200, height = 100}
assert(t.width == 200 and t.height == 100 and t.format == "rgba8888" and t.depth == false)
assert(t.stride == 800 and t.framebuffer > 0 and t.framebuffer % 4096 == 0)
assert(tostring(t):match("^gpusim.Target %(200x100 rgba8888%)"))
local t565 = gpusim.target {width = 64, height = 65, format = "bgr565", depth = true}
assert(t565.stride == 128 and t565.format == "bgr565" and t565.depth == true)
assert(select("#", t565:pixel(0, 0)) == 4)
assert(({t:pixel(199, 99)})[4] == 0)                    -- zero-filled until rendered
fails({here, "bad argument #1", "'width'", "1..4095"}, function() gpusim.target {width = 0, height = 1} end)
fails({here, "'height'", "1..4095"}, function() gpusim.target {width = 4, height = 4096} end)
fails({here, "'format'", "'rgba8888', 'bgr565'", "rgb"}, function() gpusim.target {format = "rgb"} end)
fails({here, "'depth' must be a boolean"}, function() gpusim.target {depth = 1} end)
fails({here, "unknown field 'widht'"}, function() gpusim.target {widht = 3} end)
fails({here, "table expected"}, function() gpusim.target(3) end)
fails({"x outside the target"}, function() t:pixel(200, 0) end)
local dflt = gpusim.target {}
assert(dflt.width == 640 and dflt.height == 480)

-- ---- buffers
local vb = gpusim.buffer {format = {"f32x4", "u8x3", "u16x2"}, data = {
  {0, 0, 0, 1, 255, 0, 0, 1, 2},
  {1, 0, 0, 1, 0, 255, 0, 3, 4},
}}
assert(vb.kind == "vertex" and vb.count == 2 and vb.stride == 24 and vb.bytes == 48)
local off = vb.offsets
assert(off[1] == 0 and off[2] == 16 and off[3] == 20)     -- u16 aligned to 2
local fmt = vb.format
assert(fmt[1] == "f32x4" and fmt[2] == "u8x3" and fmt[3] == "u16x2")
assert(gpusim.mem.read(vb.address + 24, "f32")[1] == 1.0)
assert(gpusim.mem.read(vb.address + 24 + 17, "u8")[1] == 255)
assert(gpusim.mem.read(vb.address + 24 + 20, "u16", 2)[2] == 4)
vb:write({{2, 0, 0, 1, 9, 9, 9, 5, 6}}, 1)
assert(gpusim.mem.read(vb.address + 24, "f32")[1] == 2.0)
fails({"do not fit"}, function() vb:write({{2, 0, 0, 1, 9, 9, 9, 5, 6}}, 2) end)
local flat = gpusim.buffer {format = "f32x2", data = {1, 2, 3, 4, 5, 6}}
assert(flat.count == 3 and flat.stride == 8 and #flat.format == 1)
local ib = gpusim.buffer {format = "u16", data = {0, 1, 2, 2, 1, 3}}
assert(ib.kind == "index" and ib.count == 6 and ib.stride == 2 and ib.format == "u16")
local ib8 = gpusim.buffer {format = "u8", data = {0, 1, 2}}
assert(ib8.stride == 1 and tostring(ib8):match("index, 3 indices"))
fails({here, "bad argument #1", "use u8 or u16", "no 32-bit"}, function() gpusim.buffer {format = "u32", data = {}} end)
fails({here, "attribute 2 'f64x2'", "unknown element type"}, function() gpusim.buffer {format = {"f32", "f64x2"}, data = {}} end)
fails({here, "'f32x5'", "1..4"}, function() gpusim.buffer {format = "f32x5", data = {}} end)
fails({here, "7 values are not a whole number of vertices of 2 values"},
      function() gpusim.buffer {format = "f32x2", data = {1, 2, 3, 4, 5, 6, 7}} end)
fails({here, "value 3 is a string"}, function() gpusim.buffer {format = "f32x2", data = {1, 2, "x", 4}} end)
fails({here, "value 2 (256) does not fit u8"}, function() gpusim.buffer {format = "u8", data = {1, 256}} end)
fails({here, "value 1 (1.5) does not fit u16"}, function() gpusim.buffer {format = "u16", data = {1.5}} end)
fails({here, "field 'data' must be a table"}, function() gpusim.buffer {format = "u16"} end)
fails({here, "1..8 attributes, got 9"}, function()
  gpusim.buffer {format = {"u8", "u8", "u8", "u8", "u8", "u8", "u8", "u8", "u8"}, data = {}} end)

-- ---- shaders
local function prog(body) return body .. "\n thrend\n nop\n nop\n" end
local sh = gpusim.shader {
  isa = "qpu",
  vertex = prog "mov r0, vpm", coordinate = prog "mov r0, vpm", fragment = prog "nop",
  inputs = {{name = "position", components = 4}, {name = "uv", components = 2}},
  coordinate_inputs = {"position"},
  varyings = {{name = "uv", components = 2}, {name = "tint", components = 3, interpolation = "flat"},
              {name = "fog", components = 1, interpolation = "screen"}},
}
assert(sh.varying_components == 6 and sh.flat_varyings == 0x1c)     -- components 2, 3, 4
assert(sh.vertex_code % 16 == 0 and sh.fragment_code ~= sh.vertex_code and sh.coordinate_code > 0)
assert(sh.inputs[2].name == "uv" and sh.inputs[2].components == 2)
assert(sh.varyings[1].interpolation == "perspective" and sh.varyings[3].interpolation == "screen")
assert(tostring(sh):match("2 inputs, 6 varying components"))
-- every program starts after its header: the magic "GSPH" and the SPH
assert(gpusim.mem.read(sh.fragment_code - 96, "u32")[1] == 0x48505347)
local fsph, vsph = sh:sph("fragment"), sh:sph("vertex")
assert(#fsph == 20 and fsph[1] & 0x1f == 2 and vsph[1] & 0x1f == 1)   -- SphType PS, VTG
-- binaries load too: the vertex program's bytes as {binary = ...}
local bin = gpusim.asm("qpu", prog "mov r0, vpm")
local sh2 = gpusim.shader {vertex = {binary = bin}, coordinate = {binary = bin}, fragment = prog "nop",
                           inputs = {{name = "p", components = 4}}}
assert(gpusim.mem.read_bytes(sh2.vertex_code, #bin) == bin)
assert(sh2.varying_components == 0)
local decl = {inputs = {{name = "p", components = 4}}, vertex = prog "nop", coordinate = prog "nop", fragment = prog "nop"}
local function with(k, v) local d = {} for a, b in pairs(decl) do d[a] = b end d[k] = v return d end
fails({here, "'coordinate' is required", "does not derive"}, function() gpusim.shader(with("coordinate", nil)) end)
fails({here, "'vertex' is required"}, function() gpusim.shader(with("vertex", nil)) end)
fails({here, "gpusim.shader: vertex shader line 2:5: error", "r9"}, function() gpusim.shader(with("vertex", "nop\nmov r9, r0\n")) end)
fails({here, "'isa'", "'qpu'", "nosuch"}, function() gpusim.shader(with("isa", "nosuch")) end)
fails({here, "at least one vertex attribute"}, function() gpusim.shader(with("inputs", {})) end)
fails({here, "entry 1: 'components' must be 1..4"}, function() gpusim.shader(with("inputs", {{name = "p", components = 5}})) end)
fails({here, "'interpolation' must be 'flat', 'perspective' or 'screen'"},
      function() gpusim.shader(with("varyings", {{name = "c", components = 1, interpolation = "smooth"}})) end)
fails({here, "'nrm' is not one of the inputs"}, function() gpusim.shader(with("coordinate_inputs", {"nrm"})) end)
fails({here, "unknown field 'fragmnet'"}, function() gpusim.shader(with("fragmnet", "")) end)
local many = {}
for i = 1, 9 do many[i] = {name = "v" .. i, components = 4} end
fails({here, "'varyings': 36 components; at most 32"}, function() gpusim.shader(with("varyings", many)) end)

-- ---- frames and draws
fails({"no frame callback", "gpusim.frame"}, function() gpusim.render() end)
assert(gpusim.frame() == nil)
local seen = {}
local quad = gpusim.buffer {format = {"f32x4", "f32x2"}, data = {
  {-1, -1, 0, 1, 0, 0}, {1, -1, 0, 1, 1, 0}, {1, 1, 0, 1, 1, 1}, {-1, 1, 0, 1, 0, 1}}}
local quad_ib = gpusim.buffer {format = "u16", data = {0, 1, 2, 0, 2, 3}}
local draw_errors = {}
gpusim.frame(function(frame, time)
  seen.frame, seen.time, seen.number = frame, time, frame.number
  assert(frame.width == t.width and frame.target == t and frame.time == time)
  frame:clear {color = {1, 0.5, 0}, depth = 0.5, stencil = 3}
  frame:state {depth_test = "lequal", cull = "back", front = "cw", viewport = {0, 0, 100, 50},
               scissor = {10, 10, 20, 20}, depth_range = {0, 1}, point_size = 4, line_width = 2}
  frame:draw {vertices = quad, indices = quad_ib, shader = sh,
              uniforms = {vertex = {"viewport_x_scale", 1.5, {u32 = 7}, {1, 2, {3, 4}}}, fragment = {quad}}}
  frame:state {viewport = false, scissor = false, depth_test = false}
  frame:draw {mode = "fan", vertices = quad, shader = sh, first = 1, count = 3}
  local function err(patterns, d) draw_errors[#draw_errors + 1] = fails(patterns, function() frame:draw(d) end) end
  err({here, "bad argument #1 to 'draw'", "'vertices' must be a vertex buffer"}, {shader = sh})
  err({here, "'indices' is a vertex buffer"}, {vertices = quad, shader = sh, indices = quad})
  err({here, "'vertices' is an index buffer"}, {vertices = quad_ib, shader = sh})
  err({here, "'shader' must be a shader"}, {vertices = quad})
  err({here, "declares 2 inputs, the vertex buffer has 3"}, {vertices = vb, shader = sh})
  err({here, "'mode' must be one of", "'points'", "quads"}, {mode = "quads", vertices = quad, shader = sh})
  err({here, "'count' must be an integer in 0..2"}, {vertices = quad, shader = sh, first = 2, count = 3})
  err({here, "unknown driver value 'viewport_w'"}, {vertices = quad, shader = sh, uniforms = {"viewport_w"}})
  err({here, "uniforms'.fragment: uniform 1: a boolean"}, {vertices = quad, shader = sh, uniforms = {fragment = {true}}})
  err({here, "unknown field 'indexes'"}, {vertices = quad, shader = sh, indexes = quad_ib})
  fails({here, "bad argument #1 to 'state'", "'cull'", "'none', 'front', 'back', 'both'"},
        function() frame:state {cull = "backs"} end)
  fails({here, "'viewport'", "width must be an integer"}, function() frame:state {viewport = {0, 0, 0, 5}} end)
  fails({here, "'depth_test'", "'lequal'"}, function() frame:state {depth_test = "lesser"} end)
  fails({here, "'color' must be {r, g, b}"}, function() frame:clear {color = {1, 2}} end)
  fails({here, "'depth' must be in 0..1"}, function() frame:clear {depth = 2} end)
end, t)
local cb, cbt = gpusim.frame()
assert(type(cb) == "function" and cbt == t)
-- the shaders here are not real ones: build the lists without running them
local f = gpusim.render {time = 2.5, run = false}
assert(f.stats == nil)
assert(seen.time == 2.5 and seen.number == 0 and f.number == 0 and f.time == 2.5)
assert(#draw_errors == 10)
assert(f.draws == 2 and f.width == 200 and f.height == 100 and f.tiles_x == 4 and f.tiles_y == 2)
assert(f.framebuffer == t.framebuffer and f.stride == 800 and f.format == "rgba8888" and f.target == t)
assert(f.bin_end > f.bin_start and f.render_end > f.render_start and f.tile_alloc > 0 and f.tsda > 0)
-- the uniform stream of the first draw, as the vertex shader will read it
-- (found through the dump of the list: gpusim dump-cl shows the same)
fails({"frame:draw: the frame is over"}, function() seen.frame:draw {vertices = quad, shader = sh} end)
assert(tostring(seen.frame):match("over"))
-- frames count on, at 60 per second unless a time is given
local f2 = gpusim.render {run = false}
assert(f2.number == 1 and seen.time == 1 / 60)
-- run, they fail in the executor, which names the shader, the QPU and its pc
fails({here, "gpusim.render:", "coordinate shader", "QPU", "pc 0x", "VPM read"}, function() gpusim.render() end)
-- width and height resize the target
local f3 = gpusim.render {width = 64, height = 32, run = false}
assert(f3.width == 64 and t.width == 64 and t.height == 32 and f3.tiles_x == 1 and f3.tiles_y == 1)
fails({here, "unknown field 'size'"}, function() gpusim.render {size = 3} end)
fails({here, "'threads' must be an integer in 0..1024"}, function() gpusim.render {threads = -1} end)
-- an error inside the callback comes out with its own place, and the next
-- frame renders again
gpusim.frame(function(frame) error("boom") end, t)
fails({here, "boom"}, function() gpusim.render() end)
gpusim.frame(function(frame) end)
assert(gpusim.render().draws == 0)
print("scene_api: ok")
