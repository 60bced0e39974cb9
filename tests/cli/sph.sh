#!/bin/sh
# sph.sh GPUSIM SOURCE_DIR — `gpusim sph FILE`: the fields of NVIDIA's
# Maxwell PS header (nvidia_headsurface_fragment, open kernel modules),
# decoded by hand from open-gpu-doc's cla097sph.h, from a file, from
# standard input and from inside a longer file (--offset); a wrong size, a
# SphType that is neither 1 nor 2 and a failed --validate exit 1 naming the
# file and the field's place; usage errors exit 2.
. "$2/tests/cli/lib/common.sh"

# le32 V...: V as 4 little-endian bytes each
le32() {
  for v in "$@"; do
    printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((v & 255)) $((v >> 8 & 255)) \
      $((v >> 16 & 255)) $((v >> 24 & 255)))"
  done
}
zeros() { i=0; while [ $i -lt "$1" ]; do le32 0; i=$((i + 1)); done; }

# w0 0x00001462: SphType 2 (PS), Version 0x1462 >> 5 & 31 = 3, ShaderType
# 0x1462 >> 10 = 5 (PIXEL); w5 bit 31 = SPH bit 191, ImapPositionW; w15
# 0x000a0a00: SPH bits 489:488 and 491:490 = TEX_IMAP_S(1), T(1) = 2
# (Perspective); w18 = 7: OMAP_RED(0), GREEN(0), BLUE(0)
{ le32 0x00001462; zeros 4; le32 0x80000000; zeros 9; le32 0x000a0a00; zeros 2; le32 7; zeros 1; } > "$tmp/ps.sph"
[ "$(wc -c < "$tmp/ps.sph")" -eq 80 ] || fail "the test header is not 80 bytes"

check_ps() { # check_ps OUTPUT-FILE
  for want in '^w0\[4:0\] +SphType +2 \(PS\)$' '^w0\[9:5\] +Version +3$' \
              '^w0\[13:10\] +ShaderType +5 \(PIXEL\)$' '^w0\[15\] +KillsPixels +0$' \
              '^w0\[23:21\] +Reserved +0x0$' '^w4\[31:24\] +StoreReqEnd +0$' \
              '^w5\[31\] +ImapPositionW +1$' \
              '^w15\[9:8\] +ImapFixedFncTexture\[1\]\.S +2 \(Perspective\)$' \
              '^w15\[11:10\] +ImapFixedFncTexture\[1\]\.T +2 \(Perspective\)$' \
              '^w15\[17:16\] +ImapFixedFncTexture\[2\]\.S +2 \(Perspective\)$' \
              '^w15\[19:18\] +ImapFixedFncTexture\[2\]\.T +2 \(Perspective\)$' \
              '^w18\[0\] +OmapTarget\[0\]\.Red +1$' '^w18\[1\] +OmapTarget\[0\]\.Green +1$' \
              '^w18\[2\] +OmapTarget\[0\]\.Blue +1$'; do
    grep -Eq "$want" "$1" || fail "no line matching '$want' in: $(cat "$1")"
  done
  # the 24 fields of words 0-4, then the 8 non-zero elements of words 5-19
  [ "$(wc -l < "$1")" -eq 32 ] || fail "expected 32 lines, got: $(cat "$1")"
}

"$gpusim" sph "$tmp/ps.sph" > "$tmp/out1" || fail "gpusim sph exited $?"
check_ps "$tmp/out1"
"$gpusim" sph --validate - < "$tmp/ps.sph" > "$tmp/out2" || fail "gpusim sph --validate - exited $?"
cmp -s "$tmp/out1" "$tmp/out2" || fail "standard input gives another listing"

# inside a longer file: 16 bytes before it, 8 after
{ le32 1 2 3 4; cat "$tmp/ps.sph"; le32 5 6; } > "$tmp/blob.bin"
"$gpusim" sph --offset 16 "$tmp/blob.bin" > "$tmp/out3" || fail "--offset 16 exited $?"
cmp -s "$tmp/out1" "$tmp/out3" || fail "--offset 16 gives another listing"
"$gpusim" sph --offset=0x10 "$tmp/blob.bin" > "$tmp/out4" || fail "--offset=0x10 exited $?"
cmp -s "$tmp/out1" "$tmp/out4" || fail "--offset=0x10 gives another listing"

# errors: exit 1, the file named
expect1() { # expect1 PATTERN ARGS...
  pat=$1; shift
  err=$("$gpusim" sph "$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 1 ] || fail "gpusim sph $* exited $rc, expected 1"
  echo "$err" | grep -Fq -- "$pat" || fail "gpusim sph $*: '$err' lacks '$pat'"
}
head -c 79 "$tmp/ps.sph" > "$tmp/short.sph"
expect1 "$tmp/short.sph: 79 bytes, but an SPH is 80" "$tmp/short.sph"
expect1 "$tmp/blob.bin: 104 bytes, but an SPH is 80" "$tmp/blob.bin"
expect1 "no room for an 80-byte SPH at offset 25" --offset 25 "$tmp/blob.bin"
expect1 "cannot read $tmp/missing.sph" "$tmp/missing.sph"
# SphType 3 (w0 = 0x463): the layout of words 5-19 is unknown
{ le32 0x463; zeros 19; } > "$tmp/type3.sph"
expect1 "$tmp/type3.sph: SPH word 0 bits 4:0, SphType: 3 is neither 1 (VTG) nor 2 (PS)" "$tmp/type3.sph"
expect1 "$tmp/blob.bin at offset 8: SPH word 0 bits 4:0, SphType: 3 is neither" --offset 8 "$tmp/blob.bin"
# a PS without ImapPositionW decodes, but does not validate
{ le32 0x00001462; zeros 19; } > "$tmp/nopos.sph"
"$gpusim" sph "$tmp/nopos.sph" > /dev/null || fail "a PS without ImapPositionW must still print"
expect1 "$tmp/nopos.sph: SPH word 5 bit 31, ImapPositionW" --validate "$tmp/nopos.sph"

# usage errors: exit 2
for args in "" "--bogus $tmp/ps.sph" "$tmp/ps.sph $tmp/ps.sph" "--offset" "--offset -1 $tmp/ps.sph" "--offset x $tmp/ps.sph"; do
  # shellcheck disable=SC2086
  "$gpusim" sph $args > /dev/null 2>&1
  rc=$?
  [ $rc -eq 2 ] || fail "gpusim sph $args exited $rc, expected 2"
done
"$gpusim" sph --help | grep -q -- '--offset N' || fail "gpusim sph --help lacks --offset"
"$gpusim" --help | grep -q 'gpusim sph ' || fail "gpusim --help lacks gpusim sph"
exit 0
