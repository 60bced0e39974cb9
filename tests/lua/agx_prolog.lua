-- agx_prolog.lua — the Apple AGX vertex prolog from Lua: gpusim.agx.prolog
-- builds the prolog the unit runs in front of an AGX vertex program
-- (src/isa/agx/prolog.c, docs/agx-unit.md), and an index past the end of
-- an attribute array reads element 0 with an exception, in a whole frame.
--
-- Expected text: the one-attribute vec4 prolog is the hand-built sketch of
-- Mesa's agx_nir_lower_vbo.c fetch (csel on the clamp, a load with the
-- 16-byte stride folded into lsl 2, wait), whose bytes were encoded by hand
-- from Mesa's AGX2.xml and decoded with applegpu; the triangle's follows by
-- hand from the same rules: stride 28 = 7 words, so imul; slots 0 and 1
-- of the n = 8 layout (bases du0, du2; clamps u16, u17); colour.w = 1.
local gpusim = require "gpusim"
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

local function hex(s) return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end)) end
local function lines(text)
  local out = {}
  for l in text:gmatch("[^\n]+") do out[#out + 1] = (l:gsub("%s*//.*", ""):gsub("%s+", " "):gsub("^ ", "")) end
  return table.concat(out, "\n")
end

local bytes, text = gpusim.agx.prolog {inputs = {4}, attributes = {{size = 16, stride = 16}}, slots = 1}
assert(hex(bytes) == "121d84a12400a124" .. "0541e00e00c8f200" .. "3800", hex(bytes))
assert(lines(text) == "csel r7, u2, r5, 0, r5, ult\nload r8_r9_r10_r11, du0, r7, lsl 2, i32, xyzw, a\nwait a",
       lines(text))

-- scenes/triangle.lua's vertex shader: position f32x4 and colour f32x3,
-- interleaved every 28 bytes
bytes, text = gpusim.agx.prolog {inputs = {4, 3}, attributes = {{size = 16, stride = 28}, {size = 12, stride = 28}}}
local want = [[
csel r7, u16, r5, 0, r5, ult
imul r3, r7, 7
load r8_r9_r10_r11, du0, r3, i32, xyzw, a
csel r7, u17, r5, 0, r5, ult
imul r3, r7, 7
load r12_r13_r14, du2, r3, i32, xyz, a
ldimm r15, 1065353216
wait a]]
assert(lines(text) == want, lines(text))
assert(gpusim.asm("agx", text) == bytes) -- the listing assembles back to the bytes

fails({"agx.prolog", "attribute 8"}, gpusim.agx.prolog, {inputs = {4}, attributes = {{slot = 8}}})

-- A frame: an AGX vertex program (the position from r8-r11), a QPU
-- fragment program of one colour. Four vertices: 0 (-1, -1), 1 (1, -1), 2
-- (1, 1) and 3 (1, 0) on the line from 1 to 2; the triangle 1, 2, 3 draws
-- nothing. The driver refuses indices past an array, so the lists are
-- built with 1, 2, 3 and the index buffer then made 1, 2, 9 in memory, as
-- a hand-written list could have it: vertex 9 lies past the array (4
-- elements), the robust prolog reads element 0 and the triangle 1, 2, 0
-- covers half the target; the coordinate and the vertex shader each report
-- an exception naming the index and the attribute.
local mem = gpusim.mem
local W = 64
local t = gpusim.target {width = W, height = W}
local vb = gpusim.buffer {format = "f32x4", data = {{-1, -1, 0, 1}, {1, -1, 0, 1}, {1, 1, 0, 1}, {1, 0, 0, 1}}}
local ib = gpusim.buffer {format = "u16", data = {1, 2, 3}}
local vs = "st_var r8, 0\nst_var r9, 1\nst_var r10, 2\nst_var r11, 3, last\nstop\n"
local sh = gpusim.shader {vertex = {isa = "agx", source = vs},
                          fragment = {isa = "qpu", source = "    mov tlb_colour_all, unif\n    thrend\n    nop\n    sbdone\n"},
                          inputs = {{name = "position", components = 4}}, varyings = {}}
gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 0}}
  frame:draw {vertices = vb, indices = ib, shader = sh,
              uniforms = {vertex = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
                          fragment = {{u32 = 0xff0000ff}}}}
end, t)
local f = gpusim.render {run = false}
local lists = {bin = {f.bin_start, f.bin_end}, render = {f.render_start, f.render_end}}
local function covered()
  local n = 0
  for y = 0, W - 1 do
    for x = 0, W - 1 do
      if t:pixel(x, y) == 255 then n = n + 1 end
    end
  end
  return n
end
local r = gpusim.v3d.run(lists)
assert(covered() == 0 and r.exceptions == 0, "the line 1, 2, 3 drew " .. covered())
mem.write(ib.address, "u16", {1, 2, 9})
-- the binning list's Indexed Primitive List (RG Table 33: mode, length,
-- address, maximum index) names its maximum index: raised to 9 as well
local err = fails({"INDEXED_PRIMITIVE_LIST: index 9", "exceeds max_index 3"}, gpusim.v3d.run, lists)
local packet = tonumber(err:match("(0x%x+): INDEXED_PRIMITIVE_LIST"))
assert(mem.read_bytes(packet, 1) == "\32" and mem.read_bytes(packet + 10, 4) == string.pack("<I4", 3))
mem.write_bytes(packet + 10, string.pack("<I4", 9))
r = gpusim.v3d.run(lists)
local n = covered()
-- half of 64 x 64 = 2048, give or take the diagonal's 64 pixels
assert(n >= 2048 - 64 and n <= 2048 + 64, "covered " .. n)
assert(r.exceptions == 2, "exceptions " .. r.exceptions)
assert(r.exception:find("vertex index 9 is past the end of attribute 0's array", 1, true) and
       r.exception:find("elements 0-3", 1, true) and r.exception:find("read element 0", 1, true), r.exception)
gpusim.frame(function() end, t)  -- the gpusim program renders the last callback after the script
print(string.format("agx_prolog: ok (%d pixels of the clamped triangle, %d exceptions)", n, r.exceptions))
