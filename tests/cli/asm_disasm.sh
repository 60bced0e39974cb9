#!/bin/sh
# asm_disasm.sh GPUSIM SOURCE_DIR — `gpusim asm` and `gpusim disasm`: a round
# trip through files and pipes, and failures that exit non-zero, say where,
# and leave no output file (or the old one untouched).
. "$2/tests/cli/lib/common.sh"

# assemble, disassemble, assemble again: the same bytes
"$gpusim" asm --isa qpu "$src/tests/cli/square.s" -o "$tmp/a.bin" || fail "asm square.s"
[ -s "$tmp/a.bin" ] || fail "a.bin is empty"
size=$(wc -c < "$tmp/a.bin")
[ $((size % 8)) -eq 0 ] || fail "a.bin has $size bytes, not a multiple of 8"
"$gpusim" disasm --isa qpu "$tmp/a.bin" -o "$tmp/a.s" || fail "disasm a.bin"
"$gpusim" asm --isa qpu "$tmp/a.s" -o "$tmp/b.bin" || fail "asm a.s"
cmp "$tmp/a.bin" "$tmp/b.bin" || fail "round trip changed the binary"
# disasm to stdout gives the same text; - reads stdin and writes stdout
"$gpusim" disasm --isa qpu "$tmp/a.bin" > "$tmp/stdout.s" || fail "disasm to stdout"
cmp "$tmp/a.s" "$tmp/stdout.s" || fail "disasm -o and stdout differ"
"$gpusim" asm --isa qpu - -o - < "$src/tests/cli/square.s" > "$tmp/c.bin" || fail "asm stdin to stdout"
cmp "$tmp/a.bin" "$tmp/c.bin" || fail "asm through pipes differs"
# --base and --isa=qpu spellings
"$gpusim" asm --isa=qpu --base 0x100000 "$src/tests/cli/square.s" -o "$tmp/d.bin" || fail "asm --base"
cmp "$tmp/a.bin" "$tmp/d.bin" || fail "--base changed a program without absolute branches"

# a syntax error: status 1, file:line:col on stderr, no output, no temp file
printf 'nop\n  bogus r0, r1\nnop\n' > "$tmp/bad.s"
"$gpusim" asm --isa qpu "$tmp/bad.s" -o "$tmp/bad.bin" 2> "$tmp/err"
[ $? -eq 1 ] || fail "asm of bad.s did not exit 1"
grep -q "bad.s:2:[0-9]*:" "$tmp/err" || fail "no bad.s:2:col in: $(cat "$tmp/err")"
[ ! -e "$tmp/bad.bin" ] || fail "bad.bin was written"
# an existing output stays as it was
cp "$tmp/a.bin" "$tmp/keep.bin"
"$gpusim" asm --isa qpu "$tmp/bad.s" -o "$tmp/keep.bin" 2> /dev/null && fail "bad.s assembled"
cmp "$tmp/a.bin" "$tmp/keep.bin" || fail "a failed asm changed the existing output"
ls "$tmp" | grep -q tmp && fail "temporary file left behind: $(ls "$tmp")"

# disasm of a size that is not a multiple of 8 names the file and the size
printf '1234567890123' > "$tmp/odd.bin"
"$gpusim" disasm --isa qpu "$tmp/odd.bin" -o "$tmp/odd.s" 2> "$tmp/err"
[ $? -eq 1 ] || fail "disasm of odd.bin did not exit 1"
grep -q "odd.bin" "$tmp/err" && grep -q "13" "$tmp/err" || fail "message lacks file or size: $(cat "$tmp/err")"
[ ! -e "$tmp/odd.s" ] || fail "odd.s was written"

# missing input file: status 1, names it
"$gpusim" asm --isa qpu "$tmp/none.s" -o "$tmp/none.bin" 2> "$tmp/err"
[ $? -eq 1 ] || fail "missing input did not exit 1"
grep -q "none.s" "$tmp/err" || fail "message lacks the file: $(cat "$tmp/err")"
[ ! -e "$tmp/none.bin" ] || fail "none.bin was written"
# unwritable output directory: status 1
"$gpusim" asm --isa qpu "$src/tests/cli/square.s" -o "$tmp/no/such/dir/x.bin" 2> /dev/null
[ $? -eq 1 ] || fail "unwritable output did not exit 1"

# usage errors: status 2 with a hint
"$gpusim" asm --isa nosuch "$src/tests/cli/square.s" -o "$tmp/x.bin" 2> "$tmp/err"
[ $? -eq 2 ] || fail "unknown ISA did not exit 2"
grep -q "known: qpu" "$tmp/err" || fail "unknown ISA message does not list qpu: $(cat "$tmp/err")"
"$gpusim" asm "$src/tests/cli/square.s" -o "$tmp/x.bin" 2> /dev/null
[ $? -eq 2 ] || fail "missing --isa did not exit 2"
"$gpusim" asm --isa qpu "$src/tests/cli/square.s" 2> /dev/null
[ $? -eq 2 ] || fail "missing -o did not exit 2"
"$gpusim" disasm --isa qpu --frob "$tmp/a.bin" 2> "$tmp/err"
[ $? -eq 2 ] || fail "unknown disasm option did not exit 2"
grep -q -- "--help" "$tmp/err" || fail "no hint to --help"
"$gpusim" asm --isa qpu --base 0x1ffffffff "$src/tests/cli/square.s" -o "$tmp/x.bin" 2> /dev/null
[ $? -eq 2 ] || fail "out-of-range --base did not exit 2"
"$gpusim" asm --help | grep -q "usage: gpusim asm" || fail "asm --help"
[ ! -e "$tmp/x.bin" ] || fail "x.bin was written by a usage error"
exit 0
