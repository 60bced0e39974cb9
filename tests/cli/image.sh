#!/bin/sh
# image.sh GPUSIM SOURCE_DIR — `gpusim diff` from the command line: exit
# statuses 0 (no pixel beyond the tolerance), 1 (some) and 2 (usage errors,
# unreadable files, different sizes); the printed count, percentage, largest
# difference, first differing pixel, mean and PSNR, worked out by hand for
# small images; --tolerance at its edges; -o writing the diff image whole.
# The PNGs are made here, pixel by pixel, by tests/cli/mkpng.lua.
. "$2/tests/cli/lib/common.sh"
# has FILE LINE: FILE holds the line LINE exactly
# diff_status WANT ARGS...: runs gpusim diff ARGS (out and err in $tmp), checks the status
diff_status() {
  want=$1
  shift
  "$gpusim" diff "$@" > out 2> err
  got=$?
  [ "$got" -eq "$want" ] || fail "gpusim diff $*: status $got, expected $want; stdout: $(cat out) stderr: $(cat err)"
}
# png_size FILE: prints "W H" from the PNG's signature and IHDR, or fails
png_size() {
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG"
  [ "$(head -c 16 "$1" | tail -c 4)" = IHDR ] || fail "$1 has no IHDR first"
  od -An -tu1 -j16 -N8 "$1" | awk '{ print $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8 }'
}
cd "$tmp" || exit 1

# a: 4x3, every pixel (10,20,30,255). b: the same but for four pixels, in
# row-major order (1,0) G+3, (2,1) R+200, (0,2) B+2, (3,2) A-1.
base=10,20,30,255
mkpng a.png 4 3 "0,0,4,3=$base"
mkpng a2.png 4 3 "0,0,2,3=$base" "2,0,2,3=$base"
mkpng b.png 4 3 "0,0,4,3=$base" 1,0,1,1=10,23,30,255 2,1,1,1=210,20,30,255 \
  0,2,1,1=10,20,32,255 3,2,1,1=10,20,30,254

# identical images (two files, same pixels): 0
diff_status 0 a.png a2.png
has out "differing pixels: 0 of 12 (0.000%), tolerance 0"
has out "max channel difference: 0"
has out "first difference: none"
has out "mean absolute difference: 0.0000, PSNR inf dB"
[ -s err ] && fail "identical images wrote to stderr: $(cat err)"

# four pixels differ: 4/12 = 33.333%; the largest is R+200 at (2,1); the
# first in row-major order from the top-left is (1,0); mean |d| = (3 + 200 +
# 2 + 1) / 48 channels = 4.2917; MSE = (9 + 40000 + 4 + 1) / 48 = 833.625,
# PSNR = 10 log10(255^2 / 833.625) = 18.92 dB
diff_status 1 a.png b.png
has out "differing pixels: 4 of 12 (33.333%), tolerance 0"
has out "max channel difference: 200 at (2, 1)"
has out "first difference: (1, 0) a.png 10,20,30,255 b.png 10,23,30,255"
has out "mean absolute difference: 4.2917, PSNR 18.92 dB"
# the other way round: the same numbers, values swapped
diff_status 1 b.png a.png
has out "first difference: (1, 0) b.png 10,23,30,255 a.png 10,20,30,255"

# tolerance: a difference equal to T passes, one of T+1 fails. A-1 passes
# from T=1, B+2 from T=2, G+3 from T=3, R+200 from T=200.
diff_status 1 a.png b.png --tolerance 1
has out "differing pixels: 3 of 12 (25.000%), tolerance 1"
has out "first difference: (1, 0) a.png 10,20,30,255 b.png 10,23,30,255"
diff_status 1 a.png b.png --tolerance=2
has out "differing pixels: 2 of 12 (16.667%), tolerance 2"
diff_status 1 --tolerance 3 a.png b.png
has out "differing pixels: 1 of 12 (8.333%), tolerance 3"
has out "first difference: (2, 1) a.png 10,20,30,255 b.png 210,20,30,255"
diff_status 1 a.png b.png --tolerance 199
has out "differing pixels: 1 of 12 (8.333%), tolerance 199"
diff_status 0 a.png b.png --tolerance 200
has out "differing pixels: 0 of 12 (0.000%), tolerance 200"
has out "max channel difference: 200 at (2, 1)"
has out "first difference: none"
has out "mean absolute difference: 4.2917, PSNR 18.92 dB"
diff_status 0 a.png b.png --tolerance 255

# the edge on its own: one pixel off by exactly 5, another by exactly 6
mkpng c.png 2 2 0,0,2,2=100,100,100,255
mkpng d.png 2 2 0,0,2,2=100,100,100,255 0,0,1,1=105,100,100,255 1,1,1,1=100,100,94,255
diff_status 1 c.png d.png --tolerance 4
has out "differing pixels: 2 of 4 (50.000%), tolerance 4"
has out "max channel difference: 6 at (1, 1)"
has out "first difference: (0, 0) c.png 100,100,100,255 d.png 105,100,100,255"
diff_status 1 c.png d.png --tolerance 5
has out "differing pixels: 1 of 4 (25.000%), tolerance 5"
has out "first difference: (1, 1) c.png 100,100,100,255 d.png 100,100,94,255"
diff_status 0 c.png d.png --tolerance 6
has out "differing pixels: 0 of 4 (0.000%), tolerance 6"

