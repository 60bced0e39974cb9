-- qpu_run_off_end.lua — a program without a thread end runs past its last
-- instruction; when that was the last word of its allocation, the error
-- says so (naming the last instruction and the fetch after it), on both
-- interpreters. A jump to memory nothing holds keeps the plain message.
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
print("qpu_run_off_end: ok")
