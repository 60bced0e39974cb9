-- debug_qpu.lua — gpusim.debug on a VideoCore IV QPU fragment program, every
-- value worked out by hand (docs/debugger.md). An 8x8 target (one tile) and
-- three points of size 1 centred on image pixels A = (1, 3), B = (4, 6),
-- C = (3, 4) (from the top-left; the pipeline's rows 4, 1 and 3): each point
-- shades one pixel, so the frame's fragment invocations are A, B, C in draw
-- order (0, 1, 2). A 4x4 block's lanes are four 2x2 quads (RG §6, the
-- fragment shader's pixels): with bx = x % 4, by = y % 4 (y the pipeline's
-- row), lane = 4 * (bx // 2 + 2 * (by // 2)) + bx % 2 + 2 * (by % 2), so A
-- (1, 4) is lane 1, B (4, 1) lane 2, C (3, 3) lane 15. The program:
--   0 mov r0, elem_num       r0 = the lane's element number (RG §3: reg A 38)
--   1 ldi r1, 3
--   2 sub.setf r2, r0, r1    r2 = lane - 3; N flag set for lanes 0-2, Z for lane 3
--   3 add r3, r2, r2         r3 = 2 (lane - 3)
--   4 mov ra5, r3            a register-file write: readable two instructions
--                            later (RG §3), so ra5 is still 0 after step 5
--   5 mov r1, x_coord        ... and 2 (lane - 3) after step 6; r1 = pixel x
--   6 mov r2, y_coord        r2 = the pipeline's row
--   7 ldi r0, 0xff0000ff
--   8 mov tlb_colour_all, r0
--   9 thrend, 10 nop, 11 sbdone   (12 steps)
local gpusim = require "gpusim"
local vc4 = require "vc4_shaders"

local W, H = 8, 8
local target = gpusim.target {width = W, height = H, format = "rgba8888"}
local function clip(px, py) -- the centre of image pixel (px, py) in clip space
  return (px + 0.5) / W * 2 - 1, 1 - (py + 0.5) / H * 2
end
local pts = {{1, 3}, {4, 6}, {3, 4}}
local data = {}
for i, p in ipairs(pts) do
  local x, y = clip(p[1], p[2])
  data[i] = {x, y, 0, 1}
end
local vertices = gpusim.buffer {format = {"f32x4"}, data = data}
local fragment = [[
    mov r0, elem_num
    ldi r1, 3
    sub.setf r2, r0, r1
    add r3, r2, r2
    mov ra5, r3
    mov r1, x_coord
    mov r2, y_coord
    ldi r0, 0xff0000ff
    mov tlb_colour_all, r0
    thrend
    nop
    sbdone
]]
local shader = gpusim.shader {
  coordinate = vc4.coordinate, vertex = vc4.vertex(0), fragment = fragment,
  inputs = {{name = "position", components = 4}}, coordinate_inputs = {"position"},
}
gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 1}}
  frame:draw {mode = "points", vertices = vertices, shader = shader,
              uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}}
end, target)

-- before a render: the error says so
local ok, err = pcall(gpusim.debug, {x = 3, y = 4})
assert(not ok and err:find("no frame has been rendered"), err)
gpusim.render()

local function u32(v) return v & 0xffffffff end

local d = gpusim.debug {x = 3, y = 4}   -- C: lane 15, pipeline (3, 3)
local info = d:info()
local program = info.program
assert(info.isa == "qpu" and info.stage == "fragment", info.isa)
assert(info.x == 3 and info.y == 4 and info.invocation == 2, ("%d %d %d"):format(info.x, info.y, info.invocation))
assert(d:lane() == 15, d:lane())
assert(info.lanes == 1 << 15, info.lanes)
assert(d:length() == 12, d:length())
assert(d:at() == 0 and d:pc() == info.program)
assert(d:line() == "mov r0, elem_num", d:line())
local h0 = d:hash()

assert(d:step(3) == 3 and d:at() == 3 and d:pc() == info.program + 24)
assert(d:line() == "add r3, r2, r2", d:line())
for l = 0, 15 do -- every lane of the batch, not only the shaded one
  assert(d:reg("r0", l) == l, l)
  assert(d:reg("r2", l) == u32(l - 3), l)
  assert(d:reg("nf", l) == (l < 3 and 1 or 0) and d:reg("zf", l) == (l == 3 and 1 or 0), l)
end
assert(d:reg("r1") == 3 and d:reg("R1") == 3) -- names are case-insensitive
local h3 = d:hash()
assert(h3 ~= h0)

d:step(2) -- after "mov ra5, r3" and one more: the write is still staged
assert(d:reg("r3") == 24 and d:reg("ra5") == 0, d:reg("ra5"))
d:step() -- step 6: it landed; r1 = x_coord
assert(d:reg("ra5") == 24 and d:reg("ra5", 0) == u32(-6), d:reg("ra5"))
assert(d:reg("r1") == 3, d:reg("r1"))
d:step()
assert(d:reg("r2") == 3, d:reg("r2")) -- pipeline row 3 = image row 4 of 8
assert(d:step(100) == 5 and d:at() == 12 and d:line() == nil)

