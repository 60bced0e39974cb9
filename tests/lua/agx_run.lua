-- agx_run.lua — gpusim.agx.run: one Apple AGX SIMD group run alone.
--
-- Every expected value is worked out by hand (comments); operands are
-- chosen so that each step is exact in binary32. Both interpreters run
-- every program and must agree.
local gpusim = require "gpusim"
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

local function fbits(x) return (string.unpack("<I4", string.pack("<f", x))) end

-- Runs t with both interpreters; returns the fast result after checking
-- that the reference gives the same registers, outputs and count.
local function run(t)
  t.interpreter = "fast"
  local f = gpusim.agx.run(t)
  t.interpreter = "reference"
  local r = gpusim.agx.run(t)
  assert(f.instructions == r.instructions and f.exec == r.exec)
  for l = 1, #f.lanes do
    for n = 0, 127 do assert(f.lanes[l].r[n] == r.lanes[l].r[n]) end
    for w, v in pairs(r.lanes[l].uvs_bits or {}) do assert(f.lanes[l].uvs_bits[w] == v) end
  end
  return f
end

-- A vertex program: word 0 = x * 3 + 0.5, word 1 = y * 3 + 0.5 (ffma),
-- word 4 = the vertex id (r5) as raw bits, the final store carrying last.
local vs = gpusim.asm("agx", [[
  fmul r0, r8, u0
  fadd r0, r0, u1
  ffma r1, r9, u0, u1
  st_var r0, 0
  st_var r1, 1
  st_var r5, 4, last
  stop
]])
local r = run{program = vs, stage = "vertex",
              registers = {[5] = {7, 8}, r8 = {1.0, -1.0}, [9] = {2.0, 0.5}},
              uniforms = {[0] = 3.0, [1] = 0.5}}
