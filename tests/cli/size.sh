#!/bin/sh
# size.sh GPUSIM SOURCE_DIR — --size's limit is the driver's: each side
# 1..4095 (the Viewport Offset record holds the viewport centre as a signed
# 12.4 number, so a target centred on its middle reaches 4095). The help
# text, the option's check and gpusim.target agree: --size 4096x4096 is a
# usage error naming 1..4095 before the script runs, 4095 renders a frame
# of that size, and the largest side the help names is the largest a
# target takes.
. "$2/tests/cli/lib/common.sh"
# png_size FILE: prints "W H" from the PNG's IHDR
png_size() {
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG"
  od -An -tu1 -j16 -N8 "$1" | awk '{ print $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8 }'
}
cd "$tmp" || exit 1

# The help text's limit.
"$gpusim" --help > help 2>&1 || fail "--help failed"
max=$(sed -n 's/.*--size WxH.*each side 1\.\.\([0-9]*\).*/\1/p' help)
[ "$max" = 4095 ] || fail "the help text gives the --size limit as '$max', expected 4095: $(grep -- --size help)"

# Past it: a usage error (status 2) naming the limit, before the script runs.
echo 'io.open("ran", "w"):close()' > touch.lua
for size in 4096x4096 4096x1 1x4096 0x10; do
  "$gpusim" --headless --size "$size" -o big.png touch.lua > out 2> err
  st=$?
  [ "$st" -eq 2 ] || fail "--size $size: status $st, expected 2; stderr: $(cat err)"
  grep -q "each side must be 1\.\.4095" err || fail "--size $size: the message does not name 1..4095: $(cat err)"
  [ ! -e ran ] || fail "--size $size: the script ran"
  [ ! -e big.png ] || fail "--size $size: a PNG was written"
done

# At it: the scene renders a frame of exactly that size.
for size in 4095x24 24x4095; do
  "$gpusim" --headless --size "$size" -o "f$size.png" "$src/scenes/triangle.lua" > out 2> err ||
    fail "--size $size: status $?; stderr: $(cat err)"
  got=$(png_size "f$size.png")
  [ "$got" = "$(echo "$size" | tr x ' ')" ] || fail "--size $size: the PNG is $got"
done

# The driver takes the help's largest side and refuses one more.
cat > target.lua <<'LUA'
local gpusim = require "gpusim"
local max = tonumber(arg[1])
assert(gpusim.target {width = max, height = 1}.width == max)
assert(gpusim.target {width = 1, height = max}.height == max)
local ok, err = pcall(gpusim.target, {width = max + 1, height = 1})
assert(not ok and err:find("1.." .. max, 1, true), tostring(err))
LUA
"$gpusim" --headless target.lua "$max" > out 2> err || fail "gpusim.target at $max: $(cat err)"
echo "size: ok"
