#!/bin/sh
# test_command.sh GPUSIM SOURCE_DIR — `gpusim test MANIFEST`: passing and
# failing cases with their report and diff image, a case that does not
# render, tolerances at their edge, --frames and the scene's arguments
# reaching the render, -j 1 = -j 2, --shard I/N covering every case exactly
# once, --junit XML (well-formed, the right counts, escaped text), --update
# rewriting only failing or new references and only when asked and when
# every case rendered, manifest errors naming file:line and the case, and
# the progress lines on a terminal (gpusim test and a headless render).
#
# The scene clears its frame to red (or the colour named by its argument;
# green from frame 3 on), so every expected pixel is known without running
# gpusim: the references are made here by tests/cli/mkpng.lua, pixel by
# pixel, and the counts in the report are worked out by hand.
. "$2/tests/cli/lib/common.sh"
# has FILE LINE: FILE holds the line LINE exactly
# run WANT ARGS...: runs gpusim test ARGS (stdout in out, stderr in err), checks the status
run() {
  want=$1
  shift
  "$gpusim" test "$@" > out 2> err
  got=$?
  [ "$got" -eq "$want" ] || fail "gpusim test $*: status $got, expected $want; stdout: $(cat out) stderr: $(cat err)"
}
# xpath FILE EXPR: the string value of EXPR in the XML file
xpath() { xmllint --xpath "$2" "$1" || fail "xmllint --xpath '$2' $1"; }
command -v xmllint > /dev/null || fail "xmllint is missing (apt-get install libxml2-utils)"
cd "$tmp" || exit 1
mkdir t
TMPDIR=$tmp/t   # where gpusim test makes its temporary directory
export TMPDIR

cat > clear.lua <<'EOF'
-- Clears the frame to the colour named by the first argument (default
-- red); from frame 3 on (t = 2/60) to green, whatever the argument.
local gpusim = require "gpusim"
local colours = {red = {1, 0, 0}, blue = {0, 0, 1}}
local c = colours[arg[1] or "red"] or error("no colour named " .. arg[1], 0)
gpusim.frame(function(frame, t)
  frame:clear {color = t >= 2 / 60 - 1e-9 and {0, 1, 0} or c}
end)
EOF
# 8x4 frames: red (255,0,0,255), blue, green everywhere.
mkpng red.png 8 4 0,0,8,4=255,0,0,255
mkpng blue.png 8 4 0,0,8,4=0,0,255,255
mkpng green.png 8 4 0,0,8,4=0,255,0,255
# wrong: red but for the 2x1 pixels at (2,1), (3,1), which are blue
mkpng wrong.png 8 4 0,0,8,4=255,0,0,255 2,1,2,1=0,0,255,255
# off3: red but for pixel (5,2), whose G channel is 3
mkpng off3.png 8 4 0,0,8,4=255,0,0,255 5,2,1,1=255,3,0,255
cp off3.png off3b.png
# the diff image of wrong.png and a red frame: a dimmed grey copy of the
# reference (red's Rec. 601 luma 299*255/1000 = 76, a third of it 25) with
# the two differing pixels in red
mkpng wrong-diff-expected.png 8 4 0,0,8,4=25,25,25,255 2,1,2,1=255,0,0,255

# Cases 0..6, in this order.
cat > m.lua <<'EOF'
case {name = "red", scene = "clear.lua", size = "8x4", reference = "red.png"}
case {name = "blue", scene = "clear.lua", args = {"blue"}, size = "8x4", reference = "blue.png"}
case {name = "green", scene = "clear.lua", frames = 3, size = "8x4", reference = "green.png"}
case {name = "wrong", scene = "clear.lua", size = "8x4", reference = "wrong.png"}
case {name = "broken", scene = "clear.lua", args = {"<&>\"'"}, size = "8x4", reference = "red.png"}
case {name = "tol", scene = "clear.lua", size = "8x4", reference = "off3.png", tolerance = 3}
case {name = "tol2", scene = "clear.lua", size = "8x4", reference = "off3b.png", tolerance = 2}
EOF
mkdir diffs
mkpng diffs/red-diff.png 1 1   # a stale diff of a case that passes now

