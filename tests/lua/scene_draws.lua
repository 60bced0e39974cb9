-- scene_draws.lua — what the driver's state records do once the executor
-- runs them: the depth test with a cleared and written Z (either drawing
-- order gives the nearer colour), face culling and winding, the scissor
-- and viewport as the clip window, a BGR565 target, flat interpolation,
-- indexed draws, points and lines. Expected pixels are worked out here.
local gpusim = require "gpusim"
local mem = gpusim.mem

-- Shaders: position f32x4 (clip space) and colour f32x3, as in
-- scenes/triangle.lua, with a fragment shader that also writes Z.
local fragment_z = [[
    fmul r0, vary, ra15
    fadd r0, r0, r5
    fmul r1, vary, ra15
    fadd r1, r1, r5
    fmul r2, vary, ra15
    fadd r2, r2, r5
    mov tlb_z, rb15             # depth test and write: updates the coverage
    fmul r3.8a, r0, 1.0
    fmul r3.8b, r1, 1.0
    fmul r3.8c, r2, 1.0
    fmul r3.8d, 1.0, 1.0
    mov tlb_colour_all, r3
    thrend
    nop
    sbdone
]]
-- `extra` hardware varyings come first in the FIFO: 2 (point sprite s, t)
-- for points, 1 (line coordinate) for lines; the shader reads past them.
local function make_shader(interp, extra)
  return gpusim.shader {
    coordinate = require("vc4_shaders").coordinate, vertex = require("vc4_shaders").vertex(3),
    fragment = string.rep("    mov -, vary\n", extra or 0) .. fragment_z,
    inputs = {{name = "position", components = 4}, {name = "color", components = 3}},
    coordinate_inputs = {"position"},
    varyings = {{name = "color", components = 3, interpolation = interp}},
  }
end
local shader, flat_shader = make_shader("perspective"), make_shader("flat")
local point_shader, line_shader = make_shader("perspective", 2), make_shader("perspective", 1)
local U = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}

-- Two full-target quads: red at z = 0.5 (Zs 0.75), green at z = -0.5 (0.25).
local function quad(z, r, g, b)
  return {{-1, -1, z, 1, r, g, b}, {1, -1, z, 1, r, g, b}, {1, 1, z, 1, r, g, b}, {-1, 1, z, 1, r, g, b}}
end
local quads = gpusim.buffer {format = {"f32x4", "f32x3"}, data = {quad(0.5, 1, 0, 0), quad(-0.5, 0, 1, 0)}}
local ib = gpusim.buffer {format = "u16", data = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7}}
local RED, GREEN = 0, 6   -- first index of each quad

local target = gpusim.target {width = 64, height = 48, depth = true}
local function rgb(x, y) local r, g, b = target:pixel(x, y) return r, g, b end
local function is(x, y, r, g, b)
  local pr, pg, pb = rgb(x, y)
  assert(pr == r and pg == g and pb == b,
         string.format("pixel (%d, %d) is %d %d %d, want %d %d %d", x, y, pr, pg, pb, r, g, b))
end
local function count(r, g, b)
  local n = 0
  for y = 0, target.height - 1 do
    for x = 0, target.width - 1 do
      local pr, pg, pb = rgb(x, y)
      if pr == r and pg == g and pb == b then n = n + 1 end
    end
  end
  return n
end
local scene
gpusim.frame(function(frame) scene(frame) end, target)
local function render(fn) scene = fn return gpusim.render {threads = 2} end

-- ---- depth: the nearer (green) quad wins in either order
for _, order in ipairs {{RED, GREEN}, {GREEN, RED}} do
  render(function(frame)
    frame:clear {color = {0, 0, 1}, depth = 1}
    frame:state {depth_test = "less"}
    for _, first in ipairs(order) do
      frame:draw {vertices = quads, indices = ib, first = first, count = 6, shader = shader, uniforms = U}
    end
  end)
  assert(count(0, 255, 0) == 64 * 48, "green everywhere")
end
-- without the test the last draw wins; a clear depth of 0.5 hides the red (0.75)
render(function(frame)
  frame:draw {vertices = quads, indices = ib, first = GREEN, count = 6, shader = shader, uniforms = U}
  frame:draw {vertices = quads, indices = ib, first = RED, count = 6, shader = shader, uniforms = U}
end)
assert(count(255, 0, 0) == 64 * 48, "red everywhere")
render(function(frame)
  frame:clear {color = {0, 0, 1}, depth = 0.5}
  frame:state {depth_test = "less"}
  frame:draw {vertices = quads, indices = ib, first = RED, count = 6, shader = shader, uniforms = U}
end)
assert(count(0, 0, 255) == 64 * 48, "the clear depth hides the red quad")
-- depth writes off: the red quad drawn second still passes against the clear Z
render(function(frame)
  frame:clear {color = {0, 0, 1}}
  frame:state {depth_test = "less", depth_write = false}
  frame:draw {vertices = quads, indices = ib, first = GREEN, count = 6, shader = shader, uniforms = U}
  frame:draw {vertices = quads, indices = ib, first = RED, count = 6, shader = shader, uniforms = U}
end)
assert(count(255, 0, 0) == 64 * 48, "no Z writes")

