#!/bin/sh
# dumpcl.sh GPUSIM SOURCE_DIR — `gpusim dump-cl` from the command line: a
# list of two packets dumps with addresses from --base; a truncated packet
# and an unknown ID fail with exit 1 naming the address.
set -u
gpusim=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# NOP (1), then Flat Shade Flags (97) with flags 0x00000005
printf '\001\141\005\000\000\000' > "$tmp/ok.bin"
out=$("$gpusim" dump-cl --base 0x2000 "$tmp/ok.bin") || fail "dump of a valid list exited $?"
echo "$out" | grep -q '^0x00002000  NOP' || fail "no NOP line at 0x00002000: $out"
echo "$out" | grep -q '^0x00002001  FLAT_SHADE_FLAGS' || fail "no FLAT_SHADE_FLAGS line at 0x00002001: $out"

# Tile Binning Mode Config (112) cut short after 6 bytes
printf '\001\160\000\000\000\000\000' > "$tmp/short.bin"
err=$("$gpusim" dump-cl --base 0x1000 "$tmp/short.bin" 2>&1 >/dev/null)
[ $? -eq 1 ] || fail "a truncated packet must exit 1"
echo "$err" | grep -q '0x00001001' || fail "truncation message lacks the address: $err"

# ID 3 is reserved
printf '\003' > "$tmp/bad.bin"
err=$("$gpusim" dump-cl "$tmp/bad.bin" 2>&1 >/dev/null)
[ $? -eq 1 ] || fail "an unknown packet must exit 1"
echo "$err" | grep -q 'unknown control-list packet ID 3' || fail "unknown-ID message: $err"

"$gpusim" dump-cl --help > /dev/null || fail "--help must exit 0"
exit 0