# ---- results, report, diff images -------------------------------------------
run 1 m.lua --output-dir diffs --junit j.xml -j 2
for c in red blue green tol; do
  grep -Eq "^ok +$c \([0-9]+\.[0-9]+ s\)\$" out || fail "case $c did not pass: $(cat out)"
done
grep -Eq '^FAIL +wrong \([0-9.]+ s\): 2 of 32 pixels differ beyond tolerance 0$' out || fail "wrong: $(cat out)"
has out "       differing pixels: 2 of 32 (6.250%), tolerance 0"
has out "       max channel difference: 255 at (2, 1)"
has out "       first difference: (2, 1) wrong.png 0,0,255,255 diffs/wrong-actual.png 255,0,0,255"
has out "       diff image: diffs/wrong-diff.png"
grep -Eq '^FAIL +tol2 \([0-9.]+ s\): 1 of 32 pixels differ beyond tolerance 2$' out || fail "tol2: $(cat out)"
has out "       differing pixels: 1 of 32 (3.125%), tolerance 2"
has out "       first difference: (5, 2) off3b.png 255,3,0,255 diffs/tol2-actual.png 255,0,0,255"
grep -Eq '^FAIL +broken \([0-9.]+ s\): did not render: exit status 1$' out || fail "broken: $(cat out)"
has out "       gpusim: no colour named <&>\"'"
grep -Eq '^4 passed, 3 failed, 7 total, [0-9.]+ s$' out || fail "summary: $(cat out)"
has out "failed: wrong broken tol2"
# results in manifest order
[ "$(grep -Eo '^(ok|FAIL) +[a-z0-9]+' out | awk '{print $2}' | tr '\n' ' ')" = "red blue green wrong broken tol tol2 " ] ||
  fail "results not in manifest order: $(cat out)"
"$gpusim" diff wrong-diff-expected.png diffs/wrong-diff.png > /dev/null || fail "diffs/wrong-diff.png is not the expected diff image"
"$gpusim" diff red.png diffs/wrong-actual.png > /dev/null || fail "diffs/wrong-actual.png is not the red render"
[ -e diffs/tol2-diff.png ] || fail "no diff image for tol2"
[ -e diffs/red-diff.png ] && fail "the stale diffs/red-diff.png of a passing case is still there"
[ -e diffs/broken-diff.png ] && fail "a case that did not render has a diff image"
[ "$(ls diffs | sort | tr '\n' ' ')" = "tol2-actual.png tol2-diff.png wrong-actual.png wrong-diff.png " ] ||
  fail "output directory holds: $(ls diffs)"
[ -s err ] && fail "a run on a pipe wrote to stderr: $(cat err)"
[ -z "$(ls -A "$TMPDIR")" ] || fail "the renders' temporary files are left in TMPDIR: $(ls -A "$TMPDIR")"

# ---- JUnit XML -----------------------------------------------------------------
xmllint --noout j.xml || fail "j.xml is not well-formed XML"
[ "$(xpath j.xml 'string(/testsuites/testsuite/@tests)')" = 7 ] || fail "junit tests"
[ "$(xpath j.xml 'string(/testsuites/testsuite/@failures)')" = 2 ] || fail "junit failures"
[ "$(xpath j.xml 'string(/testsuites/testsuite/@errors)')" = 1 ] || fail "junit errors"
[ "$(xpath j.xml 'count(//testcase)')" = 7 ] || fail "junit testcases"
[ "$(xpath j.xml 'count(//testcase[failure])')" = 2 ] || fail "junit testcases with a failure"
[ "$(xpath j.xml 'string(//testcase[@name="wrong"]/failure/@message)')" = "2 of 32 pixels differ beyond tolerance 0" ] ||
  fail "junit failure message: $(cat j.xml)"
[ "$(xpath j.xml 'string(//testcase[@name="tol"]/@classname)')" = m ] || fail "junit classname"
xpath j.xml 'string(//testcase[@name="wrong"]/failure)' | grep -Fxq "max channel difference: 255 at (2, 1)" ||
  fail "junit failure text: $(cat j.xml)"