-- exact back: the same digest as on the way forward, and as a fresh run
assert(d:back(9) == 9 and d:at() == 3 and d:hash() == h3)
assert(d:back(10) == 3 and d:hash() == h0)
local fresh = gpusim.debug {x = 3, y = 4}
fresh:step(3)
assert(fresh:hash() == h3)
for _, p in ipairs {{1, 3, 1, 0}, {4, 6, 2, 1}, {3, 4, 15, 2}} do -- each point's lane and invocation
  local o = gpusim.debug {x = p[1], y = p[2]}
  assert(o:lane() == p[3] and o:info().invocation == p[4], o:lane())
  o:step(7) -- x_coord, y_coord: the pixel in the pipeline's coordinates
  assert(o:reg("r1") == p[1] and o:reg("r2") == H - 1 - p[2], o:reg("r2"))
end

-- unknown register, lane out of range
ok, err = pcall(d.reg, d, "ra32")
assert(not ok and err:find("qpu has no register 'ra32'"), err)
ok, err = pcall(d.reg, d, "r0", 16)
assert(not ok and err:find("lane 16: qpu has lanes 0..15"), err)

-- breakpoints: a pc, and a condition on a lane (r2 of lane 0 goes below 0 at step 3)
d:breakpoint {pc = info.program + 8 * 7}
assert(d:continue() == true and d:at() == 7)
assert(d:continue() == false and d:at() == 12)
assert(d:reverse() == true and d:at() == 7)
assert(d:reverse() == false and d:at() == 0)
d:clear()
d:breakpoint {reg = "r2", lane = 0, op = "<", value = 0}
assert(d:continue() == true and d:at() == 3)
assert(d:continue() == false and d:at() == 12) -- r2 = y_coord from step 7 on: it does not become < 0 again
assert(d:reverse() == true and d:at() == 3)
d:clear()

-- frame-wide: r2 < 0 in a shaded lane happens in A (lane 1) and B (lane 2), not C (lane 15)
d:breakpoint {reg = "r2", op = "<", value = 0, frame = true}
local hits = d:hits()
assert(#hits == 2, #hits)
assert(hits[1].invocation == 0 and hits[1].step == 3 and hits[1].x == 1 and hits[1].y == 3 and hits[1].lane == 1)
assert(hits[2].invocation == 1 and hits[2].step == 3 and hits[2].x == 4 and hits[2].y == 6 and hits[2].lane == 2)
d:step(100)
assert(d:continue() == false) -- none after C
assert(d:reverse() == true) -- back to B
info = d:info()
assert(info.x == 4 and info.y == 6 and info.invocation == 1 and d:at() == 3 and d:lane() == 2)
assert(d:reg("r2") == u32(-1))
assert(d:reverse() == true) -- A
info = d:info()
assert(info.x == 1 and info.y == 3 and info.invocation == 0 and d:lane() == 1 and d:reg("r2") == u32(-2))
assert(d:reverse() == false and d:at() == 0)
assert(d:continue() == true and d:info().invocation == 0 and d:at() == 3) -- its own hit
assert(d:continue() == true and d:info().invocation == 1)
d:clear()
-- frame-wide on a pc: every invocation reaches "mov tlb_colour_all, r0" (program + 64) at step 8
d:breakpoint {pc = program + 64, frame = true}
local ph = d:hits()
assert(#ph == 3, #ph)
for i, want in ipairs {{0, 1, 1, 3}, {1, 2, 4, 6}, {2, 15, 3, 4}} do
  local h = ph[i]
  assert(h.invocation == want[1] and h.step == 8 and h.lane == want[2] and h.x == want[3] and h.y == want[4], i)
end
assert(d:reverse() == true and d:info().invocation == 0 and d:at() == 8 and d:line() == "mov tlb_colour_all, r0")
assert(d:continue() == true and d:info().invocation == 1 and d:at() == 8)
assert(d:continue() == true and d:info().invocation == 2 and d:at() == 8 and d:lane() == 15)
assert(d:continue() == false and d:at() == 12)

-- errors: outside the image, nothing shaded (what gpusim why says)
ok, err = pcall(gpusim.debug, {x = 8, y = 0})
assert(not ok and err:find("pixel %(8, 0%) is outside the 8x8 image"), err)
ok, err = pcall(gpusim.debug, {x = 0, y = 0})
assert(not ok and err:find("no fragment program ran for pixel %(0, 0%): gpusim why says no primitive covers it"), err)
ok, err = pcall(gpusim.debug, {x = 1})
assert(not ok and err:find("expected {x = X, y = Y}"), err)

-- the vertex stage: draw 1, vertex 2 (C): the vertex shader's lane 2
local v = gpusim.debug {draw = 1, vertex = 2}
assert(v:info().stage == "vertex" and v:info().vertex == 2 and v:lane() == 2)
ok, err = pcall(gpusim.debug, {draw = 2, vertex = 0})
assert(not ok and err:find("frame 1 has no draw 2") or err:find("has no draw 2"), err)
ok, err = pcall(gpusim.debug, {draw = 1, vertex = 7})
assert(not ok and err:find("never ran a vertex of index 7"), err)
print("debug_qpu: ok")
