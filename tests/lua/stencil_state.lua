-- stencil_state.lua — frame:state{stencil = ...}: the driver writes the
-- TLB_STENCIL_SETUP words before the program's Z write, or adds
-- `mov tlb_z, rb15` before the colour write of a program without one
-- (docs/blending.md). A sequence of overlapping quads — front and back
-- facing, with and without a depth test — exercises every function and
-- operation, both faces, a value mask and write masks that are not one of
-- the four codes. The stencil and depth buffers are modelled here from GL's
-- definitions (test passes where (ref & mask) func (stencil & mask); the
-- fail, z-fail or z-pass operation; only the write mask's bits change), and
-- two frames are compared pixel by pixel, tolerance 0: the colours the
-- draws leave, and then the stencil values themselves, made visible by one
-- more full-target draw per value with func "equal".
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"
package.path = "tests/lua/lib/?.lua;" .. package.path
local mem = gpusim.mem

local W, H = 64, 64
local target = gpusim.target {width = W, height = H, depth = true}
local VIEWPORT = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}

-- The program writes no Z: with stencil on, the driver adds the Z write.
local shader = gpusim.shader {
  isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0),
  fragment = "mov tlb_colour_all, unif\nthrend\nnop\nsbdone\n",
  inputs = {{name = "position", components = 4}},
}

