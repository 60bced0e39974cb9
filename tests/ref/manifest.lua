-- manifest.lua — gpusim's own reference images: every scene under scenes/
-- that draws (registers gpusim.frame) renders headless, one frame, at its
-- own target size, and must match tests/ref/<scene>.png within a tolerance
-- per 8-bit channel, as `gpusim diff --tolerance T` counts it. Run it with
--
--   gpusim test tests/ref/manifest.lua          (docs/testing.md)
--
-- tests/cli/ref_images.sh runs it in the test suite and fails when a
-- drawing scene has no case here.
--
-- Each reference image is backed by a test that checks the scene's pixels
-- against formulas or exact coverage (tests/lua/scene_<scene>.lua); a
-- reference is only (re)written, with
--   gpusim test --update tests/ref/manifest.lua
-- after that test passes. The size is the scene's own target size, the one
-- its check test renders at.

-- The scenes run from the repository root, where scenes/cube.lua finds
-- assets/checker.png; paths here are relative to this file's directory.
local function ref(name, size, tolerance)
  case {
    name = name,
    scene = "../../scenes/" .. name .. ".lua",
    size = size,
    reference = name .. ".png",
    tolerance = tolerance,
    dir = "../..",
  }
end

ref("triangle",      "320x240", 1)
ref("interpolation", "384x128", 1)
ref("primitives",    "512x256", 0)
ref("cube",          "256x256", 1)
ref("blend",         "256x256", 0)
ref("tiles",         "256x256", 0)
ref("stencil",       "256x256", 0)
ref("blend_modes",   "256x128", 0)
ref("antialias",     "256x256", 0)
