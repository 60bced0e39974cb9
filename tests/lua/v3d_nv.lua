-- v3d_nv.lua — gpusim.v3d.run on control lists written as bytes in Lua: an
-- NV-mode triangle (pre-shaded vertices) with a constant-colour fragment
-- shader, checked pixel by pixel against the fill rule of
-- docs/rasterization.md; the same frame with 1 and 3 threads; the run's
-- counts; and the errors for bad lists and bad arguments.
local gpusim = require "gpusim"
local mem = gpusim.mem
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

local W, H = 80, 40             -- two tiles side by side
local TX, TY = 2, 1

local alloc_bytes = require("check").alloc_bytes

-- The fragment shader: one colour for every covered pixel.
local fs = gpusim.qpu.load(gpusim.asm("qpu", [[
    ldi r0, 0xff00ff00       # green, opaque
    mov tlb_colour_all, r0
    thrend
    nop
    nop
]]))

-- Three pre-shaded vertices (reference §4.6): Xs, Ys in 12.4, Zs, 1/Wc.
local corners = {{2.5, 3.25}, {75.0, 12.0}, {20.0, 38.5}}
local vbytes = {}
for i, c in ipairs(corners) do
  vbytes[i] = string.pack("<i2i2ff", math.floor(c[1] * 16), math.floor(c[2] * 16), 0.5, 1.0)
end
local verts = alloc_bytes(table.concat(vbytes))
-- NV shader record: flags (single-threaded), stride 12, 0 uniforms, 0 varyings.
local record = alloc_bytes(string.pack("<BBBBI4I4I4", 1, 12, 0, 0, fs, mem.alloc(16), verts))

local fb = mem.alloc(W * H * 4)
local tile_alloc = mem.alloc(8192, 256)
local tsda = mem.alloc(48 * TX * TY)

local bin = table.concat {
  string.pack("<BI4I4I4BBB", 112, tile_alloc, 8192, tsda, TX, TY, 0x04), -- auto-init TSDA, 32-byte blocks
  "\6",                                                      -- Start Tile Binning
  string.pack("<BI2I2I2I2", 102, 0, 0, W, H),                -- Clip Window
  string.pack("<BI3", 96, 0x7003),                           -- both faces, depth test "always"
  string.pack("<BI4", 65, record),                           -- NV Shader State
  string.pack("<BBI4I4", 33, 4, 3, 0),                       -- 3 vertices as triangles
  "\7\4",                                                    -- Increment Semaphore, Flush
}
local render = {
  string.pack("<BI4I4I3BB", 114, 0xff000000, 0xff000000, 0xffffff, 0, 0), -- clear to opaque black
  string.pack("<BI4I2I2I2", 113, fb, W, H, 1 << 2),          -- RGBA8888, raster
}
for x = 0, TX - 1 do
  render[#render + 1] = string.pack("<BBB", 115, x, 0)
  if x == 0 then render[#render + 1] = "\8" end              -- Wait on Semaphore
  render[#render + 1] = string.pack("<BI4", 17, tile_alloc + x * 32)
  render[#render + 1] = x == TX - 1 and "\25" or "\24"
end
render = table.concat(render)
local bin_at, render_at = alloc_bytes(bin), alloc_bytes(render)

-- The fill rule: the centre (16x+8, 16y+8) is inside every edge of the
-- counter-clockwise triangle, or on an edge that owns it (running down, or
-- horizontal running right).
local function covers(px, py)
  local x, y = {}, {}
  for i, c in ipairs(corners) do x[i], y[i] = math.floor(c[1] * 16), math.floor(c[2] * 16) end
  local X, Y = 16 * px + 8, 16 * py + 8
  for i = 1, 3 do
    local j = i % 3 + 1
    local e = (x[j] - x[i]) * (Y - y[i]) - (y[j] - y[i]) * (X - x[i])
    if e < 0 then return false end
    if e == 0 and not (y[j] < y[i] or (y[j] == y[i] and x[j] > x[i])) then return false end
  end
  return true
end

local function frame_bytes(threads)
  local st = gpusim.v3d.run { bin = {bin_at, bin_at + #bin}, render = {render_at, render_at + #render},
                              threads = threads }
  return mem.read_bytes(fb, W * H * 4), st
end

local one, st = frame_bytes(1)
local count = 0
local px = mem.read(fb, "u32", W * H)
for y = 0, H - 1 do
  for x = 0, W - 1 do
    local want = covers(x, y) and 0xff00ff00 or 0xff000000
    local got = px[y * W + x + 1]
    assert(got == want, string.format("pixel (%d, %d) = 0x%08x, want 0x%08x", x, y, got, want))
    if got == 0xff00ff00 then count = count + 1 end
  end
end
assert(count > 500 and st.fragments == count and st.tiles == 2 and st.prims_binned == 1 and st.cs_vertices == 3)
assert(type(st.bin_seconds) == "number" and type(st.render_seconds) == "number")
assert(frame_bytes(3) == one, "3 threads give another frame")

-- Errors name the place.
local broken = alloc_bytes("\3")
fails({"gpusim.v3d.run", "binning list", string.format("0x%08x", broken), "unknown control-list packet ID 3"},
      gpusim.v3d.run, {bin = {broken, broken + 1}})
fails({"field 'bin' must be a pair"}, gpusim.v3d.run, {bin = {1}})
fails({"field 'threads'"}, gpusim.v3d.run, {threads = 0})
fails({"bad argument #1"}, gpusim.v3d.run, 5)
-- Empty lists do nothing.
gpusim.v3d.run {}
