-- why_provenance.lua — gpusim.why on a scene built so that one pixel, P =
-- (20, 20) from the image's top-left (64x64 target, so the pipeline's row
-- 43), meets every fate and every reason, each worked out by hand from the
-- geometry and the state below (docs/provenance.md):
--   D1 red triangle, depth 0.5                  -> written, output red
--   D2 green, depth 0.8 (test "less")           -> depth_failed, by early Z
--   D3 blue, depth 0.3, blend "add"             -> blended: red + blue = (255, 0, 255, 255)
--   D4 green, depth 0.2, color_mask all false   -> colour_masked (keeps 255, 0, 255, 255)
--   D5 a program that writes Z but no colour    -> discarded
--   D6 clockwise, depth 0.05, cull "back"       -> missed: culled
--   D7 clip z = 2 (Zs 1.5, past the far plane)  -> missed: clipped
--   D8 three points on the row through P         -> missed: zero_area
--   D9 scissor 10x10 at the bottom left          -> missed: outside_clip_window
--   D10 the same scissor, a triangle around P wholly outside it (in no tile list)
--                                               -> missed: outside_clip_window
--   D11 left of the vertical edge x = 20.5      -> missed: not_covered (P's centre is on
--       its right edge, which the fill rule gives to the neighbour)
--   D12 right of that edge, yellow, depth 0.05  -> written: the final colour
--   D13 depth 0.01, stencil func "never"       -> stencil_failed
--   D14 depth 0.01, a program that writes 0 to ms_flags before its Z write
--                                               -> sample_masked
-- Then the same answer with 1 and 2 threads, `gpusim why --json` parsed and
-- compared field by field, and the ISA each stage of scenes/triangle.lua
-- names for every instruction set, checked against the program header in
-- front of the program's code.
local gpusim = require "gpusim"

local target = gpusim.target {width = 64, height = 64, format = "rgba8888", depth = true}
local vc4 = require "vc4_shaders"

local function fs(colour)
  return string.format([[
    mov tlb_z, rb15
    ldi r0, 0x%08x
    mov tlb_colour_all, r0
    thrend
    nop
    sbdone
]], colour)
end
local discard = [[
    mov tlb_z, rb15
    thrend
    nop
    sbdone
]]
-- ms_flags = 0 takes the pixel's only sample away before the Z write
local masked = [[
    ldi ms_flags, 0
    mov tlb_z, rb15
    ldi r0, 0xffffffff
    mov tlb_colour_all, r0
    thrend
    nop
    sbdone
]]
local function shader(src)
  return gpusim.shader {coordinate = vc4.coordinate, vertex = vc4.vertex(0), fragment = src,
                        inputs = {{name = "position", components = 4}}}
end
local RED, GREEN, BLUE, YELLOW = 0xff0000ff, 0xff00ff00, 0xffff0000, 0xff00ffff
local red, green, blue, yellow, none = shader(fs(RED)), shader(fs(GREEN)), shader(fs(BLUE)), shader(fs(YELLOW)),
                                       shader(discard)
local sample_mask = shader(masked)

-- Image pixel coordinates (x right, y down) and a depth 0..1 to clip space (w = 1).
local function v(x, y, d) return {x / 32 - 1, 1 - y / 32, 2 * d - 1, 1} end
local function tri(a, b, c) return gpusim.buffer {format = {"f32x4"}, data = {a, b, c}} end
-- counter-clockwise on the screen with y up (front-facing), covering P (20, 20)
local big = function(d) return tri(v(0, 0, d), v(0, 64, d), v(64, 0, d)) end
local cw = tri(v(0, 0, 0.05), v(64, 0, 0.05), v(0, 64, 0.05))                -- the same, clockwise
local beyond = tri({-1, 1, 2, 1}, {1, 1, 2, 1}, {-1, -1, 2, 1})
local flat = tri(v(0, 20.5, 0.05), v(64, 20.5, 0.05), v(32, 20.5, 0.05))
local small = tri(v(14, 14, 0.05), v(14, 28, 0.05), v(28, 14, 0.05))  -- x + y < 42 holds P
local left = tri(v(4, 4, 0.05), v(20.5, 4, 0.05), v(20.5, 40, 0.05))
local right = tri(v(20.5, 4, 0.05), v(40, 20, 0.05), v(20.5, 40, 0.05))
-- Each draw's line, found by its marker comment in this file.
local me = debug.getinfo(1, "S")
local lines, n = {}, 0
for line in io.lines(me.source:sub(2)) do
  n = n + 1
  local name = line:match("frame:draw .* %-%- (D%d+)$")
  if name then lines[name] = n end
