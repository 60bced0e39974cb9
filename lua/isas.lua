-- isas.lua — which instruction sets a scene's programs run on, from the
-- scene's first argument:
--
--   gpusim scenes/cube.lua            the QPU for every program (the default)
--   gpusim scenes/cube.lua sass       NVIDIA Maxwell SASS for every program
--   gpusim scenes/cube.lua sass:qpu   a SASS vertex program, a QPU fragment program
--   gpusim scenes/cube.lua qpu:sass   a QPU vertex program, a SASS fragment program
--   gpusim scenes/cube.lua pica:qpu   a PICA200 (3DS) vertex shader, a QPU fragment program
--   gpusim scenes/cube.lua pica:sass  a PICA200 vertex shader, a SASS fragment program
--   gpusim scenes/cube.lua pica       a PICA200 vertex shader and the PICA200's fixed-function
--                                     fragment stage: texture combiners (docs/pica-combiners.md)
--   gpusim scenes/cube.lua agx:qpu    an Apple AGX vertex program, a QPU fragment program
--                                     (also agx:sass; agx, qpu:agx, sass:agx, pica:agx where the
--                                     scene has an AGX fragment program and lists agx in `fragments`)
--
--   local vertex_isa, fragment_isa = require("isas").parse(..., {"qpu", "sass"}, {"qpu", "sass"})
--
-- `known` lists the instruction sets the scene has programs for (default
-- qpu, sass and pica), `fragments` those it has a fragment stage for
-- (default qpu and sass). The PICA200 has vertex programs only: its
-- fragment stage is fixed function, texture combiners, which a scene that
-- has a combiner configuration lists in `fragments` (the fragment side
-- `pica` then means those combiners); otherwise `pica` alone, or as the
-- fragment side, is refused with the pairs that would do. A bad argument
-- is an error that says what would do.
local isas = {}

-- instruction sets with no fragment programs
local vertex_only = {pica = "the PICA200's fragment stage is fixed function: texture combiners, not programs",
                     agx = "the scene has AGX vertex programs only"}

function isas.parse(arg, known, fragments)
  known = known or {"qpu", "sass", "pica"}
  local text = arg or "qpu"
  local vs, fs = text:match("^([%w_]+):([%w_]+)$")
  if not vs then vs, fs = text, text end
  local ok, fragment, has_fragment = {}, {}, {}
  for _, k in ipairs(fragments or {"qpu", "sass"}) do has_fragment[k] = true end
  for _, k in ipairs(known) do
    ok[k] = true
    if has_fragment[k] or not vertex_only[k] then fragment[#fragment + 1] = k end
  end
  if ok[vs] and ok[fs] and vertex_only[fs] and not has_fragment[fs] then
    local pairs_ = {}
    for _, f in ipairs(fragment) do pairs_[#pairs_ + 1] = fs .. ":" .. f end
    error(string.format("instruction sets '%s': %s has no fragment programs (%s); give %s", text, fs,
                        vertex_only[fs], table.concat(pairs_, " or ")), 2)
  end
  if not (ok[vs] and ok[fs]) then
    error(string.format("instruction sets '%s': give one of %s, or VERTEX:FRAGMENT such as %s:%s", text,
                        table.concat(fragment, ", "), known[#known], fragment[1]), 2)
  end
  return vs, fs
end

return isas
