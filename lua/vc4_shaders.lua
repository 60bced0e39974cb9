-- vc4_shaders.lua — the position shaders nearly every scene needs (and a
-- colour fragment shader, colour3), in
-- commented QPU assembly (docs/qpu.md). A scene writes its own fragment
-- shader and takes these for positions given in clip space:
--
--   local shaders = require "vc4_shaders"
--   gpusim.shader {coordinate = shaders.coordinate, vertex = shaders.vertex(3),
--                  fragment = ..., ...}
--
-- Both read a vertex's attributes from the VPM, one row per 32-bit word,
-- the position (Xc, Yc, Zc, Wc) first. Their uniforms are the viewport
-- values the driver fills in (docs/scenes.md): the half width and half
-- height in 1/16 pixel, then the depth scale and offset.
local shaders = {}

-- The coordinate shader runs in the binning pass, 16 vertices at a time (one
-- per lane). It writes the seven rows the tile binner reads: Xc Yc Zc Wc,
-- Ys|Xs (screen position in 1/16 pixel from the viewport centre), Zs and 1/Wc.
shaders.coordinate = [[
    ldi vr_setup, 0x00401a00    # read 4 rows (Xc Yc Zc Wc) from VPM row 0
    ldi vw_setup, 0x00001a00    # write rows from row 0, one after another
    mov ra0, vpm                # Xc
    mov ra1, vpm                # Yc
    mov ra2, vpm                # Zc
    mov r3, vpm                 # Wc
    mov sfu_recip, r3           # r4 = 1/Wc, readable three instructions on
    mov vpm, ra0                # row 0: Xc
    mov vpm, ra1                # row 1: Yc
    mov vpm, ra2                # row 2: Zc
    mov vpm, r3                 # row 3: Wc
    fmul r0, ra0, r4            # Xc/Wc
    fmul r1, ra1, r4            # Yc/Wc
    fmul r0, r0, unif           # x half width in 1/16 pixel = Xs
    fmul r1, r1, unif           # x half height in 1/16 pixel = Ys
    ftoi ra3.16a, r0            # Xs as an integer into bits 15:0
    ftoi ra3.16b, r1            # Ys into bits 31:16
    fmul r2, ra2, r4            # Zc/Wc
    fmul r2, r2, unif           # x depth scale
    fadd r2, r2, unif           # + depth offset = Zs
    mov vpm, ra3                # row 4: Ys|Xs
    mov vpm, r2                 # row 5: Zs
    mov vpm, r4                 # row 6: 1/Wc
    thrend
    nop
    nop
]]

-- The vertex shader runs in the rendering pass for the vertices of each
-- tile's primitives. Same position maths, but it writes the rows the
-- primitive setup reads — Ys|Xs, Zs, 1/Wc — then the `varyings` words that
-- follow the position in the VPM (0..24 of them), passed on unchanged.
function shaders.vertex(varyings)
  assert(math.type(varyings) == "integer" and varyings >= 0 and varyings <= 24,
         "vc4_shaders.vertex: the number of varyings must be an integer 0..24")
  local t = {}
  local function add(line) t[#t + 1] = line end
  add(string.format("    ldi vr_setup, 0x00%x01a00    # read %d rows: Xc Yc Zc Wc, then the varyings",
                    4 + varyings, 4 + varyings))
  add("    ldi vw_setup, 0x00001a00    # write rows from row 0")
  add("    mov ra0, vpm                # Xc")
  add("    mov ra1, vpm                # Yc")
  add("    mov ra2, vpm                # Zc")
  add("    mov r3, vpm                 # Wc")
  add("    mov sfu_recip, r3           # r4 = 1/Wc, readable three instructions on")
  for k = 0, varyings - 1 do
    add(string.format("%-32s# varying %d", "    mov ra" .. (4 + k) .. ", vpm", k))
  end
  for _ = varyings + 1, 2 do add("    nop                         # (wait for r4)") end
  add("    fmul r0, ra0, r4            # Xc/Wc")
  add("    fmul r1, ra1, r4            # Yc/Wc")
  add("    fmul r0, r0, unif           # Xs in 1/16 pixel")
  add("    fmul r1, r1, unif           # Ys")
  add("    ftoi ra3.16a, r0")
  add("    ftoi ra3.16b, r1")
  add("    fmul r2, ra2, r4            # Zc/Wc")
  add("    fmul r2, r2, unif")
  add("    fadd r2, r2, unif           # Zs")
  add("    mov vpm, ra3                # row 0: Ys|Xs")
  add("    mov vpm, r2                 # row 1: Zs")
  add("    mov vpm, r4                 # row 2: 1/Wc")
  for k = 0, varyings - 1 do
    add(string.format("%-32s# varying %d", "    mov vpm, ra" .. (4 + k), k))
  end
  add("    thrend")
  add("    nop")
  add("    nop")
  return table.concat(t, "\n") .. "\n"
end

-- A fragment shader for three colour varyings (r, g, b): each varying
-- interpolated (VP x W + C, docs/rasterization.md), scaled to a byte and
-- packed with alpha 1.0 into one word for the tile buffer.
shaders.colour3 = [[
    fmul r0, vary, ra15
    fadd r0, r0, r5
    fmul r1, vary, ra15
    fadd r1, r1, r5
    fmul r2, vary, ra15
    fadd r2, r2, r5
    fmul r3.8a, r0, 1.0
    fmul r3.8b, r1, 1.0
    fmul r3.8c, r2, 1.0
    fmul r3.8d, 1.0, 1.0
    mov tlb_colour_all, r3
    thrend
    nop
    sbdone
]]

return shaders
