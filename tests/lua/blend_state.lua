-- blend_state.lua — frame:state{blend =, color_mask =}: the driver links a
-- variant of the fragment program that loads the tile's colour and blends
-- byte by byte (docs/blending.md). Each case draws two full-target quads
-- whose colours differ at every pixel — the first replaces (it sets the
-- destination), the second blends over it — and compares every pixel, with
-- tolerance 0, against the blend worked out here from GL's definitions and
-- the QPU's exact byte operations (src/isa/qpu/alu.h, reference/vc4.md §1.9):
--   v8muld(a, b) = (a·b + 127) // 255 (a term: a colour byte × a factor byte)
--   add = min(s + d, 255), subtract = max(s − d, 0), reverse = max(d − s, 0),
--   min/max of the source and destination bytes (factors unused, as in GL);
-- factor bytes: 255 − x for "one_minus_", a colour factor's alpha byte is
-- the alpha (src_color gives As there), src_alpha_saturate is
-- min(As, 255 − Ad) for colour and 255 for alpha.
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails
local here = "blend_state.lua:"
local mem = gpusim.mem

local W, H = 32, 32
local target = gpusim.target {width = W, height = H}
local quad = gpusim.buffer {format = "f32x4", data = {{-1, -1, 0, 1}, {1, -1, 0, 1}, {-1, 1, 0, 1}, {1, 1, 0, 1}}}

-- The colour of pixel (x, y) is (x·A + y·B) xor C, bytes R G B A from the
-- low end: a different word at each pixel, from three uniforms. mul24 keeps
-- 24 bits of each operand, so A and B stay below 2^24.
local fragment = [[
    mov r0, unif                # A
    mov r1, unif                # B
    nop ; mul24 r2, x_coord, r0 # x·A
    nop ; mul24 r3, y_coord, r1 # y·B
    add r2, r2, r3
    xor r2, r2, unif            # xor C
    mov tlb_colour_all, r2
    thrend
    nop
    sbdone
]]
local shader = gpusim.shader {
  isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0), fragment = fragment,
  inputs = {{name = "position", components = 4}},
}
local VIEWPORT = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}

local function words(p) return {{u32 = p[1]}, {u32 = p[2]}, {u32 = p[3]}} end
local function word_at(p, x, y) return ((x * p[1] + y * p[2]) & 0xffffffff) ~ p[3] end
local function bytes(w) return {w & 255, w >> 8 & 255, w >> 16 & 255, w >> 24} end

local DST = {0x0b1d2f, 0x3a0917, 0x5ac3e1f0}   -- the first quad's pattern
local SRC = {0x1f0b35, 0x070d29, 0x81a4c3d2}   -- the blended quad's

-- ---- the reference ----------------------------------------------------------

local function muld(a, b) return (a * b + 127) // 255 end

-- Factor `name` for channel k (1..4) of source s, destination d, constant c.
local function factor(name, k, s, d, c)
  local alpha = k == 4
  local f = {
    zero = 0, one = 255,
    src_color = s[k], one_minus_src_color = 255 - s[k],
    dst_color = d[k], one_minus_dst_color = 255 - d[k],
    src_alpha = s[4], one_minus_src_alpha = 255 - s[4],
    dst_alpha = d[4], one_minus_dst_alpha = 255 - d[4],
    constant_color = c[k], one_minus_constant_color = 255 - c[k],
    constant_alpha = c[4], one_minus_constant_alpha = 255 - c[4],
    src_alpha_saturate = alpha and 255 or math.min(s[4], 255 - d[4]),
  }
  return assert(f[name], name)
end

local function combine(eq, s, d, ts, td)
  if eq == "add" then return math.min(ts + td, 255)
  elseif eq == "subtract" then return math.max(ts - td, 0)
  elseif eq == "reverse_subtract" then return math.max(td - ts, 0)
  elseif eq == "min" then return math.min(s, d)
  else assert(eq == "max"); return math.max(s, d) end
end

