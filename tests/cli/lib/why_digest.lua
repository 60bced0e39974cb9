-- why_digest.lua SCENE.lua [ARGS...] — for tests/cli/report.sh: renders frame
-- 0 of SCENE headless and prints the 32-bit FNV-1a of every pixel's
-- gpusim.why_all answer written as `gpusim why --json` writes it (keys
-- sorted, ", " and ": "), one line a pixel from the image's top-left; the
-- report's page computes the same from its own tables (#digest).
-- gpusim.why_all():pixel equals gpusim.why for every pixel (tests/lua/why_all.lua).
local gpusim = require "gpusim"
local scene = assert(arg[1], "usage: why_digest.lua SCENE.lua [ARGS...]")
arg[0] = scene
assert(loadfile(scene))(table.unpack(arg, 2))
local f = gpusim.render {}
local w = gpusim.why_all()

local function json(v)
  local t = type(v)
  if t == "number" then
    return math.type(v) == "integer" and string.format("%d", v) or string.format("%.17g", v)
  elseif t == "boolean" then
    return tostring(v)
  elseif t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c)
      return (c == '"' or c == "\\") and "\\" .. c or string.format("\\u%04x", c:byte())
    end) .. '"'
  end
  local n, count = #v, 0
  for _ in pairs(v) do count = count + 1 end
  local out = {}
  if count == n then
    for i = 1, n do out[i] = json(v[i]) end
    return "[" .. table.concat(out, ", ") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do out[i] = json(k) .. ": " .. json(v[k]) end
  return "{" .. table.concat(out, ", ") .. "}"
end

local h = 0x811c9dc5
for y = 0, f.height - 1 do
  for x = 0, f.width - 1 do
    local j = json(w:pixel(x, y)) .. "\n"
    for i = 1, #j do h = ((h ~ j:byte(i)) * 16777619) & 0xffffffff end
  end
end
print(string.format("%08x", h))
