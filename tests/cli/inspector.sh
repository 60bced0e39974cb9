#!/bin/sh
# inspector.sh GPUSIM SOURCE_DIR — the window's inspector (src/app/overlay.c,
# docs/inspector.md, "In the window") on Xvfb, driven by GPUSIM_INSPECT: the
# keys and clicks go through SDL's event queue as a user's would.
# The scene: three draws on a 128x64 frame (tests/lua/lib/overlay_scene.lua:
# rectangle A x 0..48, y 8..40, red, QPU; rectangle B x 32..96, y 24..56,
# green, SASS; a blue triangle in the second tile), shown 4 times enlarged.
#  - idle (no key pressed), the window shows the frame exactly as -o writes it;
#  - key 1 (tiles), a click on pixel (10, 20): the panel holds tile (0, 0)'s
#    section of the rendering list, line for line as --dump-cl prints it;
#  - key 0, a click on pixel (40, 30): the panel holds `gpusim why`'s answer
#    for that pixel (after its first line, which names the frame);
#  - n, n: the debugger opens on that pixel's invocation (SASS, the last
#    writer) and steps once: 'step 1 of';
#  - ] (0 draws): pixel (20, 20) is the clear colour; ] (1 draw): red; ] ]
#    (every draw, B over A at (40, 30)): green;
#  - --compare in the window (3 frames), its counts as headless;
#  - a screenshot of the X screen (import) for people to look at
#    (INSPECTOR_SHOTS=DIR keeps it and the window's pictures there).
# Needs xvfb-run and ImageMagick (make test installs xvfb xauth imagemagick).
. "$2/tests/cli/lib/common.sh"
cd "$tmp" || exit 1
command -v xvfb-run > /dev/null 2>&1 || fail "xvfb-run not found (apt-get install xvfb xauth; make test installs them)"
command -v convert > /dev/null 2>&1 || fail "ImageMagick not found (apt-get install imagemagick; make test installs it)"

cp "$src/tests/lua/lib/overlay_scene.lua" three.lua

"$gpusim" --headless -o plain.png three.lua || fail "-o plain.png"
"$gpusim" --headless --dump-cl cl.txt three.lua || fail "--dump-cl"
awk '$2 == "115" { on = ($4 == "column=0" && $5 == "row=0") } /^#/ { on = 0 } on' cl.txt > want_tile.txt
"$gpusim" why three.lua 40 30 | tail -n +2 > want_why.txt || fail "gpusim why"
grep -q "COMPRESSED_PRIMITIVE_LIST" want_tile.txt || fail "no tile list for tile (0, 0) in cl.txt"
grep -q "fate: written" want_why.txt || fail "gpusim why: $(cat want_why.txt)"

s="wait:3 shot:$tmp/idle.png"
s="$s 1 wait:3 click:10,20 wait:6 print"
s="$s 0 wait:2 click:40,30 wait:6 print"
s="$s n wait:6 n wait:6 print"
s="$s ] wait:4 shot:$tmp/d0.png ] wait:4 shot:$tmp/d1.png ] ] wait:4 shot:$tmp/d3.png"
s="$s 2 wait:4 shot:$tmp/overdraw.png"
cat > onscreen.sh <<EOF2
unset WAYLAND_DISPLAY SDL_VIDEODRIVER
export SDL_RENDER_DRIVER=software SDL_FRAMEBUFFER_ACCELERATION=0
export LSAN_OPTIONS="\${LSAN_OPTIONS:+\$LSAN_OPTIONS:}suppressions=$src/tests/lsan.supp:print_suppressions=0"
GPUSIM_INSPECT="$s" timeout -k 5 120 "$gpusim" --frames 150 three.lua > out.txt 2> err.txt &
pid=\$!
sleep 3
import -window root screen.png 2> /dev/null
wait \$pid
timeout -k 5 60 "$gpusim" --frames 3 "$src/scenes/triangle.lua" --compare qpu sass > compare_out.txt 2> compare_err.txt
echo \$? > compare_status.txt
EOF2
timeout -k 10 200 xvfb-run -a -s "-screen 0 1280x800x24" sh onscreen.sh
[ -s err.txt ] && fail "the window run said: $(cat err.txt)"
[ -s out.txt ] || fail "the window printed no panel"

# --compare in the window: shown for 3 frames, then closed; the counts as headless
[ "$(cat compare_status.txt)" = 0 ] || fail "--compare in the window: status $(cat compare_status.txt): $(cat compare_err.txt)"
grep -q "^sass: 0 of 76800 pixels differ from qpu$" compare_out.txt || fail "--compare in the window: $(cat compare_out.txt)"
! grep -q "ran without a window" compare_err.txt || fail "--compare found no display on Xvfb"

# idle: the frame exactly
"$gpusim" diff plain.png idle.png > diff.txt || fail "idle window differs from -o: $(cat diff.txt)"

# the panels, in the order printed
awk '/^inspector panel:$/ { n++; next } { print > ("panel" n ".txt") }' out.txt
sed -n '3,$p' panel1.txt | sed '/^$/,$d' > got_tile.txt
cmp -s want_tile.txt got_tile.txt || fail "tile (0, 0)'s list differs from --dump-cl's: $(diff want_tile.txt got_tile.txt)"
head -1 panel1.txt | grep -q "^tile (0, 0)" || fail "panel 1: $(head -1 panel1.txt)"
tail -n +2 panel2.txt | sed '/^$/,$d' > got_why.txt
cmp -s want_why.txt got_why.txt || fail "the why panel differs from gpusim why: $(diff want_why.txt got_why.txt)"
grep -q "^debugger (n b): sass fragment program, step 1 of " panel3.txt || fail "debugger: $(cat panel3.txt)"

px() { convert "$1" -crop "1x1+$2+$3" -depth 8 txt:- | sed -n 's/.*(\([0-9]*\),\([0-9]*\),\([0-9]*\).*/\1 \2 \3/p' | head -1; }
[ "$(px d0.png 80 80)" = "0 0 0" ] || fail "after 0 draws (20, 20): $(px d0.png 80 80)"
[ "$(px d1.png 80 80)" = "255 0 0" ] || fail "after 1 draw (20, 20): $(px d1.png 80 80)"
[ "$(px d1.png 160 120)" = "255 0 0" ] || fail "after 1 draw (40, 30): $(px d1.png 160 120)"
[ "$(px d3.png 160 120)" = "0 255 0" ] || fail "after 3 draws (40, 30): $(px d3.png 160 120)"
[ -s overdraw.png ] || fail "no overdraw shot"
[ -s screen.png ] || fail "no screenshot of the screen"
[ -z "${INSPECTOR_SHOTS:-}" ] || cp screen.png d0.png d1.png d3.png overdraw.png "$INSPECTOR_SHOTS/"
exit 0
