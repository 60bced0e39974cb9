-- 07-check.lua — checks lesson 07's exercise (docs/course/07-multisampling.md):
--   gpusim --headless scenes/course/07-check.lua [SCENE.lua]
-- renders the lesson's scene (or SCENE.lua) with 4 samples and reads pixel
-- columns 63, 64 and 65 of row 63 (from the bottom); prints "correct" or
-- "not yet: <hint>".
local gpusim = require "gpusim"
dofile(arg[1] or (arg[0]:match("^(.*/)") or "./") .. "07-multisampling.lua")
local frame = gpusim.render()
local target = frame.target
local r63, r64, r65 = target:pixel(63, 63), target:pixel(64, 63), target:pixel(65, 63)
if target.samples ~= 4 then
  print("not yet: the target has " .. target.samples .. " sample(s) per pixel; the exercise needs 4")
elseif r63 ~= 255 then
  print("not yet: column 63 should stay fully red, it is " .. r63)
elseif math.abs(r64 - 191) > 1 then   -- 3 of 4 samples: 255 x 3/4 = 191.25
  print(string.format("not yet: column 64's red is %d (%d of 4 samples covered?): where do its samples lie across the pixel?",
                      r64, math.floor(r64 * 4 / 255 + 0.5)))
elseif r65 ~= 0 then
  print("not yet: column 65 got some red too: the edge went too far")
else
  print("correct")
end
