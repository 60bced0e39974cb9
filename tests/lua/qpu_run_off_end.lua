-- qpu_run_off_end.lua — a program without a thread end runs past its last
-- instruction; when that was the last word of its allocation, the error
-- says so (naming the last instruction and the fetch after it), on both
-- interpreters, whether nothing follows or another program's header. A
-- jump to memory nothing holds keeps the plain message.
local gpusim = require "gpusim"

local unif = gpusim.mem.alloc(16)  -- before the code, so nothing follows the code
for _, interp in ipairs {"fast", "reference"} do
  gpusim.config {interpreter = interp}
  local code = gpusim.qpu.load(gpusim.asm("qpu", "    nop\n    mov r0, unif\n    nop\n"))
  local ok, err = pcall(gpusim.qpu.run, {{code = code, uniforms = unif}})
  assert(not ok, interp .. ": the run did not fail")
  local last, past = string.format("0x%08x", code + 16), string.format("0x%08x", code + 24)
  for _, want in ipairs {"QPU 0 at pc " .. past, "ran past its last instruction (at " .. last,
                         "without a thread end", "instruction fetch at " .. past} do
    assert(err:find(want, 1, true), string.format("%s: %q lacks %q", interp, err, want))
  end
  -- a branch far outside memory: no "last instruction" to name
  local far = gpusim.qpu.load(gpusim.asm("qpu", "    bra -, 0x7ff00000\n    nop\n    nop\n    nop\n"))
  ok, err = pcall(gpusim.qpu.run, {{code = far, uniforms = unif}})
  assert(not ok and err:find("instruction fetch at 0x7ff00000 is outside allocated GPU memory", 1, true)
         and not err:find("ran past", 1, true), interp .. ": " .. tostring(err))
end

-- In a scene the next program often follows at once: its driver header
-- (gpusim/driver.h: the "GSPH" magic and the code's length) is never code,
-- so falling into it is the same mistake, named with the draw.
local shaders = require "vc4_shaders"
local vb = gpusim.buffer {format = "f32x4", data = {{-1, -1, 0, 1}, {1, -1, 0, 1}, {0, 1, 0, 1}}}
local function shader(fs)
  return gpusim.shader {isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0), fragment = fs,
                        inputs = {{name = "position", components = 4}}, varyings = {}}
end
local runaway = shader("    mov tlb_colour_all, unif\n    nop\n    nop\n    nop\n")  -- 4 words, no thrend
local next_one = shader("    mov tlb_colour_all, unif\n    thrend\n    nop\n    sbdone\n")
local header = runaway.fragment_code + 32
assert(math.min(next_one.vertex_code, next_one.coordinate_code, next_one.fragment_code) - 96 == header,
       "precondition: the next program's header does not follow the fragment shader")
local VIEWPORT = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}
local line
gpusim.frame(function(frame)
  line = debug.getinfo(1, "l").currentline + 1
  frame:draw {vertices = vb, shader = runaway, uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff0000ff}}}}
end, gpusim.target {width = 16, height = 16})
for _, interp in ipairs {"fast", "reference"} do
  gpusim.config {interpreter = interp}
  local ok, err = pcall(gpusim.render, {threads = 1})
  assert(not ok, interp .. ": the frame did not fail")
  for _, want in ipairs {"qpu_run_off_end.lua:" .. line .. ": frame:draw (draw 1 of frame ",
                         string.format("fragment shader at 0x%08x", runaway.fragment_code),
                         string.format("QPU 0 at pc 0x%08x: the program ran past its last instruction (at 0x%08x",
                                       header, header - 8),
                         string.format("without a thread end: the next word, at 0x%08x, starts another program's "
                                       .. "header, not code", header)} do
    assert(err:find(want, 1, true), string.format("%s: %q lacks %q", interp, err, want))
  end
  -- a branch to a header that no allocation precedes: the header and where its code starts
  local block = gpusim.mem.alloc(104, 1 << 20)
  assert(not pcall(gpusim.mem.read_bytes, block - 8, 8), "precondition: memory right before the block")
  gpusim.mem.write(block, "u32", {0x48505347, 8})  -- "GSPH", 8 bytes of code at block + 96
  local jump = gpusim.qpu.load(gpusim.asm("qpu", string.format("    bra -, 0x%08x\n    nop\n    nop\n    nop\n",
                                                               block)))
  ok, err = pcall(gpusim.qpu.run, {{code = jump, uniforms = unif}})
  assert(not ok and err:find(string.format("QPU 0 at pc 0x%08x: instruction fetch at 0x%08x: a program's header, "
                                           .. "not code (its code starts at 0x%08x)", block, block, block + 96), 1, true),
         tostring(err))
  gpusim.mem.free(block)
end
gpusim.config {interpreter = "fast"}
-- the gpusim program renders the scene left registered: leave one that draws
gpusim.frame(function(frame)
  frame:draw {vertices = vb, shader = next_one, uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff0000ff}}}}
end)
print("qpu_run_off_end: ok")
