-- sph_codec.lua — gpusim.sph.decode and gpusim.sph.encode.
--
-- Every expected value is worked out by hand from NVIDIA's published
-- layout (open-gpu-doc classes/3d/cla097sph.h: MW(hi:lo) of each field,
-- Type 1 = VTG, Type 2 = PS; field names from Shader-Program-Header.html)
-- and from the headers NVIDIA's compiler wrote for the Maxwell shaders of
-- its open kernel modules (g_maxwell_shaders). SPH bit n is bit n % 32 of
-- little-endian word n // 32.
local gpusim = require "gpusim"
package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails
local sph = gpusim.sph

-- 20 words -> the 80 bytes of the header (Lua's string.pack, not gpusim's)
local function header(words)
  local w = {}
  for i = 0, 19 do w[i + 1] = words[i] or 0 end
  return string.pack("<" .. string.rep("I4", 20), table.unpack(w))
end

local function count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

-- Checks that t has exactly the non-zero values of want and 0 everywhere else.
local function expect(what, t, want)
  for k, v in pairs(want) do
    assert(t[k] == v, string.format("%s: %s is %s, expected %s", what, k, tostring(t[k]), v))
  end
  for k, v in pairs(t) do
    assert(math.type(v) == "integer", what .. ": " .. k .. " is not an integer")
    assert(want[k] or v == 0, string.format("%s: %s is %d, expected 0", what, k, v))
  end
end

-- Elements per layout, counted from cla097sph.h. Words 0-4: 24 fields.
-- IMAP in both layouts: ImapSystemValuesA reserved (2 fields), TessellationLod
-- (4), TessellationInterior (2), PrimitiveId, RtArrayIndex, ViewportIndex,
-- PointSize, Position XYZW (4) = 16; generic 32 x 4 = 128; clip distances
-- 8, point sprite 2, fog 1, reserved 1, tessellation evaluation point 2,
-- InstanceId, VertexId = 16 more system values; texture 10 x 4 = 40;
-- ImapReserved 1. Colours: VTG 16 (front/back x diffuse/specular x RGBA),
-- PS 8. VTG OMAP: the IMAP rows but ImapReserved (216), then OmapReserved.
-- PS outputs: OmapTarget 8 x 4, SampleMask, Depth, OmapReserved.
local VTG_KEYS = 24 + (16 + 128 + 16 + 16 + 40 + 1) + (16 + 128 + 16 + 16 + 40) + 1
local PS_KEYS = 24 + (16 + 128 + 8 + 16 + 40 + 1) + (32 + 1 + 1 + 1)
assert(VTG_KEYS == 458 and PS_KEYS == 268)

-- ---- NVIDIA's Maxwell VS (nvidia_headsurface_vertex) -----------------------
-- w0 0x02000461: bits 4:0 = 1 (VTG), 9:5 = 0x461 >> 5 & 31 = 3, 13:10 = 1
-- (VERTEX), bit 25 (IsbeSpaceSharing). w6 = 3: bits 192, 193 = GENERIC_IMAP
-- X(0), Y(0). w7 = 0xb: bits 224, 225, 227 = 192 + 4*8 + 0, 1, 3. w13 =
-- 0xb000: bits 428, 429, 431 = OMAP position X, Y, W. w18 = 0x03330000:
-- bits 592, 593, 596, 597, 600, 601 = OMAP texture 592 + 4t + c, t 0-2, S T.
local vs_bytes = header{[0] = 0x02000461, [6] = 3, [7] = 0xb, [13] = 0xb000, [18] = 0x03330000}
local vs = sph.decode(vs_bytes)
assert(count(vs) == VTG_KEYS, "a VTG header has " .. VTG_KEYS .. " keys, got " .. count(vs))
expect("NVIDIA VS", vs, {
  SphType = 1, Version = 3, ShaderType = 1, IsbeSpaceSharing = 1,
  ["ImapGenericVector[0].X"] = 1, ["ImapGenericVector[0].Y"] = 1,
  ["ImapGenericVector[8].X"] = 1, ["ImapGenericVector[8].Y"] = 1, ["ImapGenericVector[8].W"] = 1,
  OmapPositionX = 1, OmapPositionY = 1, OmapPositionW = 1,
  ["OmapFixedFncTexture[0].S"] = 1, ["OmapFixedFncTexture[0].T"] = 1,
  ["OmapFixedFncTexture[1].S"] = 1, ["OmapFixedFncTexture[1].T"] = 1,
  ["OmapFixedFncTexture[2].S"] = 1, ["OmapFixedFncTexture[2].T"] = 1,
})
-- every element of the layout is there, reserved ones and zeros included
for _, k in ipairs{"ImapColorBackSpecularAlpha", "OmapClipDistance7", "OmapVertexId",
                   "ImapGenericVector[31].W", "OmapReserved", "ImapReserved",
                   "Reserved@w0[23:21]", "Reserved@w3[31:28]", "Reserved@w4[23:20]",
                   "ImapSystemValuesA.Reserved@w5[3:0]", "ImapSystemValuesA.Reserved@w5[23:10]",
                   "OmapSystemValuesA.Reserved@w12[19:16]",
                   "OmapSystemValuesA.Reserved@w12[31:26]+w13[7:0]",
                   "ImapSystemValuesC.Reserved", "OmapSystemValuesReserved17"} do
  assert(vs[k] == 0, "VS: key " .. k .. " missing")
