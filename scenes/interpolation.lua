-- interpolation.lua — the three ways a varying can be interpolated, side by
-- side: three copies of one floor-like quad that leans away from the viewer
-- (W = 1 at its near, bottom edge and W = 4 at its far, top edge), each with
-- a colour varying declared
--   "flat"         (left):   one colour per triangle, the provoking (last)
--                            vertex's;
--   "perspective"  (middle): correct for the leaning plane — the far
--                            vertices' colours are squeezed towards the far
--                            edge, as a texture on the floor would be;
--   "screen"       (right):  linear in screen space, as if the quad were flat.
-- Run it with
--   gpusim scenes/interpolation.lua
--   gpusim --headless -o interpolation.png scenes/interpolation.lua
local gpusim = require "gpusim"

local target = gpusim.target {width = 384, height = 128, format = "rgba8888"}

-- Each copy is drawn into its own 128×128 viewport, so screen x and y run
-- 0..128 with the centre at 64: a normalised x of (X - 64)/64. Position in
-- clip space = normalised position × W. The quad is two triangles, near
-- left - near right - far right and near left - far right - far left:
--   near edge: y = 8,   x = 8..120, W = 1
--   far edge:  y = 120, x = 50..78, W = 4
local near, far = 1.0, 4.0
local function vertex(x, y, w, r, g, b)
  return {(x - 64) / 64 * w, (y - 64) / 64 * w, 0.0, w, r, g, b}
end
local NL = vertex(8, 8, near,    1, 0, 0)    -- near left: red
local NR = vertex(120, 8, near,  0, 1, 0)    -- near right: green
local FR = vertex(78, 120, far,  0, 0, 1)    -- far right: blue
local FL = vertex(50, 120, far,  1, 1, 0)    -- far left: yellow
local vertices = gpusim.buffer {
  format = {"f32x4", "f32x3"},
  data = {NL, NR, FR,   NL, FR, FL},
}

-- Coordinate shader (binning pass): the 7 rows the tile binner reads —
-- Xc Yc Zc Wc, Ys|Xs in 1/16 pixel, Zs, 1/Wc. As in triangle.lua.
local coordinate = [[
    ldi vr_setup, 0x00401a00    # read 4 rows: Xc Yc Zc Wc
    ldi vw_setup, 0x00001a00    # write rows from row 0
    mov ra0, vpm                # Xc
    mov ra1, vpm                # Yc
    mov ra2, vpm                # Zc
    mov r3, vpm                 # Wc
    mov sfu_recip, r3           # r4 = 1/Wc
    mov vpm, ra0                # rows 0-3: Xc Yc Zc Wc
    mov vpm, ra1
    mov vpm, ra2
    mov vpm, r3
    fmul r0, ra0, r4            # Xc/Wc
    fmul r1, ra1, r4            # Yc/Wc
    fmul r0, r0, unif           # Xs in 1/16 pixel
    fmul r1, r1, unif           # Ys
    ftoi ra3.16a, r0
    ftoi ra3.16b, r1
    fmul r2, ra2, r4            # Zc/Wc
    fmul r2, r2, unif
    fadd r2, r2, unif           # Zs
    mov vpm, ra3                # row 4: Ys|Xs
    mov vpm, r2                 # row 5: Zs
    mov vpm, r4                 # row 6: 1/Wc
    thrend
    nop
    nop
]]

-- Vertex shader (rendering pass): Ys|Xs, Zs, 1/Wc for the primitive setup,
-- then the colour varying r, g, b.
local vertex_shader = [[
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
    mov vpm, ra4                # varying: r
    mov vpm, ra5                #          g
    mov vpm, ra6                #          b
    thrend
    nop
    nop
]]

-- Fragment shader: the same for all three modes. The primitive setup gives
-- each pixel VP (read through `vary`) and the triangle's C (in r5) so that
-- VP × W + C is the value in whichever mode the varying was declared.
local fragment = [[
    fmul r0, vary, ra15         # red: VP x W
    fadd r0, r0, r5             #      + C
    fmul r1, vary, ra15         # green
    fadd r1, r1, r5
    fmul r2, vary, ra15         # blue
    fadd r2, r2, r5
    fmul r3.8a, r0, 1.0         # pack red x 255 into byte 0
    fmul r3.8b, r1, 1.0         # green: byte 1
    fmul r3.8c, r2, 1.0         # blue: byte 2
    fmul r3.8d, 1.0, 1.0        # alpha 255: byte 3
    mov tlb_colour_all, r3
    thrend
    nop
    sbdone
]]

-- One shader per mode: the programs are the same, only the declaration of
-- the varying (and so the fragment shader's header) differs.
local modes = {"flat", "perspective", "screen"}
local shaders = {}
for i, mode in ipairs(modes) do
  shaders[i] = gpusim.shader {
    isa = "qpu",
    coordinate = coordinate, vertex = vertex_shader, fragment = fragment,
    inputs = {{name = "position", components = 4}, {name = "color", components = 3}},
    coordinate_inputs = {"position"},
    varyings = {{name = "color", components = 3, interpolation = mode}},
  }
end

gpusim.frame(function(frame, t)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}}
  for i = 1, 3 do
    frame:state {viewport = {(i - 1) * 128, 0, 128, 128}}
    frame:draw {
      mode = "triangles", vertices = vertices, shader = shaders[i],
      uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
    }
  end
end, target)
