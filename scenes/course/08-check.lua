-- 08-check.lua — checks lesson 08's exercise (docs/course/08-four-isas.md):
--   gpusim --headless scenes/course/08-check.lua [SCENE.lua]
-- renders the lesson's scene (or SCENE.lua) once per instruction set — qpu,
-- sass, agx, pica:qpu — compares every pixel with the QPU's, and reads
-- lesson 04's pixel (64, 40) from the bottom-left; prints "correct" or
-- "not yet: <hint>".
local gpusim = require "gpusim"
local scene = arg[1] or (arg[0]:match("^(.*/)") or "./") .. "08-four-isas.lua"
local function render(isa)
  assert(loadfile(scene))(isa)
  local t = gpusim.render().target
  local pixels = {}
  for y = 0, t.height - 1 do
    for x = 0, t.width - 1 do pixels[#pixels + 1] = string.pack("BBBB", t:pixel(x, y)) end
  end
  return table.concat(pixels), {t:pixel(64, 40)}
end
local qpu, centre = render("qpu")
for _, isa in ipairs {"sass", "agx", "pica:qpu"} do
  if render(isa) ~= qpu then
    print("not yet: " .. isa .. "'s picture differs from qpu's: ask gpusim why at a pixel in both, and compare the colours")
    return
  end
end
-- lesson 04 worked out by hand: Σ λa/w ÷ Σ λ/w = 114.2 117.1 23.6 (screen-linear: 89 92 74)
if math.abs(centre[1] - 114) > 1 or math.abs(centre[2] - 117) > 1 or math.abs(centre[3] - 24) > 1 then
  print(string.format("not yet: all four agree, but on %d %d %d at pixel (64, 40), not the perspective-correct colour of lesson 04",
                      centre[1], centre[2], centre[3]))
else
  print("correct")
end
