#!/bin/sh
# window.sh GPUSIM SOURCE_DIR — the SDL2 window (src/app/window.c):
#  - with no display, `gpusim view` fails with status 1 suggesting xvfb-run
#    and --headless, and a script run without --headless goes on without a
#    window (status 0, a note saying so);
#  - under `xvfb-run -a`: `gpusim view IMAGE --frames 3` and a script run
#    with --frames 2 open the window and exit 0 by themselves;
#  - screenshots of the X screen (ImageMagick's import and convert) show the
#    image, a plain script's test card and a scene's rendered frame pixel
#    for pixel (enlarged 8 times with nearest-pixel sampling, upright,
#    centred); SIGTERM closes the window cleanly.
# Nothing needs a real display. Exits 77 (ctest: skipped) only when xvfb-run
# is missing; `make test` installs it (xvfb xauth) and ImageMagick.
. "$2/tests/cli/lib/common.sh"
cd "$tmp" || exit 1

# grid.png, 32x16: 8x8 blocks in two rows of four colours. Upside down,
# mirrored or shifted it looks different at every block.
mkpng grid.png 32 16 \
  0,0,8,8=255,0,0,255 8,0,8,8=0,255,0,255 16,0,8,8=0,0,255,255 24,0,8,8=255,255,255,255 \
  0,8,8,8=255,255,0,255 8,8,8,8=0,255,255,255 16,8,8,8=255,0,255,255 24,8,8,8=64,128,192,255
printf 'print("script ran")\n' > script.lua
# card.png: the test card a plain script's window shows at --size 64x32
# (gs_image_fill_test_pattern): eight bars 8 pixels wide in the top half
# (white, yellow, cyan, green, magenta, red, blue, black), a grey ramp
# x * 255 / 63 in the bottom half.
set -- 0,0,8,16=255,255,255,255 8,0,8,16=255,255,0,255 16,0,8,16=0,255,255,255 \
  24,0,8,16=0,255,0,255 32,0,8,16=255,0,255,255 40,0,8,16=255,0,0,255 48,0,8,16=0,0,255,255 \
  56,0,8,16=0,0,0,255
x=0
while [ $x -lt 64 ]; do
  g=$((x * 255 / 63))
  set -- "$@" "$x,16,1,16=$g,$g,$g,255"
  x=$((x + 1))
done
mkpng card.png 64 32 "$@"
# still.lua SCENE.lua: runs the scene, then draws every frame at t = 0, so
# that every frame is the same picture whatever the scene does with time.
cat > still.lua <<'LUA'
local gpusim = require "gpusim"
-- the scene's helpers (lua/ beside scenes/), as gpusim finds them for the scene itself
package.path = (arg[1]:match("^(.*)/scenes/[^/]*$") or ".") .. "/lua/?.lua;" .. package.path
dofile(arg[1])
local draw, target = gpusim.frame()
assert(draw, arg[1] .. " registered no frame callback")
gpusim.frame(function(frame) return draw(frame, 0) end, target)
LUA

# ---- no display ------------------------------------------------------------
nodisplay() { env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER timeout -k 5 60 "$gpusim" "$@"; }
nodisplay view grid.png --frames 3 > out 2> err
status=$?
[ $status -eq 1 ] || fail "view without a display: status $status, expected 1: $(cat err)"
grep -q "xvfb-run" err || fail "view without a display does not suggest xvfb-run: $(cat err)"
grep -q -- "--headless" err || fail "view without a display does not suggest --headless: $(cat err)"
nodisplay --frames 2 script.lua > out 2> err
status=$?
[ $status -eq 0 ] || fail "script without a display: status $status, expected 0: $(cat err)"
grep -q "script ran" out || fail "script without a display did not run: $(cat out)"
grep -q "note: ran without a window" err || fail "script without a display: no note: $(cat err)"
grep -q -- "--headless" err || fail "script without a display: note does not suggest --headless"

# view's own errors come before any window
nodisplay view missing.png > out 2> err
[ $? -eq 1 ] || fail "view of a missing image: status, expected 1"
grep -q "missing.png" err || fail "view of a missing image: message: $(cat err)"
for bad in "grid.png --frames 0" "grid.png --frames x" "grid.png --frames" "grid.png --frob" \
           "" "grid.png grid.png"; do
  # shellcheck disable=SC2086 # split on purpose
  nodisplay view $bad > out 2> err
  [ $? -eq 2 ] || fail "gpusim view $bad: status, expected 2: $(cat err)"
  grep -q "^gpusim view: " err || fail "gpusim view $bad: message: $(cat err)"
done
nodisplay view --help > out || fail "view --help status"
grep -q "usage: gpusim view" out || fail "view --help text: $(cat out)"

# ---- a virtual display -----------------------------------------------------
if ! command -v xvfb-run > /dev/null 2>&1; then
  echo "SKIP: xvfb-run not found (apt-get install xvfb xauth; make test installs them)"
  exit 77
fi
for tool in import convert; do
  "$tool" -version 2> /dev/null | grep -q ImageMagick ||
    fail "ImageMagick's $tool is needed for the screenshots (apt-get install imagemagick; make test installs it)"
done

