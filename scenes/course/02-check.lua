-- 02-check.lua — checks lesson 02's exercise (docs/course/02-binning.md):
--   gpusim --headless scenes/course/02-check.lua [SCENE.lua]
-- renders the lesson's scene as given and the edited one (or SCENE.lua) and
-- asks gpusim.overlay how many tile lists hold the triangle and how many
-- pixels it covers; prints "correct" or "not yet: <hint>".
local gpusim = require "gpusim"
local here = arg[0]:match("^(.*/)") or "./"
local function look(scene)
  dofile(scene)
  gpusim.render()
  local tiles, lists, pixels = gpusim.overlay("tiles"), 0, 0
  for _, n in ipairs(tiles.tiles) do if n > 0 then lists = lists + 1 end end
  for _, n in ipairs(gpusim.overlay("overdraw").pixels) do if n > 0 then pixels = pixels + 1 end end
  return lists, pixels
end
local _, given_pixels = look(here .. "02-binning.lua")
local lists, pixels = look(arg[1] or here .. "02-binning.lua")
if pixels ~= given_pixels then
  -- a whole-pixel move keeps the covered pixel count: the fill rule does not depend on where
  print(string.format("not yet: the triangle covers %d pixels, not %d: move it by whole pixels, keep it in the frame and keep its shape",
                      pixels, given_pixels))
elseif lists ~= 1 then
  print(string.format("not yet: the triangle is in %d tile lists: which tile edges does it cross?", lists))
else
  print("correct")
end
