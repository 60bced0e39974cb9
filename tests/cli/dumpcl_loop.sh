#!/bin/sh
# dumpcl_loop.sh GPUSIM SOURCE_DIR — `gpusim dump-cl` on a list that loops
# stops at once with exit 1, naming the jump that closes the loop, instead
# of printing until its packet budget (2^20 packets) runs out; a list that
# calls the same sub-list twice does not loop.
. "$2/tests/cli/lib/common.sh"

# 0x0 NOP (1), 0x1 NOP, 0x2 BRANCH (16) to 0x00000001: the walk runs
# 0, 1, 2, 1, 2, ... and never reaches the end of the 7-byte file.
printf '\001\001\020\001\000\000\000' > "$tmp/loop.bin"
"$gpusim" dump-cl "$tmp/loop.bin" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "a branch loop must exit 1, not $rc"
grep -q '^gpusim dump-cl: .*loop.bin: 0x0000000[12]: the list loops' "$tmp/err" ||
  fail "the error must name an address in the loop (1 or 2): $(cat "$tmp/err")"
grep -q 'every 2 packets, through 16 BRANCH at 0x00000002 (which continues at 0x00000001)' "$tmp/err" ||
  fail "the error must name the BRANCH at 0x00000002 and its two-packet loop: $(cat "$tmp/err")"
# Brent's detection: the loop's two packets are shown at most three times
n=$(wc -l < "$tmp/out")
[ "$n" -le 7 ] || fail "expected at most 7 lines before the loop is found, got $n"
grep -q '^0x00000002  16 BRANCH  address=0x00000001$' "$tmp/out" || fail "the branch is not dumped: $(cat "$tmp/out")"

# A Branch to itself is a loop of one packet.
printf '\020\000\000\000\000' > "$tmp/self.bin"
err=$("$gpusim" dump-cl "$tmp/self.bin" 2>&1 >/dev/null)
[ $? -eq 1 ] || fail "a branch to itself must exit 1"
echo "$err" | grep -q '0x00000000: the list loops: it comes back here every 1 packets, through 16 BRANCH at 0x00000000' ||
  fail "self-branch message: $err"

# The same sub-list called twice is not a loop: 0x0 and 0x5 BRANCH_TO_SUB_LIST
# (17) to 0x10, 0xa HALT (0); the sub-list is NOP (1), RETURN (18).
printf '\021\020\000\000\000\021\020\000\000\000\000\001\001\001\001\001\001\022' > "$tmp/sub.bin"
"$gpusim" dump-cl "$tmp/sub.bin" > "$tmp/out" 2> "$tmp/err" || fail "two calls of one sub-list exited $?: $(cat "$tmp/err")"
[ "$(grep -c '^0x00000010    1 NOP$' "$tmp/out")" -eq 2 ] || fail "the sub-list's NOP must be dumped twice: $(cat "$tmp/out")"

# The fuzzer's input: a compressed list at 0x00109168 whose relative branch
# (0x00109179 -> 0x00109120) ends it at the escape of an earlier list, at
# 0x00109162, so the walk goes on at 0x00109163, the GL_SHADER_STATE before
# it. It printed 37.7 million lines before the packet budget ended it.
tail -c +7 "$src/tests/fuzz/corpus/dumpcl/timeout-packet-loop-prims-back.bin" > "$tmp/prims.bin"
"$gpusim" dump-cl --base 0x00109000 "$tmp/prims.bin" > "$tmp/out" 2> "$tmp/err"
[ $? -eq 1 ] || fail "the compressed-list loop must exit 1"
grep -q 'through 48 COMPRESSED_PRIMITIVE_LIST at 0x00109168 (which continues at 0x00109163)' "$tmp/err" ||
  fail "the error must name the compressed list that goes back: $(cat "$tmp/err")"
[ "$(wc -l < "$tmp/out")" -lt 1000 ] || fail "the loop was dumped $(wc -l < "$tmp/out") lines long"
exit 0