end
local U = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}
local T = "triangles"

gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 1}, depth = 1.0}
  frame:state {depth_test = "less"}
  frame:draw {mode = T, vertices = big(0.5), shader = red, uniforms = U} -- D1
  frame:draw {mode = T, vertices = big(0.8), shader = green, uniforms = U} -- D2
  frame:state {blend = "add"}
  frame:draw {mode = T, vertices = big(0.3), shader = blue, uniforms = U} -- D3
  frame:state {blend = false, color_mask = {false, false, false, false}}
  frame:draw {mode = T, vertices = big(0.2), shader = green, uniforms = U} -- D4
  frame:state {color_mask = {true, true, true, true}}
  frame:draw {mode = T, vertices = big(0.1), shader = none, uniforms = U} -- D5
  frame:state {cull = "back"}
  frame:draw {mode = T, vertices = cw, shader = red, uniforms = U} -- D6
  frame:state {cull = "none"}
  frame:draw {mode = T, vertices = beyond, shader = red, uniforms = U} -- D7
  frame:draw {mode = T, vertices = flat, shader = red, uniforms = U} -- D8
  frame:state {scissor = {0, 0, 10, 10}}
  frame:draw {mode = T, vertices = big(0.05), shader = red, uniforms = U} -- D9
  frame:draw {mode = T, vertices = small, shader = red, uniforms = U} -- D10
  frame:state {scissor = false}
  frame:draw {mode = T, vertices = left, shader = red, uniforms = U} -- D11
  frame:draw {mode = T, vertices = right, shader = yellow, uniforms = U} -- D12
  frame:state {stencil = {func = "never"}}
  frame:draw {mode = T, vertices = big(0.01), shader = red, uniforms = U} -- D13
  frame:state {stencil = false}
  frame:draw {mode = T, vertices = big(0.01), shader = sample_mask, uniforms = U} -- D14
end, target)

local f = gpusim.render {threads = 1}
assert(f.draws == 14, f.draws)
local image = gpusim.mem.read_bytes(f.framebuffer, f.stride * f.height)
local r = gpusim.why(20, 20)
assert(gpusim.mem.read_bytes(f.framebuffer, f.stride * f.height) == image, "gpusim.why changed the frame")