end
-- and nothing of the PS layout
for _, k in ipairs{"OmapTarget[0].Red", "OmapDepth", "OmapSampleMask", "ImapColorDiffuseRed",
                   "Reserved"} do
  assert(vs[k] == nil, "VS: unexpected key " .. k)
end
assert(sph.encode(vs) == vs_bytes, "NVIDIA VS: encode(decode(b)) ~= b")

-- ---- NVIDIA's Maxwell PS (nvidia_headsurface_fragment) ---------------------
-- w0 0x00001462: SphType 2, Version 3, ShaderType 0x1462 >> 10 = 5 (PIXEL).
-- w5 bit 31 = SPH bit 191 = ImapPositionW. w15 0x000a0a00: bits 9:8 and
-- 11:10 = 2 are SPH bits 488-491 = TEX_IMAP_S(1), T(1) (MW(481+8:480+8));
-- bits 17:16, 19:18 = 2 are S(2), T(2): Perspective. w18 = 7: OMAP_RED(0),
-- GREEN(0), BLUE(0) at 576, 577, 578.
local ps_bytes = header{[0] = 0x00001462, [5] = 0x80000000, [15] = 0x000a0a00, [18] = 7}
local ps = sph.decode(ps_bytes)
assert(count(ps) == PS_KEYS, "a PS header has " .. PS_KEYS .. " keys, got " .. count(ps))
expect("NVIDIA PS", ps, {
  SphType = 2, Version = 3, ShaderType = 5, ImapPositionW = 1,
  ["ImapFixedFncTexture[1].S"] = 2, ["ImapFixedFncTexture[1].T"] = 2,
  ["ImapFixedFncTexture[2].S"] = 2, ["ImapFixedFncTexture[2].T"] = 2,
  ["OmapTarget[0].Red"] = 1, ["OmapTarget[0].Green"] = 1, ["OmapTarget[0].Blue"] = 1,
})
for _, k in ipairs{"ImapColorDiffuseRed", "ImapColorSpecularAlpha", "OmapTarget[7].Alpha",
                   "OmapSampleMask", "OmapDepth", "OmapReserved", "ImapReserved"} do
  assert(ps[k] == 0, "PS: key " .. k .. " missing")
end
for _, k in ipairs{"ImapColorFrontDiffuseRed", "ImapColorBackDiffuseRed", "OmapPositionX",
                   "OmapGenericVector[0].X", "OmapSystemValuesA.Reserved@w12[19:16]"} do
  assert(ps[k] == nil, "PS: unexpected key " .. k)
end
assert(sph.encode(ps) == ps_bytes, "NVIDIA PS: encode(decode(b)) ~= b")

