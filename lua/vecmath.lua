-- vecmath.lua — vectors and 4×4 matrices for scenes.
--
--   local vm = require "vecmath"
--   local mvp = vm.mat4.mul(vm.mat4.perspective(math.rad(60), 4/3, 0.1, 100),
--                           vm.mat4.look_at({3, 2, 4}, {0, 0, 0}, {0, 1, 0}))
--   frame:draw {..., uniforms = {mvp, "viewport_x_scale", ...}}
--
-- Vectors are plain sequences {x, y, z} or {x, y, z, w}. A matrix is a
-- sequence of 16 numbers in ROW-MAJOR order: m[(r - 1) * 4 + c] is row r,
-- column c, and vectors are columns (v' = M v). Given as a uniform, a
-- matrix is therefore read row by row: the first four uniforms are the row
-- that makes Xc = m1·x + m2·y + m3·z + m4·w, which is the order a QPU
-- shader multiplies in. Conventions are OpenGL's: right-handed eye space
-- looking down −z, clip space −w..w in x, y and z.
local vecmath = {}

-- ---- vectors -----------------------------------------------------------

local vec = {}
vecmath.vec = vec

function vec.add(a, b)
  local r = {}
  for i = 1, #a do r[i] = a[i] + b[i] end
  return r
end

function vec.sub(a, b)
  local r = {}
  for i = 1, #a do r[i] = a[i] - b[i] end
  return r
end

function vec.scale(a, s)
  local r = {}
  for i = 1, #a do r[i] = a[i] * s end
  return r
end

function vec.dot(a, b)
  local s = 0
  for i = 1, #a do s = s + a[i] * b[i] end
  return s
end

function vec.length(a) return math.sqrt(vec.dot(a, a)) end

-- a / |a|; the zero vector stays zero.
function vec.normalize(a)
  local l = vec.length(a)
  if l == 0 then return vec.scale(a, 0) end
  return vec.scale(a, 1 / l)
end

function vec.cross(a, b)
  return {a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1]}
end

-- a + (b − a) t
function vec.lerp(a, b, t)
  local r = {}
  for i = 1, #a do r[i] = a[i] + (b[i] - a[i]) * t end
  return r
end

-- ---- 4×4 matrices --------------------------------------------------------

local mat4 = {}
vecmath.mat4 = mat4

local function at(m, r, c) return m[(r - 1) * 4 + c] end

function mat4.identity()
  return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
end

-- a × b (apply b first, then a).
function mat4.mul(a, b, ...)
  local r = {}
  for i = 1, 4 do
    for j = 1, 4 do
      local s = 0
      for k = 1, 4 do s = s + at(a, i, k) * at(b, k, j) end
      r[(i - 1) * 4 + j] = s
    end
  end
  if ... then return mat4.mul(r, ...) end
  return r
end

-- M v for a 4-vector (a 3-vector gets w = 1).
function mat4.transform(m, v)
  local x, y, z, w = v[1], v[2], v[3], v[4] or 1
  local r = {}
  for i = 1, 4 do r[i] = at(m, i, 1) * x + at(m, i, 2) * y + at(m, i, 3) * z + at(m, i, 4) * w end
  return r
end

function mat4.transpose(m)
  local r = {}
  for i = 1, 4 do
    for j = 1, 4 do r[(j - 1) * 4 + i] = at(m, i, j) end
  end
  return r
end

function mat4.translate(x, y, z)
  return {1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z, 0, 0, 0, 1}
end

function mat4.scale(x, y, z)
  y, z = y or x, z or x
  return {x, 0, 0, 0, 0, y, 0, 0, 0, 0, z, 0, 0, 0, 0, 1}
end

-- Rotations by angle a (radians), counter-clockwise looking down the axis
-- towards the origin.
function mat4.rotate_x(a)
  local c, s = math.cos(a), math.sin(a)
  return {1, 0, 0, 0, 0, c, -s, 0, 0, s, c, 0, 0, 0, 0, 1}
end

function mat4.rotate_y(a)
  local c, s = math.cos(a), math.sin(a)
  return {c, 0, s, 0, 0, 1, 0, 0, -s, 0, c, 0, 0, 0, 0, 1}
end

function mat4.rotate_z(a)
  local c, s = math.cos(a), math.sin(a)
  return {c, -s, 0, 0, s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
end

-- Rotation by angle a about the axis {x, y, z} (normalised here).
function mat4.rotate(a, axis)
  local n = vec.normalize(axis)
  local x, y, z = n[1], n[2], n[3]
  local c, s = math.cos(a), math.sin(a)
  local t = 1 - c
  return {
    t * x * x + c,     t * x * y - s * z, t * x * z + s * y, 0,
    t * x * y + s * z, t * y * y + c,     t * y * z - s * x, 0,
    t * x * z - s * y, t * y * z + s * x, t * z * z + c,     0,
    0, 0, 0, 1,
  }
end

-- OpenGL's perspective projection: vertical field of view fovy (radians),
-- aspect = width / height, near and far planes (> 0). z = −near maps to
-- clip z = −w, z = −far to +w.
function mat4.perspective(fovy, aspect, near, far)
  local f = 1 / math.tan(fovy / 2)
  return {
    f / aspect, 0, 0, 0,
    0, f, 0, 0,
    0, 0, (far + near) / (near - far), 2 * far * near / (near - far),
    0, 0, -1, 0,
  }
end

-- OpenGL's orthographic projection of the box left..right, bottom..top,
-- −near..−far.
function mat4.ortho(left, right, bottom, top, near, far)
  return {
    2 / (right - left), 0, 0, -(right + left) / (right - left),
    0, 2 / (top - bottom), 0, -(top + bottom) / (top - bottom),
    0, 0, -2 / (far - near), -(far + near) / (far - near),
    0, 0, 0, 1,
  }
end

-- The view matrix of an eye at `eye` looking at `center`, `up` roughly up.
function mat4.look_at(eye, center, up)
  local f = vec.normalize(vec.sub(center, eye))
  local s = vec.normalize(vec.cross(f, up))
  local u = vec.cross(s, f)
  return {
    s[1], s[2], s[3], -vec.dot(s, eye),
    u[1], u[2], u[3], -vec.dot(u, eye),
    -f[1], -f[2], -f[3], vec.dot(f, eye),
    0, 0, 0, 1,
  }
end

return vecmath
