#!/bin/sh
# sass_asm.sh GPUSIM SOURCE_DIR — `gpusim asm --isa sass` and `gpusim disasm
# --isa sass` (docs/sass.md): published words, a round trip through files and
# pipes, a program with labels, and failures that exit 1 and say where.
. "$2/tests/cli/lib/common.sh"

# NVIDIA's headsurface pixel program: whole groups, the round trip is exact
"$gpusim" asm --isa sass "$src/tests/fuzz/corpus/sass_asm/headsurface_ps.s" -o "$tmp/ps.bin" || fail "asm headsurface_ps.s"
size=$(wc -c < "$tmp/ps.bin")
[ "$size" -eq 256 ] || fail "ps.bin has $size bytes, not 8 groups of 32"
"$gpusim" disasm --isa sass "$tmp/ps.bin" -o "$tmp/ps.s" || fail "disasm ps.bin"
"$gpusim" asm --isa sass "$tmp/ps.s" -o "$tmp/ps2.bin" || fail "asm ps.s"
cmp "$tmp/ps.bin" "$tmp/ps2.bin" || fail "round trip changed the code"
"$gpusim" disasm --isa sass - < "$tmp/ps.bin" > "$tmp/stdout.s" || fail "disasm from stdin"
cmp "$tmp/ps.s" "$tmp/stdout.s" || fail "disasm -o and stdout differ"
# the published words are in the listing, in nvdisasm's text
grep -q '^/\*0078\*/ TEX.B.NODEP R12, R6, R12, 0x0, 2D, 0x7 ; .*0xdeba0003a0c7060c' "$tmp/ps.s" ||
  fail "TEX.B at 0x78 missing: $(sed -n 12p "$tmp/ps.s")"
grep -q '^/\*0058\*/ FMUL.FTZ.RZ R6, R11, R6 ; .*0x5c68118000670b06' "$tmp/ps.s" || fail "FMUL.FTZ.RZ at 0x58 missing"

# a scheduling annotation and a label: three stall-6 fields make 0x001fd800fec007f6
printf 'top: MUFU.RCP R11, R11 ; // [B------:R-:W-:Y:S06:U0]\nMOV32I R3, 0x3f800000 ; // [B------:R-:W-:Y:S06:U0]\n@P0 BRA top ; // [B------:R-:W-:Y:S06:U0]\n' > "$tmp/s.s"
"$gpusim" asm --isa sass "$tmp/s.s" -o "$tmp/s.bin" || fail "asm s.s"
[ "$(od -An -tx8 -N8 "$tmp/s.bin" | tr -d ' ')" = 001fd800fec007f6 ] || fail "control word $(od -An -tx8 -N8 "$tmp/s.bin")"
"$gpusim" disasm --isa sass "$tmp/s.bin" | grep -q '@P0 BRA 0x8 ;' || fail "the branch does not go back to 0x8"

# errors: status 1, file:line:col, no output
printf 'EXIT ;\n  FADD.XYZ R0, R1, R2 ;\n' > "$tmp/bad.s"
"$gpusim" asm --isa sass "$tmp/bad.s" -o "$tmp/bad.bin" 2> "$tmp/err"
[ $? -eq 1 ] || fail "asm of bad.s did not exit 1"
grep -q "bad.s:2:3:.*FADD takes no modifier '.XYZ'" "$tmp/err" || fail "no bad.s:2:3 in: $(cat "$tmp/err")"
[ ! -e "$tmp/bad.bin" ] || fail "bad.bin was written"
printf 'CAL 0x20 ;\n' > "$tmp/cal.s"
"$gpusim" asm --isa sass "$tmp/cal.s" -o "$tmp/cal.bin" 2> "$tmp/err"
[ $? -eq 1 ] || fail "asm of CAL did not exit 1"
grep -q "cal.s:1:1:.*CAL is not supported by gpusim" "$tmp/err" || fail "CAL message: $(cat "$tmp/err")"
# code that is not whole groups
head -c 40 "$tmp/ps.bin" > "$tmp/odd.bin"
"$gpusim" disasm --isa sass "$tmp/odd.bin" -o "$tmp/odd.s" 2> "$tmp/err"
[ $? -eq 1 ] || fail "disasm of 40 bytes did not exit 1"
grep -q "40 bytes" "$tmp/err" || fail "message lacks the size: $(cat "$tmp/err")"
[ ! -e "$tmp/odd.s" ] || fail "odd.s was written"
exit 0