assert(#r.lanes == 2 and r.present == 3 and r.exec == 3)
-- lane 0: 1*3 + 0.5 = 3.5, 2*3 + 0.5 = 6.5; lane 1: -3 + 0.5 = -2.5, 1.5 + 0.5 = 2
local want = {{3.5, 6.5, 7}, {-2.5, 2.0, 8}}
for l = 1, 2 do
  local ln = r.lanes[l]
  assert(ln.uvs[0] == want[l][1] and ln.uvs[1] == want[l][2], string.format("lane %d: %s %s", l, ln.uvs[0], ln.uvs[1]))
  assert(ln.uvs_bits[0] == fbits(want[l][1]))
  assert(ln.uvs_bits[4] == want[l][3])   -- the id, raw
  assert(ln.uvs[2] == nil and ln.uvs[3] == nil) -- never stored
  assert(ln.r[0] == fbits(want[l][1]) and ln.r.r0 == ln.r[0] and ln.f[1] == want[l][2])
end
assert(r.instructions == 7 and r.stopped)
-- registers by name: r0 = 3.5 = 0x40600000, so r0l = 0 (the counter, also r.lanes[1].r0l) and r0h = 0x4060
assert(r.lanes[1].r.r0h == 0x4060 and r.lanes[1].r.r0l == 0 and r.lanes[1].r0l == 0)
-- a vertex lane that never ends its varyings is refused
fails({"agx.run", "vertex lane 0", "st_var"}, gpusim.agx.run,
      {program = gpusim.asm("agx", "st_var r0, 0\nstop\n"), stage = "vertex"})
-- an inactive lane runs nothing and needs no last store: lane 1 inactive
r = run{program = gpusim.asm("agx", "st_var r5, 0, last\nstop\n"), stage = "vertex", lanes = 2, active = 1,
        registers = {[5] = {11, 12}}}
assert(r.lanes[1].uvs_bits[0] == 11 and r.lanes[2].uvs_bits[0] == nil and r.lanes[2].active == false)

-- A fragment program: iter interpolates cf0 and cf1 at the pixel centre
-- relative to its 32 x 32 tile (sr80/sr81 give the pixel); colour 0 is
-- r4..r7, depth r2, stencil r3l, sample mask r3h (the epilog's ABI).
local fs = gpusim.asm("agx", [[
  iter r4_r5, cf0
  fmul r6, r4, 0.5
  fadd r7, r5.neg, 1.0
  fmul r2, r5, 0.125
  ldimm r3l, 66
  ldimm r3h, 15
  stop
]])
r = run{program = fs, stage = "fragment", sr = {[80] = {3, 40}, [81] = {1, 2}},
        cf = {[0] = {0.5, 0.25, 1.0}, [1] = {1.0, -1.0, 0.0}}}
-- lane 0, pixel (3, 1): x = 3.5, y = 1.5: cf0 = 1.75 + 0.375 + 1 = 3.125, cf1 = 3.5 - 1.5 = 2
-- lane 1, pixel (40, 2): x = 40 mod 32 + 0.5 = 8.5, y = 2.5: cf0 = 4.25 + 0.625 + 1 = 5.875, cf1 = 6
local col = {{3.125, 2.0, 1.5625, -1.0}, {5.875, 6.0, 2.9375, -5.0}}
local depth = {0.25, 0.75}
for l = 1, 2 do
  local c = r.lanes[l].colour[0]
  for k = 1, 4 do assert(c[k] == col[l][k], string.format("lane %d colour %d: %s", l, k, c[k])) end
  assert(r.lanes[l].depth == depth[l] and r.lanes[l].stencil == 66 and r.lanes[l].sample_mask == 15)
  assert(r.lanes[l].killed == 0 and r.lanes[l].zs_depth == nil)
end
-- without the pixel, iter names its pc and the special register
fails({"pc 0x0000", "sr80"}, gpusim.agx.run, {program = fs, stage = "fragment", cf = {[0] = {0, 0, 0}}})

-- Nested if/else through r0l over four lanes, r1l = 0, 1, 2, 3.
-- r0l per lane after each exec-stack instruction (docs/agx-run.md's rules):
--   if r1l < 2, 1         0 0 1 1
--   if r1l == 0, 1        0 1 2 2   (lanes 2, 3 inactive: r0l + 1)
--   else (always), 1      1 0 2 2   (r0l = 0 -> 1; r0l = 1 -> 0; 2 kept)
--   pop_exec 1            0 0 1 1
--   else (always), 1      1 1 0 0
--   pop_exec 1            0 0 0 0
local nest = [[
  ldimm r0l, 0
  if r1l, 2, 1, ult
    if r1l, 0, 1, ieq
      ldimm r2, 100
    else 0.0, 0.0, 1, feq
      ldimm r2, 200
    pop_exec 1
    iadd r3, r2, 1
  else 0.0, 0.0, 1, feq
    ldimm r2, 300
  pop_exec 1
  stop
]]
r = run{source = nest, registers = {r1l = {0, 1, 2, 3}}}
local r2, r3 = {100, 200, 300, 300}, {101, 201, 0, 0}
for l = 1, 4 do
  assert(r.lanes[l].r[2] == r2[l] and r.lanes[l].r[3] == r3[l], string.format("lane %d: %d %d", l, r.lanes[l].r[2], r.lanes[l].r[3]))
  assert(r.lanes[l].r0l == 0 and r.lanes[l].active)
end
assert(r.exec == 0xf and r.instructions == 12)
-- stopping inside the inner if: remove everything after the inner ldimm r2, 100
r = run{source = "ldimm r0l, 0\nif r1l, 2, 1, ult\nif r1l, 0, 1, ieq\nstop\n", registers = {r1l = {0, 1, 2, 3}}}
assert(r.exec == 0x1 and r.lanes[1].r0l == 0 and r.lanes[2].r0l == 1 and r.lanes[3].r0l == 2 and r.lanes[4].r0l == 2)

-- Memory through the flat callback: store r1 at du0 + 4 * r2 for each lane.
r = run{source = "store r1, du0, r2, i32, x, a\nstop\n", registers = {[1] = {0x11223344, 0x55667788}, [2] = {1, 3}},
        uniforms = {[0] = 0x1000, [1] = 0}, memory = {base = 0x1000, size = 16}}
assert(r.memory == string.pack("<I4I4I4I4", 0, 0x11223344, 0, 0x55667788))
fails({"pc 0x0000", "lane 1", "outside memory"}, gpusim.agx.run,
      {source = "store r1, du0, r2, i32, x, a\nstop\n", registers = {[2] = {1, 4}}, uniforms = {[0] = 0x1000},
       memory = {base = 0x1000, size = 16}})

-- Errors name the pc (or the byte offset, or the source line).
fails({"agx.run", "pc 0x0004", "trap"}, gpusim.agx.run, {source = "ldimm r0l, 0\ntrap\n"})
fails({"pc 0x0004", "trap"}, gpusim.agx.run, {source = "ldimm r0l, 0\ntrap\n", interpreter = "reference"})
fails({"pc 0x0000", "r4l", "declared register count"}, gpusim.agx.run, {source = "fadd r4, r1, r2\nstop\n", nregs = 8})
fails({"byte offset 0x0004"}, gpusim.agx.run, {program = gpusim.asm("agx", "ldimm r0l, 0\nstop\n"):sub(1, 5)})
fails({"agx.run:2:"}, gpusim.agx.run, {source = "stop\nfadd r0, r1, 0.3\n"})
fails({"program", "source"}, gpusim.agx.run, {})
fails({"lanes 33"}, gpusim.agx.run, {source = "stop\n", lanes = 33})
fails({"key", "not a register"}, gpusim.agx.run, {source = "stop\n", registers = {r200 = 1}})
fails({"interpreter 'slow'"}, gpusim.agx.run, {source = "stop\n", interpreter = "slow"})

-- A float given to a half is binary16: 1.5 = 0 01111 1000000000 = 0x3e00; an integer is raw bits.
r = gpusim.agx.run{source = "stop\n", registers = {r3h = 1.5, r3l = 0x1234, [4] = 0.5}}
assert(r.lanes[1].r.r3h == 0x3e00 and r.lanes[1].r[3] == 0x3e001234 and r.lanes[1].r[4] == 0x3f000000)
assert(r.instructions == 1 and #r.lanes == 1)
fails({"gpusim.agx.run: uniforms: index 256 is not 0..255"}, gpusim.agx.run, {source = "stop\n", uniforms = {[256] = 1}})
fails({"field 'cf' as a table"}, gpusim.agx.run, {source = "stop\n", cf = 3})
