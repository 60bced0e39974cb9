-- mem.lua — gpusim.mem: allocation, typed reads and writes with their
-- conversion rules, bytes, and the errors for bad arguments and for
-- accesses outside allocated GPU memory.
local gpusim = require "gpusim"
local mem = gpusim.mem

package.path = "tests/lua/lib/?.lua;" .. package.path
local fails = require("check").fails

-- alloc: aligned, zero-filled, distinct
local a = mem.alloc(64)
local b = mem.alloc(100, 4096)
assert(math.type(a) == "integer" and a > 0 and a % 16 == 0)
assert(b % 4096 == 0 and b ~= a)
for _, v in ipairs(mem.read(b, "u32", 25)) do assert(v == 0) end
assert(mem.used() >= 164)

-- u32: 0..2^32-1, negatives stored as two's complement
mem.write(a, "u32", {0, 1, 0xffffffff, -1, -0x80000000, 3.0})
local t = mem.read(a, "u32", 6)
assert(t[1] == 0 and t[2] == 1 and t[3] == 0xffffffff and t[4] == 0xffffffff)
assert(t[5] == 0x80000000 and t[6] == 3 and math.type(t[6]) == "integer")
t = mem.read(a, "i32", 6)
assert(t[3] == -1 and t[4] == -1 and t[5] == -0x80000000 and t[2] == 1)

-- one number instead of a table; n defaults to 1
mem.write(a, "u32", 0x12345678)
assert(mem.read(a, "u32")[1] == 0x12345678)
-- little-endian bytes
local bytes = mem.read(a, "u8", 4)
assert(bytes[1] == 0x78 and bytes[2] == 0x56 and bytes[3] == 0x34 and bytes[4] == 0x12)
assert(mem.read_bytes(a, 4) == "\x78\x56\x34\x12")
assert(mem.read(a, "u16", 2)[1] == 0x5678 and mem.read(a, "u16", 2)[2] == 0x1234)

-- u8/u16/i8/i16
mem.write(a, "u8", {255, -1, 128, -128})
t = mem.read(a, "i8", 4)
assert(t[1] == -1 and t[2] == -1 and t[3] == -128 and t[4] == -128)
t = mem.read(a, "u8", 4)
assert(t[1] == 255 and t[2] == 255 and t[3] == 128 and t[4] == 128)
mem.write(a + 4, "i16", {-2, 0x7fff, 0xffff})
t = mem.read(a + 4, "u16", 3)
assert(t[1] == 0xfffe and t[2] == 0x7fff and t[3] == 0xffff)
assert(mem.read(a + 4, "i16", 3)[3] == -1)

-- f32: nearest binary32, overflow to infinity, NaN kept; reads give floats
mem.write(a, "f32", {1.5, 0.1, 1e40, -1e40, 0 / 0, 3})
t = mem.read(a, "f32", 6)
assert(t[1] == 1.5 and math.type(t[1]) == "float")
assert(t[2] ~= 0.1 and math.abs(t[2] - 0.1) < 1e-8)     -- 0.1 rounded to float
assert(t[3] == math.huge and t[4] == -math.huge)
assert(t[5] ~= t[5])
assert(t[6] == 3.0 and math.type(t[6]) == "float")
assert(mem.read(a, "u32")[1] == 0x3fc00000)                -- 1.5f

-- bytes
mem.write_bytes(a, "hello\0world")
assert(mem.read_bytes(a, 11) == "hello\0world")
assert(mem.read_bytes(a, 0) == "")

-- empty writes and reads
mem.write(a, "u32", {})
assert(#mem.read(a, "u32", 0) == 0)

-- argument errors name the function and the argument
fails({"bad argument #2", "unknown type 'u64'", "u32", "f32"}, mem.write, a, "u64", {1})
fails({"bad argument #2", "unknown type"}, mem.read, a, "float", 1)
fails({"bad argument #3", "index 3", "does not fit u8", "256"}, mem.write, a, "u8", {1, 2, 256})
fails({"bad argument #3", "index 2", "not an integer", "2.5"}, mem.write, a, "u32", {1, 2.5})
fails({"bad argument #3", "does not fit u32"}, mem.write, a, "u32", {0x100000000})
fails({"bad argument #3", "does not fit u32"}, mem.write, a, "u32", {-0x80000001})
fails({"bad argument #3", "not a number"}, mem.write, a, "f32", {1, "x"})
fails({"bad argument #3", "table or number expected"}, mem.write, a, "u32", "1")
fails({"bad argument #1", "out of range"}, mem.write, -4, "u32", {1})
fails({"bad argument #1", "number expected"}, mem.read, "a", "u32", 1)
fails({"bad argument #2", "power of two"}, mem.alloc, 16, 3)
fails({"bad argument #1", "size"}, mem.alloc, 0)
fails({"bad argument #3", "count"}, mem.read, a, "u32", -1)

-- a rejected value leaves memory untouched
mem.write(a, "u32", {7, 7})
pcall(mem.write, a, "u32", {1, "x"})
assert(mem.read(a, "u32", 2)[1] == 7)

-- accesses outside allocations name the address
local function hex(x) return string.format("0x%08x", x) end
fails({"gpusim.mem.write", "outside allocated GPU memory", hex(a + 60)}, mem.write, a + 60, "u32", {1, 2})
fails({"gpusim.mem.read", hex(a + 64)}, mem.read, a + 64, "u8", 1)
fails({"gpusim.mem.read", hex(0x10)}, mem.read, 0x10, "u32", 1)
fails({"gpusim.mem.write_bytes", hex(a + 62)}, mem.write_bytes, a + 62, "abc")
fails({"gpusim.mem.read_bytes", hex(a)}, mem.read_bytes, a, 65)

-- errors raised in a script carry its file:line
local msg = fails({"mem.lua:"}, function() mem.write(a, "u64", {1}) end)
assert(msg:match("^[^:]*mem%.lua:%d+: bad argument #2 to "), msg)

-- free: only the start of an allocation, once
fails({"gpusim.mem.free", hex(a + 4), "not the start of an allocation"}, mem.free, a + 4)
mem.free(a)
fails({"gpusim.mem.free", hex(a)}, mem.free, a)
fails({"gpusim.mem.read", hex(a)}, mem.read, a, "u32", 1)
mem.free(b)

-- allocation failure is an error, not a crash
fails({"gpusim.mem.alloc"}, mem.alloc, 0xffffffff)

print("mem: ok")
