-- isas.lua — which instruction sets a scene's programs run on, from the
-- scene's first argument:
--
--   gpusim scenes/cube.lua            the QPU for every program (the default)
--   gpusim scenes/cube.lua sass       NVIDIA Maxwell SASS for every program
--   gpusim scenes/cube.lua sass:qpu   a SASS vertex program, a QPU fragment program
--   gpusim scenes/cube.lua qpu:sass   a QPU vertex program, a SASS fragment program
--
--   local vertex_isa, fragment_isa = require("isas").parse(..., {"qpu", "sass"})
--
-- `known` lists the instruction sets the scene has programs for. A bad
-- argument is an error that says what would do.
local isas = {}

function isas.parse(arg, known)
  known = known or {"qpu", "sass"}
  local text = arg or "qpu"
  local vs, fs = text:match("^([%w_]+):([%w_]+)$")
  if not vs then vs, fs = text, text end
  local ok = {}
  for _, k in ipairs(known) do ok[k] = true end
  if not (ok[vs] and ok[fs]) then
    error(string.format("instruction sets '%s': give one of %s, or VERTEX:FRAGMENT such as %s:%s", text,
                        table.concat(known, ", "), known[#known], known[1]), 2)
  end
  return vs, fs
end

return isas
