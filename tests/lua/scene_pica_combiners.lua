-- scene_pica_combiners.lua — the PICA200's texture combiners, which the
-- driver turns into a QPU fragment program (gpusim.shader{fragment =
-- {combiners = ...}}, docs/pica-combiners.md), checked against values
-- worked out by hand from the combiner equations (3dbrew "GPU/Internal
-- Registers", TEXENV; GL's texture_env_combine for the functions both have).
--
-- A PICA200 vertex shader passes a constant colour P = (0.5, 0.25, 1.0,
-- 0.75) and texture coordinate (0.25, 0.25) on; the 2x2 nearest texture's
-- texel (0, 0) there is T = (200, 100, 50, 128) / 255. Every pixel of the
-- target sees the same values, so the expected bytes are
-- round(255 x clamp(result)); each case below shows its arithmetic in
-- units of 1/255. The arithmetic is binary32 with one rounding at the
-- colour pack (the hardware rounds to 8 bits at every stage): the cases
-- avoid results within a hair of .5.
local gpusim = require "gpusim"

local vs = [[
.out outpos position
.out outclr color
.out outtc texcoord0
.alias inpos v0
.alias inclr v1
.alias intc v2
.proc main
    mov outpos, inpos
    mov outclr, inclr
    mov outtc, intc
    end
.end
]]
local target = gpusim.target {width = 16, height = 16, format = "rgba8888"}
local tex = gpusim.texture {width = 2, height = 2, filter = "nearest", wrap = "clamp",
                            data = {{200, 100, 50, 128}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}}}
local function v(x, y) return {x, y, 0, 1, 0.5, 0.25, 1.0, 0.75, 0.25, 0.25} end
local quad = gpusim.buffer {format = {"f32x4", "f32x4", "f32x2"}, data = {v(-1, -1), v(3, -1), v(-1, 3)}}
local varyings = {{name = "color", components = 4}, {name = "texcoord0", components = 2}}

local function shader(comb, vary)
  return gpusim.shader {
    vertex = {isa = "pica", source = vs}, fragment = {combiners = comb},
    inputs = {{name = "position", components = 4}, {name = "color", components = 4}, {name = "uv", components = 2}},
    varyings = vary or varyings,
  }
end

local function draw(comb)
  local s = shader(comb)
  gpusim.frame(function(frame)
    frame:clear {color = {0.5, 0.5, 0.5, 0.5}}
    frame:draw {mode = "triangles", vertices = quad, shader = s, uniforms = {vertex = {}, fragment = {tex}}}
  end, target)
  gpusim.render {threads = 1}
  return {target:pixel(7, 9)}
end

local function expect(name, want, comb)
  local got = draw(comb)
  for k = 1, 4 do
    assert(got[k] == want[k], string.format("%s: got %d %d %d %d, want %d %d %d %d", name, got[1], got[2], got[3],
                                            got[4], want[1], want[2], want[3], want[4]))
  end
end

-- T x P: 200 x .5, 100 x .25, 50 x 1, 128 x .75
expect("modulate", {100, 25, 50, 96}, {{sources = {"texture0", "primary_color"}, func = "modulate"}})
-- P alone: 127.5 rounds up, 63.75, 255, 191.25
expect("replace primary", {128, 64, 255, 191}, {{sources = {"primary_color"}}})
-- T c + K (1 - c), c = P.a = .75, K = (0, 1, .2, 1): 150, 75 + 63.75, 37.5 + 12.75, 96 + 63.75
expect("interpolate", {150, 139, 50, 160},
       {{sources = {"texture0", "constant", "primary_color"}, operands = {"color", "color", "alpha"},
         func = "interpolate", constant = {0, 1, 0.2, 1}}})
-- 2 (T + K - 1/2), K = (.1, .3, .6, .9): 2 (200 + 25.5 - 127.5) = 196, 2 (100 + 76.5 - 127.5) = 98,
-- 2 (50 + 153 - 127.5) = 151, alpha 2 (128 + 229.5 - 127.5) = 460, clamped to 255
expect("add_signed x2", {196, 98, 151, 255},
       {{sources = {"texture0", "constant"}, func = "add_signed", scale = 2, constant = {0.1, 0.3, 0.6, 0.9}}})
