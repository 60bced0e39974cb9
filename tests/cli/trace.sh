#!/bin/sh
# trace.sh GPUSIM SOURCE_DIR — `gpusim trace`: the lane trace of the middle
# pixel of scenes/triangle.lua with its SASS pixel program, checked line by
# line against the program (lua/sass_shaders.lua's colour("perspective"))
# and the values worked by hand: pixel (160, 120) is the pipeline's
# (160, 119), lane 10 of its 4x4 block (x 160 % 4 = 0, y 119 % 4 = 3: quad
# 2, element 2), and 1/W = W = 1 for a triangle with w = 1 (R8 = 1.0 =
# 0x3f800000); MOV32I R3 writes alpha 1.0; EXIT leaves every lane exited.
# The source column, counted by hand in lua/sass_shaders.lua: the `w`
# prologue's IPA.PASS and MUFU.RCP on lines 70 and 71, colour()'s MOV32I
# and EXIT on 81 and 82; the three IPA lines are made by string.format (no
# line of the file holds them): "<asm>" and their lines 3-5 in the text.
# Then the vertex form (--draw K --vertex I [--stage coordinate]), --lane, --help, and the exit statuses: 1 for a pixel no fragment
# program ran for (with what gpusim why says) and for one outside the image,
# 2 for usage errors.
. "$2/tests/cli/lib/common.sh"
g="$1"
src="$2"
cd "$src" || exit 1
"$g" trace scenes/triangle.lua 160 120 sass > "$tmp/out" || fail "trace exited $?"
head -1 "$tmp/out" | grep -q '^sass fragment shader 0x[0-9a-f]* (uniforms 0x[0-9a-f]*), pixel (160, 120): lane 10 of lanes 0xffff, 7 steps$' \
  || fail "header: $(head -1 "$tmp/out")"
grep -q '^    0  0x0008  sass_shaders.lua:70  IPA.PASS R8, a\[0x7c\] ; *R8=0x3f800000 (1)$' "$tmp/out" || fail "step 0: $(cat "$tmp/out")"
grep -q '^    1  0x0010  sass_shaders.lua:71  MUFU.RCP R8, R8 ;$' "$tmp/out" || fail "step 1 (R8 stays 1.0: nothing written)"
grep -q '^    2  0x0018  <asm>:3              IPA R0, a\[0x80\], R8 ; *R0=0x' "$tmp/out" || fail "step 2"
grep -q '^    4  0x0030  <asm>:5              IPA R2, a\[0x88\], R8 ; *R2=0x' "$tmp/out" || fail "step 4"
grep -q '^    5  0x0038  sass_shaders.lua:81  MOV32I R3, 0x3f800000 ; *R3=0x3f800000 (1)$' "$tmp/out" || fail "step 5"
grep -q '^    6  0x0048  sass_shaders.lua:82  EXIT ; *active=0x00000000 exited=0x0000ffff$' "$tmp/out" || fail "step 6"
[ "$(tail -1 "$tmp/out")" = "end" ] || fail "no end line"
[ "$(wc -l < "$tmp/out")" -eq 9 ] || fail "$(wc -l < "$tmp/out") lines"
# the same invocation, lane 0: the block's lowest-left pixel (160, 123 from the top)
"$g" trace --lane 0 scenes/triangle.lua 160 120 sass > "$tmp/lane0" || fail "--lane exited $?"
head -1 "$tmp/lane0" | grep -q 'pixel (160, 123): lane 0 of lanes 0xffff' || fail "lane 0: $(head -1 "$tmp/lane0")"
"$g" trace --help | grep -q '^usage: gpusim trace \[--frame N\] \[--lane L\] SCENE.lua X Y \[ARGS...\]$' || fail "--help"
"$g" trace scenes/triangle.lua 0 0 > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] || fail "nothing shaded: exit status"
grep -q 'no fragment program ran for pixel (0, 0): gpusim why says no primitive covers it' "$tmp/err" || fail "$(cat "$tmp/err")"
"$g" trace scenes/triangle.lua 400 0 > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] || fail "outside: exit status"
grep -q 'pixel (400, 0) is outside the 320x240 image' "$tmp/err" || fail "$(cat "$tmp/err")"
# the vertex form: draw 1's vertex 0 on AGX. The scene's vertex 0 is
# (-0.8, -0.8, 0, 1) red (1, 0, 0): the prolog's first load (step 2) writes
# x, y, w into r8, r9, r11 (z = 0 leaves r10 as it was), the second (step 5)
# red 1.0 into r12 (green, blue 0 leave r13, r14); eight prolog steps, seven
# st_var, stop: 16 steps, lane 0 of the three vertices' lanes 0x7. The
# prolog is the driver's code (no source); the program's first st_var is
# line 37 of lua/agx_shaders.lua (shaders.vertex's template, counted by hand).
"$g" trace --draw 1 --vertex 0 scenes/triangle.lua agx > "$tmp/vtx" || fail "vertex trace exited $?"
head -1 "$tmp/vtx" | grep -q '^agx vertex shader 0x[0-9a-f]* (uniforms 0x[0-9a-f]*), vertex 0: lane 0 of lanes 0x7, 16 steps$' \
  || fail "vertex header: $(head -1 "$tmp/vtx")"
