-- fetch_errors.lua — a hand-written list run by gpusim.v3d.run keeps the
-- hardware's behaviour, but a vertex fetch outside allocated GPU memory is
-- an error naming the shader record and the address, in NV mode (the
-- pre-shaded vertices of an NV shader record, RG Table 46) and in GL mode
-- (an attribute array of a GL shader record, RG Tables 44-45, named by its
-- number in the record), in the binning list and in the rendering list.
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"
local mem = gpusim.mem
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails
local function hex(a) return string.format("0x%08x", a) end

local W, H = 64, 64
local alloc_bytes = require("check").alloc_bytes

-- NV mode: three pre-shaded vertices (Xs, Ys in 12.4, Zs, 1/Wc, then the
-- varyings), a constant-colour fragment shader, one 64x64 tile.
local fs = gpusim.qpu.load(gpusim.asm("qpu", "    ldi r0, 0xff00ff00\n    mov tlb_colour_all, r0\n" ..
                                              "    thrend\n    nop\n    nop\n"))
local function nv_frame(nvary, verts)
  local record = alloc_bytes(string.pack("<BBBBI4I4I4", 1, 12 + 4 * nvary, 0, nvary, fs, mem.alloc(16), verts))
  local fb, tile_alloc, tsda = mem.alloc(W * H * 4), mem.alloc(8192, 256), mem.alloc(48)
  local bin = table.concat {
    string.pack("<BI4I4I4BBB", 112, tile_alloc, 8192, tsda, 1, 1, 0x04),
    "\6",
    string.pack("<BI2I2I2I2", 102, 0, 0, W, H),
    string.pack("<BI3", 96, 0x7003),
    string.pack("<BI4", 65, record),                  -- NV Shader State
    string.pack("<BBI4I4", 33, 4, 3, 0),              -- vertices 0, 1, 2 as a triangle
    "\7\4",
  }
  local render = table.concat {
    string.pack("<BI4I4I3BB", 114, 0xff000000, 0xff000000, 0xffffff, 0, 0),
    string.pack("<BI4I2I2I2", 113, fb, W, H, 1 << 2),
    string.pack("<BBB", 115, 0, 0), "\8",
    string.pack("<BI4", 17, tile_alloc), "\25",
  }
  local b, r = alloc_bytes(bin), alloc_bytes(render)
  return {bin = {b, b + #bin}, render = {r, r + #render}}, record, fb
end
local function nv_vertex(x, y, nvary)
  return string.pack("<i2i2ff", x * 16, y * 16, 0.5, 1.0) .. string.rep(string.pack("<f", 0.25), nvary)
end
local tri = {{4, 4}, {60, 8}, {20, 60}}

-- The whole vertex array in memory: the triangle is drawn.
local s = ""
for _, v in ipairs(tri) do s = s .. nv_vertex(v[1], v[2], 0) end
local lists, _, fb = nv_frame(0, alloc_bytes(s))
assert(gpusim.v3d.run(lists).fragments > 0)
assert(mem.read(fb + (16 * W + 20) * 4, "u32", 1)[1] == 0xff00ff00)

-- Binning: vertex 2 (12 bytes, stride 12) lies past the 24 bytes allocated.
local verts = alloc_bytes(nv_vertex(4, 4, 0) .. nv_vertex(60, 8, 0))
local record
lists, record = nv_frame(0, verts)
fails({"gpusim.v3d.run", "binning list", "VERTEX_ARRAY_PRIMITIVES: NV shader record " .. hex(record) ..
       ": vertex 2: 12 bytes at " .. hex(verts + 24) .. " (vertex data " .. hex(verts) ..
       ", stride 12) are outside allocated GPU memory"}, gpusim.v3d.run, lists)

-- Rendering: with two varyings (stride 20) the binner reads a vertex's
-- first 12 bytes, the rendering pass all 20. 52 bytes hold vertex 2's
-- first 12 only, so binning passes and the rendering pass fails there.
verts = alloc_bytes(nv_vertex(4, 4, 2) .. nv_vertex(60, 8, 2) .. string.pack("<i2i2ff", 20 * 16, 60 * 16, 0.5, 1.0))
lists, record = nv_frame(2, verts)
fails({"gpusim.v3d.run", "rendering list", "NV shader record " .. hex(record) .. ": vertex 2: 20 bytes at " ..
       hex(verts + 40) .. " (vertex data " .. hex(verts) .. ", stride 20) are outside allocated GPU memory"},
      gpusim.v3d.run, lists)

-- GL mode, through the driver's lists: attribute 0 (colour) only the
-- vertex shader reads, attribute 1 (position) the coordinate shader as
-- well; interleaved, stride 32. The messages number an attribute as the
-- record does (its attribute record at record + 36 + 8 * n), not by its
-- place among the coordinate shader's.
local vb = gpusim.buffer {format = {"f32x4", "f32x4"},
                          data = {{1, 0, 0, 1, -1, -1, 0, 1}, {0, 1, 0, 1, 1, -1, 0, 1}, {0, 0, 1, 1, 0, 1, 0, 1}}}
local sh = gpusim.shader {isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0),
                          fragment = "    mov tlb_colour_all, unif\n    thrend\n    nop\n    sbdone\n",
                          inputs = {{name = "colour", components = 4}, {name = "position", components = 4}},
                          coordinate_inputs = {"position"}, varyings = {}}
local target = gpusim.target {width = W, height = H}
local VIEWPORT = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}
gpusim.frame(function(frame)
  frame:draw {vertices = vb, shader = sh, uniforms = {vertex = VIEWPORT, fragment = {{u32 = 0xff0000ff}}}}
end, target)
local f = gpusim.render {run = false}
lists = {bin = {f.bin_start, f.bin_end}, render = {f.render_start, f.render_end}}
assert(gpusim.v3d.run(lists).fragments > 0)
-- positions alone, at the same stride, allocated before the buffer goes
local positions = mem.alloc(96)
for i = 0, 2 do mem.write(positions + 32 * i, "f32", {({-1, 1, 0})[i + 1], ({-1, -1, 1})[i + 1], 0, 1}) end
local old = vb.address
getmetatable(vb).__close(vb)
local err = fails({"binning list", "coordinate shader attribute 1 of vertex 0: 16 bytes at " .. hex(old + 16) ..
                   " (array " .. hex(old + 16) .. ", stride 32) are outside allocated GPU memory"},
                  gpusim.v3d.run, lists)
record = tonumber(err:match("GL shader record 0x(%x+)"), 16)
assert(record and mem.read(record + 44, "u32", 1)[1] == old + 16, "the named record's attribute 1 is not the position")
-- Position back in memory: binning passes; the vertex shader's fetch of
-- attribute 0 fails in the rendering pass.
mem.write(record + 44, "u32", {positions})
fails({"rendering list", "vertex shader attribute fetch (GL shader record " .. hex(record) .. "): attribute 0 of vertex ",
       "read of 16 bytes at " .. hex(old), "(array " .. hex(old) .. ", stride 32) is outside allocated GPU memory"},
      gpusim.v3d.run, lists)
gpusim.frame(function() end, target)  -- the gpusim program renders the last callback after the script
print("fetch_errors: ok")
