-- scene_compare.lua — rendering a scene and comparing its image with a
-- reference within the tolerance the scene tests of the non-QPU
-- instruction sets state (scene_pica_scenes.lua, scene_agx_scenes.lua):
--
--   local sc = dofile("tests/lua/lib/scene_compare.lua")
--   sc.render(scene, isas, t)                 -> pixel(x, y) (r, g, b), target
--   sc.reference(name)                        -> w, h, pixel(x, y) of tests/ref/NAME.png
--   sc.compare(scene, isas, t, w, h, want, radius, what)
--   sc.against_reference(scene, isas, radius) -> pixels differing by more than 1, target
--
-- compare fails unless every pixel that differs from `want` by more than 1
-- in a channel lies within `radius` pixels of a colour change in `want`,
-- and at most 0.5% of the pixels differ so.
local gpusim = require "gpusim"
local load_image = debug.getregistry()["gpusim.load_image"]
assert(load_image, "run by the gpusim program, which reads PNG files")

-- The reference image of a scene: pixel(x, y) with y from the bottom, as
-- target:pixel counts it (the file's rows are top first).
local function reference(name)
  local w, h, bytes = load_image("tests/ref/" .. name .. ".png")
  assert(w, h)
  return w, h, function(x, y)
    local i = ((h - 1 - y) * w + x) * 4
    return bytes:byte(i + 1), bytes:byte(i + 2), bytes:byte(i + 3)
  end
end

-- The image of scene rendered with isas at time t: pixel(x, y) as
-- target:pixel, and the target.
local function render(scene, isas, t)
  assert(loadfile("scenes/" .. scene .. ".lua"))(isas)
  local _, target = gpusim.frame()
  gpusim.render {time = t or 0, threads = 1}
  local p = {}
  for y = 0, target.height - 1 do
    for x = 0, target.width - 1 do p[y * target.width + x] = {target:pixel(x, y)} end
  end
  return function(x, y) return table.unpack(p[y * target.width + x], 1, 3) end, target
end

-- Compares scene rendered with isas at time t with `want` (w x h pixels,
-- pixel(x, y)); returns the pixels that differ by more than 1 in a channel,
-- each of which must lie within `radius` pixels of a colour change in want.
local function compare(scene, isas, t, w, h, want, radius, what)
  local got, target = render(scene, isas, t)
  assert(target.width == w and target.height == h, scene .. ": size")
  local function same(x1, y1, x2, y2)
    local r1, g1, b1 = want(x1, y1)
    local r2, g2, b2 = want(x2, y2)
    return r1 == r2 and g1 == g2 and b1 == b2
  end
  local differ = 0
  for y = 0, h - 1 do
    for x = 0, w - 1 do
      local r, g, b = got(x, y)
      local rr, rg, rb = want(x, y)
      if math.abs(r - rr) > 1 or math.abs(g - rg) > 1 or math.abs(b - rb) > 1 then
        differ = differ + 1
        local boundary = false
        for dy = -radius, radius do
          for dx = -radius, radius do
            local nx, ny = x + dx, y + dy
            if nx >= 0 and nx < w and ny >= 0 and ny < h and not same(x, y, nx, ny) then boundary = true end
          end
        end
        assert(boundary, string.format("%s %s: pixel (%d, %d) is %d,%d,%d, %s %d,%d,%d, more than %d pixel(s) "
                                       .. "from any edge or texel boundary", scene, isas, x, y, r, g, b, what, rr, rg,
                                       rb, radius))
      end
    end
  end
  assert(differ <= w * h // 200, string.format("%s %s: %d pixels differ from %s", scene, isas, differ, what))
  return differ, target
end

local function against_reference(scene, isas, radius)
  local w, h, ref = reference(scene)
  return compare(scene, isas, 0, w, h, ref, radius or 1, "tests/ref/" .. scene .. ".png")
end

return {reference = reference, render = render, compare = compare, against_reference = against_reference}
