-- asm_error_place.lua — an assembly error from gpusim.asm called in a
-- script names the script's place as well as the line:column inside the
-- text: when the text is a literal found exactly once in the calling
-- script (a [[long string]]), the script's file:line:col of the mistake
-- leads, then the assembler's "name:line:col: error: ...", then the line
-- of the gpusim.asm call; otherwise the call's file:line leads. The same
-- rule as gpusim.shader's (tests/lua/shader_asm_errors.lua).
local gpusim = require "gpusim"

local function fails(f)
  local ok, err = pcall(f)
  assert(not ok, "expected an error")
  return err
end
local function has(err, want) assert(err:find(want, 1, true), string.format("%q lacks %q", err, want)) end
local function lacks(err, no) assert(not err:find(no, 1, true), string.format("%q has %q", err, no)) end
local function line() return debug.getinfo(2, "l").currentline end

-- The text in a local, assembled further down. It starts on the line
-- after "[[" (Lua drops that newline); the mistake, r9, is on its line 3,
-- column 9, the script's line first + 2.
local first = line() + 2
local program = [[
    nop
    nop
    mov r9, r0
    thrend
]]
local call = line() + 1
local err = fails(function() return gpusim.asm("qpu", program, {name = "prog.s"}) end)
has(err, string.format("asm_error_place.lua:%d:9: prog.s:3:9: error: unknown destination register 'r9' "
                       .. "(gpusim.asm called at line %d)", first + 2, call))

-- Without a name the assembler calls the text "asm"; on the text's first
-- line the column counts from where the string opens in the script.
local here = line() + 1
err = fails(function() return gpusim.asm("qpu", [[    fmul r0, r1, bad_reg_b
    thrend
]]) end)
local text_line
local n = 0
for l in io.lines(arg[0]) do
  n = n + 1
  if n == here then text_line = l end
end
local opening = text_line:find("[[", 1, true) + 2  -- the text's first column
local mistake = text_line:find("bad_reg_b", 1, true)
has(err, string.format("asm_error_place.lua:%d:%d: asm:1:%d: error: ", here, mistake, mistake - opening + 1))
has(err, string.format("(gpusim.asm called at line %d)", here))

-- A text made at run time is not in the script: the call's line leads.
call = line() + 1
err = fails(function() return gpusim.asm("qpu", "nop\n" .. "    mov r9, r1\n") end)
has(err, string.format("asm_error_place.lua:%d: asm:2:9: error: unknown destination register 'r9'", call))
lacks(err, "called at")

-- A text found twice in the script is ambiguous: the call's line leads.
local twice1 = [[
    mov r0, twice_wrong
]]
local twice2 = [[
    mov r0, twice_wrong
]]
assert(twice1 == twice2)
call = line() + 1
err = fails(function() return gpusim.asm("qpu", twice1) end)
has(err, string.format("asm_error_place.lua:%d: asm:1:13: error: ", call))
lacks(err, "called at")

print("asm_error_place: ok")
