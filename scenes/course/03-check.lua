-- 03-check.lua — checks lesson 03's exercise (docs/course/03-fill-rule.md):
--   gpusim --headless scenes/course/03-check.lua [SCENE.lua]
-- renders the lesson's scene (or SCENE.lua) and asks gpusim.why which
-- triangle draws pixels 160 and 161 of row 120; prints "correct" or
-- "not yet: <hint>".
local gpusim = require "gpusim"
dofile(arg[1] or (arg[0]:match("^(.*/)") or "./") .. "03-fill-rule.lua")
gpusim.render()
local function owner(x)
  local answer = gpusim.why(x, 120)
  if #answer.fragments ~= 1 then return nil, #answer.fragments end
  return answer.fragments[1].primitive, 1, #answer.missed
end
local p160, n160, missed160 = owner(160)
local p161 = owner(161)
if n160 ~= 1 then
  print(string.format("not yet: pixel (160, 120) has %d fragments; keep both triangles sharing the edge", n160))
elseif p160 ~= 0 then
  print("not yet: column 160 still belongs to the right triangle (1): its centre is still on the edge or left of it (where does the vertex land after the coordinate shader's fmul and ftoi?)")
elseif p161 ~= 1 then
  print("not yet: column 161 went to the left triangle too: the edge moved further than it needs to")
elseif missed160 ~= 0 then
  print("not yet: the right triangle still covers pixel 160's centre, on the shared edge")
else
  print("correct")
end
