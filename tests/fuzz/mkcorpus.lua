-- mkcorpus.lua SCENE.lua OUTDIR NAME — makes seed inputs for the fuzz
-- targets (docs/fuzzing.md) from one real frame of a scene:
--   gpusim --headless tests/fuzz/mkcorpus.lua scenes/triangle.lua OUT triangle
-- renders the scene's frame at t = 0 with every target made 96x64 (two
-- 64x64 tiles), a small tile pool and one thread, then writes
--   OUT/cle/NAME.bin        fuzz_cle's input: the header (binning and
--                           rendering list: start offset, length) and GPU
--                           memory from 0x00100000 to the frame's last byte
--   OUT/dumpcl/NAME-bin.bin, NAME-render.bin, NAME-tiles.bin
--                           fuzz_dumpcl's input: options, format, bus
--                           address, then the binning list, the rendering
--                           list, the tile lists the binner wrote
--   OUT/sph/NAME-STAGE.bin  each program's 20 SPH words; NAME-link.bin the
--                           vertex and fragment SPHs as consecutive stages
--   OUT/qpu_disasm/NAME-STAGE.bin  each program's instruction words
-- tests/fuzz/corpus/ holds what it made for the scenes (a few files each).
local gpusim = require "gpusim"
local scene, out, name = arg[1], arg[2], arg[3]
assert(scene and out and name, "usage: mkcorpus.lua SCENE.lua OUTDIR NAME")
package.path = (scene:match("^(.*)/scenes/[^/]*$") or ".") .. "/lua/?.lua;" .. package.path

-- Every target the scene makes is 96x64, so that the frame's memory is small.
local make_target = gpusim.target
gpusim.target = function(t)
  local small = {}
  for k, v in pairs(t) do small[k] = v end
  small.width, small.height = 96, 64
  return make_target(small)
end
local shaders = {}
local make_shader = gpusim.shader
gpusim.shader = function(t)
  local s = make_shader(t)
  shaders[#shaders + 1] = s
  return s
end
dofile(scene)
local draw, target = gpusim.frame()
assert(draw, scene .. " registered no frame callback")
gpusim.frame(function(frame) return draw(frame, 0) end, target)
local f = gpusim.render {threads = 1, tile_pool = 4096}

local function write(path, bytes)
  local file = assert(io.open(out .. "/" .. path, "wb"))
  assert(file:write(bytes))
  assert(file:close())
end
local function u32(v) return string.pack("<I4", v) end
-- Bytes [a, b) of GPU memory, zeros where nothing is allocated.
local function bytes(a, b)
  local parts = {}
  for p = a, b - 1, 16 do
    local n = math.min(16, b - p)
    local ok, s = pcall(gpusim.mem.read_bytes, p, n)
    if not ok then -- byte by byte where the chunk leaves an allocation
      local t = {}
      for q = p, p + n - 1 do
        local ok1, c = pcall(gpusim.mem.read_bytes, q, 1)
        t[#t + 1] = ok1 and c or "\0"
      end
      s = table.concat(t)
    end
    parts[#parts + 1] = s
  end
  return table.concat(parts)
end

local base = 0x00100000
local last = math.max(f.bin_end, f.render_end, f.framebuffer + f.stride * f.height,
                      f.tile_alloc + f.tile_alloc_size, f.tsda + 48 * f.tiles_x * f.tiles_y)
for _, s in ipairs(shaders) do
  for _, stage in ipairs {"vertex", "coordinate", "fragment"} do
    local code = s[stage .. "_code"]
    local size = string.unpack("<I4", gpusim.mem.read_bytes(code - 96 + 4, 4))
    last = math.max(last, code + size)
    write(("qpu_disasm/%s-%s.bin"):format(name, stage), gpusim.mem.read_bytes(code, size))
    local words = s:sph(stage)
    local sph = {}
    for i = 1, 20 do sph[i] = u32(words[i]) end
    write(("sph/%s-%s.bin"):format(name, stage), table.concat(sph))
  end
  local function sph(stage)
    local w = s:sph(stage)
    local t = {}
    for i = 1, 20 do t[i] = u32(w[i]) end
    return table.concat(t)
  end
  write(("sph/%s-link.bin"):format(name), sph("vertex") .. sph("fragment"))
  break -- the first shader is enough
end
-- Programs the driver linked for the frame's state (fragment shader
-- variants) lie beyond: the last allocated 16 bytes below base + 256 KB.
for p = base + 256 * 1024 - 16, last, -16 do
  if pcall(gpusim.mem.read_bytes, p, 1) then
    last = math.max(last, p + 16)
    break
  end
end
last = (last + 15) // 16 * 16
assert(last - base <= 256 * 1024, ("%s: the frame's memory is %d bytes"):format(scene, last - base))
-- The image without the rendered pixels (the run writes them again).
local fb, fb_end = f.framebuffer - base, f.framebuffer + f.stride * f.height - base
local image = bytes(base, last)
image = image:sub(1, fb) .. string.rep("\0", fb_end - fb) .. image:sub(fb_end + 1)
write(("cle/%s.bin"):format(name), u32(f.bin_start - base) .. u32(f.bin_end - f.bin_start) ..
      u32(f.render_start - base) .. u32(f.render_end - f.render_start) ..
      image:gsub("%z+$", ""))  -- fuzz_cle fills the rest with zeros
local function dumpcl(file, fmt, a, b)
  write(("dumpcl/%s-%s.bin"):format(name, file), string.char(0, fmt) .. u32(a) .. bytes(a, b))
end
dumpcl("bin", 0, f.bin_start, f.bin_end)
dumpcl("render", 0, f.render_start, f.render_end)
-- The tile lists: the first 4 KB of tile allocation memory.
dumpcl("tiles", 0, f.tile_alloc, f.tile_alloc + math.min(4096, f.tile_alloc_size))
print(("%s: %d bytes of GPU memory, %d shaders"):format(name, last - base, #shaders))
