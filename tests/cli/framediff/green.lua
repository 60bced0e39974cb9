-- green.lua — scene.lua's "colour" variant (draw 1 green) as a scene file
-- of its own, for the two-file form `gpusim diff --frames A.lua B.lua`
-- (tests/cli/framediff.sh).
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
return assert(loadfile(dir .. "scene.lua"))("colour")
