-- interp_check.lua — the pixel checks of scenes/interpolation.lua's frame:
-- three copies of a quad leaning away from the viewer (W = 1 near, 4 far),
-- copy i interpolated as modes[i] ("flat", "perspective" or "screen").
-- Every pixel whose centre is clearly inside a triangle is checked against
-- the formula worked out here, to 1 per 8-bit channel:
--   perspective: interpolate a/w and 1/w linearly in screen space, divide;
--   screen:      interpolate a linearly in screen space;
--   flat:        the provoking (last) vertex's value.
-- Pixels clearly outside keep the clear colour. Returns the pixels checked
-- per mode.
return function(target, modes)
  local TOL = 1                     -- per 8-bit channel
  -- The vertices in each 128×128 viewport (screen x, y; W; colour), as the
  -- scene places them; the two triangles as drawn.
  local NL = {x = 8,   y = 8,   w = 1, c = {1, 0, 0}}
  local NR = {x = 120, y = 8,   w = 1, c = {0, 1, 0}}
  local FR = {x = 78,  y = 120, w = 4, c = {0, 0, 1}}
  local FL = {x = 50,  y = 120, w = 4, c = {1, 1, 0}}
  local triangles = {{NL, NR, FR}, {NL, FR, FL}}

  -- Screen-space barycentric weights of (px, py) in triangle v.
  local function weights(v, px, py)
    local function edge(a, b) return (b.x - a.x) * (py - a.y) - (b.y - a.y) * (px - a.x) end
    local area = (v[2].x - v[1].x) * (v[3].y - v[1].y) - (v[2].y - v[1].y) * (v[3].x - v[1].x)
    return edge(v[2], v[3]) / area, edge(v[3], v[1]) / area, edge(v[1], v[2]) / area
  end

  local formulas = {
    flat = function(v, _) return v[3].c end,
    perspective = function(v, l)
      local num, den = {0, 0, 0}, 0
      for i = 1, 3 do
        den = den + l[i] / v[i].w
        for k = 1, 3 do num[k] = num[k] + l[i] * v[i].c[k] / v[i].w end
      end
      return {num[1] / den, num[2] / den, num[3] / den}
    end,
    screen = function(v, l)
      local out = {0, 0, 0}
      for i = 1, 3 do for k = 1, 3 do out[k] = out[k] + l[i] * v[i].c[k] end end
      return out
    end,
  }

  local clear = {26, 26, 38}
  local checked = {}
  local at_centre = {}
  for copy, mode in ipairs(modes) do
    checked[mode] = 0
    for y = 0, 127 do
      for lx = 0, 127 do
        local x = (copy - 1) * 128 + lx
        local got = {target:pixel(x, y)}
        assert(got[4] == 255)
        local cx, cy = lx + 0.5, y + 0.5
        local inside_any, outside_all = false, true
        for _, v in ipairs(triangles) do
          local l0, l1, l2 = weights(v, cx, cy)
          if math.min(l0, l1, l2) > 0.01 then
            inside_any = true
            local want = formulas[mode](v, {l0, l1, l2})
            for k = 1, 3 do
              assert(math.abs(got[k] - want[k] * 255) <= TOL, string.format(
                "%s copy, pixel (%d, %d) channel %d: %d, formula %.3f", mode, x, y, k, got[k], want[k] * 255))
            end
            checked[mode] = checked[mode] + 1
          end
          if math.min(l0, l1, l2) > -0.01 then outside_all = false end
        end
        if outside_all then
          assert(got[1] == clear[1] and got[2] == clear[2] and got[3] == clear[3],
                 string.format("%s copy: spill at (%d, %d)", mode, x, y))
        end
        if lx == 64 and y == 64 then at_centre[mode] = got end
      end
    end
    assert(checked[mode] > 7000, mode .. ": only " .. checked[mode] .. " pixels checked")
  end

  -- The modes really differ: at the centre, perspective weights the near
  -- (red, green) vertices more than screen-linear does, and flat is blue.
  local p, s = at_centre.perspective, at_centre.screen
  assert(p[3] + 40 < s[3], string.format("centre blue: perspective %d, screen %d", p[3], s[3]))
  assert(at_centre.flat[1] == 0 and at_centre.flat[2] == 0 and at_centre.flat[3] == 255)
  return checked
end
