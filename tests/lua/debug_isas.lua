-- debug_isas.lua — gpusim.debug in every ISA (docs/debugger.md).
-- 1. scenes/triangle.lua (320x240; vertices (-0.8, -0.8) red, (0.8, -0.8)
--    green, (0, 0.8) blue, w = 1) with SASS and AGX pixel programs: pixel
--    (160, 120) from the top-left is the pipeline's (160, 119), centre
--    (160.5, 119.5); the screen vertices are (32, 24), (288, 24), (160, 216),
--    so its colour is the barycentric mix, computed here in double, and the
--    registers after each step are those values, 1/W = W = 1 and alpha 1.0.
--    The PICA200 vertex shader (pica:qpu) through {draw = 1, vertex = I}:
--    mov o0, v0 puts vertex I's position in float24, whose 16 fraction bits
--    are binary32's top 16 (the loader truncates: bits & 0xffffff80).
-- 2. Random straight-line programs of each ISA, 40-90 instructions (past two
--    keyframes of the recording): the digest at every step on the way
--    forward equals the digest on the way back, one step and many at a
--    time, and a fresh capture stepped to k has the digest of the first
--    stepped to m and back m - k.
local gpusim = require "gpusim"

local function f32(x) return string.unpack("<I4", string.pack("<f", x)) end
local function near(bits, want, what)
  local got = string.unpack("<f", string.pack("<I4", bits))
  assert(math.abs(got - want) <= 2e-6, ("%s: got %.9g, want %.9g"):format(what, got, want))
end

-- barycentric weights of p in triangle a, b, c
local function bary(p, a, b, c)
  local function cross(o, u, v) return (u[1] - o[1]) * (v[2] - o[2]) - (u[2] - o[2]) * (v[1] - o[1]) end
  local area = cross(a, b, c)
  return cross(p, b, c) / area, cross(p, c, a) / area, cross(p, a, b) / area
end
local red, green, blue = bary({160.5, 119.5}, {32, 24}, {288, 24}, {160, 216})

local function triangle(isas)
  assert(loadfile("scenes/triangle.lua"))(isas)
  gpusim.render()
end

-- SASS: IPA.PASS R8 (1/W), MUFU.RCP R8, IPA R0-R2, MOV32I R3, EXIT
triangle("sass")
local d = gpusim.debug {x = 160, y = 120}
assert(d:info().isa == "sass" and d:length() == 7, d:length())
assert(d:line() == "IPA.PASS R8, a[0x7c] ;", d:line())
d:step(); assert(d:reg("R8") == f32(1.0))
d:step(); assert(d:reg("R8") == f32(1.0) and d:line():find("^IPA R0"))
d:step(3)
near(d:reg("R0"), red, "R0"); near(d:reg("R1"), green, "R1"); near(d:reg("R2"), blue, "R2")
assert(d:reg("R3") == 0)
d:step(); assert(d:reg("R3") == f32(1.0) and d:line() == "EXIT ;")
assert(d:reg("active") == 0xffff and d:reg("exited") == 0) -- the 16 lanes of the block run
d:step(); assert(d:reg("exited") == 0xffff and d:reg("active") == 0 and d:line() == nil)
assert(d:reg("P0") == 0 and d:reg("CC") == 0 and d:reg("RZ") == 0)
d:back(7); assert(d:reg("R0") == 0 and d:at() == 0)

-- AGX: iter r4_r5_r6, cf1, cf0; ldimm r7, 1.0; stop
triangle("agx")
d = gpusim.debug {x = 160, y = 120}
assert(d:info().isa == "agx" and d:length() == 3, d:length())
assert(d:line():find("^iter%s+r4_r5_r6, cf1, cf0"), d:line())
d:step()
near(d:reg("r4"), red, "r4"); near(d:reg("r5"), green, "r5"); near(d:reg("r6"), blue, "r6")
assert(d:reg("r4l") == d:reg("r4") & 0xffff and d:reg("r4h") == d:reg("r4") >> 16)
assert(d:reg("exec") == 0xffff and d:reg("stopped") == 0)
d:step(); assert(d:reg("r7") == f32(1.0))
d:step(); assert(d:reg("stopped") == 1 and d:line() == nil)

