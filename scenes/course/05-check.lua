-- 05-check.lua — checks lesson 05's exercise (docs/course/05-depth.md):
--   gpusim --headless scenes/course/05-check.lua [SCENE.lua]
-- renders the lesson's scene (or SCENE.lua) and asks gpusim.why about three
-- pixels: only the near triangle's, where they overlap, and only the far
-- one's; prints "correct" or "not yet: <hint>".
local gpusim = require "gpusim"
dofile(arg[1] or (arg[0]:match("^(.*/)") or "./") .. "05-depth.lua")
gpusim.render()
-- the fate of draw D's fragment at pixel (x, y), or "none"
local function fate(x, y, d)
  for _, f in ipairs(gpusim.why(x, y).fragments) do
    if f.draw == d then return f.fate end
  end
  return "none"
end
local near_alone, near_over = fate(20, 107, 1), fate(50, 82, 1)
local far_over, far_alone = fate(50, 82, 2), fate(100, 67, 2)
if near_alone ~= "written" or near_over ~= "written" then
  print("not yet: the near triangle must still be written (its fate: " .. near_alone .. ", " .. near_over ..
        "): its Z is 0.25 — is it less than what the buffer starts with?")
elseif far_alone ~= "depth_failed" then
  print("not yet: where the far triangle is alone its fragment is " .. far_alone ..
        ": it passes against the cleared depth; its Z is 0.75")
elseif far_over ~= "depth_failed" then
  print("not yet: where they overlap the far triangle is " .. far_over)
else
  print("correct")
end