-- ---- culling: the quads are counter-clockwise (front); culling back keeps
-- them, culling front or calling clockwise front drops them
for _, case in ipairs {{{cull = "back"}, 64 * 48}, {{cull = "front"}, 0}, {{cull = "back", front = "cw"}, 0},
                       {{cull = "both"}, 0}} do
  local f = render(function(frame)
    frame:clear {color = {0, 0, 0}}
    frame:state(case[1])
    frame:draw {vertices = quads, indices = ib, first = RED, count = 6, shader = shader, uniforms = U}
  end)
  assert(count(255, 0, 0) == case[2] and f.stats.fragments == case[2], "culling")
end

-- ---- scissor and viewport: the clip window
render(function(frame)
  frame:clear {color = {0, 0, 0}}
  frame:state {scissor = {10, 5, 20, 7}}
  frame:draw {vertices = quads, indices = ib, first = RED, count = 6, shader = shader, uniforms = U}
end)
assert(count(255, 0, 0) == 20 * 7)
is(10, 5, 255, 0, 0) is(29, 11, 255, 0, 0) is(9, 5, 0, 0, 0) is(30, 11, 0, 0, 0) is(10, 12, 0, 0, 0)
-- the quad spans the viewport: [16, 48) x [8, 40)
render(function(frame)
  frame:clear {color = {0, 0, 0}}
  frame:state {viewport = {16, 8, 32, 32}}
  frame:draw {vertices = quads, indices = ib, first = RED, count = 6, shader = shader, uniforms = U}
end)
assert(count(255, 0, 0) == 32 * 32)
is(16, 8, 255, 0, 0) is(47, 39, 255, 0, 0) is(15, 8, 0, 0, 0) is(48, 39, 0, 0, 0)

-- ---- flat interpolation: one vertex's colour over the whole triangle
local tri = gpusim.buffer {format = {"f32x4", "f32x3"}, data = {
  {-1, -1, 0, 1, 1, 0, 0}, {1, -1, 0, 1, 0, 1, 0}, {-1, 1, 0, 1, 0, 0, 1}}}
local f = render(function(frame)
  frame:clear {color = {0, 0, 0}}
  frame:draw {vertices = tri, shader = flat_shader, uniforms = U}
end)
local flat_pixels = count(255, 0, 0) + count(0, 255, 0) + count(0, 0, 255)
assert(flat_pixels == f.stats.fragments and f.stats.fragments > 0, "flat: one of the vertex colours")
assert(math.max(count(255, 0, 0), count(0, 255, 0), count(0, 0, 255)) == flat_pixels, "flat: a single colour")

-- ---- perspective and screen-linear interpolation, from the shaders' SPH:
-- screen (0,0) red 0, (64,0) red 1 with w = 4, (0,64) red 0 on 64×64
local screen_shader = make_shader("screen")
local wtri = gpusim.buffer {format = {"f32x4", "f32x3"}, data = {
  {-1, -1, 0, 1, 0, 0, 0}, {4, -4, 0, 4, 1, 0, 0}, {-1, 1, 0, 1, 0, 0, 0}}}
local sq = gpusim.target {width = 64, height = 64}
for _, case in ipairs {{shader, "perspective"}, {screen_shader, "screen"}} do
  gpusim.frame(function(frame)
    frame:clear {color = {0, 0, 0}}
    frame:draw {vertices = wtri, shader = case[1], uniforms = U}
  end, sq)
  gpusim.render()
  for _, p in ipairs {{10, 10}, {40, 5}, {20, 30}, {60, 1}, {1, 60}} do
    local l1, l2 = (p[1] + 0.5) / 64, (p[2] + 0.5) / 64
    local l0 = 1 - l1 - l2
    local want = case[2] == "screen" and l1 or (l1 / 4) / (l0 + l1 / 4 + l2)
    local r = sq:pixel(p[1], p[2])
    assert(math.abs(r - want * 255) <= 1, string.format("%s (%d, %d): %d, formula %.2f", case[2], p[1], p[2], r, want * 255))
  end
end
gpusim.frame(function(frame) scene(frame) end, target)

-- ---- points and lines draw something, nowhere outside their vertices' rows
local pts = gpusim.buffer {format = {"f32x4", "f32x3"}, data = {
  {-0.5, 0, 0, 1, 1, 1, 1}, {0.5, 0, 0, 1, 1, 1, 1}}}
for _, mode in ipairs {"points", "lines", "line_strip", "line_loop"} do
  f = render(function(frame)
    frame:clear {color = {0, 0, 0}}
    frame:state {point_size = 4, line_width = 2}
    frame:draw {mode = mode, vertices = pts, shader = mode == "points" and point_shader or line_shader, uniforms = U}
  end)
  local n = count(255, 255, 255)
  -- a loop of two vertices draws the line there and back: every pixel twice
  local times = mode == "line_loop" and 2 or 1
  assert(n > 0 and n * times == f.stats.fragments, mode .. ": " .. n .. " white, " .. f.stats.fragments .. " fragments")
  if mode == "points" then assert(n == 2 * 16, "two 4x4 points") end
end

-- ---- a BGR565 target
local t565 = gpusim.target {width = 16, height = 16, format = "bgr565"}
gpusim.frame(function(frame)
  frame:clear {color = {1, 0, 0}}
  frame:draw {vertices = tri, shader = shader, uniforms = U}
end, t565)
gpusim.render()
assert(mem.read(t565.framebuffer + 15 * t565.stride + 15 * 2, "u16")[1] == 0xF800, "clear red in 565")
local r, g, b = t565:pixel(0, 0)                  -- the red corner of the triangle
assert(r > 200 and g < 40 and b < 40)
print("scene_draws: ok")