local PRESETS = {
  replace = {"add", "one", "zero"}, alpha = {"add", "src_alpha", "one_minus_src_alpha"},
  premultiplied = {"add", "one", "one_minus_src_alpha"}, add = {"add", "one", "one"},
  multiply = {"add", "dst_color", "zero"}, screen = {"add", "one", "one_minus_src_color"},
  min = {"min", "one", "one"}, max = {"max", "one", "one"},
}

-- The blend of s over d for a frame:state blend value and colour mask.
local function expected(blend, mask, s, d)
  local b = blend
  if type(b) == "string" then
    local p = PRESETS[b]
    b = {equation = p[1], src = p[2], dst = p[3]}
  elseif not b then
    b = {}
  end
  local c = {0, 0, 0, 0}
  for k = 1, 4 do c[k] = b.color and math.floor(b.color[k] * 255 + 0.5) or 0 end
  local out = {}
  for k = 1, 4 do
    local alpha = k == 4
    local eq = alpha and (b.alpha_equation or b.equation) or b.equation or "add"
    local fs = alpha and (b.src_alpha or b.src) or b.src or "one"
    local fd = alpha and (b.dst_alpha or b.dst) or b.dst or "zero"
    local v = combine(eq, s[k], d[k], muld(s[k], factor(fs, k, s, d, c)), muld(d[k], factor(fd, k, s, d, c)))
    out[k] = (mask == nil or mask[k]) and v or d[k]
  end
  return out
end
-- Hand-worked checks of the reference itself: source over, and saturate.
do
  local r = expected("alpha", nil, {255, 0, 0, 128}, {26, 26, 38, 255})
  assert(r[1] == 141 and r[2] == 13 and r[3] == 19 and r[4] == 191)       -- as tests/lua/scene_blend.lua
  r = expected({src = "src_alpha_saturate", dst = "one"}, nil, {100, 200, 50, 90}, {10, 20, 30, 200})
  -- colour: f = min(90, 55) = 55: 100·55 → 22, + 10 = 32; alpha: 90·255 → 90, + 200 = 255 (saturated)
  assert(r[1] == 32 and r[2] == muld(200, 55) + 20 and r[3] == muld(50, 55) + 30 and r[4] == 255)
end

-- ---- the cases ----------------------------------------------------------------

local cases = {
  {blend = false},
  {blend = "replace"},
  {blend = "alpha"},
  {blend = "premultiplied"},
  {blend = "add"},
  {blend = "multiply"},
  {blend = "screen"},
  {blend = "min"},
  {blend = "max"},
  {blend = {equation = "subtract", src = "one", dst = "dst_alpha"}},
  {blend = {equation = "reverse_subtract", src = "src_color", dst = "one_minus_dst_color"}},
  {blend = {src = "one_minus_src_color", dst = "dst_color"}},
  {blend = {src = "dst_alpha", dst = "one_minus_dst_alpha"}},
  {blend = {src = "constant_color", dst = "one_minus_constant_color", color = {51 / 255, 1, 0, 128 / 255}}},
  {blend = {src = "constant_alpha", dst = "one_minus_constant_alpha", color = {0, 0, 0, 77 / 255}}},
  {blend = {src = "src_alpha_saturate", dst = "one"}},
  {blend = {src = "src_alpha", dst = "one_minus_src_alpha", src_alpha = "one", dst_alpha = "zero"}},
  {blend = {equation = "add", src = "one", dst = "one", alpha_equation = "max"}},
  {blend = {equation = "min", alpha_equation = "reverse_subtract", src_alpha = "src_alpha_saturate",
            dst_alpha = "dst_color"}},
  {blend = {src = "zero", dst = "one"}},
  {blend = false, color_mask = {true, false, true, false}},
  {blend = "alpha", color_mask = {false, true, true, true}},
  {blend = {src = "src_color", dst = "src_alpha", src_alpha = "one_minus_dst_alpha", dst_alpha = "constant_alpha",
            color = {0, 0, 0, 200 / 255}}, color_mask = {true, true, false, true}},
}

local draw_state = {}
gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 0}}
  frame:draw {mode = "strip", vertices = quad, shader = shader, uniforms = {vertex = VIEWPORT, fragment = words(DST)}}
  frame:state(draw_state)
  frame:draw {mode = "strip", vertices = quad, shader = shader, uniforms = {vertex = VIEWPORT, fragment = words(SRC)}}