local function where(name) return me.short_src .. ":" .. lines[name] end
local function same(a, b) return table.concat(a, ",") == table.concat(b, ",") end
local want = {
  {"D1", "written", {255, 0, 0, 255}},
  {"D2", "depth_failed"},
  {"D3", "blended", {255, 0, 255, 255}, {255, 0, 0, 255}},
  {"D4", "colour_masked"},
  {"D5", "discarded"},
  {"D12", "written", {255, 255, 0, 255}},
  {"D13", "stencil_failed"},
  {"D14", "sample_masked"},
}
assert(#r.fragments == #want, "fragments: " .. #r.fragments)
for i, w in ipairs(want) do
  local fr = r.fragments[i]
  local draw_no = tonumber(w[1]:sub(2))
  assert(fr.draw == draw_no, string.format("fragment %d: draw %s, want %d", i, tostring(fr.draw), draw_no))
  assert(fr.where == where(w[1]), fr.where)
  assert(fr.fate == w[2], string.format("fragment %d (%s): fate %s, want %s", i, w[1], fr.fate, w[2]))
  if w[3] then assert(same(fr.output, w[3]), string.format("%s output %s", w[1], table.concat(fr.output, ","))) end
  if w[4] then assert(same(fr.tile_colour, w[4]), w[1] .. " tile colour") end
  assert(fr.source.isa == "qpu" and fr.source.vertex_isa == "qpu")
  assert(fr.primitive == 0 and same(fr.vertices, {0, 1, 2}))
  assert(fr.packet.name == "VERTEX_ARRAY_PRIMITIVES" and fr.tile_packet.name == "COMPRESSED_PRIMITIVE_LIST")
  assert(fr.tile.x == 0 and fr.tile.y == 0)
end
assert(r.fragments[2].early_z == true and r.fragments[1].early_z == false)
-- D4's colour mask keeps what D3 left: its write is the tile's colour.
assert(same(r.fragments[4].output, {255, 0, 255, 255}))
-- Depths: D1 writes 0.5 x (2^24 - 1) rounded; D2 finds it in the buffer.
assert(r.fragments[2].stored_depth == r.fragments[1].depth)
assert(r.fragments[1].depth == 0x800000 or r.fragments[1].depth == 0x7fffff, r.fragments[1].depth)

local want_missed = {{"D6", "culled"}, {"D7", "clipped"}, {"D8", "zero_area"}, {"D9", "outside_clip_window"},
                     {"D10", "outside_clip_window"}, {"D11", "not_covered"}}
assert(#r.missed == #want_missed, "missed: " .. #r.missed)
for i, w in ipairs(want_missed) do
  local m = r.missed[i]
  assert(m.draw == tonumber(w[1]:sub(2)), string.format("missed %d: draw %s, want %s", i, tostring(m.draw), w[1]))
  assert(m.where == where(w[1]))
  assert(m.reason == w[2], string.format("missed %d (%s): %s, want %s", i, w[1], m.reason, w[2]))
end
assert(same(r.final, {255, 255, 0, 255}))
assert(same({target:pixel(20, 63 - 20)}, r.final), "final is the target's pixel")

-- The same answer with 1 and 2 threads.
local function serial(t)
  if type(t) ~= "table" then return tostring(t) end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  local out = {}
  for _, k in ipairs(keys) do out[#out + 1] = k .. "=" .. serial(t[k] == nil and t[tonumber(k)] or t[k]) end
  return "{" .. table.concat(out, ",") .. "}"
end
assert(serial(gpusim.why(20, 20, {threads = 1})) == serial(gpusim.why(20, 20, {threads = 2})), "1 and 2 threads")
assert(serial(gpusim.why(20, 20, {threads = 2})) == serial(r))

-- Errors.
local ok, err = pcall(gpusim.why, 64, 0)
assert(not ok and err:find("outside the 64x64 image", 1, true), err)
-- gpusim.why compares the traced run's whole image with the frame's (so
-- every call above also checked that tracing changes no pixel, with 1 and
-- 2 threads); a vertex moved after the render makes another image.
right:write({v(30, 4, 0.05)}, 1)
ok, err = pcall(gpusim.why, 20, 20)
assert(not ok and err:find("gave another image", 1, true), err)
assert(gpusim.mem.read_bytes(f.framebuffer, f.stride * f.height) == image, "the frame buffer was put back")

-- Every ISA names itself: scenes/triangle.lua with each combination, the
-- pixel at the triangle's middle; the program header in front of the
-- fragment (and vertex) program's code says the same ISA (word 3: 1 QPU,
-- 2 SASS, 3 PICA200, 4 AGX; word 0 "GSPH").
local ids = {qpu = 1, sass = 2, pica = 3, agx = 4}
local function header_isa(code)
  local w = gpusim.mem.read(code - 96, "u32", 4)
  assert(w[1] == 0x48505347, "no program header")
  return w[4]
end
for _, combo in ipairs {{"qpu", "qpu", "qpu"}, {"sass", "sass", "sass"}, {"agx", "agx", "agx"},
                        {"pica:qpu", "pica", "qpu"}, {"pica", "pica", "qpu"}, {"sass:agx", "sass", "agx"}} do
  assert(loadfile("scenes/triangle.lua"))(combo[1])
  gpusim.render {threads = 2}
  local t = gpusim.why(160, 120)
  assert(#t.fragments == 1 and t.fragments[1].fate == "written", combo[1])
  local s = t.fragments[1].source
  assert(s.isa == combo[3] and s.vertex_isa == combo[2], combo[1] .. ": " .. s.isa .. " " .. tostring(s.vertex_isa))
  assert(header_isa(s.program) == ids[combo[3]] and header_isa(s.vertex_program) == ids[combo[2]], combo[1])
  assert(t.fragments[1].where == "scenes/triangle.lua:101", t.fragments[1].where)
end
print("why_provenance: ok")
