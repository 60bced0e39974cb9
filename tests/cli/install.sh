#!/bin/sh
# install.sh GPUSIM SOURCE_DIR — `cmake --install` of the build directory
# ($GS_BINARY_DIR, set by CMakeLists.txt; else GPUSIM's directory) into a
# temporary prefix, which is then moved elsewhere: everything must work from
# the moved prefix and from an unrelated working directory.
#   - the installed gpusim renders the installed scenes/cube.lua (which reads
#     ../assets/checker.png relative to itself) and scenes/triangle.lua, the
#     same images as the build tree's gpusim run from the source tree;
#   - a scene copied to another directory finds the installed helpers
#     (require "vc4_shaders" from PREFIX/share/lua/5.4) and a texture file
#     beside it by a relative path, and one by an absolute path;
#   - a stock lua5.4 loads PREFIX/lib/lua/5.4/gpusim.so and the helpers with
#     LUA_CPATH/LUA_PATH pointing into the prefix;
#   - docs/examples/embed.c builds with `pkg-config --cflags --libs gpusim`
#     from the prefix and prints what its QPU program stores: 100..115, after
#     the program's 10 instructions;
#   - the manual page renders without warnings.
set -u
gpusim=$1
src=$2
build=${GS_BINARY_DIR:-$(dirname "$gpusim")}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unset LUA_PATH LUA_PATH_5_4 LUA_CPATH LUA_CPATH_5_4
status=0
fail() { echo "FAIL: $*" >&2; status=1; }

if ! cmake --install "$build" --prefix "$tmp/first" > "$tmp/install.log" 2>&1; then
  cat "$tmp/install.log" >&2
  echo "FAIL: cmake --install $build --prefix $tmp/first" >&2
  exit 1
fi
# relocatable: nothing may refer to the prefix it was installed into
mv "$tmp/first" "$tmp/p" || exit 1
p=$tmp/p
libdir=$(dirname "$(find "$p" -name libgpusim.a | head -n 1)")
for f in bin/gpusim lib/lua/5.4/gpusim.so share/lua/5.4/vc4_shaders.lua share/lua/5.4/vecmath.lua \
         share/lua/5.4/mesh.lua share/gpusim/scenes/cube.lua share/gpusim/assets/checker.png \
         share/gpusim/docs/scenes.md share/gpusim/docs/examples/embed.c share/man/man1/gpusim.1 \
         include/gpusim/gpu.h include/gpusim/qpu.h include/gpusim/mem.h include/gpusim/diag.h; do
  [ -f "$p/$f" ] || fail "not installed: $f"
done
[ -f "$libdir/pkgconfig/gpusim.pc" ] || fail "not installed: gpusim.pc beside libgpusim.a ($libdir)"
[ -x "$p/bin/gpusim" ] || { echo "FAIL: no $p/bin/gpusim" >&2; exit 1; }

mkdir -p "$tmp/cwd" "$tmp/elsewhere/tex" && cd "$tmp/cwd" || exit 1

# installed scenes from an unrelated directory = the build tree's images
(cd "$src" && "$gpusim" --headless -o "$tmp/cube_ref.png" scenes/cube.lua &&
              "$gpusim" --headless -o "$tmp/triangle_ref.png" scenes/triangle.lua) ||
  fail "the build tree's gpusim did not render scenes/cube.lua and triangle.lua"
if "$p/bin/gpusim" --headless -o out.png "$p/share/gpusim/scenes/cube.lua" 2> err.txt; then
  "$gpusim" diff "$tmp/cube_ref.png" out.png > /dev/null || fail "installed cube.lua: a different image"
else
  fail "installed gpusim: share/gpusim/scenes/cube.lua from $tmp/cwd: $(cat err.txt)"
fi

