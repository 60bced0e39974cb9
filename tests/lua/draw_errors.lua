-- draw_errors.lua — an error of the pipeline (binning or rendering) that
-- comes from a draw names the frame:draw call that made it: this file and
-- line, the draw's number in the frame (counting every successful call,
-- empty draws too) and the frame's, then the executor's message with its
-- list, packet address, shader and pc. Errors not from a draw keep the
-- plain "gpusim.render:" prefix.
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"

-- Renders, expecting an error that contains every piece (plain text); the
-- pieces are computed after the render, once `line` is known.
local function fails(pieces, render)
  local ok, msg = pcall(render)
  assert(not ok, "expected an error")
  for _, p in ipairs(pieces()) do assert(msg:find(p, 1, true), string.format("error %q lacks %q", msg, p)) end
end

local target = gpusim.target {width = 64, height = 64}
local vb = gpusim.buffer {format = "f32x4", data = {{-1, -1, 0, 1}, {1, -1, 0, 1}, {0, 1, 0, 1}}}
local VIEWPORT = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}
local function shader(coordinate, fragment)
  return gpusim.shader {isa = "qpu", coordinate = coordinate, vertex = shaders.vertex(0), fragment = fragment,
                        inputs = {{name = "position", components = 4}}, varyings = {}}
end
local good = shader(shaders.coordinate, "    mov tlb_colour_all, unif\n    thrend\n    nop\n    sbdone\n")
-- reads a varying the primitive never set up: the hardware would wait forever
local bad_fs = shader(shaders.coordinate, "    mov r0, vary\n    mov tlb_colour_all, r0\n    thrend\n    nop\n    sbdone\n")
-- a TMU read of address 16, which no allocation holds
local bad_cs = shader("    ldi r0, 16\n    mov tmu0_s, r0\n    nop ; nop ; ldtmu0\n    thrend\n    nop\n    nop\n",
                      "    mov tlb_colour_all, unif\n    thrend\n    nop\n    sbdone\n")

local line
local function scene(bad)
  gpusim.frame(function(frame)
    frame:draw {vertices = vb, shader = good, uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff0000ff}}}}
    frame:draw {vertices = vb, shader = good, count = 0, uniforms = VIEWPORT}
    line = debug.getinfo(1, "l").currentline + 1
    frame:draw {vertices = vb, shader = bad, uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff00ff00}}}}
  end, target)
end

scene(bad_fs)
fails(function() return {"draw_errors.lua:" .. line .. ": frame:draw (draw 3 of frame 0): rendering list: tile (0, 0)",
                         "fragment shader at", "varying read"} end, function() gpusim.render {threads = 2} end)
scene(bad_cs)
fails(function() return {"draw_errors.lua:" .. line .. ": frame:draw (draw 3 of frame 1): binning list: ",
                         "coordinate shader at", "TMU0 direct read of 0x00000010"} end,
      function() gpusim.render {threads = 1} end)

-- a vertex shader writing 2 varyings for a shader that declares none: its
-- 4th VPM row is past the 3-row output segment (Ys|Xs, Zs, 1/Wc), which on
-- the chip would overwrite the next segment (the picture would be wrong)
local undeclared = gpusim.shader {isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(2),
                                  fragment = "    mov tlb_colour_all, unif\n    thrend\n    nop\n    sbdone\n",
                                  inputs = {{name = "position", components = 4}, {name = "uv", components = 2}}}
local vb2 = gpusim.buffer {format = {"f32x4", "f32x2"}, data = {{-1, -1, 0, 1, 0, 0}, {1, -1, 0, 1, 1, 0}, {0, 1, 0, 1, 0, 1}}}
gpusim.frame(function(frame)
  line = debug.getinfo(1, "l").currentline + 1
  frame:draw {vertices = vb2, shader = undeclared, uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff00ff00}}}}
end, target)
fails(function() return {"draw_errors.lua:" .. line .. ": frame:draw (draw 1 of frame ", "vertex shader at",
                         "VPM write to row 3 of the vertex shader's output segment, which has 3 rows",
                         "does the shader declare every varying the program writes?"} end,
      function() gpusim.render {} end)

-- the other way round: a vertex shader writing 1 varying for a shader that
-- declares 2 leaves row 4 of its 5-row segment unwritten: it reads 0 (on the
-- chip, an earlier batch's words), which a frame reports as an exception
local short = gpusim.shader {isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(1),
                             fragment = "    mov tlb_colour_all, unif\n    thrend\n    nop\n    sbdone\n",
                             inputs = {{name = "position", components = 4}, {name = "uv", components = 2}},
                             varyings = {{name = "uv", components = 2}}}
gpusim.frame(function(frame)
  frame:draw {vertices = vb2, shader = short, uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff00ff00}}}}
end, target)
local st = gpusim.render {}.stats
assert(st.exceptions > 0 and st.exception:find("vertex shader at", 1, true) and
       st.exception:find("row 4 of its 5-row output segment was never written (it reads 0): does the program write " ..
                         "every varying the shader declares?", 1, true), tostring(st.exception))
