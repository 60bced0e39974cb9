-- 04-check.lua — checks lesson 04's exercise (docs/course/04-interpolation.md):
--   gpusim --headless scenes/course/04-check.lua [SCENE.lua]
-- renders the lesson's scene (or SCENE.lua) and compares the colour the
-- simulator gives pixel (64, 40) (from the bottom-left) with the scene's
-- PREDICTED, one step of rounding allowed; prints "correct" or "not yet: <hint>".
local gpusim = require "gpusim"
local scene = dofile(arg[1] or (arg[0]:match("^(.*/)") or "./") .. "04-interpolation.lua")
local f = gpusim.render()
local got = {f.target:pixel(64, 40)}
local want = scene.predicted
if scene.mode ~= "perspective" then
  print("not yet: the exercise is about MODE = \"perspective\"; put it back")
elseif type(want) ~= "table" or #want ~= 3 then
  print("not yet: set PREDICTED to the three bytes {red, green, blue} you work out for pixel (64, 40)")
else
  for c = 1, 3 do
    if math.abs(want[c] - got[c]) > 1 then
      print(string.format("not yet: channel %d is off by more than one step of rounding: weigh each corner's screen share by 1/W and divide by the sum",
                          c))
      return
    end
  end
  print("correct")
end