# The part that runs on the virtual display. It gets GPUSIM and SOURCE_DIR.
cat > onscreen.sh <<'EOF'
set -u
gpusim=$1
src=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
# SDL must talk to the X server xvfb-run started, not to a driver chosen
# outside. With sanitizers, LeakSanitizer checks the window runs too, but
# skips what tests/lsan.supp names: libdbus, which SDL loads and which
# keeps allocations until exit. Every other leak fails the run. SDL draws
# with its software renderer here: on Xvfb OpenGL is Mesa's software
# rasteriser anyway, and Mesa unloads its driver (swrast_dri.so) before
# exit with allocations of its own still live, which LeakSanitizer can
# then neither name nor suppress.
unset WAYLAND_DISPLAY SDL_VIDEODRIVER
SDL_RENDER_DRIVER=software
SDL_FRAMEBUFFER_ACCELERATION=0
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$src/tests/lsan.supp:print_suppressions=0"
export SDL_RENDER_DRIVER SDL_FRAMEBUFFER_ACCELERATION LSAN_OPTIONS

# The window opens, shows 3 frames (about 1/20 s) and closes by itself.
timeout -k 5 60 "$gpusim" view grid.png --frames 3 > out 2> err
status=$?
[ $status -eq 0 ] || fail "view --frames 3 on Xvfb: status $status: $(cat err)"
grep -q "no display" err && fail "view on Xvfb found no display: $(cat err)"
# A plain script without --headless: it runs, then the window shows 2 frames.
timeout -k 5 60 "$gpusim" --frames 2 script.lua > out 2> err
status=$?
[ $status -eq 0 ] || fail "script --frames 2 on Xvfb: status $status: $(cat err)"
grep -q "script ran" out || fail "script on Xvfb did not run: $(cat out)"
grep -q "ran without a window" err && fail "script on Xvfb ran without a window: $(cat err)"
# A scene: a new frame rendered for each of the 2 shown.
timeout -k 5 60 "$gpusim" --frames 2 --size 64x32 still.lua "$src/scenes/triangle.lua" > out 2> err
status=$?
[ $status -eq 0 ] || fail "scene --frames 2 on Xvfb: status $status: $(cat err)"
grep -q "ran without a window" err && fail "scene on Xvfb ran without a window: $(cat err)"

# shows PID REF.png WHAT: takes screenshots of the X screen, for at most
# 20 s and while process PID runs, until the window shows REF.png pixel for
# pixel: enlarged by a whole factor with nearest-pixel sampling (the largest
# factor up to 8 that keeps the longer side within 512, as window.c opens
# it), upright, centred on the 1024x768 screen. Compares with gpusim diff.
shows() {
  pid=$1 ref=$2 what=$3
  size=$(convert "$ref" -format "%w %h" info:) || fail "cannot read $ref"
  w=${size% *} h=${size#* }
  longer=$((w > h ? w : h)) zoom=1
  while [ $zoom -lt 8 ] && [ $(((zoom + 1) * longer)) -le 512 ]; do zoom=$((zoom + 1)); done
  zw=$((w * zoom)) zh=$((h * zoom))
  x=$(((1024 - zw) / 2)) y=$(((768 - zh) / 2))
  convert "$ref" -sample "${zw}x${zh}!" want.png || fail "cannot enlarge $ref"
  echo "no screenshot taken" > diffout
  tries=0
  while [ $tries -lt 100 ]; do
    tries=$((tries + 1))
    sleep 0.2
    kill -0 "$pid" 2> /dev/null || fail "$what: the window closed by itself: $(cat err)"
    import -window root shot.png 2> /dev/null || continue
    convert shot.png -crop "${zw}x${zh}+$x+$y" +repage got.png || continue
    "$gpusim" diff want.png got.png > diffout 2>&1 && return 0
  done
  kill -KILL "$pid" 2> /dev/null
  wait "$pid"
  fail "$what: the screen at ($x, $y) does not show $ref enlarged ${zoom}x: $(cat diffout)"
}
# close_window PID WHAT: closes the window of gpusim process PID with
# SIGTERM (SDL makes it a quit request) and checks that it exits with 0.
close_window() {
  kill -TERM "$1" 2> /dev/null
  wait "$1"
  status=$?
  [ $status -eq 0 ] || fail "$2: status $status after SIGTERM: $(cat err)"
}

# gpusim view: the 32x16 grid becomes a 256x128 window at (384, 320).
"$gpusim" view grid.png --frames 3600 > out 2> err &
pid=$!
shows $pid grid.png "gpusim view grid.png"
close_window $pid "gpusim view grid.png"

# A plain script shows the test card at --size: 64x32, a 512x256 window.
"$gpusim" --size 64x32 --frames 3600 script.lua > out 2> err &
pid=$!
shows $pid card.png "gpusim --size 64x32 script.lua (the test card)"
close_window $pid "gpusim --size 64x32 script.lua"

# A scene shows the frames it renders: the same picture as -o writes.
"$gpusim" --headless --size 64x32 -o scene.png still.lua "$src/scenes/triangle.lua" 2> err ||
  fail "scene -o: $(cat err)"
"$gpusim" --size 64x32 --frames 3600 still.lua "$src/scenes/triangle.lua" > out 2> err &
pid=$!
shows $pid scene.png "gpusim --size 64x32 scenes/triangle.lua"
close_window $pid "gpusim --size 64x32 scenes/triangle.lua"
exit 0
EOF

# xvfb-run gives the command's status; the outer timeout is a last resort
# (the runs inside have their own limits).
timeout -k 10 300 xvfb-run -a -s "-screen 0 1024x768x24" sh onscreen.sh "$gpusim" "$src"
status=$?
[ $status -eq 0 ] || fail "on Xvfb (status $status)"
exit 0