-- ---- a PS with a value in most kinds of field ------------------------------
local many = header{
  -- SphType 2, Version 3, ShaderType 5, KillsPixels (bit 15), SassVersion 1
  -- (bit 17), bit 22 = Reserved 23:21 value 2, bit 24 GeometryPassthrough
  [0] = 0x00001462 | 0x8000 | 1 << 17 | 1 << 22 | 1 << 24,
  [1] = 0x05000100,   -- ShaderLocalMemoryLowSize 23:0 = 256, PerPatchAttributeCount 31:24 = 5
  [2] = 0x20000040,   -- ShaderLocalMemoryHighSize = 64, ThreadsPerInputPrimitive = 32
  [3] = 0x97000200,   -- CrsSize = 512, OutputTopology 27:24 = 7, Reserved 31:28 = 9
  [4] = 0xFF5AB123,   -- MaxOutputVertexCount 11:0 = 0x123, StoreReqStart 19:12 = 0xAB,
                      -- Reserved 23:20 = 5, StoreReqEnd 31:24 = 0xFF
  -- bit 31 ImapPositionW; bits 3:0 reserved = 15; bit 4 = SPH 164 TessellationLodLeft;
  -- bit 16 = SPH 176, bit 6 of the reserved bits 170-183 = 64
  [5] = 0x80000000 | 0xF | 1 << 4 | 1 << 16,
  -- generic byte 0 = 0x1E: X (1:0) = 2, Y (3:2) = 3, Z (5:4) = 1, W = 0;
  -- bits 15:14 = 3 = generic 1 W
  [6] = 0x0000C01E,
  [8] = 0x00000001,   -- SPH bits 257:256 = 192 + 8*8: generic 8 X = 1
  [13] = 0x40000000,  -- SPH bits 447:446 = generic 31 W (192 + 8*31 + 6) = 1
  -- 449:448 diffuse red = 2; 463:462 specular alpha = 3; 467 ClipDistance3; 479 VertexId
  [14] = 0x80000000 | 1 << 19 | 0xC000 | 0x2,
  [15] = 0x00000003,  -- 481:480 TEX_IMAP_S(0) = 3 (ScreenLinear)
  -- 559:558 = TEX_IMAP_Q(9) (487 + 72 : 486 + 72) = 1; 575:560 ImapReserved = 0xABCD
  [17] = 0xABCD4000,
  [18] = 0x8000000F,  -- OMAP RGBA(0) at 576-579, OMAP_ALPHA(7) at 579 + 28 = 607
  [19] = 0x00000006,  -- 608 SampleMask 0, 609 Depth 1, 610-639 reserved: bit 0 of it = 1
}
local t = sph.decode(many)
expect("many", t, {
  SphType = 2, Version = 3, ShaderType = 5, KillsPixels = 1, SassVersion = 1,
  ["Reserved@w0[23:21]"] = 2, GeometryPassthrough = 1,
  ShaderLocalMemoryLowSize = 256, PerPatchAttributeCount = 5,
  ShaderLocalMemoryHighSize = 64, ThreadsPerInputPrimitive = 32,
  ShaderLocalMemoryCrsSize = 512, OutputTopology = 7, ["Reserved@w3[31:28]"] = 9,
  MaxOutputVertexCount = 0x123, StoreReqStart = 0xAB, ["Reserved@w4[23:20]"] = 5,
  StoreReqEnd = 0xFF,
  ImapPositionW = 1, ["ImapSystemValuesA.Reserved@w5[3:0]"] = 15, ImapTessellationLodLeft = 1,
  ["ImapSystemValuesA.Reserved@w5[23:10]"] = 64,
  ["ImapGenericVector[0].X"] = 2, ["ImapGenericVector[0].Y"] = 3, ["ImapGenericVector[0].Z"] = 1,
  ["ImapGenericVector[1].W"] = 3, ["ImapGenericVector[8].X"] = 1, ["ImapGenericVector[31].W"] = 1,
  ImapColorDiffuseRed = 2, ImapColorSpecularAlpha = 3, ImapClipDistance3 = 1, ImapVertexId = 1,
  ["ImapFixedFncTexture[0].S"] = 3, ["ImapFixedFncTexture[9].Q"] = 1, ImapReserved = 0xABCD,
  ["OmapTarget[0].Red"] = 1, ["OmapTarget[0].Green"] = 1, ["OmapTarget[0].Blue"] = 1,
  ["OmapTarget[0].Alpha"] = 1, ["OmapTarget[7].Alpha"] = 1, OmapDepth = 1, OmapReserved = 1,
})
assert(sph.encode(t) == many, "many: encode(decode(b)) ~= b")

