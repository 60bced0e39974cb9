-- why_all.lua — gpusim.why_all() explains every pixel of a frame from ONE
-- traced run (v3d/provenance.h, gs_provall); gpusim.why(x, y) re-runs the
-- frame with the trace following that one pixel. The two are built
-- independently (one keeps every fragment event and every primitive and
-- answers afterwards; the other filters at the emit sites), so this test
-- checks, for EVERY pixel of each frame below, that w:pixel(x, y) equals
-- gpusim.why(x, y) field for field: the fragments in order with their
-- draw, primitive, packets, tile, programs, lane, depth, output and fate,
-- the missed primitives with their reasons, and the final colour.
--   1. A 64x64 frame of Gouraud triangles (every output differs) whose draws
--      reach every fate and every reason over
--      whole regions (not one pixel): overlapping triangles with a depth
--      test (written, depth_failed by early Z), blending, a colour mask, a
--      program without a colour write, back-face culling, a triangle past
--      the far plane and one through the near plane (clipped, wholly and in
--      part), a zero-area triangle, a scissor, two triangles sharing an
--      edge (not_covered along it), stencil "never", a zero sample mask.
--   2. Course lesson 07's 4x multisampled triangle (scenes/course/): the
--      columns its edge crosses, and every 11th pixel elsewhere.
--   3. Course lesson 03's fill-rule scene, every 13th column and row (every
--      pixel of its 320x240 would take many minutes under the sanitizers;
--      this test takes about 10 under them as it is).
-- Then: the same answers with 1 and 2 threads, the counts of the kept
-- fragments against the frame's statistics, and the errors.
local gpusim = require "gpusim"
local vc4 = require "vc4_shaders"

local function serial(t)
  if type(t) ~= "table" then return tostring(t) end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local out = {}
  for _, k in ipairs(keys) do out[#out + 1] = tostring(k) .. "=" .. serial(t[k]) end
  return "{" .. table.concat(out, ",") .. "}"
end

-- Pixels x0, x0 + step, ... x1 of rows y0, y0 + step, ... y1 of the last
-- frame: w:pixel == gpusim.why. Returns the number of fragments and of
-- missed entries seen, by fate and reason, and the number of pixels.
local function check_all(w, x0, x1, y0, y1, step, name)
  local fates, reasons, n = {}, {}, 0
  for y = y0, y1, step do
    for x = x0, x1, step do
      local a, b = w:pixel(x, y), gpusim.why(x, y, {threads = 1})
      local sa, sb = serial(a), serial(b)
      if sa ~= sb then
        error(string.format("%s: pixel (%d, %d): gpusim.why_all gives\n%s\nbut gpusim.why gives\n%s", name, x, y, sa, sb))
      end
      for _, f in ipairs(a.fragments) do fates[f.fate] = (fates[f.fate] or 0) + 1 end
      for _, m in ipairs(a.missed) do reasons[m.reason] = (reasons[m.reason] or 0) + 1 end
      n = n + 1
    end
  end
  return fates, reasons, n
end

-- ---- 1. every fate and every reason, over regions ------------------------------
local target = gpusim.target {width = 64, height = 64, format = "rgba8888", depth = true}
-- Gouraud colours (vc4_shaders' colour3 after the Z write), so that every
-- pixel's output differs; and two programs with position only.
local gouraud = gpusim.shader {coordinate = vc4.coordinate, vertex = vc4.vertex(3),
                               fragment = "    mov tlb_z, rb15\n" .. vc4.colour3, coordinate_inputs = {"position"},
                               inputs = {{name = "position", components = 4}, {name = "color", components = 3}},
                               varyings = {{name = "color", components = 3, interpolation = "perspective"}}}
local function plain(src)
  return gpusim.shader {coordinate = vc4.coordinate, vertex = vc4.vertex(0), fragment = src,
                        inputs = {{name = "position", components = 4}}}
end
local none = plain("    mov tlb_z, rb15\n    thrend\n    nop\n    sbdone\n")
local masked = plain("    ldi ms_flags, 0\n    mov tlb_z, rb15\n    ldi r0, 0xffffffff\n" ..
                     "    mov tlb_colour_all, r0\n    thrend\n    nop\n    sbdone\n")
-- image pixels (x right, y down) and a depth 0..1 to clip space, w = 1
local function v(x, y, d) return {x / 32 - 1, 1 - y / 32, 2 * d - 1, 1} end
-- a triangle with position only, or (ctri) red, green and blue vertices
local function tri(a, b, c) return gpusim.buffer {format = {"f32x4"}, data = {a, b, c}} end
local function ctri(a, b, c)
  local function rgb(p, r, g, bl) return {p[1], p[2], p[3], p[4], r, g, bl} end
  return gpusim.buffer {format = {"f32x4", "f32x3"}, data = {rgb(a, 1, 0, 0), rgb(b, 0, 1, 0), rgb(c, 0, 0, 1)}}
end
local U = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}
local T = "triangles"
local red, green, blue = gouraud, gouraud, gouraud
local scene = {
  {ctri(v(0, 0, 0.5), v(0, 64, 0.5), v(64, 0, 0.5)), red},                  -- upper-left half
  {ctri(v(10, 10, 0.8), v(10, 60, 0.8), v(60, 10, 0.8)), green},            -- behind it: early Z
  {ctri(v(30, 0, 0.3), v(0, 40, 0.3), v(40, 40, 0.3)), blue, {blend = "add"}},
  {ctri(v(40, 5, 0.2), v(20, 30, 0.2), v(60, 30, 0.2)), green, {blend = false, color_mask = {false, false, false, false}}},
  {tri(v(5, 40, 0.1), v(5, 60, 0.1), v(30, 60, 0.1)), none, {color_mask = {true, true, true, true}}},
  {ctri(v(50, 50, 0.05), v(20, 60, 0.05), v(60, 20, 0.05)), red, {cull = "back"}},    -- clockwise: culled
  {ctri({-1, 1, 2, 1}, {1, 1, 2, 1}, {-1, -1, 2, 1}), red, {cull = "none"}},          -- past the far plane
  {ctri({-0.5, -0.5, 0.5, 1}, {0.5, -0.5, 0.5, 1}, {0, 0.5, -1.5, 0.5}), blue},       -- through the near plane
  {ctri(v(0, 33.5, 0.05), v(64, 33.5, 0.05), v(32, 33.5, 0.05)), red},                -- zero area
  {ctri(v(44, 40, 0.05), v(44, 64, 0.05), v(64, 40, 0.05)), red, {scissor = {0, 0, 50, 10}}},
  {ctri(v(4, 4, 0.05), v(20.5, 4, 0.05), v(20.5, 40, 0.05)), red, {scissor = false}}, -- shares x = 20.5
  {ctri(v(20.5, 4, 0.05), v(40, 20, 0.05), v(20.5, 40, 0.05)), blue},
  {ctri(v(0, 50, 0.01), v(0, 64, 0.01), v(14, 64, 0.01)), red, {stencil = {func = "never"}}},
  {tri(v(50, 50, 0.01), v(50, 64, 0.01), v(64, 50, 0.01)), masked, {stencil = false}},
}
gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 1}, depth = 1.0}
  frame:state {depth_test = "less"}
  for _, d in ipairs(scene) do
    if d[3] then frame:state(d[3]) end
    frame:draw {mode = T, vertices = d[1], shader = d[2], uniforms = U}
  end
