-- scene_cube.lua — scenes/cube.lua: the depth test keeps the near faces.
-- For the centre pixel the test casts its own ray through the cube
-- (rotation, distance 5 and 45° field of view restated here) and finds the
-- face it enters (near) and the face it leaves (far), with the texture
-- coordinate on each. assets/checker.png has four coloured quadrants
-- (texture t < 0.5 is the picture's bottom half): s < 0.5, t < 0.5 blue;
-- s >= 0.5, t < 0.5 white/grey; s < 0.5, t >= 0.5 red; else green. At
-- times where the near and far faces show different quadrants there, the
-- rendered pixel must show the near one. Frames at two times differ.
local gpusim = require "gpusim"
local vm = require "vecmath"
local mat4, vec = vm.mat4, vm.vec
local mem = gpusim.mem

local function load(isas)
  assert(loadfile("scenes/cube.lua"))(isas)
  local _, target = gpusim.frame()
  return target
end
local target = load("qpu")

-- the faces as lua/mesh.lua lays them out: normal, u axis, v axis
local faces = {
  {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
  {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}}, {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
  {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}, {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
}
local function quadrant(s, t)
  assert(math.abs(s - 0.5) > 0.03 and math.abs(t - 0.5) > 0.03, "too near a quadrant edge")
  if t < 0.5 then return s < 0.5 and "blue" or "white" end
  return s < 0.5 and "red" or "green"
end
local function face_quadrant(p, axis, sign)
  for _, f in ipairs(faces) do
    if f[1][axis] == sign then
      return quadrant((vec.dot(p, f[2]) + 1) / 2, (vec.dot(p, f[3]) + 1) / 2)
    end
  end
end
local function pixel_class(r, g, b)
  if r == g and g == b and r >= 100 then return "white" end
  if r > g and r > b then return "red" end
  if g > r and g > b then return "green" end
  if b > r and b > g then return "blue" end
  return "other"
end

-- The ray through the centre of pixel (128, 128), in model space.
local function near_far(t)
  local r = mat4.mul(mat4.rotate_y(0.9 * t + 0.5), mat4.rotate_x(0.6 * t + 0.4))
  local inv = mat4.transpose(r)                   -- a rotation's inverse
  local f = 1 / math.tan(math.pi / 8)
  local ndc = 0.5 / 128
  local o = mat4.transform(inv, {0, 0, 5, 1})     -- the eye, 5 units from the cube
  local d = mat4.transform(inv, {ndc / f, ndc / f, -1, 0})
  local tin, tout, ain, aout = -math.huge, math.huge, nil, nil
  for i = 1, 3 do
    local t1, t2 = (-1 - o[i]) / d[i], (1 - o[i]) / d[i]
    if math.min(t1, t2) > tin then tin, ain = math.min(t1, t2), i end
    if math.max(t1, t2) < tout then tout, aout = math.max(t1, t2), i end
  end
  assert(tin < tout, "the centre ray misses the cube")
  local pin = {o[1] + tin * d[1], o[2] + tin * d[2], o[3] + tin * d[3]}
  local pout = {o[1] + tout * d[1], o[2] + tout * d[2], o[3] + tout * d[3]}
  return face_quadrant(pin, ain, d[ain] > 0 and -1 or 1), face_quadrant(pout, aout, d[aout] > 0 and 1 or -1)
end

local function check_times()
local checked = 0
for step = 0, 12 do
  local t = step * 0.25
  local ok, near, far = pcall(near_far, t)
  if ok and near ~= far then
    local fr = gpusim.render {time = t, threads = 1}
    local got = pixel_class(target:pixel(128, 128))
    assert(got == near, string.format("t = %.2f: centre shows %s; near face %s, far face %s", t, got, near, far))
    local r, g, b = target:pixel(0, 0)
    assert(r == 26 and g == 26 and b == 38, "the corner is background")
    assert(fr.stats.fragments > 0)
    checked = checked + 1
  end
end
assert(checked >= 3, "only " .. checked .. " times with different near and far quadrants")
return checked
end
local checked = check_times()

-- Frames at two times differ.
local f0 = gpusim.render {time = 0}
local a = mem.read_bytes(f0.framebuffer, f0.stride * f0.height)
local f1 = gpusim.render {time = 1}
assert(mem.read_bytes(f1.framebuffer, f1.stride * f1.height) ~= a, "frames at t = 0 and 1 are the same")
print("scene_cube: ok (" .. checked .. " times checked)")

-- The scene's Maxwell SASS programs, alone and paired with the QPU's: the
-- same centre-pixel checks, and the image against the QPU's. The SASS
-- unit snaps the screen position to 12.4 rounding to nearest, where the
-- QPU program's ftoi truncates, so a vertex may move by up to 1/16 pixel:
-- pixels then differ only where the QPU image itself changes colour — on a
-- face's edge or a texel boundary — and there are few of them. (With the
-- snap truncating too, the four images were measured identical.)
local function pixels()
  local w, h = 256, 256
  local p = {}
  for y = 0, h - 1 do
    for x = 0, w - 1 do p[y * w + x] = string.format("%d,%d,%d", target:pixel(x, y)) end
  end
  return p
end
target = load("qpu")
gpusim.render {time = 1, threads = 1}
local reference = pixels()
for _, isas in ipairs {"sass", "sass:qpu", "qpu:sass"} do
  target = load(isas)
  local n = check_times()
  gpusim.render {time = 1, threads = 1}
  local got, differ = pixels(), 0
  for y = 0, 255 do
    for x = 0, 255 do
      local i = y * 256 + x
      if got[i] ~= reference[i] then
        differ = differ + 1
        local boundary = false
        for _, d in ipairs {{1, 0}, {-1, 0}, {0, 1}, {0, -1}} do
          local nx, ny = x + d[1], y + d[2]
          if nx >= 0 and nx < 256 and ny >= 0 and ny < 256 and reference[ny * 256 + nx] ~= reference[i] then
            boundary = true
          end
        end
        assert(boundary, string.format("%s: pixel (%d, %d) differs from the QPU image away from any edge", isas, x, y))
      end
    end
  end
  assert(differ <= 256 * 256 // 200, string.format("%s: %d pixels differ from the QPU image", isas, differ))
  print(string.format("scene_cube %s: ok (%d times checked, %d edge pixels differ from the QPU image)", isas, n,
                      differ))
end
