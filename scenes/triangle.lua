-- triangle.lua — a Gouraud triangle: three vertices with a red, a green and
-- a blue colour, interpolated across the triangle by the hardware's
-- varyings. The smallest complete scene: a render target, a vertex buffer,
-- a shader of three QPU programs, and a frame callback that clears and
-- draws. Run it with
--   gpusim scenes/triangle.lua                          (a window)
--   gpusim --headless -o triangle.png scenes/triangle.lua
-- docs/scenes.md explains every call.
local gpusim = require "gpusim"

local target = gpusim.target {width = 320, height = 240, format = "rgba8888"}

-- One vertex per row: the position in clip space (x, y, z, w), then the
-- colour (r, g, b). The buffer packs them as two attributes of 16 and 12
-- bytes, 28 bytes per vertex.
local vertices = gpusim.buffer {
  format = {"f32x4", "f32x3"},
  data = {
    {-0.8, -0.8, 0.0, 1.0,   1.0, 0.0, 0.0},   -- bottom left: red
    { 0.8, -0.8, 0.0, 1.0,   0.0, 1.0, 0.0},   -- bottom right: green
    { 0.0,  0.8, 0.0, 1.0,   0.0, 0.0, 1.0},   -- top: blue
  },
}

-- The coordinate shader runs in the binning pass, 16 vertices at a time
-- (one per lane). It reads the position from the VPM and writes the seven
-- rows the tile binner reads: Xc Yc Zc Wc, Ys|Xs (screen position in 1/16
-- pixel from the viewport centre), Zs and 1/Wc. The uniforms are the
-- viewport scales the driver fills in (see the draw below).
local coordinate = [[
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
-- tile's triangles. Same position maths, but it writes the rows the
-- primitive setup reads: Ys|Xs, Zs, 1/Wc, then the varyings (r, g, b).
local vertex = [[
    ldi vr_setup, 0x00701a00    # read 7 rows: Xc Yc Zc Wc, r g b
    ldi vw_setup, 0x00001a00    # write rows from row 0
    mov ra0, vpm                # Xc
    mov ra1, vpm                # Yc
    mov ra2, vpm                # Zc
    mov r3, vpm                 # Wc
    mov sfu_recip, r3           # r4 = 1/Wc
    mov ra4, vpm                # r
    mov ra5, vpm                # g
    mov ra6, vpm                # b
    fmul r0, ra0, r4            # Xc/Wc
    fmul r1, ra1, r4            # Yc/Wc
    fmul r0, r0, unif           # Xs in 1/16 pixel
    fmul r1, r1, unif           # Ys
    ftoi ra3.16a, r0
    ftoi ra3.16b, r1
    fmul r2, ra2, r4            # Zc/Wc
    fmul r2, r2, unif
    fadd r2, r2, unif           # Zs
    mov vpm, ra3                # row 0: Ys|Xs
    mov vpm, r2                 # row 1: Zs
    mov vpm, r4                 # row 2: 1/Wc
    mov vpm, ra4                # varying 0: r
    mov vpm, ra5                # varying 1: g
    mov vpm, ra6                # varying 2: b
    thrend
    nop
    nop
]]

-- The fragment shader runs for 16 pixels at a time. Reading `vary` gives
-- each pixel's part of a varying and puts the triangle's constant in r5:
-- value = vary x W + r5, with W in ra15. The colour is packed into one
-- 32-bit word (byte 0 red ... byte 3 alpha) and written to the tile buffer.
local fragment = [[
    fmul r0, vary, ra15         # red: vary x W
    fadd r0, r0, r5             #      + C
    fmul r1, vary, ra15         # green
    fadd r1, r1, r5
    fmul r2, vary, ra15         # blue
    fadd r2, r2, r5
    fmul r3.8a, r0, 1.0         # byte 0 = red x 255 (the MUL unit's colour pack)
    fmul r3.8b, r1, 1.0         # byte 1 = green
    fmul r3.8c, r2, 1.0         # byte 2 = blue
    fmul r3.8d, 1.0, 1.0        # byte 3 = alpha 255
    mov tlb_colour_all, r3      # write the covered pixels of the tile buffer
    thrend
    nop
    sbdone                      # let the next batch touch these pixels
]]

local shader = gpusim.shader {
  isa = "qpu",
  coordinate = coordinate,
  vertex = vertex,
  fragment = fragment,
  inputs = {
    {name = "position", components = 4},
    {name = "color", components = 3},
  },
  coordinate_inputs = {"position"},   -- the coordinate shader loads only the position
  varyings = {
    {name = "color", components = 3, interpolation = "perspective"},
  },
}

gpusim.frame(function(frame, t)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}}
  frame:draw {
    mode = "triangles",
    vertices = vertices,
    shader = shader,
    -- the same stream for the three programs; the fragment shader reads none
    uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
  }
end, target)
