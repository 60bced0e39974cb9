-- scene_helpers.lua — lua/vecmath.lua and lua/mesh.lua: matrix conventions
-- checked on points worked out by hand, and every generated triangle
-- counter-clockwise seen from outside.
local gpusim = require "gpusim"
local vm = require "vecmath"
local mesh = require "mesh"
local vec, mat4 = vm.vec, vm.mat4

local function near(a, b, eps) return math.abs(a - b) <= (eps or 1e-12) end
local function vnear(a, b, eps)
  assert(#a == #b, "lengths differ")
  for i = 1, #a do
    if not near(a[i], b[i], eps) then
      error(string.format("component %d: %.17g vs %.17g", i, a[i], b[i]), 2)
    end
  end
end

-- ---- vectors
vnear(vec.cross({1, 0, 0}, {0, 1, 0}), {0, 0, 1})            -- right-handed
assert(vec.dot({1, 2, 3}, {4, 5, 6}) == 32)
vnear(vec.normalize({3, 0, 4}), {0.6, 0, 0.8})
vnear(vec.normalize({0, 0, 0}), {0, 0, 0})
vnear(vec.lerp({0, 0}, {2, 4}, 0.25), {0.5, 1})
vnear(vec.sub(vec.add({1, 2}, {3, 4}), {1, 1}), {3, 5})

-- ---- matrices: row-major, v' = M v
local t = mat4.translate(1, 2, 3)
assert(t[4] == 1 and t[8] == 2 and t[12] == 3)             -- the last column
vnear(mat4.transform(t, {1, 1, 1}), {2, 3, 4, 1})
vnear(mat4.transform(mat4.rotate_z(math.pi / 2), {1, 0, 0, 1}), {0, 1, 0, 1}, 1e-15)
vnear(mat4.transform(mat4.rotate_x(math.pi / 2), {0, 1, 0, 1}), {0, 0, 1, 1}, 1e-15)
vnear(mat4.transform(mat4.rotate_y(math.pi / 2), {0, 0, 1, 1}), {1, 0, 0, 1}, 1e-15)
vnear(mat4.rotate(0.7, {2, 0, 0}), mat4.rotate_x(0.7), 1e-15)
vnear(mat4.rotate(0.7, {0, 0, 1}), mat4.rotate_z(0.7), 1e-15)
-- mul applies the right operand first: translate after scaling
vnear(mat4.transform(mat4.mul(t, mat4.scale(2)), {1, 1, 1}), {3, 4, 5, 1})
vnear(mat4.mul(t, mat4.identity()), t)
vnear(mat4.mul(mat4.scale(2), mat4.scale(3), mat4.scale(1, 2, 3)), mat4.scale(6, 12, 18))
vnear(mat4.transpose(mat4.transpose(t)), t)
-- perspective: z = -near -> ndc -1, z = -far -> ndc +1, and w = -z
local p = mat4.perspective(math.rad(90), 2, 1, 10)
local c = mat4.transform(p, {0, 0, -1, 1})
assert(near(c[3] / c[4], -1, 1e-15) and c[4] == 1)
c = mat4.transform(p, {0, 0, -10, 1})
assert(near(c[3] / c[4], 1, 1e-15) and c[4] == 10)
c = mat4.transform(p, {2, 1, -1, 1})                      -- tan(45°) = 1, aspect 2
assert(near(c[1] / c[4], 1) and near(c[2] / c[4], 1))
-- ortho maps the box onto -1..1
local o = mat4.ortho(0, 4, 0, 2, 1, 3)
vnear(mat4.transform(o, {4, 2, -3}), {1, 1, 1, 1})
vnear(mat4.transform(o, {0, 0, -1}), {-1, -1, -1, 1})
-- look_at: the eye goes to the origin, the centre onto -z, up stays up
local v = mat4.look_at({3, 0, 4}, {0, 0, 0}, {0, 1, 0})
vnear(mat4.transform(v, {3, 0, 4}), {0, 0, 0, 1}, 1e-15)
vnear(mat4.transform(v, {0, 0, 0}), {0, 0, -5, 1}, 1e-15)
vnear(mat4.transform(v, {3, 1, 4}), {0, 1, 0, 1}, 1e-15)

-- ---- meshes
-- Every triangle is counter-clockwise seen from outside: its normal
-- (b - a) × (c - a) points the way of the stored vertex normals.
local function check_mesh(m, nverts, ntris)
  assert(m.mode == "triangles")
  assert(#m.vertices == nverts, "vertices: " .. #m.vertices)
  assert(#m.indices == 3 * ntris, "indices: " .. #m.indices)
  for k = 1, #m.indices, 3 do
    local a, b, cc = m.vertices[m.indices[k] + 1], m.vertices[m.indices[k + 1] + 1], m.vertices[m.indices[k + 2] + 1]
    assert(a and b and cc, "index out of range")
    local n = vec.cross(vec.sub({b[1], b[2], b[3]}, {a[1], a[2], a[3]}), vec.sub({cc[1], cc[2], cc[3]}, {a[1], a[2], a[3]}))
    local vn = vec.add(vec.add({a[5], a[6], a[7]}, {b[5], b[6], b[7]}), {cc[5], cc[6], cc[7]})
    assert(vec.dot(n, vn) > 0, "triangle " .. (k // 3 + 1) .. " is clockwise")
    assert(a[4] == 1)
  end
  -- it makes a vertex and an index buffer
  local vb = gpusim.buffer {format = m.format, data = m.vertices}
  local ib = gpusim.buffer {format = "u16", data = m.indices}
  assert(vb.count == nverts and vb.stride == 36 and ib.count == 3 * ntris)
end

check_mesh(mesh.quad(), 4, 2)
local cube = mesh.cube()
check_mesh(cube, 24, 12)
for _, vert in ipairs(cube.vertices) do
  assert(math.abs(vert[1]) == 1 and math.abs(vert[2]) == 1 and math.abs(vert[3]) == 1)
end
check_mesh(mesh.grid(3, 2), 12, 12)
local s = mesh.sphere(12, 6, 2)
check_mesh(s, 13 * 7, 12 * 6 * 2 - 2 * 12)                  -- one triangle per quad at the poles
for _, vert in ipairs(s.vertices) do assert(near(vec.length({vert[1], vert[2], vert[3]}), 2, 1e-12)) end
local sel = mesh.select(cube, 1, 3)
assert(#sel.format == 2 and sel.format[2] == "f32x2" and #sel.vertices[1] == 6)
vnear(sel.vertices[1], {cube.vertices[1][1], cube.vertices[1][2], cube.vertices[1][3], 1,
                        cube.vertices[1][8], cube.vertices[1][9]})
print("scene_helpers: ok")