grep -q '^    2  prolog+0x0010  *load .* r8=0xbf4ccccd (-0.800000012) r9=0xbf4ccccd (-0.800000012) r11=0x3f800000 (1)$' "$tmp/vtx" \
  || fail "vertex step 2: $(cat "$tmp/vtx")"
grep -q '^    5  prolog+0x0028  *load .* r12=0x3f800000 (1)$' "$tmp/vtx" || fail "vertex step 5: $(cat "$tmp/vtx")"
grep -q '^    8  0x0000         agx_shaders.lua:37  st_var   r8, 0$' "$tmp/vtx" || fail "vertex step 8: $(cat "$tmp/vtx")"
grep -q '^   15  0x001c         <asm>:9             stop ' "$tmp/vtx" || fail "vertex step 15"
[ "$(tail -1 "$tmp/vtx")" = "end" ] || fail "vertex: no end line"
# --stage coordinate: the QPU coordinate shader's run of vertex 1 (lane 1 of
# the binning pass's one batch, lanes 0x7), lua/vc4_shaders.lua's 26
# instructions from line 20 (counted by hand): step 2 is mov ra0, vpm on
# line 22, whose write shows at the end of step 3 (RG section 3): Xc 0.8
"$g" trace --draw 1 --vertex 1 --stage coordinate scenes/triangle.lua > "$tmp/cs" || fail "coordinate trace exited $?"
head -1 "$tmp/cs" | grep -q '^qpu coordinate shader 0x[0-9a-f]* (uniforms 0x[0-9a-f]*), vertex 1: lane 1 of lanes 0x7, 26 steps$' \
  || fail "coordinate header: $(head -1 "$tmp/cs")"
grep -q '^    2  0x[0-9a-f]*  vc4_shaders.lua:22  mov ra0, vpm$' "$tmp/cs" || fail "coordinate step 2: $(cat "$tmp/cs")"
grep -q '^    3  0x[0-9a-f]*  vc4_shaders.lua:23  mov ra1, vpm .* ra0=0x3f4ccccd (0.800000012)' "$tmp/cs" \
  || fail "coordinate step 3: $(cat "$tmp/cs")"
"$g" trace --stage coordinate scenes/triangle.lua 1 2 > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "--stage without --draw: exit status"
grep -q -- '--stage goes with --draw K --vertex I' "$tmp/err" || fail "$(cat "$tmp/err")"
"$g" trace --draw 1 --vertex 0 --stage binning scenes/triangle.lua > /dev/null 2>&1
[ $? -eq 2 ] || fail "--stage binning: exit status"
"$g" trace --draw 2 --vertex 0 scenes/triangle.lua > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] || fail "no draw 2: exit status"
grep -q 'frame 0 has no draw 2' "$tmp/err" || fail "$(cat "$tmp/err")"
"$g" trace --draw 1 --vertex 7 scenes/triangle.lua > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] || fail "no vertex 7: exit status"
grep -q "draw 1's vertex shader never ran a vertex of index 7" "$tmp/err" || fail "$(cat "$tmp/err")"
"$g" trace --draw 1 --vertex 0 scenes/triangle.lua 1 2 > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "pixel and --draw: exit status"
grep -q 'either a pixel (X Y) or --draw K --vertex I, not both' "$tmp/err" || fail "$(cat "$tmp/err")"
"$g" trace --draw 1 scenes/triangle.lua > /dev/null 2>&1
[ $? -eq 2 ] || fail "--draw without --vertex: exit status"
"$g" trace scenes/triangle.lua 1 > /dev/null 2>&1
[ $? -eq 2 ] || fail "usage: exit status"
"$g" trace --bogus scenes/triangle.lua 1 1 > /dev/null 2>&1
[ $? -eq 2 ] || fail "unknown option: exit status"
exit 0
