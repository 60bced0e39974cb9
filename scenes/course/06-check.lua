-- 06-check.lua — checks lesson 06's exercise (docs/course/06-blending.md):
--   gpusim --headless scenes/course/06-check.lua [SCENE.lua]
-- renders the lesson's scene (or SCENE.lua), reads three pixels (red alone,
-- the overlap, green alone) and asks gpusim.why whether the overlap was
-- blended; prints "correct" or "not yet: <hint>".
local gpusim = require "gpusim"
dofile(arg[1] or (arg[0]:match("^(.*/)") or "./") .. "06-blending.lua")
local frame = gpusim.render()
-- {x, y from the bottom-left, the bytes wanted (half of 255: 127 or 128)}
local pixels = {
  {20, 20, {128, 0, 0}, "the red triangle alone"},
  {45, 42, {128, 128, 0}, "the overlap"},
  {100, 60, {0, 128, 0}, "the green triangle alone"},
}
for _, p in ipairs(pixels) do
  local got = {frame.target:pixel(p[1], p[2])}
  for c = 1, 3 do
    if math.abs(got[c] - p[3][c]) > 1 then
      print(string.format("not yet: %s is %d %d %d, not about %d %d %d: which factor scales the incoming colour by a half, and which keeps what is there?",
                          p[4], got[1], got[2], got[3], p[3][1], p[3][2], p[3][3]))
      return
    end
  end
end
local last = gpusim.why(45, 127 - 42).fragments
if #last ~= 2 or last[2].fate ~= "blended" then
  print("not yet: the overlap's second fragment must be blended over the first")
else
  print("correct")
end