end, target)

local function check_case(i, case, threads)
  draw_state = {blend = case.blend, color_mask = case.color_mask or {true, true, true, true}}
  local f = gpusim.render {threads = threads}
  local px = mem.read(f.framebuffer, "u8", f.stride * f.height)
  local changed = 0
  for y = 0, H - 1 do
    for x = 0, W - 1 do
      local s, d = bytes(word_at(SRC, x, y)), bytes(word_at(DST, x, y))
      local want = expected(case.blend, case.color_mask, s, d)
      local at = y * f.stride + 4 * x + 1
      for k = 1, 4 do
        local got = px[at + k - 1]
        if got ~= want[k] then
          error(string.format("case %d, pixel (%d, %d) channel %d: got %d, the blend gives %d (src %s, dst %s)",
            i, x, y, k, got, want[k], table.concat(s, ","), table.concat(d, ",")))
        end
        if want[k] ~= d[k] then changed = changed + 1 end
      end
    end
  end
  return changed
end

-- The first quad alone lands where the pattern says: x_coord and y_coord
-- count from the bottom-left pixel, as the test's formulas assume.
for i, case in ipairs(cases) do
  local changed = check_case(i, case, i % 2 + 1)
  -- every case (but "keep the destination") changes most bytes
  assert(changed > W * H or (case.blend and case.blend.src == "zero"), "case " .. i .. " changed too little")
end

-- ---- variants: cached, and none for "replace" ------------------------------------
-- The fragment programs of a frame's draws: the code address in each GL
-- shader record (bytes 4..7, reference §4.5), found by walking the binning
-- list packet by packet (sizes from reference §4.2).
local SIZES = {[112] = 16, [6] = 1, [56] = 2, [102] = 9, [96] = 4, [98] = 5, [99] = 5, [105] = 9, [103] = 5,
               [106] = 9, [97] = 5, [64] = 5, [33] = 10, [32] = 14, [7] = 1, [4] = 1, [16] = 5}
local function fs_addresses(f)
  local out, a = {}, f.bin_start
  while a ~= f.bin_end do
    local id = mem.read(a, "u8")[1]
    local size = assert(SIZES[id], "unexpected packet " .. id)
    if id == 16 then
      a = mem.read(a + 1, "u32")[1]
    else
      if id == 64 then out[#out + 1] = mem.read((mem.read(a + 1, "u32")[1] & ~15) + 4, "u32")[1] end
      a = a + size
    end
  end
  return out
end
draw_state = {blend = false}
local plain = fs_addresses(gpusim.render {run = false})
assert(#plain == 2 and plain[1] == shader.fragment_code and plain[2] == shader.fragment_code)
draw_state = {blend = "replace", color_mask = {true, true, true, true}}
plain = fs_addresses(gpusim.render {run = false})
assert(plain[2] == shader.fragment_code, "replace needs no variant")
draw_state = {blend = "alpha"}
local v1 = fs_addresses(gpusim.render {run = false})[2]
local v2 = fs_addresses(gpusim.render {run = false})[2]
assert(v1 ~= shader.fragment_code and v1 == v2, "the variant is cached")
draw_state = {blend = "add"}
assert(fs_addresses(gpusim.render {run = false})[2] ~= v1, "another state, another variant")
-- the variant keeps the program's SPH (the 20 words after the header's 16 bytes)
assert(mem.read_bytes(v1 - 80, 80) == mem.read_bytes(shader.fragment_code - 80, 80))

-- ---- shader:variant shows the linked code ---------------------------------------
local small = gpusim.shader {
  isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0), inputs = {{name = "position", components = 4}},
  fragment = "mov tlb_colour_all, unif\nthrend\nnop\nsbdone\n",
}
assert(small:variant {} == "mov tlb_colour_all, unif\nthrend\nnop\nsbdone\n")
assert(small:variant {blend = "replace", stencil = false} == small:variant {})
assert(small:variant {blend = "alpha"} == table.concat({
  "mov r0, unif", "mov ra31, r0 ; loadc", "nop", "not r2, ra31.8dr ; v8muld r1, r0, ra31.8dr",
  "v8muld r2, r4, r2", "nop ; v8adds r1, r1, r2", "mov tlb_colour_all, r1", "thrend", "nop", "sbdone", ""}, "\n"))
