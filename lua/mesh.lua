-- mesh.lua — mesh generators for scenes. Each returns a table ready for
-- gpusim.buffer and frame:draw:
--
--   local mesh = require "mesh"
--   local cube = mesh.cube()
--   local vb = gpusim.buffer {format = cube.format, data = cube.vertices}
--   local ib = gpusim.buffer {format = "u16", data = cube.indices}
--   frame:draw {mode = cube.mode, vertices = vb, indices = ib, shader = ...}
--
--   m.format    the attribute formats: {"f32x4", "f32x3", "f32x2"} =
--               position (x, y, z, 1), normal, texture coordinate (u, v)
--   m.vertices  one table per vertex, attributes in that order
--   m.indices   0-based, three per triangle, counter-clockwise seen from
--               outside (the front face in gpusim's default state)
--   m.mode      "triangles"
--
-- Positions are in model space, centred on the origin.
local mesh = {}

local FORMAT = {"f32x4", "f32x3", "f32x2"}

local function new_mesh()
  return {format = FORMAT, vertices = {}, indices = {}, mode = "triangles"}
end

local function add_vertex(m, p, n, uv)
  m.vertices[#m.vertices + 1] = {p[1], p[2], p[3], 1.0, n[1], n[2], n[3], uv[1], uv[2]}
  return #m.vertices - 1
end

local function add_triangle(m, a, b, c)
  local t = m.indices
  t[#t + 1], t[#t + 2], t[#t + 3] = a, b, c
end

-- A size × size square in the z = 0 plane facing +z (two triangles).
function mesh.quad(size)
  local h = (size or 2) / 2
  local m = new_mesh()
  local n = {0, 0, 1}
  local a = add_vertex(m, {-h, -h, 0}, n, {0, 0})
  local b = add_vertex(m, {h, -h, 0}, n, {1, 0})
  local c = add_vertex(m, {h, h, 0}, n, {1, 1})
  local d = add_vertex(m, {-h, h, 0}, n, {0, 1})
  add_triangle(m, a, b, c)
  add_triangle(m, a, c, d)
  return m
end

-- A cube of edge `size` (default 2: corners at ±1), four vertices per face
-- so that every face has its own normal and texture coordinates.
function mesh.cube(size)
  local h = (size or 2) / 2
  local m = new_mesh()
  -- each face: normal, and the two axes u and v along it (u × v = normal)
  local faces = {
    {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
    {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}}, {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
    {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}, {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
  }
  for _, f in ipairs(faces) do
    local n, u, v = f[1], f[2], f[3]
    local idx = {}
    for k, c in ipairs {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} do
      local p = {}
      for i = 1, 3 do p[i] = h * (n[i] + c[1] * u[i] + c[2] * v[i]) end
      idx[k] = add_vertex(m, p, n, {(c[1] + 1) / 2, (c[2] + 1) / 2})
    end
    add_triangle(m, idx[1], idx[2], idx[3])
    add_triangle(m, idx[1], idx[3], idx[4])
  end
  return m
end

-- A grid of nx × ny squares covering size × size in the z = 0 plane,
-- facing +z: (nx + 1)(ny + 1) vertices, 2 nx ny triangles.
function mesh.grid(nx, ny, size)
  nx, ny = nx or 1, ny or nx or 1
  local h = (size or 2) / 2
  local m = new_mesh()
  for j = 0, ny do
    for i = 0, nx do
      add_vertex(m, {-h + 2 * h * i / nx, -h + 2 * h * j / ny, 0}, {0, 0, 1}, {i / nx, j / ny})
    end
  end
  for j = 0, ny - 1 do
    for i = 0, nx - 1 do
      local a = j * (nx + 1) + i
      add_triangle(m, a, a + 1, a + nx + 2)
      add_triangle(m, a, a + nx + 2, a + nx + 1)
    end
  end
  return m
end

-- A UV sphere of the given radius (default 1) with `slices` around the y
-- axis and `stacks` from pole to pole; the seam and the poles repeat
-- vertices so texture coordinates stay continuous.
function mesh.sphere(slices, stacks, radius)
  slices, stacks, radius = slices or 16, stacks or 8, radius or 1
  local m = new_mesh()
  for j = 0, stacks do
    local phi = math.pi * j / stacks          -- 0 at the north pole
    for i = 0, slices do
      local theta = 2 * math.pi * i / slices
      local n = {math.sin(phi) * math.sin(theta), math.cos(phi), math.sin(phi) * math.cos(theta)}
      add_vertex(m, {radius * n[1], radius * n[2], radius * n[3]}, n, {i / slices, 1 - j / stacks})
    end
  end
  for j = 0, stacks - 1 do
    for i = 0, slices - 1 do
      local a = j * (slices + 1) + i
      local b = a + slices + 1
      if j > 0 then add_triangle(m, a, b, a + 1) end
      if j < stacks - 1 then add_triangle(m, a + 1, b, b + 1) end
    end
  end
  return m
end

-- Keeps only some attributes, in the order given by their positions in
-- m.format: mesh.select(m, 1, 3) gives position and texture coordinate.
function mesh.select(m, ...)
  local keep = {...}
  local offsets, width = {}, {}
  local o = 0
  for i, f in ipairs(m.format) do
    offsets[i], width[i] = o, tonumber(f:match("x(%d)$")) or 1
    o = o + width[i]
  end
  local r = {format = {}, vertices = {}, indices = m.indices, mode = m.mode}
  for k, a in ipairs(keep) do r.format[k] = m.format[a] end
  for v, src in ipairs(m.vertices) do
    local dst = {}
    for _, a in ipairs(keep) do
      for c = 1, width[a] do dst[#dst + 1] = src[offsets[a] + c] end
    end
    r.vertices[v] = dst
  end
  return r
end

return mesh
