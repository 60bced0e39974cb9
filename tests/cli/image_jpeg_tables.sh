#!/bin/sh
# image_jpeg_tables.sh GPUSIM SOURCE_DIR — JPEGs that stb_image 2.27 would
# decode from memory it never wrote are refused with a reason naming the
# file: a scan whose quantisation table no DQT segment defined before it
# (the fuzzer's input, and gradient-444.jpg with its two DQT segments moved
# after the scan), and a frame component no scan codes (gradient-gray.jpg
# with a frame of three components and its one-component scan). Debian's
# libstb decodes both to pixels that depend on what its heap held; the
# files they were made from, and the corpus's other JPEGs, still read.
. "$2/tests/cli/lib/common.sh"
dir=$src/tests/fuzz/corpus/image

for f in gradient-444.jpg gradient-gray.jpg grid.jpg progressive.jpg; do
  "$gpusim" diff "$dir/$f" "$dir/$f" > /dev/null || fail "$f must read (exit $?)"
done

refused() { # FILE REASON
  err=$("$gpusim" diff "$dir/$1" "$dir/$1" 2>&1 >/dev/null)
  rc=$?
  [ $rc -ne 0 ] || fail "$1 must be refused"
  [ $rc -ne 1 ] || fail "$1: exit 1 means the images differ; a file that cannot be read is another status"
  echo "$err" | grep -Fq "cannot read $dir/$1: not an image stb_image decodes ($2)" ||
    fail "$1: expected '$2' naming the file, got: $err"
}
refused crash-jpeg-no-dqt-before-scan.jpg 'JPEG scan uses a table not defined before it'
refused gradient-444-dqt-after-scan.jpg 'JPEG scan uses a table not defined before it'
refused gradient-gray-3-components.jpg 'JPEG component in no scan'

# The moved file has the same bytes as its source, only in another order.
[ "$(wc -c < "$dir/gradient-444.jpg")" -eq "$(wc -c < "$dir/gradient-444-dqt-after-scan.jpg")" ] ||
  fail "gradient-444-dqt-after-scan.jpg is not gradient-444.jpg reordered"
# As a texture, the same refusal names the scene's file:line.
cat > "$tmp/tex.lua" <<LUA
local g = require "gpusim"
g.texture{file = "$dir/gradient-444-dqt-after-scan.jpg"}
LUA
err=$("$gpusim" --headless "$tmp/tex.lua" 2>&1)
[ $? -ne 0 ] || fail "a texture from gradient-444-dqt-after-scan.jpg must fail"
echo "$err" | grep -q 'JPEG scan uses a table not defined before it' || fail "texture error: $err"
exit 0