gpusim.frame(function(frame) -- declared and written alike: no exception
  frame:draw {vertices = vb2, shader = gpusim.shader {isa = "qpu", coordinate = shaders.coordinate,
              vertex = shaders.vertex(2), fragment = "    mov tlb_colour_all, unif\n    thrend\n    nop\n    sbdone\n",
              inputs = {{name = "position", components = 4}, {name = "uv", components = 2}},
              varyings = {{name = "uv", components = 2}}},
              uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff00ff00}}}}
end, target)
st = gpusim.render {}.stats
assert(st.exceptions == 0 and st.exception == nil, tostring(st.exception))

-- A pixel program reading a varying for a shader that declares none: no
-- varying reaches it, so it reads its default (a black triangle), and the
-- frame reports it; declared, the same programs give no exception.
-- shader(varyings) makes the shader, `want` the exception's pattern.
local vb3 = gpusim.buffer {format = {"f32x4", "f32x3"}, data = {{-1, -1, 0, 1, 1, 0, 0}, {1, -1, 0, 1, 0, 1, 0},
                                                               {0, 1, 0, 1, 0, 0, 1}}}
local function undeclared_read(shader, want)
  for _, declared in ipairs {false, true} do
    gpusim.frame(function(frame)
      frame:draw {vertices = vb3, shader = shader(declared and {{name = "color", components = 3}} or nil)}
    end, target)
    st = gpusim.render {}.stats
    if declared then
      assert(st.exceptions == 0, tostring(st.exception))
    else
      assert(st.exceptions > 0 and st.exception:find(want), tostring(st.exception))
    end
  end
end
local inputs3 = {{name = "position", components = 4}, {name = "color", components = 3}}
-- SASS: IPA a[0x80], a[0x84], a[0x88] (generic 0.x, .y, .z), which the SPH does not map
local sass = require "sass_shaders"
undeclared_read(function(varyings)
  return gpusim.shader {isa = "sass", vertex = sass.vertex(3), fragment = sass.colour("perspective"), inputs = inputs3,
                        varyings = varyings}
end, "SASS pixel shader 0x%x+: IPA reads a%[0x080%] %(generic 0%.x%), which its SPH's ImapGenericVector does not map")
-- AGX: iter reads cf1-cf3 (varying components 0-2) where the primitive sets up none
local agx = require "agx_shaders"
undeclared_read(function(varyings)
  return gpusim.shader {isa = "agx", vertex = agx.vertex(3), fragment = agx.colour(3, "perspective"), inputs = inputs3,
                        varyings = varyings}
end, "AGX unit %d+, fragment shader 0x%x+: an iter or ldcf reads cf3 %(varying component 2%), but the primitive sets " ..
     "up 0 varying components")

-- the same shaders drawn by a hand-written list: no draw to name
scene(bad_fs)
local f = gpusim.render {run = false}
local ok, err = pcall(gpusim.v3d.run, {bin = {f.bin_start, f.bin_end}, render = {f.render_start, f.render_end}})
assert(not ok and err:find("varying read") and not err:find("frame:draw"), err)
-- Indices past the end of the vertex buffer: the driver checks the draw's
-- largest index against every attribute array, as the Linux vc4 validator
-- checks max_index (vc4_validate.c), and the error names the draw's line.
-- vb holds 3 vertices of 16 bytes: index 2 is its last, 3 the first past it.
local function indexed(indices)
  local ib = gpusim.buffer {format = "u16", data = indices}
  gpusim.frame(function(frame)
    line = debug.getinfo(1, "l").currentline + 1
    frame:draw {vertices = vb, indices = ib, shader = good, uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff0000ff}}}}
  end, target)
end
indexed {0, 1, 2}
assert(gpusim.render {}.stats.prims_drawn == 1)
for _, big in ipairs {3, 7, 65535} do
  indexed {0, big, 1}
  fails(function() return {"draw_errors.lua:" .. line .. ": frame:draw: draw: index " .. big .. " (the largest",
                           "reaches past the end of attribute 0's array",
                           string.format("vertex %d needs bytes %d..%d from 0x%08x (stride 16)", big, 16 * big,
                                         16 * big + 15, vb.address),
                           "holds 48 bytes from there: vertices 0..2"} end,
        function() gpusim.render {} end)
end

-- A list run by gpusim.v3d.run keeps the hardware's behaviour: no driver
-- check, only allocated memory. Its vertex 7 is read from wherever the
-- record's array points; a read outside allocated memory is an error
-- naming the shader record and the address.
local vb8 = gpusim.buffer {format = "f32x4", data = {{-1, -1, 0, 1}, {1, -1, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1},
                                                   {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 1, 0, 1}}}
