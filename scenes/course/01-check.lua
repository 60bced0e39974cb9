-- 01-check.lua — checks lesson 01's exercise (docs/course/01-control-lists.md):
--   gpusim --headless scenes/course/01-check.lua [SCENE.lua]
-- renders the lesson's scene (or SCENE.lua) and asks gpusim.why about a
-- pixel inside the second triangle; prints "correct" or "not yet: <hint>".
local gpusim = require "gpusim"
dofile(arg[1] or (arg[0]:match("^(.*/)") or "./") .. "01-control-lists.lua")
gpusim.render()
local answer = gpusim.why(240, 160)   -- x = 240 is NDC 0.5, the right triangle's middle
local f = answer.fragments[1]
if #answer.fragments ~= 1 then
  print("not yet: pixel (240, 160) has " .. #answer.fragments .. " fragments; the right triangle should draw it once")
elseif f.draw ~= 1 or f.primitive ~= 1 then
  print(string.format("not yet: pixel (240, 160) comes from draw %d, triangle %d: draw both triangles with draw 1",
                      f.draw, f.primitive))
elseif f.packet.name ~= "VERTEX_ARRAY_PRIMITIVES" then
  print("not yet: the draw's packet is " .. f.packet.name .. ", not a Vertex Array Primitives packet")
else
  print("correct")
end
