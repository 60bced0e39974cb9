-- tiles.lua — the VideoCore IV renders a frame tile by tile. The binning
-- pass cuts the 256×256 frame into 4×4 tiles of 64×64 pixels and writes,
-- for every tile the triangle touches, a tile list naming it; the rendering
-- pass then visits the tiles one after another, each in the on-chip tile
-- buffer, and runs the fragment shader only in tiles whose list holds the
-- triangle. Here the fragment shader paints each pixel with the colour of
-- its tile — red grows with the tile column, green with the row — so the
-- triangle shows the grid it was rendered in. Tiles it does not touch stay
-- the clear colour: the binner never put it in their lists. Run it with
--   gpusim scenes/tiles.lua
--   gpusim --headless -o tiles.png scenes/tiles.lua
--   gpusim --headless --dump-cl - scenes/tiles.lua    (the tile lists)
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"  -- lua/vc4_shaders.lua: the position shaders

local target = gpusim.target {width = 256, height = 256, format = "rgba8888"}

-- The triangle's corners in pixels (y up from the bottom row), in clip space
-- x / 128 - 1: exact floats, so the corners land on whole pixels.
local corners = {{12, 20}, {244, 52}, {84, 236}}
local data = {}
for i, c in ipairs(corners) do data[i] = {c[1] / 128 - 1, c[2] / 128 - 1, 0, 1} end
local vertices = gpusim.buffer {format = "f32x4", data = data}

-- The fragment shader reads the pixel's position from the payload
-- (x_coord, y_coord: Broadcom's Reference Guide, Table 29). Bits 7:6 of a coordinate are
-- the tile number times 64, so masking them off gives red = 64 × column and
-- green = 64 × row; a constant lifts both by 0x30 and adds blue and alpha.
local fragment = [[
    ldi r2, 0xc0                # bits 7:6 of a coordinate: 64 x the tile number
    mov r0, x_coord             # the pixel's x, 0..255
    mov r1, y_coord             # the pixel's y
    and r0, r0, r2              # red   = 64 x tile column (0, 64, 128, 192)
    and r1, r1, r2              # green = 64 x tile row
    shl r1, r1, 8               # green into byte 1
    or r0, r0, r1
    ldi r1, 0xffc03030          # alpha 0xff, blue 0xc0, red and green + 0x30
    add tlb_colour_all, r0, r1  # the colour word: no byte carries into the next
    thrend
    nop
    sbdone                      # let the next batch touch these pixels
]]

local shader = gpusim.shader {
  isa = "qpu",
  coordinate = shaders.coordinate,
  vertex = shaders.vertex(0),
  fragment = fragment,
  inputs = {{name = "position", components = 4}},
  varyings = {},
}

local clear_color = {0.1, 0.1, 0.15, 1.0}

gpusim.frame(function(frame, t)
  frame:clear {color = clear_color}
  frame:draw {
    mode = "triangles",
    vertices = vertices,
    shader = shader,
    uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
  }
end, target)

-- What the scene drew, for tests/lua/scene_tiles.lua.
return {corners = corners, clear_color = clear_color}
