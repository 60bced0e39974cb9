-- scene_triangle.lua — scenes/triangle.lua: it lowers into one draw of 5×4
-- tiles; the rendered image covers exactly the triangle's area and every
-- covered pixel has the colour the barycentric formula gives; 1 and 4
-- render threads give the same bytes; and its coordinate and vertex
-- shaders compute what the binner and the primitive setup expect; the
-- scene's Maxwell SASS programs, alone and paired with the QPU's, draw
-- the same image by the same formula. Each
-- shader runs as a user program between a
-- prologue that fills the VPM rows it reads (16 vertices, one per lane) and
-- an epilogue that stores the rows it wrote to memory; the rows are checked
-- against values worked out here.
local gpusim = require "gpusim"
local mem = gpusim.mem

local function check_image(isas)
  assert(loadfile("scenes/triangle.lua"))(isas)
  local f = gpusim.render {threads = 1}
  assert(f.draws == 1 and f.width == 320 and f.height == 240)
  assert(f.tiles_x == 5 and f.tiles_y == 4)           -- ceil(320/64), ceil(240/64)
  assert(f.stats.tiles == 20 and f.stats.cs_vertices == 3)

  -- The image. Clip (±0.8, -0.8), (0, 0.8) on 320×240 are the screen points
  -- (32, 24) red, (288, 24) green, (160, 216) blue: area 256 × 192 / 2.
  local px = mem.read(f.framebuffer, "u8", f.stride * f.height)
  local function pixel(x, y)
    local i = y * f.stride + x * 4 + 1
    return px[i], px[i + 1], px[i + 2], px[i + 3]
  end
  local clear = {26, 26, 38}                           -- 0.1, 0.1, 0.15 x 255, rounded
  local covered = 0
  for y = 0, f.height - 1 do
    for x = 0, f.width - 1 do
      local r, g, b, a = pixel(x, y)
      assert(a == 255)
      -- barycentric weights of the pixel centre
      local cx, cy = x + 0.5, y + 0.5
      local l2 = (cy - 24) / 192
      local l1 = (cx - 32 - 128 * l2) / 256
      local l0 = 1 - l1 - l2
      local inside = l0 > 0 and l1 > 0 and l2 > 0
      local on_clear = r == clear[1] and g == clear[2] and b == clear[3]
      if not on_clear then
        covered = covered + 1
        for k, want in ipairs {l0 * 255, l1 * 255, l2 * 255} do
          local got = ({r, g, b})[k]
          assert(math.abs(got - want) <= 1.0,
                 string.format("pixel (%d, %d) channel %d: %d, formula %.3f", x, y, k, got, want))
        end
      end
      -- centres clearly inside are covered, clearly outside are not
      if l0 > 0.01 and l1 > 0.01 and l2 > 0.01 then assert(not on_clear, "hole at " .. x .. "," .. y) end
      if not inside and (l0 < -0.01 or l1 < -0.01 or l2 < -0.01) then
        assert(on_clear, "spill at " .. x .. "," .. y)
      end
    end
  end
  assert(covered == 256 * 192 // 2, "covered " .. covered)
  assert(f.stats.fragments == covered)
  return f
end
-- Every pairing of instruction sets the scene takes draws the same
-- triangle: the formula is the truth for each.
for _, isas in ipairs {"sass", "sass:qpu", "qpu:sass"} do check_image(isas) end
local f = check_image("qpu")

-- The same frame with 4 threads: the same bytes.
local one = mem.read_bytes(f.framebuffer, f.stride * f.height)
mem.write_bytes(f.framebuffer, string.rep("\0", f.stride * f.height))
local f4 = gpusim.render {threads = 4}
assert(mem.read_bytes(f4.framebuffer, f4.stride * f4.height) == one, "4 threads differ from 1")

-- A frame that needs more tile allocation memory than it was given gets a
-- larger pool and renders the same image: the scene's callback 64 times
-- over in one frame, with a 4 KB pool to start from.
local scene_fn, scene_target = gpusim.frame()
gpusim.frame(function(frame, time) for _ = 1, 64 do scene_fn(frame, time) end end, scene_target)
local big = gpusim.render {threads = 2, tile_pool = 4096}
assert(big.draws == 64 and big.tile_alloc_size > 4096 + 4096, "the pool grew: " .. big.tile_alloc_size)
assert(mem.read_bytes(big.framebuffer, big.stride * big.height) == one, "64 draws over 1")
gpusim.frame(scene_fn, scene_target)

-- the shaders' text, as the scene gives it
local src = assert(io.open("scenes/triangle.lua")):read("a")
local function shader_text(name)
  return (assert(src:match("local " .. name .. " = %[%[(.-)%]%]"), name))
end

-- Removes the closing "thrend / nop / nop" of a program.
local function body(text)
  local b = text:gsub("%s*thrend[^\n]*\n%s*nop[^\n]*\n%s*nop[^\n]*\n%s*$", "\n")
  assert(b ~= text, "no thrend ending")
  return b
end

-- Runs program text between a prologue that writes `rows` (a list of
-- 16-lane expressions, see below) into VPM rows 0.. and an epilogue that
-- stores `nout` rows of 16 words; returns them as out[row][lane] (u32).
-- Uniform stream: the shader's uniforms, then the store address.
local function run(text, rows, uniforms, nout)
  local pro = {"    ldi vw_setup, 0x00001a00", "    itof r1, elem_num            # r1 = lane"}
  for _, r in ipairs(rows) do pro[#pro + 1] = r end
  local epi = string.format([[
    ldi vw_setup, 0x%08x
    mov vw_addr, unif
    mov -, vw_wait
    thrend
    nop
    nop
]], 0x80004000 | nout << 23 | 16 << 16)
  local code = gpusim.qpu.load(gpusim.asm("qpu", table.concat(pro, "\n") .. "\n" .. body(text) .. epi))
  local out = mem.alloc(nout * 64)
  local u = {}
  for i, v in ipairs(uniforms) do u[i] = v end
  local unif = mem.alloc(4 * (#u + 1))
  mem.write(unif, "f32", u)
  mem.write(unif + 4 * #u, "u32", out)
  local st = gpusim.qpu.run {{code = code, uniforms = unif}}
  assert(st[1].ended)
  local words = mem.read(out, "u32", nout * 16)
  local res = {}
  for r = 0, nout - 1 do
    res[r] = {}
    for l = 0, 15 do res[r][l] = words[r * 16 + l + 1] end
  end
  return res
end

local function f32(x) return string.unpack("<I4", string.pack("<f", x)) end
local function xy(xs, ys) return (ys & 0xffff) << 16 | (xs & 0xffff) end

-- Vertices: Xc = lane/8 - 1 (exact), Yc = 0.5, Zc = 0.25, Wc = 2.
local position_rows = {
  "    fsub r0, r1, 8.0 ; nop",       -- lane - 8
  "    fmul r0, r0, 0.125             # (lane - 8) / 8",
  "    mov vpm, r0                    # Xc",
  "    mov vpm, 0.5                   # Yc",
  "    mov vpm, 0.25                  # Zc",
  "    mov vpm, 2.0                   # Wc",
}
-- The driver's values for a 320×240 viewport and depth range 0..1.
local scales = {160 * 16, 120 * 16, 0.5, 0.5}

local cs = run(require("vc4_shaders").coordinate, position_rows, scales, 7)
for lane = 0, 15 do
  local xc = lane / 8 - 1
  assert(cs[0][lane] == f32(xc), "Xc")
  assert(cs[1][lane] == f32(0.5) and cs[2][lane] == f32(0.25) and cs[3][lane] == f32(2.0))
  -- Xs = Xc/Wc × 160 × 16 (exact here), Ys = 0.5/2 × 120 × 16 = 480
  local xs = math.tointeger(xc / 2 * 2560)
  assert(cs[4][lane] == xy(xs, 480), string.format("lane %d: Ys|Xs 0x%08x", lane, cs[4][lane]))
  assert(cs[5][lane] == f32(0.25 / 2 * 0.5 + 0.5), "Zs")      -- 0.5625
  assert(cs[6][lane] == f32(0.5), "1/Wc")
end

-- The vertex shader also reads the colour: r = lane/16, g = 1, b = 0.
local vertex_rows = {table.unpack(position_rows)}
for _, r in ipairs {
  "    fmul r0, r1, 0.0625            # lane / 16",
  "    mov vpm, r0                    # r",
  "    mov vpm, 1.0                   # g",
  "    mov vpm, 0                     # b",
} do vertex_rows[#vertex_rows + 1] = r end
local vs = run(require("vc4_shaders").vertex(3), vertex_rows, scales, 6)
for lane = 0, 15 do
  local xs = math.tointeger((lane / 8 - 1) / 2 * 2560)
  assert(vs[0][lane] == xy(xs, 480), "Ys|Xs")
  assert(vs[1][lane] == f32(0.5625) and vs[2][lane] == f32(0.5), "Zs, 1/Wc")
  assert(vs[3][lane] == f32(lane / 16) and vs[4][lane] == f32(1.0) and vs[5][lane] == 0, "varyings")
end

-- The fragment shader assembles and ends as a fragment shader must.
local fs = gpusim.disasm("qpu", gpusim.asm("qpu", shader_text("fragment")))
assert(fs:match("tlb_colour_all") and fs:match("thrend") and fs:match("sbdone"))
print("scene_triangle: ok")