assert(small:variant {stencil = {func = "equal", ref = 1}}:find(
  "ldi tlb_stencil, 0xf24a01ff\nmov tlb_z, rb15\nnop\nmov tlb_colour_all, unif\nthrend\n", 1, true))
local _, loads = small:variant {blend = "add", samples = 4}:gsub("loadc", "")
local _, writes = small:variant {blend = "add", samples = 4}:gsub("mov tlb_colour_ms, r1", "")
assert(loads == 4 and writes == 4, "one load and one write per sample")
fails({here, "field 'samples' must be 1 or 4"}, function() return small:variant {samples = 2} end)
fails({here, "bad argument #1 to 'variant'", "unknown field 'depth_test'"},
      function() return small:variant {depth_test = true} end)
fails({here, "field 'blend' must be one of"}, function() return small:variant {blend = "over"} end)
fails({"shader:variant: instruction 2 at line 3 (mov.zs tlb_colour_all, r0)", "conditional"}, function()
  return gpusim.shader {isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0),
                        inputs = {{name = "position", components = 4}},
                        fragment = "mov r0, 1\nmov.setf -, r0\nmov.zs tlb_colour_all, r0\nthrend\nnop\nnop\n"}
         :variant {color_mask = {true, true, true, false}}
end)

-- ---- errors ----------------------------------------------------------------------
local function state_error(patterns, st)
  gpusim.frame(function(frame) frame:state(st) end, target)
  fails(patterns, gpusim.render, {run = false})
end
state_error({here, "bad argument #1 to 'state'", "field 'blend': unknown field 'eqation'", "known: equation"},
            {blend = {eqation = "add"}})
state_error({here, "field 'blend' must be one of 'replace', 'alpha'", "got alpah"}, {blend = "alpah"})
state_error({here, "field 'blend.src' must be one of 'zero', 'one'", "got one_minus_alpha"},
            {blend = {src = "one_minus_alpha"}})
state_error({here, "field 'blend.alpha_equation' must be one of", "got mul"}, {blend = {alpha_equation = "mul"}})
state_error({here, "field 'blend.color' must be {r, g, b, a}"}, {blend = {color = {1, 1, 1}}})
state_error({here, "field 'blend.color': component 2 must be in 0..1"}, {blend = {color = {1, 2, 1, 1}}})
state_error({here, "field 'blend' must be false, a name"}, {blend = true})
state_error({here, "field 'color_mask' must be {r, g, b, a} booleans"}, {color_mask = {true}})
state_error({here, "field 'color_mask': entry 3 must be a boolean"}, {color_mask = {true, true, 1, true}})
state_error({here, "field 'stencil': unknown field 'zpas'"}, {stencil = {zpas = "keep"}})
state_error({here, "field 'stencil.func' must be one of 'never', 'less'", "got lesser"},
            {stencil = {func = "lesser"}})
state_error({here, "field 'stencil.zfail' must be one of 'zero', 'keep', 'replace'", "got plus"},
            {stencil = {zfail = "plus"}})
state_error({here, "field 'stencil.ref' must be an integer in 0..255, got 256"}, {stencil = {ref = 256}})
state_error({here, "field 'stencil.back': unknown field 'back'"}, {stencil = {back = {back = {}}}})
state_error({here, "field 'stencil.back.write_mask' must be an integer"}, {stencil = {back = {write_mask = -1}}})
state_error({here, "field 'stencil' must be false or a table"}, {stencil = "on"})

-- A program the driver cannot link: the error names the draw's line, the
-- fragment program and the instruction.
local cond = gpusim.shader {
  isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0),
  fragment = "mov r0, unif\nmov.setf -, elem_num\nmov.zc tlb_colour_all, r0\nthrend\nnop\nsbdone\n",
  inputs = {{name = "position", components = 4}},
}
gpusim.frame(function(frame)
  frame:state {blend = "alpha"}
  frame:draw {mode = "strip", vertices = quad, shader = cond, uniforms = {vertex = VIEWPORT, fragment = {0}}}
end, target)
fails({here, "frame:draw", string.format("fragment program 0x%08x", cond.fragment_code),
       "instruction 2 at line 3 (mov.zc tlb_colour_all, r0)", "conditional colour write"}, gpusim.render, {run = false})