# alpha counts like any channel: 0 against 255 fails every tolerance but 255
mkpng clear.png 1 1 0,0,1,1=0,0,0,0
mkpng opaque.png 1 1 0,0,1,1=0,0,0,255
diff_status 1 clear.png opaque.png --tolerance 254
has out "differing pixels: 1 of 1 (100.000%), tolerance 254"
has out "max channel difference: 255 at (0, 0)"
has out "first difference: (0, 0) clear.png 0,0,0,0 opaque.png 0,0,0,255"
diff_status 0 clear.png opaque.png --tolerance 255

# -o DIFF.png: a PNG of the images' size; red beyond the tolerance, yellow
# within, elsewhere a third of a's Rec. 601 luma in grey: (299*10 + 587*20 +
# 114*30) / 1000 = 18, a third = 6. Checked by diffing it against the
# expected picture made by hand.
diff_status 1 a.png b.png --tolerance 2 -o diff.png
[ "$(png_size diff.png)" = "4 3" ] || fail "diff.png is $(png_size diff.png), expected 4 3"
mkpng want.png 4 3 0,0,4,3=6,6,6,255 1,0,1,1=255,0,0,255 2,1,1,1=255,0,0,255 \
  0,2,1,1=255,230,0,255 3,2,1,1=255,230,0,255
diff_status 0 diff.png want.png
has out "differing pixels: 0 of 12 (0.000%), tolerance 0"
# written for identical images too (all grey), replacing an old file whole
echo "old contents" > same.png
diff_status 0 c.png c.png -o same.png
[ "$(png_size same.png)" = "2 2" ] || fail "same.png is $(png_size same.png), expected 2 2"
mkpng grey.png 2 2 0,0,2,2=33,33,33,255
diff_status 0 same.png grey.png
# no temporary file is left beside the outputs
ls -a | grep -q 'tmp' && fail "temporary files left: $(ls -a)"
# an output that cannot be written: status 2, the message names it, no file
diff_status 2 a.png b.png -o no/such/dir/diff.png
grep -q "no/such/dir/diff.png" err || fail "unwritable -o message: $(cat err)"
[ -e no ] && fail "a directory appeared for an unwritable -o"
# an output that is a directory: status 2, the directory left as it was
mkdir outdir.png
echo keep > outdir.png/inside
diff_status 2 a.png b.png -o outdir.png
grep -q "outdir.png" err || fail "-o onto a directory message: $(cat err)"
[ "$(ls -A outdir.png)" = inside ] || fail "-o onto a directory changed it: $(ls -A outdir.png)"
ls -a | grep -q 'tmp' && fail "temporary files left after failed writes: $(ls -a)"

# sizes differ: status 2 naming both files and sizes, no diff image written
mkpng tall.png 3 4 0,0,3,4=$base
diff_status 2 a.png tall.png -o sizes.png
has err "gpusim diff: a.png is 4x3 but tall.png is 3x4: sizes differ"
[ -s out ] && fail "a size mismatch printed a comparison: $(cat out)"
[ -e sizes.png ] && fail "a size mismatch wrote the diff image"

# missing and unreadable files: status 2 naming the file
diff_status 2 none.png a.png
grep -q "none.png" err || fail "missing first image message: $(cat err)"
grep -q "No such file or directory" err || fail "missing first image reason: $(cat err)"
diff_status 2 a.png gone.png
grep -q "gone.png" err || fail "missing second image message: $(cat err)"
echo "this is not an image" > text.png
diff_status 2 a.png text.png
grep -q "text.png" err || fail "not-an-image message: $(cat err)"

# usage errors: status 2, a message and the hint to --help
usage_error() {
  expect=$1
  shift
  diff_status 2 "$@"
  grep -q "^gpusim diff: .*$expect" err || fail "gpusim diff $*: message: $(cat err)"
  grep -q "Try 'gpusim diff --help'" err || fail "gpusim diff $*: no --help hint: $(cat err)"
}
usage_error "got '256'" a.png b.png --tolerance 256
usage_error "got '-1'" a.png b.png --tolerance -1
usage_error "got '1.5'" a.png b.png --tolerance 1.5
usage_error "got 'x'" a.png b.png --tolerance x
usage_error "got ''" a.png b.png --tolerance=
usage_error "'--tolerance' needs a value" a.png b.png --tolerance
usage_error "'-o' needs a value" a.png b.png -o
usage_error "unknown option '--frob'" a.png b.png --frob
usage_error "needs two images" a.png
usage_error "needs two images"
usage_error "more than two images ('c.png')" a.png b.png c.png
"$gpusim" diff --help > out || fail "diff --help status"
grep -q "usage: gpusim diff A.png B.png" out || fail "diff --help text: $(cat out)"
exit 0