local raw = gpusim.mem.alloc(128)  -- 3 vertices written, vertex 7 in the same allocation
gpusim.mem.write(raw, "f32", {-1, -1, 0, 1, 1, -1, 0, 1, 0, 1, 0, 1})
gpusim.mem.write(raw + 112, "f32", {0, 1, 0, 1})
local ib = gpusim.buffer {format = "u16", data = {0, 1, 7}}
gpusim.frame(function(frame)
  frame:draw {vertices = vb8, indices = ib, shader = good, uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff0000ff}}}}
end, target)
f = gpusim.render {run = false}
local lists = {bin = {f.bin_start, f.bin_end}, render = {f.render_start, f.render_end}}
local old = vb8.address
getmetatable(vb8).__close(vb8)  -- the array's memory is gone
ok, err = pcall(gpusim.v3d.run, lists)
local rec = err and tonumber(err:match("GL shader record 0x(%x+)"), 16)
assert(not ok and rec and not err:find("frame:draw"), err)
assert(err:find(string.format("at 0x%08x (array 0x%08x, stride 16)", old, old), 1, true), err)
-- the record it names is the draw's: attribute 0's base (record + 36) is the array
assert(gpusim.mem.read(rec + 36, "u32", 1)[1] == old, "the named record is not the draw's")
gpusim.mem.write(rec + 36, "u32", {raw})
local st = gpusim.v3d.run(lists)
assert(st.prims_drawn == 1 and st.fragments > 0, "vertex 7 of the hand-written array was not drawn")
gpusim.mem.free(raw)

-- Too few uniforms: a read past the end of the stream the driver wrote for
-- a shader is an error naming the draw, the shader, the QPU's pc and the
-- read, on both interpreters. The coordinate shader (vc4_shaders) reads 4
-- uniforms, the third (depth scale) in instruction 18, the vertex shader
-- in instruction 16; given 2, the read of word 2 fails there. good's
-- fragment shader reads 1 at instruction 0.
local function uniform_scene(uniforms)
  gpusim.frame(function(frame)
    frame:draw {vertices = vb, shader = good, uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff0000ff}}}}
    line = debug.getinfo(1, "l").currentline + 1
    frame:draw {vertices = vb, shader = good, uniforms = uniforms}
  end, target)
end
for _, interp in ipairs {"fast", "reference"} do
  gpusim.config {interpreter = interp}
  for _, case in ipairs {
    {"coordinate", {vertex = {"viewport_x_scale", "viewport_y_scale"}, fragment = {{u32 = 0xff00ff00}}},
     good.coordinate_code + 18 * 8, 2, 2, "binning list: "},
    {"vertex", {vertex = {"viewport_x_scale", "viewport_y_scale"}, coordinate = VIEWPORT, fragment = {{u32 = 1}}},
     good.vertex_code + 16 * 8, 2, 2, "rendering list: tile (0, 0)"},
    {"fragment", {vertex = VIEWPORT}, good.fragment_code, 0, 0, "rendering list: tile (0, 0)"},
  } do
    local stage, uniforms, pc, word, given, list = table.unpack(case)
    uniform_scene(uniforms)
    local ok, err = pcall(gpusim.render, {threads = 1})
    assert(not ok, interp .. " " .. stage .. ": expected an error")
    local stream = tonumber(err:match(stage .. " shader at 0x%x+ %(uniforms 0x(%x+)%)") or "", 16)
    assert(stream, interp .. " " .. stage .. ": " .. err)
    for _, want in ipairs {
      "draw_errors.lua:" .. line .. ": frame:draw (draw 2 of frame ", list,
      string.format("at pc 0x%08x: uniform read at 0x%08x is past the end of the stream the driver wrote for "
                    .. "this shader (%d uniforms at 0x%08x)", pc, stream + 4 * word, given, stream),
    } do
      assert(err:find(want, 1, true), string.format("%s %s: %q lacks %q", interp, stage, err, want))
    end
    -- the same list run by gpusim.v3d.run reads on past the stream, as the hardware does
    local f2 = gpusim.render {run = false}
    assert(gpusim.v3d.run {bin = {f2.bin_start, f2.bin_end}, render = {f2.render_start, f2.render_end}}, stage)
  end
end
gpusim.config {interpreter = "fast"}

-- A shader that points the uniforms address at a stream of its own reads
-- from it with no limit: the driver's stream no longer applies.
local own = gpusim.mem.alloc(16)
gpusim.mem.write(own, "u32", {0xff336699})
local own_fs = shader(shaders.coordinate, string.format(
  "    ldi r0, 0x%08x\n    mov unif_addr, r0\n    nop\n    nop\n    mov tlb_colour_all, unif\n"
  .. "    thrend\n    nop\n    sbdone\n", own))
gpusim.frame(function(frame) frame:draw {vertices = vb, shader = own_fs, uniforms = {vertex = VIEWPORT}} end, target)
gpusim.render {}
local r, g, b, a = target:pixel(32, 20)  -- the word's bytes, R first
assert(r == 0x99 and g == 0x66 and b == 0x33 and a == 0xff, string.format("%d %d %d %d", r, g, b, a))

scene(good)  -- the gpusim program renders the scene left registered after the script
print("draw_errors: ok")