end, target)
local f = gpusim.render {threads = 2}
local w = gpusim.why_all()
local fates, reasons, n = check_all(w, 0, 63, 0, 63, 1, "every fate")
assert(n == 64 * 64)
for _, fate in ipairs {"written", "blended", "depth_failed", "stencil_failed", "discarded", "sample_masked",
                       "colour_masked"} do
  assert((fates[fate] or 0) > 0, "no fragment with fate " .. fate)
end
for _, reason in ipairs {"clipped", "culled", "outside_clip_window", "not_covered", "zero_area"} do
  assert((reasons[reason] or 0) > 0, "no missed primitive with reason " .. reason)
end
-- every fragment the frame rasterised (f.stats counts those shaded, early
-- Z's aside) is one the collector kept for some pixel
local kept = w:stats()
local total = 0
for _, c in pairs(fates) do total = total + c end
assert(kept.fragments == total, string.format("kept %d fragments, the pixels list %d", kept.fragments, total))
assert(kept.primitives >= #scene and kept.bytes > 0)
-- the same answers from a run with one thread, and with two
local w1, w2 = gpusim.why_all {threads = 1}, gpusim.why_all {threads = 2}
for y = 0, 63, 7 do
  for x = 0, 63, 5 do
    assert(serial(w1:pixel(x, y)) == serial(w2:pixel(x, y)), string.format("1 and 2 threads differ at (%d, %d)", x, y))
  end
end
local ok, err = pcall(w.pixel, w, 64, 0)
assert(not ok and err:find("outside the 64x64 image", 1, true), err)

-- ---- 2. and 3. course scenes ------------------------------------------------------
local function course(file)
  local saved = arg[0]
  arg[0] = "scenes/course/" .. file
  assert(loadfile(arg[0]))()
  arg[0] = saved
  gpusim.render {threads = 2}
  return gpusim.why_all()
end
-- lesson 07: every pixel of the columns around the edge x = 64.5, whose
-- samples the triangle covers in part, and every 11th pixel elsewhere
local w7 = course("07-multisampling.lua")
local fa = check_all(w7, 63, 65, 0, 127, 1, "07-multisampling.lua")
check_all(w7, 0, 127, 0, 127, 11, "07-multisampling.lua")
assert((fa.written or 0) > 0)
-- lesson 03: every 13th pixel (odd and even columns and rows alike)
check_all(course("03-fill-rule.lua"), 0, 319, 0, 239, 13, "03-fill-rule.lua")

-- The answers belong to their frame: after another render, w refuses.
ok, err = pcall(w.pixel, w, 0, 0)
assert(not ok and err:find("another frame has been rendered", 1, true), err)
print("why_all: ok")
