-- shader_asm_errors.lua — an assembly error in a scene's shader names the
-- program and the line:column inside its text, after the script's place:
-- when the text is a literal found exactly once in the calling script (a
-- [[long string]]), the line and column of the mistake in the script, and
-- then the line of the gpusim.shader call; otherwise the call's line.
local gpusim = require "gpusim"
local ok_prog = "    thrend\n    nop\n    nop\n"

-- Calls gpusim.shader from this file (a Lua caller, as in a scene) and
-- returns the error and the line of the call.
local call_line
local function shader(field, text)
  local t = {isa = "qpu", vertex = ok_prog, coordinate = ok_prog, fragment = ok_prog,
             inputs = {{name = "p", components = 4}}}
  t[field] = text
  call_line = debug.getinfo(1, "l").currentline + 1
  local ok, err = pcall(function() return gpusim.shader(t) end)
  assert(not ok, "expected an error")
  return err
end
local function has(err, want) assert(err:find(want, 1, true), string.format("%q lacks %q", err, want)) end
local function lacks(err, no) assert(not err:find(no, 1, true), string.format("%q has %q", err, no)) end

-- A long string: the mistake is on the text's line 3, column 9, which is
-- the script's line first + 2 (the text starts on the line after "[[").
local first = debug.getinfo(1, "l").currentline + 2
local err = shader("vertex", [[
    nop
    nop
    mov r9, r0
    thrend
    nop
    nop
]])
has(err, string.format("shader_asm_errors.lua:%d:9: gpusim.shader: vertex shader line 3:9: error: "
                       .. "unknown destination register 'r9' (gpusim.shader called at line %d)", first + 2, call_line))

-- On the text's first line the column counts from the string's opening in
-- the script: here the text starts at column 44 of its line.
local here = debug.getinfo(1, "l").currentline + 1
err = shader("fragment", [[    fmul r0, r1, bogus_reg_a
    thrend
    nop
    nop
]])
has(err, string.format("shader_asm_errors.lua:%d:", here))
local col = tonumber(err:match("shader_asm_errors%.lua:%d+:(%d+): "))
local line_text
do
  local n = 0
  for l in io.lines(arg[0]) do
    n = n + 1
    if n == here then line_text = l end
  end
end
local opening = line_text:find("[[", 1, true) + 2  -- the text's first column
local mistake = line_text:find("bogus_reg_a", 1, true)
assert(col == mistake and mistake > opening, string.format("column %s, the mistake is at %d", col, mistake))
has(err, "gpusim.shader: fragment shader line 1:" .. (mistake - opening + 1) .. ": error")

-- A text made at run time is not in the script: the call's line leads.
err = shader("coordinate", ok_prog:rep(1) .. "    bogus r0\n")
has(err, string.format("shader_asm_errors.lua:%d: gpusim.shader: coordinate shader line 4:5: error: ", call_line))
lacks(err, "called at")

-- A text found twice in the script is ambiguous: the call's line leads.
local twice1 = [[
    mov r0, twice_bad
]]
local twice2 = [[
    mov r0, twice_bad
]]
assert(twice1 == twice2)
err = shader("vertex", twice1)
has(err, string.format("shader_asm_errors.lua:%d: gpusim.shader: vertex shader line 1:13: error: ", call_line))
print("shader_asm_errors: ok")
