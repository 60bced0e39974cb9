#!/bin/sh
# bench_peer.sh GPUSIM SOURCE_DIR — `gpusim bench --peer` and its peer,
# gpusim-peer-osmesa (src/bench/, docs/pipeline.md "Against llvmpipe and
# softpipe"), built next to GPUSIM when OSMesa is installed; skipped (77)
# without it.
#  - the peer alone with llvmpipe: a 64x32 fill frame of 2 layers is 8192
#    bytes, every pixel 99 66 33 ff (the colour (0.6, 0.4, 0.2, 1.0) in
#    bytes), 4096 fragments of 4 triangles; one triangle of a 64x32 frame:
#    the LCG's first seed is (12345 x 1664525 + 1013904223) mod 2^32 =
#    87628868, so the corner is at x = (87628868 >> 8) % 896 = 28 and
#    y = (87628868 >> 3) % 384 = 8 sixteenths: (1.75, 0.5) pixels, legs to
#    x = 7.75 and y = 6.5. Pixel centres (i + 0.5, j + 0.5) inside: i >= 2
#    and i + j + 1 < 8.25, j >= 0, the row j = 0 on the top edge owned by it
#    (the fill rule of docs/rasterization.md, which llvmpipe shares when GL's
#    window rows are gpusim's rows): rows 0..5 hold x = 2..7, 2..6, 2..5,
#    2..4, 2..3, 2: 21 pixels, nothing else;
#  - gpusim bench --peer --quick: the machine (CPU model, cores, load
#    average) at the start and the end, every row measured (gpusim qpu on 1 and 2
#    threads, llvmpipe on 1 and 2, softpipe, for both frames; the other
#    instruction sets' fill), each goal line marked PASS or FAIL, and the
#    images: the fill frame identical in every row; the triangle frame
#    identical on 2 threads and in llvmpipe (softpipe breaks ties on edges
#    its own way, so its line may list differing pixels);
#  - a missing peer exits 1 naming it, bad arguments exit 2.
set -u
GPUSIM=$1
PEER=$(dirname "$GPUSIM")/gpusim-peer-osmesa
[ -x "$PEER" ] || { echo "skip: no $PEER (OSMesa not installed)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# the peer alone
GALLIUM_DRIVER=llvmpipe "$PEER" fill --width 64 --height 32 --layers 2 --image "$T/f.rgba" > "$T/f.txt" ||
  fail "peer fill"
grep -q '^renderer=llvmpipe .* frame=fill seconds=[0-9.]* fragments=4096 triangles=4$' "$T/f.txt" ||
  fail "peer fill line: $(cat "$T/f.txt")"
[ "$(wc -c < "$T/f.rgba")" -eq 8192 ] || fail "fill image size"
od -An -v -tx1 -w4 "$T/f.rgba" | sort | uniq -c > "$T/f.px"
[ "$(cat "$T/f.px" | tr -s ' ')" = " 2048 99 66 33 ff" ] || fail "fill pixels: $(cat "$T/f.px")"

GALLIUM_DRIVER=llvmpipe "$PEER" triangles --width 64 --height 32 --count 1 --image "$T/t.rgba" > "$T/t.txt" ||
  fail "peer triangles"
od -An -v -tx1 -w4 "$T/t.rgba" | awk '$0 !~ /00 00 00 00/ { n = NR - 1; print n % 64, int(n / 64), $1 $2 $3 $4 }' \
  > "$T/t.got"
: > "$T/t.want"
for j in 0 1 2 3 4 5; do
  i=2
  while [ $((i + j)) -le 7 ]; do echo "$i $j 996633ff" >> "$T/t.want"; i=$((i + 1)); done
done
sort "$T/t.got" > "$T/t.got.s"; sort "$T/t.want" > "$T/t.want.s"
cmp -s "$T/t.got.s" "$T/t.want.s" || fail "one triangle: $(diff "$T/t.want.s" "$T/t.got.s" | head -20)"
[ "$(wc -l < "$T/t.got")" -eq 21 ] || fail "one triangle: not 21 pixels"

# the runner
"$GPUSIM" bench --peer "$PEER" --quick > "$T/out.txt" 2> "$T/err.txt" || fail "bench --peer: $(cat "$T/err.txt")"
cat "$T/out.txt"
for when in start end; do
  grep -q "^machine at the $when: .*, [0-9][0-9]* online cores, load average [0-9.]* [0-9.]* [0-9.]*$" "$T/out.txt" ||
    fail "no machine line at the $when"
done
for frame in 'fill 256x128, 2 layers' '2000 triangles'; do
  for r in 'gpusim qpu  *1' 'gpusim qpu  *2' 'llvmpipe (LLVM [^)]*)  *1' 'llvmpipe (LLVM [^)]*)  *2' 'softpipe  *1'; do
    grep -q "^  $frame  *$r  *[0-9.]*  [0-9.]*-[0-9.]* M" "$T/out.txt" || fail "no row '$frame' '$r'"
  done
done
for isa in sass agx pica; do
  grep -q "^  fill 256x128, 2 layers  *gpusim $isa  *1  *[0-9.]*  [0-9.]*-[0-9.]* Mpixels/s" "$T/out.txt" ||
    fail "no $isa fill row"
  grep -q "^  fill with $isa vs with qpu, 1 thread  *[0-9.]*x  goal >= 0.67x  \(PASS\|FAIL\)" "$T/out.txt" ||
    fail "no $isa goal"
done
grep -Eq '^  QPU ALU chain  *gpusim (fast interpreter|native code \(LLVM\))  *1  *[0-9.]*  .* Minstructions/s$' "$T/out.txt" || fail "no chain row"
for g in 'fill vs llvmpipe, 1 thread .* goal >= 0.50x' 'fill vs llvmpipe, 2 threads .* goal >= 0.50x' \
         'fill vs softpipe, 1 thread .* goal >= 10.00x' 'tiny triangles vs llvmpipe, 1 thread .* goal >= 0.60x' \
         'tiny triangles vs llvmpipe, 2 threads .* goal >= 0.60x' 'QPU ALU chain vs the real VideoCore IV .* goal >= 1.00x'; do
  grep -q "^  $g  \(PASS\|FAIL\)" "$T/out.txt" || fail "no goal line '$g'"
done
grep -q '^  [0-9] of 9 goals met$' "$T/out.txt" || fail "goal count"
[ "$(grep -c '^  fill 256x128, 2 layers .* identical$' "$T/out.txt")" -eq 7 ] || fail "fill images differ"
for r in 'gpusim qpu  *2' 'llvmpipe (LLVM [^)]*)  *1' 'llvmpipe (LLVM [^)]*)  *2'; do
  grep -q "^  2000 triangles  *$r  identical$" "$T/out.txt" || fail "triangle image of '$r' differs"
done
grep -q '^  2000 triangles  *softpipe  *1  ' "$T/out.txt" || fail "no softpipe image line"

# errors
"$GPUSIM" bench --peer "$T/none" --quick > "$T/o" 2> "$T/e"
[ $? -eq 1 ] && grep -q "$T/none" "$T/e" || fail "missing peer: $(cat "$T/e")"
"$GPUSIM" bench --peer "$PEER" --runs 0 > "$T/o" 2> "$T/e"
[ $? -eq 2 ] || fail "--runs 0 is not a usage error"
"$GPUSIM" bench --peer > "$T/o" 2> "$T/e"
[ $? -eq 2 ] || fail "--peer without a program is not a usage error"
echo "bench_peer: ok"