xpath j.xml 'string(//testcase[@name="broken"]/error)' | grep -Fxq "gpusim: no colour named <&>\"'" ||
  fail "junit error text (escaping): $(cat j.xml)"

# ---- -j 1 and -j 2 give the same result ----------------------------------------
notimes() { sed -e "s/([0-9.]* s)//" -e "s/, [0-9.]* s\$//" -e "s,out[12]/,outN/,g" out; }
run 1 m.lua --output-dir out1 -j 1 --junit j1.xml
notimes > r1
run 1 m.lua --output-dir out2 -j 2 --junit j2.xml
notimes > r2
cmp -s r1 r2 || fail "-j 1 and -j 2 differ: $(diff r1 r2)"
for f in wrong-diff.png wrong-actual.png tol2-diff.png tol2-actual.png; do
  cmp -s "out1/$f" "out2/$f" || fail "-j 1 and -j 2 wrote different $f"
done
sed 's/time="[0-9.]*"//g; s/timestamp="[^"]*"//; s,out1/,outN/,g' j1.xml > j1s
sed 's/time="[0-9.]*"//g; s/timestamp="[^"]*"//; s,out2/,outN/,g' j2.xml > j2s
cmp -s j1s j2s || fail "-j 1 and -j 2 JUnit differ: $(diff j1s j2s)"

# ---- --shard I/N: case K runs in shard (K mod N) + 1 ---------------------------
run 0 m.lua --list --shard 1/2
cut -f1 out | tr '\n' ' ' > s1
[ "$(cat s1)" = "red green broken tol2 " ] || fail "--shard 1/2 lists $(cat s1)"
run 0 m.lua --list --shard 2/2
cut -f1 out | tr '\n' ' ' > s2
[ "$(cat s2)" = "blue wrong tol " ] || fail "--shard 2/2 lists $(cat s2)"
[ "$(cat s1 s2 | tr ' ' '\n' | grep . | sort | tr '\n' ' ')" = "blue broken green red tol tol2 wrong " ] ||
  fail "shards 1/2 and 2/2 do not cover every case exactly once"
run 0 m.lua --list --shard 3/3
[ "$(cut -f1 out | tr '\n' ' ')" = "green tol " ] || fail "--shard 3/3 lists $(cat out)"
run 1 m.lua --shard 1/2 --output-dir out3 --junit s1.xml
grep -Eq '^2 passed, 2 failed, 4 total, [0-9.]+ s \(shard 1/2 of 7 cases\)$' out || fail "shard 1/2: $(cat out)"
[ "$(xpath s1.xml 'string(/testsuites/testsuite/@tests)')" = 4 ] || fail "shard 1/2 junit tests"
[ "$(xpath s1.xml 'string(/testsuites/testsuite/@errors)')" = 1 ] || fail "shard 1/2 junit errors"
run 1 m.lua --shard 2/2 --output-dir out3 --junit s2.xml
grep -Eq '^2 passed, 1 failed, 3 total, [0-9.]+ s \(shard 2/2 of 7 cases\)$' out || fail "shard 2/2: $(cat out)"
[ "$(xpath s2.xml 'string(/testsuites/testsuite/@failures)')" = 1 ] || fail "shard 2/2 junit failures"
# --list: name, scene, size, frames, tolerance, reference, args
run 0 m.lua --list
has out "$(printf 'blue\tclear.lua\t8x4\t1\t0\tblue.png\tblue')"
has out "$(printf 'green\tclear.lua\t8x4\t3\t0\tgreen.png')"

