-- cube.lua — a textured cube turning in perspective, with a depth test so
-- that the near faces hide the far ones (culling is off: the depth test
-- alone does it). The model-view-projection matrix is a uniform: 16 floats,
-- row by row, that the coordinate and vertex shaders multiply the position
-- by. Run it with
--   gpusim scenes/cube.lua
--   gpusim --headless -o cube.png scenes/cube.lua
--   gpusim scenes/cube.lua sass       (NVIDIA Maxwell programs; also sass:qpu, qpu:sass)
--   gpusim scenes/cube.lua pica:qpu   (a 3DS PICA200 vertex shader; also pica:sass, and pica
--                                      with a texture combiner)
--   gpusim scenes/cube.lua agx        (Apple AGX programs; also agx:qpu, agx:sass, qpu:agx,
--                                      sass:agx, pica:agx)
local gpusim = require "gpusim"
local sass = require "sass_shaders"   -- lua/sass_shaders.lua: Maxwell SASS programs
local pica = require "pica_shaders"   -- lua/pica_shaders.lua: PICA200 vertex shaders
local agx = require "agx_shaders"     -- lua/agx_shaders.lua: Apple AGX programs
local vertex_isa, fragment_isa = require("isas").parse(..., {"qpu", "sass", "pica", "agx"}, {"qpu", "sass", "pica", "agx"})  -- lua/isas.lua
local vm = require "vecmath"
local mesh = require "mesh"
local mat4 = vm.mat4

local target = gpusim.target {width = 256, height = 256, format = "rgba8888", depth = true}
local texture = gpusim.texture {file = "../assets/checker.png", filter = "nearest", wrap = "clamp"}

-- The cube (corners at ±1) with its position (x, y, z, 1) and texture
-- coordinate (u, v) per vertex: four vertices per face.
local cube = mesh.select(mesh.cube(), 1, 3)
local vertices = gpusim.buffer {format = cube.format, data = cube.vertices}
local indices = gpusim.buffer {format = "u16", data = cube.indices}

-- The matrix at time t: turn the cube about y and x, move it 5 units in
-- front of the eye, project with a 45° field of view.
local function mvp(t)
  local projection = mat4.perspective(math.pi / 4, 1, 1, 10)
  local model = mat4.mul(mat4.rotate_y(0.9 * t + 0.5), mat4.rotate_x(0.6 * t + 0.4))
  return mat4.mul(projection, mat4.translate(0, 0, -5), model)
end

-- Clip position = M × (x, y, z, 1): four rows of "M[i][1] x + M[i][2] y +
-- M[i][3] z + M[i][4]", the 16 entries read from the uniforms in order.
-- Both the coordinate and the vertex shader start with it (ra0-ra2 hold x,
-- y, z; the result goes to ra4-ra7 = Xc Yc Zc Wc).
local transform = [[
    fmul r0, ra0, unif          # Xc = M11 x
    fmul r1, ra1, unif          #    + M12 y
    fadd r0, r0, r1
    fmul r1, ra2, unif          #    + M13 z
    fadd r0, r0, r1
    fadd ra4, r0, unif          #    + M14
    fmul r0, ra0, unif          # Yc
    fmul r1, ra1, unif
    fadd r0, r0, r1
    fmul r1, ra2, unif
    fadd r0, r0, r1
    fadd ra5, r0, unif
    fmul r0, ra0, unif          # Zc
    fmul r1, ra1, unif
    fadd r0, r0, r1
    fmul r1, ra2, unif
    fadd r0, r0, r1
    fadd ra6, r0, unif
    fmul r0, ra0, unif          # Wc
    fmul r1, ra1, unif
    fadd r0, r0, r1
    fmul r1, ra2, unif
    fadd r0, r0, r1
    fadd r3, r0, unif
    mov sfu_recip, r3           # r4 = 1/Wc, readable three instructions on
    mov ra7, r3
    nop
    nop
]]

-- Then the screen position, as in triangle.lua: Ys|Xs in 1/16 pixel into
-- ra3, Zs into r2.
local project = [[
    fmul r0, ra4, r4            # Xc/Wc
    fmul r1, ra5, r4            # Yc/Wc
    fmul r0, r0, unif           # Xs in 1/16 pixel
    fmul r1, r1, unif           # Ys
    ftoi ra3.16a, r0
    ftoi ra3.16b, r1
    fmul r2, ra6, r4            # Zc/Wc
    fmul r2, r2, unif
    fadd r2, r2, unif           # Zs
]]