-- ---- every bit belongs to exactly one key ----------------------------------
-- All 640 bits set but SphType's 5: every value is all ones in its width,
-- and the widths add up to 635 (two keys sharing a bit, or a bit without a
-- key, would change the sum).
local widths = {}
for _, type in ipairs{1, 2} do
  local b = string.char(0xE0 | type) .. string.rep("\255", 79)
  local all = sph.decode(b)
  local sum = 0
  widths[type] = {}
  for k, v in pairs(all) do
    if k ~= "SphType" then
      local w = 0
      while v > 0 do
        assert(v & 1 == 1, k .. " is not all ones")
        v, w = v >> 1, w + 1
      end
      widths[type][k] = w
      sum = sum + w
    end
  end
  assert(all.SphType == type)
  assert(sum == 635, "type " .. type .. ": element widths add up to " .. sum)
  assert(sph.encode(all) == b)
end
-- widths from cla097sph.h
local function width(type, k, w)
  assert(widths[type][k] == w, string.format("type %d %s: %s bits, expected %d", type, k,
                                             tostring(widths[type][k]), w))
end
width(1, "Version", 5); width(1, "ShaderType", 4); width(1, "ShaderLocalMemoryLowSize", 24)
width(1, "MaxOutputVertexCount", 12); width(1, "StoreReqEnd", 8); width(1, "ImapReserved", 8)
width(1, "ImapGenericVector[0].X", 1); width(2, "ImapGenericVector[0].X", 2)
width(1, "ImapColorFrontDiffuseRed", 1); width(2, "ImapColorDiffuseRed", 2)
width(2, "ImapFixedFncTexture[9].Q", 2); width(2, "ImapClipDistance0", 1)
width(1, "OmapReserved", 8); width(2, "OmapReserved", 30); width(2, "ImapReserved", 16)
width(1, "OmapSystemValuesA.Reserved@w12[31:26]+w13[7:0]", 14)
width(2, "ImapSystemValuesA.Reserved@w5[23:10]", 14)

-- ---- encode, by hand ------------------------------------------------------
-- PS: w0 = 2 | 3 << 5 | 5 << 10 = 0x1462; ImapPositionW w5 bit 31; generic
-- 0 X = Perspective at w6 bits 1:0; OmapTarget[0].Red w18 bit 0; OmapDepth
-- w19 bit 1. A float with an integer value is taken (3.0).
assert(sph.encode{SphType = 2, Version = 3.0, ShaderType = 5, ImapPositionW = 1,
                  ["ImapGenericVector[0].X"] = 2, ["OmapTarget[0].Red"] = 1, OmapDepth = 1}
       == header{[0] = 0x1462, [5] = 0x80000000, [6] = 2, [18] = 1, [19] = 2})
-- VTG: w0 = 1 | 3 << 5 | 1 << 10 = 0x461; generic 8 W = SPH 227 = w7 bit 3;
-- OmapPositionW = SPH 431 = w13 bit 15; zeros of the other layout are fine.
assert(sph.encode{SphType = 1, Version = 3, ShaderType = 1, ["ImapGenericVector[8].W"] = 1,
                  OmapPositionW = 1, ["OmapTarget[0].Red"] = 0, ImapColorDiffuseRed = 0}
       == header{[0] = 0x461, [7] = 8, [13] = 0x8000})
-- a missing key is 0
assert(sph.encode{SphType = 1} == header{[0] = 1})

-- ---- random round trips ----------------------------------------------------
math.randomseed(8)
for i = 1, 1000 do
  local type = 1 + i % 2
  local words = {}
  for w = 0, 19 do words[w] = math.random(0, 0xFFFFFFFF) end
  words[0] = words[0] & ~31 | type
  local b = header(words)
  assert(sph.encode(sph.decode(b)) == b, "round trip " .. i)