# ---- --update, on a copy -------------------------------------------------------
mkdir upd
cp clear.lua red.png blue.png green.png wrong.png off3.png off3b.png upd/
cp m.lua upd/m.lua
cd upd || exit 1
cp wrong.png wrong.orig; cp off3.png off3.orig; cp off3b.png off3b.orig; cp red.png red.orig
same_refs() {
  for f in wrong off3 off3b red; do cmp -s "$f.png" "$f.orig" || fail "$1: $f.png was rewritten"; done
}
run 1 m.lua --output-dir o
same_refs "a run without --update"
# broken does not render: no reference is written at all
run 1 m.lua --update
same_refs "--update with a case that does not render"
grep -q "no reference written: 1 case did not render" err || fail "--update with a failed render: $(cat err)"
grep -v broken m.lua > m2.lua
echo 'case {name = "new", scene = "clear.lua", args = {"blue"}, size = "8x4", reference = "sub/new.png"}' >> m2.lua
mkdir sub
run 2 m2.lua
grep -q "m2.lua:7: case 'new': reference sub/new.png: No such file or directory" err || fail "missing reference: $(cat err)"
run 0 m2.lua --update
has out "updated wrong.png"
has out "updated off3b.png"
has out "updated sub/new.png"
[ "$(grep -c '^updated ' out)" = 3 ] || fail "--update wrote more than the failing and new references: $(cat out)"
grep -Eq '^4 passed, 3 updated, 0 failed, 7 total, [0-9.]+ s$' out || fail "--update summary: $(cat out)"
cmp -s off3.png off3.orig || fail "--update rewrote off3.png, within its tolerance"
cmp -s red.png red.orig || fail "--update rewrote red.png, which matched"
"$gpusim" diff red.png wrong.png > /dev/null || fail "--update: wrong.png is not the red render"
"$gpusim" diff red.png off3b.png > /dev/null || fail "--update: off3b.png is not the red render"
"$gpusim" diff ../blue.png sub/new.png > /dev/null || fail "--update: sub/new.png is not the blue render"
ls -a . sub | grep -q '\.tmp-' && fail "--update left a temporary file"
run 0 m2.lua --output-dir o
cd .. || exit 1

# ---- manifest and usage errors ---------------------------------------------------
cat > bad.lua <<'EOF'
case {name = "a", scene = "clear.lua", size = "8x4", reference = "red.png"}
case {scene = "clear.lua", size = "8x4", reference = "red.png"}
case {name = "b", scene = "clear.lua", size = "8x4", reference = "red.png", colour = "red"}
case {name = "c", scene = "clear.lua", size = "8x0", reference = "red.png"}
case {name = "d", scene = "clear.lua", size = "8x4", reference = "nothere.png"}
case {name = "a", scene = "clear.lua", size = "8x4", reference = "red.png"}

case {name = "e", scene = "nothere.lua", size = "8x4", reference = "red.png", tolerance = 256}
case {name = "f", scene = "clear.lua", size = "8x4", reference = "red.png", frames = 0, args = {{}}}
EOF
run 2 bad.lua --output-dir outbad
has err "gpusim test: bad.lua:2: case #2: missing field 'name'"
grep -Fxq "gpusim test: bad.lua:3: case 'b': unknown field 'colour' (known: name, scene, size, reference, tolerance, frames, args, dir)" err ||
  fail "unknown field: $(cat err)"
grep -q "^gpusim test: bad.lua:4: case 'c': field 'size': expected WxH like 320x240, each side 1\.\.[0-9]*, got '8x0'$" err ||
  fail "bad size: $(cat err)"
