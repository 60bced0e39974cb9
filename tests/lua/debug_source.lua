-- debug_source.lua — the shader debugger's source lines (d:source(), the
-- trace's source column; docs/debugger.md, "Source lines") in every ISA,
-- and coordinate-shader runs ({draw, vertex, stage = "coordinate"}). Every
-- line number below is counted by hand in the file named:
--   scenes/triangle.lua   the QPU fragment program's long string opens on
--                         line 48, so its instruction k (from 1) is on line
--                         48 + k: the 3rd, "fmul r1, vary, ra15", on 51
--   lua/sass_shaders.lua  the perspective prologue `w` opens on line 69:
--                         IPA.PASS R8 on 70, MUFU.RCP R8 on 71; the IPA of
--                         each channel is made by string.format (no line of
--                         the file holds it: "<asm>" and its line in the text)
--   lua/agx_shaders.lua   shaders.vertex's template: st_var r8, 0 on line 37
--                         .. st_var r11, 3 on 40; the varyings' st_var are
--                         made by string.format, and "    stop" is a line of
--                         the file more than once (both "<asm>")
--   lua/pica_shaders.lua  shaders.vertex's template: mov outpos, inpos on
--                         line 33; "mov outvary, invary" is on 34 and 62
--                         (twice: "<asm>", line 9 of the text)
--   lua/vc4_shaders.lua   the coordinate shader's long string opens on line
--                         19: instruction k on 19 + k, thrend (k = 24) on 43
-- A program of raw words (bytes no assembly of this Lua state made) has no
-- source: d:source() is nil and the trace has no source column; the same
-- words assembled here with gpusim.asm and given as bytes have it (the map
-- is found by the program's bytes).
-- Coordinate runs: scenes/triangle.lua's one draw of three vertices runs the
-- QPU coordinate shader once in the binning pass (one batch of 16 lanes,
-- lanes 0x7): vertex I is lane I, its Xc Yc Zc Wc the scene's (-0.8, -0.8,
-- 0, 1), (0.8, -0.8, 0, 1), (0, 0.8, 0, 1). mov ra0, vpm is instruction 2
-- (from 0); a register-file write shows at the end of the instruction after
-- it (RG §3), so Xc is in ra0 from step 4. 26 instructions (thrend and its
-- two delay slots last): 26 steps.
local gpusim = require "gpusim"

local function f32(x) return string.unpack("<I4", string.pack("<f", x)) end
local function base(file) return (file:match("[^/]*$")) end

local function triangle(isas)
  assert(loadfile("scenes/triangle.lua"))(isas)
  gpusim.render()
end