-- AGX vertex shader: the unit runs the vertex prolog linked in front of it
-- (docs/agx-unit.md lists the triangle's: 8 instructions, the last a 2-byte
-- wait at 0x36, so 0x38 bytes). pcs count the user's program: the prolog's
-- run from -0x38, its line says "prolog+0x..", the program starts at pc 0
-- after 8 steps with st_var r8, 0 (st_var x, y, z, w, r, g, b; stop).
d = gpusim.debug {draw = 1, vertex = 0}
assert(d:info().isa == "agx" and d:length() == 16, d:length())
assert(d:pc() == -0x38 and d:line():find("^prolog%+0x0000: csel "), d:pc() .. " " .. d:line())
d:breakpoint {pc = 0}
d:continue(); assert(d:at() == 8 and d:pc() == 0 and d:line():find("^st_var%s+r8, 0$"), d:at() .. " " .. d:line())
d:clear(); d:breakpoint {pc = -0x10}
d:reverse(); assert(d:at() == 5 and d:pc() == -0x10 and d:line():find("^prolog%+0x0028: load "), d:at())
d:step(10); assert(d:at() == 15 and d:pc() == 0x1c and d:line() == "stop", d:line())
local tr = d:trace()
-- (the pcs padded to the prolog's, then the source column: docs/debugger.md)
assert(tr:find("\n    7  prolog%+0x0036  +wait ") and tr:find("\n    8  0x0000         agx_shaders.lua:37  st_var ") and
       tr:find("\n   15  0x001c         <asm>:9             stop "), tr)
-- Frame-wide breakpoints on a debugger opened on a vertex cover the frame's
-- vertex-stage runs (the tiles each run the batch again; d:info().invocation
-- counts them from 0, and vertex 0's last run is the last of all). Every run
-- reaches pc 0x18 (st_var r14, 6) after the 8 prolog steps and 6 st_var, in
-- its first lane (vertex 0); r8 (position x: -0.8, 0.8, 0.0) becomes > 0.5
-- only in lane 1 (vertex 1), at step 3, the state after the first load.
d:clear()
local last = d:info().invocation
d:breakpoint {pc = 0x18, frame = true}
local vh = d:hits()
assert(#vh == last + 1, #vh .. " " .. last)
for i, h in ipairs(vh) do
  assert(h.invocation == i - 1 and h.step == 14 and h.lane == 0 and h.vertex == 0 and h.x == nil, i)
end
d:clear()
d:breakpoint {reg = "r8", op = ">", value = 0.5, frame = true}
vh = d:hits()
assert(#vh == last + 1 and vh[1].step == 3 and vh[1].lane == 1 and vh[1].vertex == 1, #vh)
d:back(100)
assert(d:reverse() == true and d:info().invocation == last - 1 and d:at() == 3 and d:lane() == 1)
assert(d:info().vertex == 1 and d:reg("r8") == f32(0.8) and d:pc() == -0x20)
assert(d:continue() == true and d:info().invocation == last and d:at() == 3 and d:lane() == 1)
assert(d:continue() == false and d:at() == 16)
d:clear()


-- PICA200 vertex shader: mov o0, v0; mov o1, v1; end — every lane a vertex
triangle("pica:qpu")
local pos = {{-0.8, -0.8}, {0.8, -0.8}, {0.0, 0.8}}
for i = 0, 2 do
  local v = gpusim.debug {draw = 1, vertex = i}
  assert(v:info().isa == "pica" and v:info().stage == "vertex" and v:lane() == i and v:length() == 3)
  assert(v:line() == "mov o0, v0", v:line())
  v:step()
  for l = 0, 2 do
    assert(v:reg("o0.x", l) == f32(pos[l + 1][1]) & 0xffffff80, l)
    assert(v:reg("o0.y", l) == f32(pos[l + 1][2]) & 0xffffff80, l)
    assert(v:reg("o0.w", l) == f32(1.0) and v:reg("o1.w", l) == 0, l)
  end
  v:step()
  assert(v:reg("o1.x") == (i == 0 and f32(1.0) or 0) and v:reg("o1.z") == (i == 2 and f32(1.0) or 0))
  assert(v:reg("o1.w") == f32(1.0)) -- an input's w is 1 when the buffer gives x y z
  v:step()
  assert(v:line() == nil and v:reg("aL") == 0 and v:reg("call.depth") == 0)
end

-- ---- random programs ----
local rng = 12345
local function rand(n) rng = (rng * 1103515245 + 12345) % 2147483648; return rng % n end

local gen = {
  qpu = function()
    local ops = {"add", "sub", "and", "or", "xor", "shl", "shr", "asr", "min", "max", "fadd", "fsub", "fmin", "fmax"}
    local t = {}
    for _ = 1, 40 + rand(50) do
      local k = rand(10)
      if k == 0 then t[#t + 1] = ("ldi r%d, 0x%08x"):format(rand(4), rand(2147483647) * 2 + rand(2))
      elseif k == 1 then t[#t + 1] = ("fmul r%d, r%d, r%d"):format(rand(4), rand(4), rand(4))
      elseif k == 2 then t[#t + 1] = ("mov r%d, elem_num"):format(rand(4))
      else t[#t + 1] = ("%s%s r%d, r%d, r%d"):format(ops[1 + rand(#ops)], rand(3) == 0 and ".setf" or "", rand(4), rand(4), rand(4)) end
    end
    t[#t + 1] = "mov tlb_colour_all, r0\nthrend\nnop\nsbdone"
    return table.concat(t, "\n")
  end,
  sass = function()
    local ops = {"IADD", "FADD", "FMUL", "LOP.AND", "LOP.OR", "LOP.XOR", "FMNMX"}
    local t = {}
    for _ = 1, 40 + rand(50) do
      local k = rand(8)
      if k == 0 then t[#t + 1] = ("MOV32I R%d, 0x%08x ;"):format(rand(8), rand(2147483647))
      elseif k == 1 then t[#t + 1] = ("IPA.PASS R%d, a[0x7c] ;"):format(rand(8))
      else
        local op = ops[1 + rand(#ops)]
        t[#t + 1] = ("%s R%d, R%d, R%d%s ;"):format(op, rand(8), rand(8), rand(8), op == "FMNMX" and ", PT" or "")
      end
    end
    t[#t + 1] = "EXIT ;"
    return table.concat(t, "\n")
  end,
  agx = function()
    local ops = {"fadd", "fmul", "iadd", "isub"}
    local t = {}
    for _ = 1, 40 + rand(50) do
      if rand(5) == 0 then t[#t + 1] = ("ldimm r%d, %d"):format(4 + rand(4), rand(2147483647))
      else t[#t + 1] = ("%s r%d, r%d, r%d"):format(ops[1 + rand(#ops)], 4 + rand(4), 4 + rand(4), 4 + rand(4)) end
    end
    t[#t + 1] = "stop"
    return table.concat(t, "\n")
  end,
  pica = function()
    local ops = {"add", "mul", "max", "min", "dp4", "dp3"}
    local t = {}
    for _ = 1, 40 + rand(50) do
      if rand(5) == 0 then t[#t + 1] = ("    mov r%d, v%d"):format(rand(6), rand(2))
      else t[#t + 1] = ("    %s r%d, r%d, r%s"):format(ops[1 + rand(#ops)], rand(6), rand(6), rand(6)) end
    end
    return ([[
.out outpos position
.out outvary color.rgb
.proc main
    mov outpos, v0
    mov outvary, v1
%s
    end
.end
]]):format(table.concat(t, "\n"))
  end,
}

local vc4 = require "vc4_shaders"
local target = gpusim.target {width = 16, height = 16, format = "rgba8888"}
local vertices = gpusim.buffer {format = {"f32x4", "f32x3"},
  data = {{-0.9, -0.9, 0, 1, 1, 0, 0}, {0.9, -0.9, 0, 1, 0, 1, 0}, {0, 0.9, 0, 1, 0, 0, 1}}}
local qpu_colour = vc4.colour3
local vertex_of = {qpu = vc4.vertex(0), sass = require("sass_shaders").vertex(3), agx = require("agx_shaders").vertex(3)}

local function random_scene(isa, src)
  local shader
  if isa == "pica" then
    shader = gpusim.shader {vertex = {isa = "pica", source = src}, fragment = {isa = "qpu", source = qpu_colour},
      inputs = {{name = "position", components = 4}, {name = "color", components = 3}},
      varyings = {{name = "color", components = 3, interpolation = "perspective"}}}
  else
    shader = gpusim.shader {coordinate = isa == "qpu" and vc4.coordinate or nil,
      vertex = {isa = isa, source = vertex_of[isa]}, fragment = {isa = isa, source = src},
      inputs = {{name = "position", components = 4}, {name = "color", components = 3}},
      coordinate_inputs = isa == "qpu" and {"position"} or nil,
      varyings = isa ~= "qpu" and {{name = "color", components = 3, interpolation = "perspective"}} or nil}
  end
  gpusim.frame(function(frame)
    frame:clear {color = {0, 0, 0, 1}}
    frame:draw {mode = "triangles", vertices = vertices, shader = shader,
                uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}}
  end, target)
  gpusim.render()
end

for _, isa in ipairs {"qpu", "sass", "agx", "pica"} do
  for _ = 1, 3 do
    random_scene(isa, gen[isa]())
    local function open()
      if isa == "pica" then return gpusim.debug {draw = 1, vertex = 1} end
      return gpusim.debug {x = 8, y = 8}
    end
    d = open()
    local n = d:length()
    assert(n >= 40, isa .. ": " .. n)
    local fwd = {[0] = d:hash()}
    for s = 1, n do assert(d:step() == 1); fwd[s] = d:hash() end
    assert(d:step() == 0)
    for s = n - 1, 0, -1 do assert(d:back() == 1); assert(d:hash() == fwd[s], isa .. " step " .. s) end
    local changed = 0
    for s = 1, n do if fwd[s] ~= fwd[s - 1] then changed = changed + 1 end end
    assert(changed >= n // 2, isa .. ": the digest changes with the state") -- (most steps write a register)
    for _ = 1, 5 do
      local k = rand(n + 1)
      local m = k + rand(n - k + 1)
      d:back(n); d:step(m); assert(d:back(m - k) == m - k and d:at() == k)
      local fresh = open()
      fresh:step(k)
      assert(fresh:hash() == d:hash() and fresh:hash() == fwd[k], isa .. ": fresh run at " .. k)
    end
  end
end
print("debug_isas: ok")
