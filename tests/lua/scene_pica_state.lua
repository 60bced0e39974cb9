-- scene_pica_state.lua — what a PICA200 vertex starts from in the pipeline
-- (docs/pica-unit.md, "State"): gpusim.config{pica_state = "zero"} (the
-- default) gives every vertex zero temporaries, so a program that adds 1 to
-- r0 without writing it first sees 1 for every vertex, whatever ran before;
-- "persist" keeps a unit's state from batch to batch as the hardware keeps
-- a shader unit's registers. The frame draws the triangle twice over one
-- tile with one render thread: the second draw's vertex batch runs on the
-- unit after the first's and sees r0 = 1 + 1 = 2, grey 0.5 (the binner's
-- coordinate shader runs on the binner's own unit).
local gpusim = require "gpusim"

local vs = [[
.constf one(1.0, 1.0, 1.0, 1.0)
.constf quarter(0.25, 0.25, 0.25, 1.0)
.out outpos position
.out outclr color
.proc main
    add r0, one, r0          ; r0 + 1, r0 never written before
    mov outpos, v0
    mul outclr, quarter, r0  ; grey 0.25 x r0.x, alpha r0.w (saturated at 1)
    end
.end
]]
local target = gpusim.target {width = 16, height = 16, format = "rgba8888"}
local tri = gpusim.buffer {format = {"f32x4"}, data = {{-1, -1, 0, 1}, {3, -1, 0, 1}, {-1, 3, 0, 1}}}
local shader = gpusim.shader {
  vertex = {isa = "pica", source = vs}, fragment = {combiners = {{sources = {"primary_color"}}}},
  inputs = {{name = "position", components = 4}}, varyings = {{name = "color", components = 4}},
}
local function grey()
  gpusim.frame(function(frame)
    frame:clear {color = {0, 0, 0, 0}}
    frame:draw {mode = "triangles", vertices = tri, shader = shader, uniforms = {vertex = {}}}
    frame:draw {mode = "triangles", vertices = tri, shader = shader, uniforms = {vertex = {}}}
  end, target)
  gpusim.render {threads = 1}
  return (target:pixel(8, 8))
end

assert(gpusim.config().pica_state == "zero", "the default is zero")
local g = grey()
assert(g == 64, "zero: r0 = 1 for every vertex, grey 0.25 -> 64, got " .. g)
assert(grey() == 64, "zero: the same again")
gpusim.config {pica_state = "persist"}
assert(gpusim.config().pica_state == "persist")
local p = grey()
assert(p == 128, "persist: the second draw sees r0 = 2 (grey 0.5 -> 128), got " .. p)
assert(grey() == 128, "persist: each render starts from fresh units")
gpusim.config {interpreter = "reference"}
assert(grey() == 128, "persist: the reference interpreter keeps the same rule")
gpusim.config {interpreter = "fast"}
gpusim.config {pica_state = "zero"}
assert(grey() == 64, "zero again")
local ok, err = pcall(gpusim.config, {pica_state = "keep"})
assert(not ok and tostring(err):find("pica_state", 1, true) and tostring(err):find("persist", 1, true), tostring(err))
print(string.format("scene_pica_state: ok (zero 64, persist %d)", p))
