#!/bin/sh
# window.sh GPUSIM SOURCE_DIR — the SDL2 window (src/app/window.c):
#  - with no display, `gpusim view` fails with status 1 suggesting xvfb-run
#    and --headless, and a script run without --headless goes on without a
#    window (status 0, a note saying so);
#  - under `xvfb-run -a`: `gpusim view IMAGE --frames 3` and a script run
#    with --frames 2 open the window and exit 0 by themselves;
#  - screenshots of the X screen (ImageMagick's import and convert) show the
#    image, enlarged 8 times with nearest-pixel sampling, upright and
#    centred, and the script's test card upright; SIGTERM closes the window
#    cleanly.
# Nothing needs a real display. Exits 77 (ctest: skipped) only when xvfb-run
# is missing; `make test` installs it (xvfb xauth) and ImageMagick.
set -u
gpusim=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkpng() { "$gpusim" --headless "$src/tests/cli/mkpng.lua" "$@" || fail "mkpng.lua $*"; }
cd "$tmp" || exit 1

# grid.png, 32x16: 8x8 blocks in two rows of four colours. Upside down,
# mirrored or shifted it looks different at every block.
mkpng grid.png 32 16 \
  0,0,8,8=255,0,0,255 8,0,8,8=0,255,0,255 16,0,8,8=0,0,255,255 24,0,8,8=255,255,255,255 \
  0,8,8,8=255,255,0,255 8,8,8,8=0,255,255,255 16,8,8,8=255,0,255,255 24,8,8,8=64,128,192,255
printf 'print("script ran")\n' > script.lua

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

# The part that runs on the virtual display. It gets GPUSIM as $1.
cat > onscreen.sh <<'EOF'
set -u
gpusim=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
# SDL must talk to the X server xvfb-run started, not to a driver chosen
# outside. With sanitizers, leak checking is off for the window runs: the
# X11, GL and D-Bus libraries SDL loads leak a little at exit, after SDL
# has unloaded them, so LeakSanitizer can neither name nor suppress them.
unset WAYLAND_DISPLAY SDL_VIDEODRIVER
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

# The window opens, shows 3 frames (about 1/20 s) and closes by itself.
timeout -k 5 60 "$gpusim" view grid.png --frames 3 > out 2> err
status=$?
[ $status -eq 0 ] || fail "view --frames 3 on Xvfb: status $status: $(cat err)"
grep -q "no display" err && fail "view on Xvfb found no display: $(cat err)"
# A script without --headless: it runs, then the window shows 2 frames.
timeout -k 5 60 "$gpusim" --frames 2 script.lua > out 2> err
status=$?
[ $status -eq 0 ] || fail "script --frames 2 on Xvfb: status $status: $(cat err)"
grep -q "script ran" out || fail "script on Xvfb did not run: $(cat out)"
grep -q "ran without a window" err && fail "script on Xvfb ran without a window: $(cat err)"

# sample SPEC...: the colours at screen points "X,Y" in shot.png, as
# "srgb(R,G,B)" separated by spaces.
sample() {
  fmt=""
  for p in "$@"; do fmt="$fmt%[pixel:p{$p}] "; done
  convert shot.png -format "${fmt% }" info:
}
# screenshot PID EXPECT POINT...: takes screenshots of the whole X screen
# until the points show the colours EXPECT (as sample prints them), for at
# most 20 s or until process PID ends. Returns 0 when they do.
screenshot() {
  pid=$1 expect=$2
  shift 2
  tries=0
  while [ $tries -lt 100 ]; do
    tries=$((tries + 1))
    sleep 0.2
    kill -0 "$pid" 2> /dev/null || return 1
    import -window root shot.png 2> /dev/null || continue
    [ "$(sample "$@")" = "$expect" ] && return 0
  done
  return 1
}
# close_window PID WHAT: closes the window of gpusim process PID with SIGTERM (SDL makes
# it a quit request) and checks that it then exits with status 0.
close_window() {
  kill -TERM "$1" 2> /dev/null
  wait "$1"
  status=$?
  [ $status -eq 0 ] || fail "$2: status $status after SIGTERM: $(cat err)"
}

# gpusim view grid.png: a 32x16 image is enlarged 8 times (the largest
# whole factor up to 8 with the longer side at most 512) to a 256x128
# window, centred on the 1024x768 screen: its top-left pixel is (384, 320)
# and each 8x8 block of the image is a 64x64 square on the screen.
"$gpusim" view grid.png --frames 3600 > out 2> err &
pid=$!
centres="416,352 480,352 544,352 608,352 416,416 480,416 544,416 608,416"
want="srgb(255,0,0) srgb(0,255,0) srgb(0,0,255) srgb(255,255,255)"
want="$want srgb(255,255,0) srgb(0,255,255) srgb(255,0,255) srgb(64,128,192)"
if ! screenshot $pid "$want" $centres; then
  kill -KILL $pid 2> /dev/null
  wait $pid
  [ -f shot.png ] || fail "no screenshot of the view window could be taken: $(cat err)"
  fail "the view window does not show grid.png: at $centres expected $want, got $(sample $centres)"
fi
# the blocks' edges, pixel exact: the image's corners and both sides of the
# boundaries between blocks
edges="384,320 639,320 384,447 639,447 447,330 448,330 400,383 400,384"
want="srgb(255,0,0) srgb(255,255,255) srgb(255,255,0) srgb(64,128,192)"
want="$want srgb(255,0,0) srgb(0,255,0) srgb(255,0,0) srgb(255,255,0)"
[ "$(sample $edges)" = "$want" ] ||
  fail "view window: not 8x nearest-pixel at (384, 320): at $edges expected $want, got $(sample $edges)"
close_window $pid "gpusim view"

# A script without --headless shows the test card (until scenes render)
# at --size 64x32: enlarged 8 times to 512x256 at (256, 256). The top half
# holds eight bars 8 pixels wide (white, yellow, cyan, green, magenta, red,
# blue, black), the bottom half a grey ramp x * 255 / 63: black at x = 0,
# 21 * 255 / 63 = 85 at x = 21, white at x = 63.
"$gpusim" --size 64x32 --frames 3600 script.lua > out 2> err &
pid=$!
bars="292,324 356,324 420,324 484,324 548,324 612,324 676,324 740,324"
want="srgb(255,255,255) srgb(255,255,0) srgb(0,255,255) srgb(0,255,0)"
want="$want srgb(255,0,255) srgb(255,0,0) srgb(0,0,255) srgb(0,0,0)"
ramp="260,452 428,452 764,452"
want="$want srgb(0,0,0) srgb(85,85,85) srgb(255,255,255)"
if ! screenshot $pid "$want" $bars $ramp; then
  kill -KILL $pid 2> /dev/null
  wait $pid
  [ -f shot.png ] || fail "no screenshot of the script's window could be taken: $(cat err)"
  fail "the script's window does not show the test card upright: at $bars $ramp expected $want, got $(sample $bars $ramp)"
fi
close_window $pid "gpusim --size 64x32 script.lua"
exit 0
EOF

# xvfb-run gives the command's status; the outer timeout is a last resort
# (the runs inside have their own limits).
timeout -k 10 240 xvfb-run -a -s "-screen 0 1024x768x24" sh onscreen.sh "$gpusim"
status=$?
[ $status -eq 0 ] || fail "on Xvfb (status $status)"
exit 0