-- rgb: T.ggg - K.rgb, K = (.2, .2, 0, .4): 100 - 51, 100 - 51, 100 - 0; alpha: T.r - K.a = 200 - 102
expect("subtract, operands", {49, 49, 100, 98},
       {{sources = {"texture0", "constant"}, func = "subtract", constant = {0.2, 0.2, 0, 0.4},
         rgb = {operands = {"green", "color"}}, alpha = {operands = {"red", "alpha"}}}})
-- P - T, clamped below: 127.5 - 200, 63.75 - 100, 255 - 50, 191.25 - 128
expect("subtract, clamp at 0", {0, 0, 205, 63}, {{sources = {"primary_color", "texture0"}, func = "subtract"}})
-- Every stage clamps, not only the last: stage 1 adds .2 to stage 0's clamped (0, 0, 205, 63.25)
expect("clamp between stages", {51, 51, 205, 63},
       {{sources = {"primary_color", "texture0"}, func = "subtract"},
        {rgb = {sources = {"previous", "constant"}, func = "add"}, constant = {0.2, 0.2, 0, 0}}})
-- one minus: (1 - T) x P.a over rgb = 55 x .75, 155 x .75, 205 x .75; alpha (1 - T.a) (1 - P.a) = 127 x .25
expect("one_minus", {41, 116, 154, 32},
       {{sources = {"texture0", "primary_color"}, func = "modulate",
         rgb = {operands = {"one_minus_color", "alpha"}}, alpha = {operands = {"one_minus_alpha", "one_minus_alpha"}}}})
-- 4 ((T.r - 1/2)(K.r - 1/2) + ...), K = (.6, .5, .5): 4 x 72.5 x .1 = 29 in every rgb channel; alpha T.a
expect("dot3_rgb", {29, 29, 29, 128},
       {{rgb = {sources = {"texture0", "constant"}, func = "dot3_rgb"}, alpha = {sources = {"texture0"}},
         constant = {0.6, 0.5, 0.5, 0}}})
expect("dot3_rgba", {29, 29, 29, 29},
       {{rgb = {sources = {"texture0", "constant"}, func = "dot3_rgba"}, alpha = {sources = {"texture0"}},
         constant = {0.6, 0.5, 0.5, 0}}})
-- T P + K, K = .2: 100 + 51, 25 + 51, 50 + 51, 96 + 51
expect("multiply_add", {151, 76, 101, 147},
       {{sources = {"texture0", "primary_color", "constant"}, func = "multiply_add", constant = {0.2, 0.2, 0.2, 0.2}}})
-- min(T + P, 1) K, K = (.4, .8, .2, .6): 255 x .4, 163.75 x .8, 255 x .2, 255 x .6
expect("add_multiply", {102, 131, 51, 153},
       {{sources = {"texture0", "primary_color", "constant"}, func = "add_multiply", constant = {0.4, 0.8, 0.2, 0.6}}})
-- 4 K, K = (.05, .1, .2, .3): 51, 102, 204, 306 clamped
-- Replacing with a constant the driver loads as it is (no clamp): 1 - 0.2 = 0.8 -> 204, 1 - 1 = +0,
-- 1 - 0.6 = 0.4 -> 102; alpha of K for alpha, 0.5 -> 127.5 rounds up to 128; and the rgb half
-- reading K's alpha (0.5) in every channel
expect("replace constant", {204, 0, 102, 128},
       {{rgb = {sources = {"constant"}, operands = {"one_minus_color"}}, alpha = {sources = {"constant"}},
         constant = {0.2, 1, 0.6, 0.5}}})
expect("replace constant alpha", {128, 128, 128, 128},
       {{rgb = {sources = {"constant"}, operands = {"alpha"}}, alpha = {sources = {"constant"}},
         constant = {0.2, 1, 0.6, 0.5}}})
-- The same constant channels feeding a stage that reads the primary colour P (the program loads them
-- as they are, then modulates): (0.8 x 0.5, 0 x 0.25, 0.4 x 1, 0.2 x 0.75) -> 102, 0, 102, 38.25
expect("replace constant, then modulate", {102, 0, 102, 38},
       {{rgb = {sources = {"constant"}, operands = {"one_minus_color"}}, alpha = {sources = {"constant"}},
         constant = {0.2, 1, 0.6, 0.2}}, {sources = {"previous", "primary_color"}, func = "modulate"}})