local coordinate = [[
    ldi vr_setup, 0x00401a00    # read 4 rows: x y z 1
    ldi vw_setup, 0x00001a00
    mov ra0, vpm                # x
    mov ra1, vpm                # y
    mov ra2, vpm                # z
    mov -, vpm                  # 1
]] .. transform .. project .. [[
    mov vpm, ra4                # rows 0-3: Xc Yc Zc Wc
    mov vpm, ra5
    mov vpm, ra6
    mov vpm, ra7
    mov vpm, ra3                # row 4: Ys|Xs
    mov vpm, r2                 # row 5: Zs
    mov vpm, r4                 # row 6: 1/Wc
    thrend
    nop
    nop
]]

local vertex = [[
    ldi vr_setup, 0x00601a00    # read 6 rows: x y z 1, u v
    ldi vw_setup, 0x00001a00
    mov ra0, vpm                # x
    mov ra1, vpm                # y
    mov ra2, vpm                # z
    mov -, vpm                  # 1
    mov ra8, vpm                # u
    mov ra9, vpm                # v
]] .. transform .. project .. [[
    mov vpm, ra3                # row 0: Ys|Xs
    mov vpm, r2                 # row 1: Zs
    mov vpm, r4                 # row 2: 1/Wc
    mov vpm, ra8                # varyings: u
    mov vpm, ra9                #           v
    thrend
    nop
    nop
]]

-- The fragment shader writes the depth (rb15, from the primitive setup)
-- for the depth test, then looks the texel up at (u, v).
local fragment = [[
    mov tlb_z, rb15             # this pixel's depth
    fmul r0, vary, ra15         # u = VP x W + C
    fadd r0, r0, r5
    fmul r1, vary, ra15         # v
    fadd r1, r1, r5
    mov tmu0_t, r1              # t = v (pops texture parameter 0)
    mov tmu0_s, r0              # s = u (pops parameter 1, starts the lookup)
    nop ; nop ; ldtmu0          # r4 = the texel, bytes R G B A
    mov tlb_colour_all, r4
    thrend
    nop
    sbdone
]]

-- The same in NVIDIA Maxwell SASS (lua/sass_shaders.lua): the vertex
-- program multiplies by the matrix in c[0x0] (the vertex uniforms) with
-- FFMA and stores the clip-space position and (u, v); the pixel program
-- interpolates (u, v) perspective-correct and looks the texture up with
-- TEXS, whose handle 0x0 is the word of c[0x0] (the fragment uniforms)
-- where the texture's config words are. Depth: the rasterised Z, tested
-- by the SASS unit for every pixel. The PICA200 vertex shader
-- (lua/pica_shaders.lua) multiplies by the same matrix, c0-c3 of its float
-- uniforms, with DP4 in float24, and sends (u, v) on as texcoord0; it pairs
-- with the QPU's or the SASS fragment program (pica:qpu, pica:sass), or
-- with the PICA200's fixed-function fragment stage (pica): one texture
-- combiner stage that takes texture 0's texel, which the driver turns into
-- a QPU program (docs/pica-combiners.md); `depth` has it write the
-- rasterised Z for the depth test. The varying is named for the combiners:
-- texcoord0 gives texture 0's coordinates. The Apple AGX programs
-- (lua/agx_shaders.lua): the vertex program multiplies by the matrix with
-- fmul and fused ffma and stores the position and (u, v) with st_var; the
-- fragment program interpolates (u, v) with iter through cf1, cf2 and the
-- W coefficient cf0 and samples with smpf ts0, whose config words are the
-- first two of the fragment uniforms, where the list below puts the
-- texture (docs/agx-unit.md, Textures).
local programs = {
  qpu = {coordinate = coordinate, vertex = vertex, fragment = fragment},
  sass = {vertex = sass.vertex_mvp(2), fragment = sass.textured},
  pica = {vertex = pica.vertex_mvp("texcoord0"), combiners = {{sources = {"texture0"}}, depth = true}},
  agx = {vertex = agx.vertex_mvp(2), fragment = agx.textured},
}

local shader = gpusim.shader {
  coordinate = programs[vertex_isa].coordinate,
  vertex = {isa = vertex_isa, source = programs[vertex_isa].vertex},
  fragment = fragment_isa == "pica" and {combiners = programs.pica.combiners}
             or {isa = fragment_isa, source = programs[fragment_isa].fragment},
  inputs = {{name = "position", components = 4}, {name = "uv", components = 2}},
  coordinate_inputs = {"position"},
  varyings = {{name = "texcoord0", components = 2}},
}

gpusim.frame(function(frame, t)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}, depth = 1.0}
  frame:state {depth_test = "less"}
  frame:draw {
    vertices = vertices, indices = indices, shader = shader,
    uniforms = {
      vertex = {mvp(t), "viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
      fragment = {texture},
    },
  }
end, target)

return {mvp = mvp}