end
-- and the other way: a table of random values within each width
local keys = {{}, {}}
for type = 1, 2 do
  for k in pairs(widths[type]) do keys[type][#keys[type] + 1] = k end
  table.sort(keys[type])
end
for i = 1, 200 do
  local type = 1 + i % 2
  local want = {SphType = type}
  for _ = 1, math.random(1, 40) do
    local k = keys[type][math.random(#keys[type])]
    want[k] = math.random(0, (1 << widths[type][k]) - 1)
  end
  local got = sph.decode(sph.encode(want))
  for _, k in ipairs(keys[type]) do
    assert(got[k] == (want[k] or 0), string.format("random table %d: %s", i, k))
  end
end

-- ---- errors ---------------------------------------------------------------
fails({"gpusim.sph.decode", "79 bytes", "80"}, sph.decode, string.rep("\0", 79))
fails({"81 bytes"}, sph.decode, string.rep("\1", 81))
fails({"bad argument #1"}, sph.decode, nil)
-- SphType 3 (w0 = 0x463) and 0: the layout of words 5-19 is unknown
fails({"SPH word 0 bits 4:0, SphType: 3 is neither 1 (VTG) nor 2 (PS)"}, sph.decode, header{[0] = 0x463})
fails({"SphType: 0 is neither"}, sph.decode, header{})
fails({"SPH word 0 bits 4:0, SphType: 0 is neither 1 (VTG) nor 2 (PS)"}, sph.encode, {})
fails({"SphType: 3 is neither"}, sph.encode, {SphType = 3})
fails({'"SphType"', "1.5 is not an integer"}, sph.encode, {SphType = 1.5})
fails({"bad argument #1"}, sph.encode, "not a table")
fails({'"Foo" is not an SPH field'}, sph.encode, {SphType = 2, Foo = 1})
fails({'"ImapGenericVector[32].X" is not an SPH field'}, sph.encode,
      {SphType = 2, ["ImapGenericVector[32].X"] = 0})
fails({'"imapPositionW" is not an SPH field'}, sph.encode, {SphType = 2, imapPositionW = 1})
fails({'"Reserved" is not an SPH field'}, sph.encode, {SphType = 2, Reserved = 0})
fails({"key 1 is not an SPH field name"}, sph.encode, {SphType = 2, [1] = 0})
fails({'"Version"', "2.5 is not an integer"}, sph.encode, {SphType = 2, Version = 2.5})
fails({'"Version"', "3 is not an integer"}, sph.encode, {SphType = 2, Version = "3"})
fails({'"OmapDepth"', "true is not an integer"}, sph.encode, {SphType = 2, OmapDepth = true})
fails({"SPH word 0 bits 9:5, Version: 32 does not fit in 5 bits"}, sph.encode, {SphType = 2, Version = 32})
fails({"Version: -1 does not fit in 5 bits"}, sph.encode, {SphType = 2, Version = -1})
fails({"SPH word 6 bit 0, ImapGenericVector[0].X: 2 does not fit in 1 bit"}, sph.encode,
      {SphType = 1, ["ImapGenericVector[0].X"] = 2})
fails({"SPH word 6 bits 1:0, ImapGenericVector[0].X: 4 does not fit in 2 bits"}, sph.encode,
      {SphType = 2, ["ImapGenericVector[0].X"] = 4})
fails({"SPH word 0 bits 23:21, Reserved@w0[23:21]: 8 does not fit in 3 bits"}, sph.encode,
      {SphType = 2, ["Reserved@w0[23:21]"] = 8})
fails({"SPH word 1 bits 23:0, ShaderLocalMemoryLowSize: 16777216 does not fit in 24 bits"},
      sph.encode, {SphType = 1, ShaderLocalMemoryLowSize = 1 << 24})
-- keys of the other layout: an error unless 0
fails({"SPH OmapTarget[0].Red: 1, but a Type 1 (VTG) header has no such field"}, sph.encode,
      {SphType = 1, ["OmapTarget[0].Red"] = 1})
fails({"SPH OmapPositionX: 1, but a Type 2 (PS) header has no such field"}, sph.encode,
      {SphType = 2, OmapPositionX = 1})
fails({"ImapColorFrontDiffuseRed: 2, but a Type 2 (PS) header"}, sph.encode,
      {SphType = 2, ImapColorFrontDiffuseRed = 2})
fails({"ImapColorDiffuseRed: 1, but a Type 1 (VTG) header"}, sph.encode,
      {SphType = 1, ImapColorDiffuseRed = 1})

print("sph_codec: ok")
