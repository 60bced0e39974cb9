-- mkpng.lua — writes a small RGBA8 PNG with exactly the pixels asked for, so
-- that the command-line tests (image.sh, window.sh) need no binary files:
--
--   gpusim --headless tests/cli/mkpng.lua OUT.png W H [X,Y,W,H=R,G,B,A ...]
--
-- The image starts transparent black (0,0,0,0); each rectangle X,Y,W,H
-- (x, y from the top-left corner) is then filled with R,G,B,A (0..255), in
-- the order given. The file is a plain PNG: colour type 6 (RGBA), 8 bits,
-- filter 0 on every row, zlib "stored" blocks (no compression) — enough for
-- any PNG reader, and short enough to check by eye.

local out, width, height = arg[1], tonumber(arg[2]), tonumber(arg[3])
if not (out and width and height and width >= 1 and height >= 1) then
  error("usage: mkpng.lua OUT.png W H [X,Y,W,H=R,G,B,A ...]", 0)
end

-- pixels[y][x] = {r, g, b, a}
local pixels = {}
for y = 0, height - 1 do
  pixels[y] = {}
  for x = 0, width - 1 do pixels[y][x] = {0, 0, 0, 0} end
end
for i = 4, #arg do
  local nums = {}
  for n in arg[i]:gmatch("%d+") do nums[#nums + 1] = tonumber(n) end
  if #nums ~= 8 or not arg[i]:match("^%d+,%d+,%d+,%d+=%d+,%d+,%d+,%d+$") then
    error("bad rectangle '" .. arg[i] .. "' (expected X,Y,W,H=R,G,B,A)", 0)
  end
  local rx, ry, rw, rh = nums[1], nums[2], nums[3], nums[4]
  for y = ry, ry + rh - 1 do
    for x = rx, rx + rw - 1 do
      if not pixels[y] or not pixels[y][x] then
        error("rectangle '" .. arg[i] .. "' leaves the " .. width .. "x" .. height .. " image", 0)
      end
      pixels[y][x] = {nums[5], nums[6], nums[7], nums[8]}
    end
  end
end

-- CRC-32 (ISO 3309, as PNG chunks use it) and Adler-32 (zlib).
local crc_table = {}
for n = 0, 255 do
  local c = n
  for _ = 1, 8 do c = (c & 1) ~= 0 and (0xEDB88320 ~ (c >> 1)) or (c >> 1) end
  crc_table[n] = c
end
local function crc32(s)
  local c = 0xFFFFFFFF
  for i = 1, #s do c = crc_table[(c ~ s:byte(i)) & 0xFF] ~ (c >> 8) end
  return c ~ 0xFFFFFFFF
end
local function adler32(s)
  local a, b = 1, 0
  for i = 1, #s do
    a = (a + s:byte(i)) % 65521
    b = (b + a) % 65521
  end
  return (b << 16) | a
end

local function chunk(kind, data)
  return string.pack(">I4", #data) .. kind .. data .. string.pack(">I4", crc32(kind .. data))
end

-- The raw scanlines: a filter byte 0, then R G B A for each pixel.
local rows = {}
for y = 0, height - 1 do
  local row = {"\0"}
  for x = 0, width - 1 do row[#row + 1] = string.char(table.unpack(pixels[y][x])) end
  rows[#rows + 1] = table.concat(row)
end
local raw = table.concat(rows)

-- zlib stream: header 78 01, stored deflate blocks of at most 65535 bytes,
-- Adler-32 of the raw data.
local z = {"\x78\x01"}
local pos = 1
repeat
  local piece = raw:sub(pos, pos + 65534)
  pos = pos + #piece
  local final = pos > #raw and 1 or 0
  z[#z + 1] = string.pack("<BI2I2", final, #piece, (~#piece) & 0xFFFF) .. piece
until pos > #raw
z[#z + 1] = string.pack(">I4", adler32(raw))

local png = "\x89PNG\r\n\x1a\n"
  .. chunk("IHDR", string.pack(">I4I4BBBBB", width, height, 8, 6, 0, 0, 0))
  .. chunk("IDAT", table.concat(z))
  .. chunk("IEND", "")

local f = assert(io.open(out, "wb"))
assert(f:write(png))
assert(f:close())