-- ---- 4 samples: each sample blends with its own tile colour -----------------------
-- The first quad covers x < 8.5 pixels: in column 8 only samples 0 and 2
-- (at x + 0.375 and x + 0.125, docs/rasterization.md) get its colour, 1 and
-- 3 keep the clear colour (0). The blended quad covers everything; the
-- driver loads, blends and writes (tlb_colour_ms) each sample, and the
-- store averages them byte by byte, (s0 + s1 + s2 + s3 + 2) // 4
-- (docs/tile-buffer.md).
do
  local ms = gpusim.target {width = 16, height = 16, samples = 4}
  local X = 8.5 / 8 - 1
  local left = gpusim.buffer {format = "f32x4", data = {{-1, -1, 0, 1}, {X, -1, 0, 1}, {-1, 1, 0, 1}, {X, 1, 0, 1}}}
  local ms_cases = {{blend = "alpha"}, {blend = "max"}, {blend = {src = "dst_color", dst = "one_minus_src_alpha"}},
                    {blend = "add", color_mask = {false, true, true, true}}, {color_mask = {true, false, true, false}}}
  for i, case in ipairs(ms_cases) do
    gpusim.frame(function(frame)
      frame:clear {color = {0, 0, 0, 0}}
      frame:draw {mode = "strip", vertices = left, shader = shader, uniforms = {vertex = VIEWPORT, fragment = words(DST)}}
      frame:state {blend = case.blend or false, color_mask = case.color_mask or {true, true, true, true}}
      frame:draw {mode = "strip", vertices = quad, shader = shader, uniforms = {vertex = VIEWPORT, fragment = words(SRC)}}
    end, ms)
    local f = gpusim.render {threads = i % 2 + 1}
    local px = mem.read(f.framebuffer, "u8", f.stride * f.height)
    for y = 0, 15 do
      for x = 0, 15 do
        local s, d = bytes(word_at(SRC, x, y)), bytes(word_at(DST, x, y))
        local sum = {0, 0, 0, 0}
        for sample = 0, 3 do
          local covered = x < 8 or (x == 8 and (sample == 0 or sample == 2))
          local r = expected(case.blend, case.color_mask, s, covered and d or {0, 0, 0, 0})
          for k = 1, 4 do sum[k] = sum[k] + r[k] end
        end
        for k = 1, 4 do
          local got, want = px[y * f.stride + 4 * x + k], (sum[k] + 2) // 4
          if got ~= want then
            error(string.format("4 samples, case %d, pixel (%d, %d) channel %d: got %d, want %d", i, x, y, k, got, want))
          end
        end
      end
    end
  end
end

-- Blending works on words of four bytes: not on rgba16f targets (stencil
-- alone is fine there).
for _, t in ipairs {gpusim.target {width = 16, height = 16, format = "rgba16f"}} do
  gpusim.frame(function(frame)
    frame:state {blend = "add"}
    frame:draw {mode = "strip", vertices = quad, shader = shader, uniforms = {vertex = VIEWPORT, fragment = words(SRC)}}
  end, t)
  fails({here, "frame:draw", "blending and colour masks need a target of 8-bit colour", "not RGBA16F"},
        gpusim.render, {run = false})
  gpusim.frame(function(frame)
    frame:state {color_mask = {true, false, true, true}}
    frame:draw {mode = "strip", vertices = quad, shader = shader, uniforms = {vertex = VIEWPORT, fragment = words(SRC)}}
  end, t)
  fails({here, "blending and colour masks need"}, gpusim.render, {run = false})
  gpusim.frame(function(frame)
    frame:state {stencil = {func = "always"}}
    frame:draw {mode = "strip", vertices = quad, shader = shader, uniforms = {vertex = VIEWPORT, fragment = words(SRC)}}
  end, t)
  gpusim.render {}
end

gpusim.frame(function() end, target)  -- the gpusim program renders the last callback after the script
print("blend_state: ok")