# a copied scene: the installed helpers, and textures by relative and
# absolute path (resolved against the scene file, not the working directory)
cp "$src/scenes/triangle.lua" "$tmp/elsewhere/triangle.lua"
if "$p/bin/gpusim" --headless -o tri.png "$tmp/elsewhere/triangle.lua" 2> err.txt; then
  "$gpusim" diff "$tmp/triangle_ref.png" tri.png > /dev/null || fail "copied triangle.lua: a different image"
else
  fail "installed gpusim: a copy of triangle.lua in $tmp/elsewhere: $(cat err.txt)"
fi
cp "$src/assets/checker.png" "$tmp/elsewhere/tex/c.png"
cat > "$tmp/elsewhere/where.lua" <<LUA
local gpusim = require "gpusim"
require "vc4_shaders"
print(package.searchpath("vc4_shaders", package.path))
local rel = gpusim.texture {file = "tex/c.png"}
local abs = gpusim.texture {file = "$p/share/gpusim/assets/checker.png"}
assert(rel.width == 16 and rel.height == 16 and abs.width == 16 and abs.height == 16)
local ok, err = pcall(gpusim.texture, {file = "tex/missing.png"})
assert(not ok and err:find("$tmp/elsewhere/tex/missing.png", 1, true), err)
print("textures ok")
LUA
out=$("$p/bin/gpusim" --headless "$tmp/elsewhere/where.lua" 2>&1)
[ "$out" = "$p/bin/../share/lua/5.4/vc4_shaders.lua
textures ok" ] || fail "copied scene with the installed helpers and textures: got: $out"

# a stock lua5.4 with the prefix's paths (the ASan build's module needs the
# sanitizer runtime loaded first, which a stock lua5.4 does not do)
if [ "${GS_SANITIZE:-OFF}" != ON ] && command -v lua5.4 > /dev/null; then
  out=$(LUA_CPATH="$p/lib/lua/5.4/?.so" LUA_PATH="$p/share/lua/5.4/?.lua" lua5.4 -e '
    local gpusim = require "gpusim"
    local vm = require "vecmath"
    print(package.searchpath("gpusim", package.cpath), package.searchpath("vecmath", package.path))
    local a = gpusim.mem.alloc(16)
    gpusim.mem.write(a, "u32", {7, 0xffffffff})
    local t = gpusim.mem.read(a, "u32", 2)
    print(gpusim.version, t[1], t[2])' 2>&1)
  [ "$out" = "$p/lib/lua/5.4/gpusim.so	$p/share/lua/5.4/vecmath.lua
0.1.0	7	4294967295" ] || fail "stock lua5.4 require \"gpusim\" from $p: got: $out"
fi

# the C library through pkg-config
san=
[ "${GS_SANITIZE:-OFF}" = ON ] && san="-fsanitize=address,undefined"
if command -v pkg-config > /dev/null && command -v cc > /dev/null; then
  flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs gpusim) || fail "pkg-config gpusim"
  case "$flags" in *"$p/"*include*) ;; *) fail "pkg-config --cflags gpusim names no include directory under $p: $flags" ;; esac
  # shellcheck disable=SC2086 # the flags are words
  if cc -std=c11 -Wall -Werror $san "$src/docs/examples/embed.c" -o embed $flags 2> err.txt; then
    out=$(./embed 100 2>&1)
    [ "$out" = "100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115
10 instructions on QPU 0" ] || fail "embed 100: got: $out"
  else
    fail "cc embed.c $flags: $(cat err.txt)"
  fi
fi

# the manual page
man1=$p/share/man/man1/gpusim.1
if command -v groff > /dev/null; then
  groff -man -Tutf8 -ww -z "$man1" 2> err.txt && [ ! -s err.txt ] || fail "groff: $(cat err.txt)"
fi
if command -v man > /dev/null; then
  MANWIDTH=80 man -l "$man1" 2> err.txt | grep -q "gpusim - VideoCore IV GPU pipeline simulator" ||
    fail "man -l $man1 does not render its NAME line: $(cat err.txt)"
fi
exit $status