has err "gpusim test: bad.lua:5: case 'd': reference nothere.png: No such file or directory (gpusim test --update writes it)"
has err "gpusim test: bad.lua:6: case 'a': the name is used already, by the case on line 1"
has err "gpusim test: bad.lua:8: case 'e': field 'tolerance' must be a whole number 0..255"
has err "gpusim test: bad.lua:9: case 'f': field 'frames' must be a whole number 1..1000000000"
has err "gpusim test: bad.lua:9: case 'f': args[1] must be a string, got table"
has err "gpusim test: bad.lua: 8 errors in the manifest"
[ -s out ] && fail "a manifest error ran cases: $(cat out)"
[ -e outbad ] && fail "a manifest error wrote outputs"
echo 'case {name = "e", scene = "nothere.lua", size = "8x4", reference = "red.png"}' > bad2.lua
run 2 bad2.lua
has err "gpusim test: bad2.lua:1: case 'e': scene nothere.lua: No such file or directory"
printf 'case {name = "a",\n  scene = }\n' > syntax.lua
run 2 syntax.lua
grep -q "^gpusim test: syntax.lua:2: " err || fail "syntax error: $(cat err)"
echo 'for i = 1, 2 do case {name = "x" .. i, scene = "clear.lua", size = "8x4", reference = "red.png", frames = i - 1} end' > loop.lua
run 2 loop.lua
has err "gpusim test: loop.lua:1: case 'x1': field 'frames' must be a whole number 1..1000000000"
run 2
run 2 m.lua m.lua
run 2 m.lua -j 0
run 2 m.lua --shard 0/2
run 2 m.lua --shard 3/2
run 2 m.lua --bogus
run 2 nothere.lua
grep -q "cannot open nothere.lua" err || fail "missing manifest: $(cat err)"
run 0 --help
grep -q "^usage: gpusim test" out || fail "--help: $(cat out)"
"$gpusim" --help | grep -q "gpusim test" || fail "gpusim --help does not mention test"

# ---- dir: where the scene runs; its messages name it relative to there ---------
mkdir sc
printf 'error("stop here")\n' > sc/err.lua
: > sc/here.txt
cat > sc/cwd.lua <<'EOF2'
local gpusim = require "gpusim"
assert(io.open("here.txt"), "not run in sc/")
gpusim.frame(function(frame) frame:clear {color = {1, 0, 0}} end)
EOF2
cat > d.lua <<'EOF2'
case {name = "e1", scene = "sc/err.lua", size = "8x4", reference = "red.png"}
case {name = "e2", scene = "sc/err.lua", size = "8x4", reference = "red.png", dir = "sc"}
case {name = "in-sc", scene = "sc/cwd.lua", size = "8x4", reference = "red.png", dir = "sc"}
case {name = "not-in-sc", scene = "sc/cwd.lua", size = "8x4", reference = "red.png"}
EOF2
run 1 d.lua --output-dir diffs
has out "       gpusim: sc/err.lua:1: stop here"
has out "       gpusim: err.lua:1: stop here"
grep -Eq '^ok +in-sc ' out || fail "a case with dir = sc did not run in sc: $(cat out)"
grep -Fq "not run in sc/" out || fail "a case without dir ran in sc: $(cat out)"

# ---- progress on a terminal ------------------------------------------------------
# Not on a terminal (above): nothing on stderr. On one (script(1) gives a
# pseudo-terminal): gpusim test shows cases done/total, a headless render of
# several frames "frame I/N", each erased at the end.
if command -v script > /dev/null; then
  script -qc "\"$gpusim\" test -j 1 m.lua --output-dir outtty" /dev/null < /dev/null > tty.txt 2>&1
  grep -aq '\[0/7\] running: red' tty.txt || fail "gpusim test on a terminal shows no progress: $(od -c tty.txt | head)"
  grep -aq '\[6/7\] running: tol2' tty.txt || fail "gpusim test on a terminal: no [6/7]: $(od -c tty.txt | head)"
  script -qc "\"$gpusim\" --headless --frames 5 --size 8x4 clear.lua" /dev/null < /dev/null > tty.txt 2>&1
  grep -aq 'frame 1/5' tty.txt || fail "a headless render on a terminal shows no progress: $(od -c tty.txt)"
  grep -aq 'frame 5/5' tty.txt || fail "a headless render on a terminal: no frame 5/5: $(od -c tty.txt)"
  # erased: the last thing written is a carriage return after blanks
  [ "$(tail -c 2 tty.txt | od -An -c | tr -d ' ')" = '\r' ] || [ "$(tail -c 1 tty.txt | od -An -c | tr -d ' ')" = '\r' ] ||
    fail "the frame progress is not erased: $(od -c tty.txt)"
fi
"$gpusim" --headless --frames 5 --size 8x4 clear.lua 2> err > /dev/null || fail "headless 5 frames"
[ -s err ] && fail "a headless render not on a terminal wrote progress: $(cat err)"
exit 0
