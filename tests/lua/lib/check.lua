-- check.lua — helpers shared by the Lua tests (tests/lua/*.lua, which run
-- from the repository root: package.path gets "tests/lua/lib/?.lua").
local check = {}

-- Calls f(...) expecting an error whose message contains every pattern
-- given (plain text); returns the message.
function check.fails(patterns, f, ...)
  local ok, msg = pcall(f, ...)
  assert(not ok, "expected an error")
  msg = tostring(msg)
  for _, p in ipairs(patterns) do
    assert(msg:find(p, 1, true), string.format("error %q lacks %q", msg, p))
  end
  return msg
end

-- Allocates GPU memory for the byte string s (alignment align, default 16)
-- through gpusim.mem, writes s there and returns the address.
function check.alloc_bytes(s, align)
  local mem = require("gpusim").mem
  local a = mem.alloc(#s, align or 16)
  mem.write_bytes(a, s)
  return a
end

return check
