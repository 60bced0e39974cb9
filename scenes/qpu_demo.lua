-- qpu_demo.lua — a first QPU program: four QPUs each square 16 numbers.
--
--   make run        (or: ./build/gpusim --headless scenes/qpu_demo.lua)
--
-- The VideoCore IV has 12 QPUs; each one works on 16 lanes at once (SIMD).
-- Here each of 4 QPUs gets its own 16 floats. A QPU:
--   1. asks the TMU (texture and memory unit) to fetch one float per lane
--      straight from memory ("direct" lookup: lane i reads address in + 4*i),
--   2. squares the 16 values with one fmul,
--   3. writes them into its own row of the VPM (vertex pipe memory, a
--      scratch memory shared by the QPUs, 16 words wide),
--   4. asks the VDW (VPM DMA writer) to copy that row to memory, and waits.
-- Lua then reads the results back and checks them against its own maths.

local gpusim = require "gpusim"

local QPUS, LANES = 4, 16

-- The program. Every QPU runs the same code; what differs is the uniform
-- stream (32-bit words the program reads in order through `unif`).
-- Uniforms, in order: input address, VPM write setup, VDW setup, output address.
local source = [[
        mov r1, unif            # r1 = address of this QPU's 16 input floats
        mov r0, elem_num        # r0 = lane number 0..15
        shl r0, r0, 2           # r0 = byte offset of the lane's float (lane * 4)
        add tmu0_s, r1, r0      # TMU direct read: lane i fetches the word at in + 4*i
        nop ; nop ; ldtmu0      # wait for the TMU: r4 = the 16 fetched floats
        nop ; fmul r2, r4, r4   # the MUL ALU squares all 16 lanes at once
        mov vw_setup, unif      # VPM write setup: 32-bit words along one VPM row
        mov vpm, r2             # write the 16 squares into that row
        mov vw_setup, unif      # VDW setup: copy that row (16 words) to memory...
        mov vw_addr, unif       # ...to this address, which starts the DMA
        mov -, vw_wait          # wait until the DMA has finished
        nop ; nop ; thrend      # end of program; the two instructions after
        nop                     # thrend (its delay slots) still run
        nop
]]

-- Setup words, built the way Broadcom's VideoCore IV 3D Architecture
-- Reference Guide describes them (Tables 32 and 34; docs/v3d-units.md).
local function vpm_write_setup(row)   -- horizontal, 32-bit, stride 1, at VPM row `row`
  return 0x00001a00 | row
end
local function vdw_store_setup(row)   -- 1 row of 16 32-bit words, horizontal, from VPM row `row`
  local units, depth, horizontal = 1, 16, 1
  return 0x80000000 | units << 23 | depth << 16 | horizontal << 14 | row << 7
end

-- Assemble and load the code into GPU memory.
local binary = gpusim.asm("qpu", source, {name = "qpu_demo.s"})
local code = gpusim.qpu.load(binary)
print(string.format("assembled %d instructions, loaded at 0x%08x", #binary // 8, code))

-- Inputs: x = -8, -7.75, ..., 7.75 (multiples of 1/4, so every square is
-- exact in 32-bit floating point and Lua's double maths must agree bit for bit).
local programs, inputs, outputs = {}, {}, {}
for q = 1, QPUS do
  local x = {}
  for lane = 1, LANES do x[lane] = ((q - 1) * LANES + (lane - 1) - 32) / 4 end
  inputs[q] = gpusim.mem.alloc(4 * LANES)
  outputs[q] = gpusim.mem.alloc(4 * LANES)
  gpusim.mem.write(inputs[q], "f32", x)
  local uniforms = gpusim.mem.alloc(4 * 4)
  local row = q - 1   -- each program uses its own VPM row, so they never collide
  gpusim.mem.write(uniforms, "u32",
                   {inputs[q], vpm_write_setup(row), vdw_store_setup(row), outputs[q]})
  programs[q] = {code = code, uniforms = uniforms}
end

-- Run the four programs; the simulator places them on QPUs 0..3.
local status = gpusim.qpu.run(programs)

-- Show and check the results.
local results = {}
for q = 1, QPUS do results[q] = gpusim.mem.read(outputs[q], "f32", LANES) end
local title, columns = {"lane"}, {"    "}
for q = 1, QPUS do
  title[#title + 1] = string.format("%-18s", "QPU " .. status[q].qpu)
  columns[#columns + 1] = string.format("%7s %9s ", "x", "x*x")
end
print(table.concat(title, " | "))
print(table.concat(columns, " | "))
local wrong = 0
for lane = 1, LANES do
  local cells = {string.format("%4d", lane - 1)}
  for q = 1, QPUS do
    local x = gpusim.mem.read(inputs[q] + 4 * (lane - 1), "f32")[1]
    local got, want = results[q][lane], x * x
    if got ~= want then wrong = wrong + 1 end
    cells[#cells + 1] = string.format("%7.2f %9.4f%s", x, got, got == want and " " or "!")
  end
  print(table.concat(cells, " | "))
end
for q = 1, QPUS do
  assert(status[q].ended, "program " .. q .. " did not reach thread end")
  print(string.format("program %d ran on QPU %d: %d instructions", q, status[q].qpu, status[q].instructions))
end
if wrong > 0 then error(string.format("%d results differ from Lua's x*x (marked !)", wrong)) end
print("all " .. QPUS * LANES .. " squares match Lua's arithmetic")