-- the source of each step of d as "file:line text" (file's last component)
local function sources(d)
  local out = {}
  d:back(d:at())
  for s = 0, d:length() do
    local f, l, t = d:source()
    out[s] = f and ("%s:%d %s"):format(base(f), l, t) or false
    d:step()
  end
  d:back(d:at())
  return out
end

-- QPU: the triangle's fragment program (scenes/triangle.lua)
triangle("qpu")
local d = gpusim.debug {x = 160, y = 120}
local src = sources(d)
assert(src[0] == "triangle.lua:49 fmul r0, vary, ra15         # red: vary x W", src[0])
assert(src[2] == "triangle.lua:51 fmul r1, vary, ra15         # green", src[2])
assert(src[11] == "triangle.lua:60 thrend", src[11])
assert(src[13] == "triangle.lua:62 sbdone                      # let the next batch touch these pixels", src[13])
assert(src[14] == false) -- after the last instruction: nothing
d:step(2)
local file, line, text = d:source()
assert(file == "scenes/triangle.lua" and line == 51 and text:find("^fmul r1, vary, ra15"), file)
local tr = d:trace()
assert(tr:find("\n    2  0x%x+  triangle.lua:51  fmul r1, vary, ra15 "), tr)

-- QPU coordinate shader (lua/vc4_shaders.lua), a coordinate run
local c = gpusim.debug {draw = 1, vertex = 0, stage = "coordinate"}
local v = gpusim.debug {draw = 1, vertex = 0}
local ci = c:info()
assert(ci.stage == "coordinate" and ci.vertex == 0 and ci.lanes == 0x7 and c:lane() == 0, ci.stage)
assert(ci.program ~= v:info().program and v:info().stage == "vertex")
assert(c:length() == 26, c:length())
src = sources(c)
assert(src[0] == "vc4_shaders.lua:20 ldi vr_setup, 0x00401a00    # read 4 rows (Xc Yc Zc Wc) from VPM row 0", src[0])
assert(src[23]:find("^vc4_shaders.lua:43 thrend"), src[23]) -- instruction 24 from 1: step 23
c:step(3); assert(c:reg("ra0") == 0) -- the write of step 2 is still staged
c:step(); assert(c:reg("ra0") == f32(-0.8), c:reg("ra0"))
for lane, xyzw in pairs {[0] = {-0.8, -0.8, 0, 1}, [1] = {0.8, -0.8, 0, 1}, [2] = {0, 0.8, 0, 1}} do
  c:step(10)
  assert(c:reg("ra0", lane) == f32(xyzw[1]) and c:reg("ra1", lane) == f32(xyzw[2]), lane)
  assert(c:reg("ra2", lane) == f32(xyzw[3]) and c:reg("r3", lane) == f32(xyzw[4]), lane)
  c:back(10)
end
assert(c:trace():find("^qpu coordinate shader 0x%x+ %(uniforms 0x%x+%), vertex 0: lane 0 of lanes 0x7, 26 steps\n"))
-- frame-wide on coordinate runs: Xc < 0 only in vertex 0 (lane 0), at step 4, in the one run
c:breakpoint {reg = "ra0", op = "<", value = 0.0, frame = true}
local hits = c:hits()
assert(#hits == 1, #hits)
assert(hits[1].invocation == 0 and hits[1].step == 4 and hits[1].lane == 0 and hits[1].vertex == 0)
c:clear()
c:breakpoint {pc = ci.program + 8 * 23, frame = true} -- thrend, in every coordinate run: one
hits = c:hits()
assert(#hits == 1 and hits[1].step == 23, #hits)
c:step(100)
assert(c:reverse() == true and c:at() == 23 and c:info().stage == "coordinate")
assert(c:continue() == false)
-- the vertex stage's runs are others (the tiles shade the vertices again): more than one
v:breakpoint {pc = v:info().program, frame = true}
assert(#v:hits() > 1, #v:hits())
local ok, err = pcall(gpusim.debug, {x = 160, y = 120, stage = "coordinate"})
assert(not ok and err:find("stage goes with {draw = K, vertex = I}"), err)
ok, err = pcall(gpusim.debug, {draw = 1, vertex = 0, stage = "binning"})
assert(not ok and err:find('stage must be "vertex" or "coordinate"'), err)
ok, err = pcall(gpusim.debug, {draw = 1, vertex = 5, stage = "coordinate"})
assert(not ok and err:find("draw 1's coordinate shader never ran a vertex of index 5"), err)

-- SASS: the pixel program (lua/sass_shaders.lua), the coordinate run of its vertex program
triangle("sass")
d = gpusim.debug {x = 160, y = 120}
src = sources(d)
assert(src[0] == "sass_shaders.lua:70 IPA.PASS R8, a[0x7c] ;         // 1/W", src[0])
assert(src[1] == "sass_shaders.lua:71 MUFU.RCP R8, R8 ;              // W", src[1])
assert(src[2] == "<asm>:3 IPA R0, a[0x80], R8 ;        // (a/w) x W", src[2])
c = gpusim.debug {draw = 1, vertex = 1, stage = "coordinate"}
assert(c:info().isa == "sass" and c:info().stage == "coordinate" and c:lane() == 1)
c:step() -- ALD.128 R0, a[0x80]: vertex 1's position
assert(c:reg("R0") == f32(0.8) and c:reg("R1") == f32(-0.8) and c:reg("R3") == f32(1.0))

-- AGX: the vertex program behind its prolog (lua/agx_shaders.lua)
triangle("agx")
d = gpusim.debug {draw = 1, vertex = 0}
src = sources(d)
for s = 0, 7 do assert(src[s] == false, s) end -- the prolog: the driver's code, no source
assert(src[8] == "agx_shaders.lua:37 st_var r8, 0  // Xc: the unit divides by W", src[8])
assert(src[11] == "agx_shaders.lua:40 st_var r11, 3  // Wc", src[11])
assert(src[12] == "<asm>:6 st_var r12, 4", src[12])
assert(src[15] == "<asm>:9 stop", src[15])
tr = d:trace()
assert(tr:find("\n    8  0x0000         agx_shaders.lua:37  st_var +r8, 0"), tr) -- pcs padded to the prolog's
-- its coordinate run: the coordinate shader loads the position only
-- (coordinate_inputs), so its prolog is the position's csel, imul, load (8
-- bytes each) and the wait (2): 0x1a bytes, 4 steps
c = gpusim.debug {draw = 1, vertex = 2, stage = "coordinate"}
assert(c:info().stage == "coordinate" and c:lane() == 2 and c:pc() == -0x1a, c:pc())
c:breakpoint {pc = 0}
assert(c:continue() == true and c:at() == 4) -- past the prolog: vertex 2's x, y, z, w loaded
assert(c:reg("r8") == f32(0.0) and c:reg("r9") == f32(0.8) and c:reg("r11") == f32(1.0))
assert(sources(c)[4] == "agx_shaders.lua:37 st_var r8, 0  // Xc: the unit divides by W")

-- PICA200: the vertex shader (lua/pica_shaders.lua), the word index as pc
triangle("pica:qpu")
d = gpusim.debug {draw = 1, vertex = 0}
src = sources(d)
assert(src[0] == "pica_shaders.lua:33 mov outpos, inpos        ; Xc Yc Zc Wc: the unit divides by W", src[0])
assert(src[1] == "<asm>:9 mov outvary, invary", src[1])
assert(src[2] == "<asm>:10 end", src[2])
c = gpusim.debug {draw = 1, vertex = 1, stage = "coordinate"}
assert(c:info().isa == "pica" and c:info().stage == "coordinate" and c:lane() == 1)
assert(sources(c)[0]:find("^pica_shaders.lua:33 mov outpos"))

-- raw words: ldi tlb_colour_all, 0xff00ff00; thrend; nop; sbdone, encoded by
-- hand (RG §3): load immediate (sig 14, cond_add always, waddr_add 46 =
-- tlb_colour_all, waddr_mul 39 = nop), then the nop (sig 1, waddr 39, raddr
-- 39) with the program-end (3) and scoreboard-unlock (5) signals
local nop = 0x100009e7009e7000
local raw = string.pack("<i8<i8<i8<i8", 14 << 60 | 1 << 49 | 46 << 38 | 39 << 32 | 0xff00ff00,
                        nop & ~(0xf << 60) | 3 << 60, nop, nop & ~(0xf << 60) | 5 << 60)
assert(gpusim.disasm("qpu", raw):find("ldi tlb_colour_all, 0xff00ff00"), gpusim.disasm("qpu", raw))
local function solid(fragment, blend)
  local vertices = gpusim.buffer {format = {"f32x4"}, data = {{-1, -1, 0, 1}, {3, -1, 0, 1}, {-1, 3, 0, 1}}}
  local vc4 = require "vc4_shaders"
  local shader = gpusim.shader {coordinate = vc4.coordinate, vertex = vc4.vertex(0), fragment = fragment,
                                inputs = {{name = "position", components = 4}}, coordinate_inputs = {"position"}}
  local target = gpusim.target {width = 8, height = 8, format = "rgba8888"}
  gpusim.frame(function(frame)
    if blend then frame:state {blend = blend} end
    frame:draw {mode = "triangles", vertices = vertices, shader = shader,
                uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}}
  end, target)
  gpusim.render()
  return gpusim.debug {x = 2, y = 2}
end
d = solid {binary = raw}
assert(d:line() == "ldi tlb_colour_all, 0xff00ff00", d:line())
for s = 0, d:length() do
  assert(d:source() == nil, s)
  d:step()
end
tr = d:trace()
assert(tr:find("\n    0  0x%x+  ldi tlb_colour_all, 0xff00ff00\n"), tr) -- no source column
-- the same program assembled by gpusim.asm from this file's text: found by
-- its bytes; the text's first line is two below this (Lua's own count)
local here = debug.getinfo(1, "l").currentline
local text = [[
    ldi tlb_colour_all, 0xff00ff00
    thrend
    nop
    sbdone
]]
local bytes = gpusim.asm("qpu", text)
assert(bytes == raw)
d = solid {binary = bytes}
file, line, text = d:source()
assert(base(file) == "debug_source.lua" and line == here + 2 and text == "ldi tlb_colour_all, 0xff00ff00", line)
d:step(3)
file, line = d:source()
assert(line == here + 5, line) -- sbdone
-- blending: the QPU has no blend unit, the driver links blend code into a
-- variant of the program in place of its colour write (docs/blending.md);
-- the variant begins with the original's ldi, which keeps its line, and the
-- linked code after it (from step 1) is not the scene's: no source
here = debug.getinfo(1, "l").currentline
local blended = [[
    ldi r0, 0xff00ff00
    mov tlb_colour_all, r0
    thrend
    nop
    sbdone
]]
d = solid({source = blended}, "add")
assert(d:line() == "ldi r0, 0xff00ff00", d:line())
file, line = d:source()
assert(base(file) == "debug_source.lua" and line == here + 2, line)
assert(d:length() > 5, d:length()) -- the linked code is longer than the original
for s = 1, d:length() do
  d:step()
  assert(d:source() == nil, s)
end
tr = d:trace()
assert(tr:find("\n    0  0x%x+  debug_source.lua:%d+  ldi r0, 0xff00ff00") and tr:find("\n    1  0x%x+   +%a"), tr)
print("debug_source: ok")
