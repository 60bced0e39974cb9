-- v3d_gl.lua — gpusim.v3d.run on a GL-mode frame written as bytes: a GL
-- shader record with coordinate, vertex and fragment shaders in QPU
-- assembly and one varying; chosen pixels hold the barycentric combination
-- of the corners' varyings at their centres. Then a fragment shader that
-- faults: the error names the tile, the shader and the QPU's pc.
local gpusim = require "gpusim"
local mem = gpusim.mem
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

local W, H = 128, 64             -- two tiles
local alloc_bytes = require("check").alloc_bytes
local function load(src) return gpusim.qpu.load(gpusim.asm("qpu", src)) end

-- Each vertex: x, y in pixels, z, v. Clip space is pixel space with W = 1.
local cs = load [[
    ldi vr_setup, 0x00401a00   # read 4 rows: x, y, z, v
    ldi vw_setup, 0x00001a00   # write rows from Y = 0
    mov r0, vpm
    mov r1, vpm
    mov r2, vpm
    mov r3, vpm                # v is not needed for binning
    fmul r3, r0, 16.0
    ftoi ra0.16a, r3           # Xs (12.4)
    fmul r3, r1, 16.0
    ftoi ra0.16b, r3           # Ys (12.4)
    mov vpm, r0                # Xc
    mov vpm, r1                # Yc
    mov vpm, r2                # Zc
    mov vpm, 1.0               # Wc
    mov vpm, ra0               # Ys | Xs
    mov vpm, r2                # Zs
    mov vpm, 1.0               # 1/Wc
    thrend
    nop
    nop
]]
local vs = load [[
    ldi vr_setup, 0x00401a00
    ldi vw_setup, 0x00001a00
    mov r0, vpm
    mov r1, vpm
    mov r2, vpm
    mov r3, vpm
    fmul r0, r0, 16.0
    ftoi ra0.16a, r0
    fmul r1, r1, 16.0
    ftoi ra0.16b, r1
    nop                        # ra0 readable two instructions after its write
    mov vpm, ra0               # Ys | Xs
    mov vpm, r2                # Zs
    mov vpm, 1.0               # 1/Wc
    mov vpm, r3                # the varying
    thrend
    nop
    nop
]]
local fs = load [[
    fmul r0, vary, ra15        # VP x W
    fadd r0, r0, r5            # + C
    mov tlb_colour_all, r0     # the varying's bits are the pixel word
    thrend
    nop
    nop
]]

local corners = {{6.5, 3.0, 0.5, 0.0}, {120.25, 9.5, 0.5, 1.0}, {40.0, 60.0, 0.5, 0.5}}
local vbytes = {}
for i, c in ipairs(corners) do vbytes[i] = string.pack("<ffff", c[1], c[2], c[3], c[4]) end
local attrs = alloc_bytes(table.concat(vbytes))
local unif = mem.alloc(16)

-- A GL shader record for fragment shader `f` (reference §4.5) with one
-- attribute array of 16 bytes a vertex for both the VS and the CS.
local function gl_record(f)
  return alloc_bytes(string.pack("<I2BBI4I4I2BBI4I4I2BBI4I4", 1, 0, 1, f, unif, 0, 1, 16, vs, unif, 0, 1, 16, cs,
                                 unif) .. string.pack("<I4BBBB", attrs, 15, 16, 0, 0))
end

local fb = mem.alloc(W * H * 4)
local tile_alloc = mem.alloc(8192, 256)
local tsda = mem.alloc(48 * 2)

local function lists(record)
  local bin = table.concat {
    string.pack("<BI4I4I4BBB", 112, tile_alloc, 8192, tsda, 2, 1, 0x04),
    "\6",
    string.pack("<BI4", 64, record | 1),     -- GL Shader State: 1 attribute array
    string.pack("<BBI4I4", 33, 4, 3, 0),
    "\7\4",
  }
  local render = table.concat {
    string.pack("<BI4I4I3BB", 114, 0, 0, 0xffffff, 0, 0),
    string.pack("<BI4I2I2I2", 113, fb, W, H, 1 << 2),
    string.pack("<BBB", 115, 0, 0), "\8", string.pack("<BI4", 17, tile_alloc), "\24",
    string.pack("<BBB", 115, 1, 0), string.pack("<BI4", 17, tile_alloc + 32), "\25",
  }
  local b, r = alloc_bytes(bin), alloc_bytes(render)
  return {bin = {b, b + #bin}, render = {r, r + #render}, threads = 2}
end

local st = gpusim.v3d.run(lists(gl_record(fs)))
assert(st.cs_vertices == 3 and st.vs_vertices >= 3 and st.tiles == 2)

local x0, y0, x1, y1, x2, y2 = corners[1][1], corners[1][2], corners[2][1], corners[2][2], corners[3][1], corners[3][2]
local den = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
for _, p in ipairs {{20, 8}, {60, 10}, {40, 40}, {90, 12}, {30, 20}, {70, 25}} do
  local px, py = p[1] + 0.5, p[2] + 0.5
  local l1 = ((px - x0) * (y2 - y0) - (x2 - x0) * (py - y0)) / den
  local l2 = ((x1 - x0) * (py - y0) - (px - x0) * (y1 - y0)) / den
  assert(l1 > 0 and l2 > 0 and l1 + l2 < 1, "chosen pixel inside")
  local want = (1 - l1 - l2) * corners[1][4] + l1 * corners[2][4] + l2 * corners[3][4]
  local got = mem.read(fb + 4 * (p[2] * W + p[1]), "f32")[1]
  assert(math.abs(got - want) < 1e-6, string.format("pixel (%d, %d): %.9g, want %.9g", p[1], p[2], got, want))
end

-- A fragment shader reading a varying the primitive does not have.
local bad = load [[
    mov r0, vary
    fmul r0, vary, ra15        # the second read: only one varying is set up
    thrend
    nop
    nop
]]
fails({"gpusim.v3d.run", "rendering list", "tile (0, 0)", string.format("fragment shader at 0x%08x", bad),
       "QPU 0 at pc", "varying read 2"}, gpusim.v3d.run, lists(gl_record(bad)))