-- Quads {x0, y0, x1, y1} in pixels at clip depth z; `back` reverses the
-- winding, so the quad faces away (front faces are counter-clockwise).
local quads, data = {}, {}
local function quad(r, z, back)
  local x0, y0, x1, y1 = r[1] / 32 - 1, r[2] / 32 - 1, r[3] / 32 - 1, r[4] / 32 - 1
  local vs = back and {{x1, y0}, {x0, y0}, {x1, y1}, {x0, y1}} or {{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}}
  for _, v in ipairs(vs) do data[#data + 1] = {v[1], v[2], z, 1} end
  quads[#quads + 1] = {rect = r, z = z, back = back, first = #data - 4}
  return #quads
end

-- The draws: a quad, its state, its colour word (bytes R G B A).
local draws = {
  {quad({8, 8, 40, 40}, 0), {depth_test = "less", stencil = {func = "always", zpass = "incr"}}, 0xff0000c0},
  {quad({24, 24, 56, 56}, 0.5), {stencil = {func = "lequal", ref = 3, fail = "invert", zfail = "incr_wrap",
                                            zpass = "zero"}}, 0xff00c000},
  {quad({0, 32, 32, 64}, -0.5), {stencil = {func = "notequal", ref = 5, mask = 7, fail = "decr", zfail = "keep",
                                            zpass = "invert", write_mask = 0x06}}, 0xffc00000},
  {quad({40, 0, 64, 24}, 0, true), {depth_test = false, stencil = {func = "gequal", ref = 3, zpass = "decr",
      back = {func = "greater", ref = 200, fail = "incr", zpass = "replace", write_mask = 0x0f}}}, 0xff808080},
  {quad({48, 44, 64, 64}, 0), {stencil = {func = "never", fail = "decr_wrap"}}, 0xff404040},
  {quad({16, 16, 48, 48}, 0.9), {depth_test = "less", stencil = {func = "greater", ref = 4, zfail = "decr",
                                                                 zpass = "incr"}}, 0xff00ffff},
  {quad({0, 0, 32, 64}, 0), {depth_test = false, stencil = {func = "less", ref = 2, fail = "zero",
                                                           zpass = "incr_wrap"}}, 0xffff00ff},
}
local full = quad({0, 0, 64, 64}, 0)
local left = quad({0, 0, 32, 64}, 0)   -- for the branch test at the end
local vertices = gpusim.buffer {format = "f32x4", data = data}
local CLEAR_STENCIL = 3

-- ---- the model ------------------------------------------------------------------

local function compare(func, a, b)
  if func == "never" then return false elseif func == "less" then return a < b
  elseif func == "equal" then return a == b elseif func == "lequal" then return a <= b
  elseif func == "greater" then return a > b elseif func == "notequal" then return a ~= b
  elseif func == "gequal" then return a >= b else return true end
end

local function operate(op, s, ref)
  if op == "zero" then return 0 elseif op == "replace" then return ref
  elseif op == "incr" then return math.min(s + 1, 255) elseif op == "decr" then return math.max(s - 1, 0)
  elseif op == "invert" then return ~s & 255 elseif op == "incr_wrap" then return (s + 1) & 255
  elseif op == "decr_wrap" then return (s - 1) & 255 else return s end
end

-- A face of a stencil table, fields left out as the state defines them
-- (the back face takes the front's).
local function face(st, back)
  local f = {func = "always", ref = 0, mask = 255, write_mask = 255, fail = "keep", zfail = "keep", zpass = "keep"}
  for k in pairs(f) do if st[k] ~= nil then f[k] = st[k] end end
  if back and st.back then
    for k in pairs(f) do if st.back[k] ~= nil then f[k] = st.back[k] end end
  end
  return f
end

local function inside(r, x, y) return x >= r[1] and x < r[3] and y >= r[2] and y < r[4] end

-- Runs the draws over the model; returns colour and stencil per pixel.
local function model(list)
  local colour, stencil, depth = {}, {}, {}
  for i = 0, W * H - 1 do colour[i], stencil[i], depth[i] = 0xff000000, CLEAR_STENCIL, 1.0 end
  local depth_test = false
  for _, d in ipairs(list) do
    local q, st = quads[d[1]], d[2]
    if st.depth_test ~= nil then depth_test = st.depth_test end
    local f = face(st.stencil, q.back)
    local z = q.z * 0.5 + 0.5
    for y = 0, H - 1 do
      for x = 0, W - 1 do
        if inside(q.rect, x, y) then
          local i = y * W + x
          local s, pass, ns = stencil[i], false, nil
          if not compare(f.func, f.ref & f.mask, s & f.mask) then
            ns = operate(f.fail, s, f.ref)
          else
            local zpass = not depth_test or z < depth[i]
            ns = operate(zpass and f.zpass or f.zfail, s, f.ref)
            if zpass and depth_test then depth[i] = z end
            pass = zpass
          end
          stencil[i] = (s & ~f.write_mask) | (ns & f.write_mask)
          if pass then colour[i] = d[3] end
        end
      end
    end
  end
  return colour, stencil
end

-- ---- rendering -------------------------------------------------------------------

local function render(list, threads)
  gpusim.frame(function(frame)
    frame:clear {color = {0, 0, 0, 1}, depth = 1, stencil = CLEAR_STENCIL}
    for _, d in ipairs(list) do
      frame:state(d[2])
      frame:draw {mode = "strip", vertices = vertices, first = quads[d[1]].first, count = 4, shader = shader,
                  uniforms = {vertex = VIEWPORT, fragment = {{u32 = d[3]}}}}
    end
  end, target)
  local f = gpusim.render {threads = threads}
  return mem.read(f.framebuffer, "u32", W * H)
end

local function compare_image(what, got, want)
  for i = 0, W * H - 1 do
    if got[i + 1] ~= want[i] then
      error(string.format("%s: pixel (%d, %d) is 0x%08x, the model gives 0x%08x", what, i % W, i // W,
                          got[i + 1], want[i]))
    end
  end
end

-- Frame 1: the colours the draws leave where their tests passed.
local colour, stencil = model(draws)
compare_image("colours", render(draws, 2), colour)

-- Frame 2: the same draws, then one draw per stencil value v, painting
-- where the stencil equals v (func "equal", keep) in a colour made of v.
local values, seen = {}, {}
for i = 0, W * H - 1 do
  if not seen[stencil[i]] then seen[stencil[i]] = true; values[#values + 1] = stencil[i] end
end
table.sort(values)
assert(#values >= 8, "the draws leave only " .. #values .. " stencil values")  -- the test covers enough
local function shade(v) return 0xff000000 | v << 8 | (v ~ 0x5a) end
local readout, want = {table.unpack(draws)}, {}
for _, v in ipairs(values) do
  readout[#readout + 1] = {full, {depth_test = false, stencil = {func = "equal", ref = v}}, shade(v)}
end
for i = 0, W * H - 1 do want[i] = shade(stencil[i]) end
compare_image("stencil values", render(readout, 1), want)

-- Hand-worked pixels: (10, 10) in A only: 3, incr (A) → 4, draw 6 (greater
-- 4 > 4 fails, keep) → 4, draw 7 (less: 2 < 4, z-pass incr_wrap) → 5.
-- (50, 50) in B and the never-quad: B: lequal 3 ≤ 3, z passes, zero → 0;
-- never: decr_wrap → 255. (50, 10), the back quad: greater 200 > 3 passes,
-- replace 200 within write mask 0x0f: (3 & 0xf0) | (200 & 0x0f) = 8.
assert(stencil[10 * W + 10] == 5 and stencil[50 * W + 50] == 255 and stencil[10 * W + 50] == 8)
-- ---- branches across the inserted code, at run time ------------------------------
-- A program with a forward branch onto its Z write (it must land on the
-- stencil words the driver puts before it), a loop, and a forward branch
-- that skips the colour write when a uniform flag is set (it must land after
-- the blend code, not inside it). Left half marked with stencil 1; then
-- draw 2 (flag 0) adds 3 × step to the left half, draw 3 (flag 1) nothing.
local branchy = gpusim.shader {
  isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0), inputs = {{name = "position", components = 4}},
  fragment = [[
    mov r0, unif                # the step
    mov r2, 0                   # the sum
    ldi r1, 3                   # loop count
    brr l_z                     # over the poison, onto the Z write
    nop
    nop
    nop
    ldi r2, -1                  # poison: never runs
l_z:
    mov tlb_z, rb15             # the driver's stencil words go before this
l_loop:
    nop ; v8adds r2, r2, r0     # sum += step, byte by byte
    sub.setf r1, r1, 1
    brr.anynz l_loop
    nop
    nop
    nop
    mov.setf -, unif            # the flag
    brr.allnz l_end             # flag set: skip the colour write and its blend code
    nop
    nop
    nop
    mov tlb_colour_all, r2
l_end:
    nop ; nop ; thrend
    nop
    sbdone
]]}
local STEP, BASE = 0x10203040, 0xff302010   -- BASE: the clear colour's word
gpusim.frame(function(frame)
  frame:clear {color = {0x10 / 255, 0x20 / 255, 0x30 / 255, 1}, stencil = 0}
  frame:state {depth_test = false, stencil = {func = "always", ref = 1, zpass = "replace"},
               color_mask = {false, false, false, false}}
  frame:draw {mode = "strip", vertices = vertices, first = quads[left].first, count = 4, shader = shader,
              uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0}}}}
  frame:state {stencil = {func = "equal", ref = 1}, color_mask = {true, true, true, true}, blend = "add"}
  for _, flag in ipairs {0, 1} do
    frame:draw {mode = "strip", vertices = vertices, first = quads[full].first, count = 4, shader = branchy,
                uniforms = {vertex = VIEWPORT, fragment = {{u32 = STEP}, {u32 = flag}}}}
  end
end, target)
local f = gpusim.render {threads = 1}
local px = mem.read(f.framebuffer, "u32", W * H)
local function adds(a, b)
  local r = 0
  for k = 0, 3 do r = r | math.min((a >> 8 * k & 255) + (b >> 8 * k & 255), 255) << 8 * k end
  return r
end
local sum = adds(adds(STEP, STEP), STEP)
assert(sum == 0x306090c0)
local blended = adds(BASE, sum)
assert(blended == 0xff90b0d0)
for i = 0, W * H - 1 do
  local want = i % W < 32 and blended or BASE
  if px[i + 1] ~= want then
    error(string.format("branchy program: pixel (%d, %d) is 0x%08x, want 0x%08x", i % W, i // W, px[i + 1], want))
  end
end

gpusim.frame(function() end, target)
print("stencil_state: ok (" .. #values .. " stencil values)")