expect("scale 4", {51, 102, 204, 255}, {{sources = {"constant"}, scale = 4, constant = {0.05, 0.1, 0.2, 0.3}}})
-- Chains: stage 1 modulates stage 0's T by P; stage 2 adds a constant to rgb only, alpha passes on
expect("three stages", {151, 76, 101, 96},
       {{sources = {"texture0"}}, {sources = {"previous", "primary_color"}, func = "modulate"},
        {rgb = {sources = {"previous", "constant"}, func = "add"}, constant = {0.2, 0.2, 0.2, 0}}})
-- The combiner buffer is one stage late: stage 1 reads the buffer colour (.2, 0, 0, .25), not stage 0's
-- output (0, .4, 0, .5); stage 2 reads stage 0's output and adds it to stage 1's: 51, 102, 0, 63.75 + 127.5.
-- Were the buffer not late, stage 2 would give 2 x stage 0 = (0, 204, 0, 255).
expect("buffer", {51, 102, 0, 191},
       {buffer_color = {0.2, 0, 0, 0.25}, {sources = {"constant"}, constant = {0, 0.4, 0, 0.5}, buffer = "both"},
        {sources = {"previous_buffer"}}, {sources = {"previous", "previous_buffer"}, func = "add"}})
-- Only rgb goes to the buffer: stage 2 reads (0, .4, 0) and the buffer colour's alpha .25
expect("buffer rgb", {0, 102, 0, 64},
       {buffer_color = {0.2, 0, 0, 0.25}, {sources = {"constant"}, constant = {0, 0.4, 0, 0.5}, buffer = "rgb"},
        {sources = {"constant"}}, {sources = {"previous_buffer"}}})

-- The generated program is there to read (and assembles as a QPU program)
local text = gpusim.pica.combiners({{sources = {"texture0", "primary_color"}, func = "modulate"}}, varyings)
assert(text:find("ldtmu0", 1, true) and text:find("tlb_colour_all", 1, true), text)
assert(gpusim.asm("qpu", text))

-- Mistakes: each an error naming the stage and the field
local function refuses(pattern, comb, vary)
  local ok, err = pcall(shader, comb, vary)
  assert(not ok, "accepted: " .. pattern)
  assert(tostring(err):find(pattern, 1, true), string.format("want %q in: %s", pattern, tostring(err)))
end
refuses("no varying 'texcoord0'", {{sources = {"texture0"}}}, {{name = "color", components = 4}})
refuses("reads primary_color.a, but the varyings carry fewer components",
        {{sources = {"primary_color"}}}, {{name = "color", components = 3}})
refuses("the varyings carry no colour", {{sources = {"primary_color"}}}, {{name = "texcoord0", components = 2}})
refuses("alpha function dot3_rgb", {{sources = {"texture0", "constant"}, func = "dot3_rgb"}})
refuses("texture3, which gpusim does not model (the procedural texture unit)", {{sources = {"texture3"}}})
refuses("fragment_primary_color, which gpusim does not model (fragment lighting)",
        {{sources = {"fragment_primary_color"}}})
refuses("stage 0: sources[1] is tex0; one of primary_color", {{sources = {"tex0"}}})
refuses("stage 1: rgb.func is mix; one of replace", {{}, {rgb = {func = "mix"}}})
refuses("stage 0: unknown key colour", {{colour = {1, 1, 1, 1}}})
refuses("7 stages; the PICA200 has 6", {{}, {}, {}, {}, {}, {}, {}})
refuses("stage 4: buffer: only stages 0-3", {{}, {}, {}, {}, {buffer = "rgb"}})
refuses("stage 0: scale must be 1, 2 or 4", {{scale = 3}})
refuses("stage 0: constant[2] must be a number in [0, 1]", {{constant = {0, 2, 0, 0}}})
local ok, err = pcall(gpusim.shader, {
  vertex = {isa = "pica", source = vs}, fragment = {combiners = {}, source = "nop"},
  inputs = {{name = "position", components = 4}}, varyings = varyings})
assert(not ok and tostring(err):find("with combiners, no other key than isa", 1, true), tostring(err))
print("scene_pica_combiners: ok")
