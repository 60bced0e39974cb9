#!/bin/sh
# pica_asm.sh GPUSIM SOURCE_DIR — `gpusim asm --isa pica` with one file and
# with several (one SHBIN, a DVLE per file, as picasso links them: shared
# procedures, a DVLE's entry by .entry), `gpusim disasm --isa pica`, and the
# failures: status 1 naming file:line:col with no output written, and a
# second input file for an ISA that does not link several (a usage error).
. "$2/tests/cli/lib/common.sh"

printf '.out outpos position\n.proc main\n    mov outpos, v0\n    end\n.end\n' > "$tmp/a.pica"
printf '.out outclr color\n.out outpos position\n.entry vmain\n.proc vmain\n    mov outpos, v1\n    mov outclr, v0\n    end\n.end\n' > "$tmp/b.pica"

# one file: a SHBIN ("DVLB" magic, one DVLE), the listing assembles to the same bytes
"$gpusim" asm --isa pica "$tmp/a.pica" -o "$tmp/a.shbin" || fail "asm a.pica"
[ "$(head -c 4 "$tmp/a.shbin")" = DVLB ] || fail "a.shbin does not start with DVLB"
[ "$(od -An -tu4 -j4 -N4 "$tmp/a.shbin" | tr -d ' ')" = 1 ] || fail "a.shbin: not one DVLE"
"$gpusim" disasm --isa pica "$tmp/a.shbin" -o "$tmp/a.s" || fail "disasm a.shbin"
grep -q '^\.out - position o0\.xyzw$' "$tmp/a.s" || fail "the output map is not in the listing: $(cat "$tmp/a.s")"
"$gpusim" asm --isa pica "$tmp/a.s" -o "$tmp/a2.shbin" || fail "asm a.s"
cmp "$tmp/a.shbin" "$tmp/a2.shbin" || fail "round trip changed a.shbin"

# two files: one DVLB with two DVLEs over one program (main at 0, vmain after it)
"$gpusim" asm --isa pica "$tmp/a.pica" "$tmp/b.pica" -o "$tmp/ab.shbin" || fail "asm a.pica b.pica"
[ "$(od -An -tu4 -j4 -N4 "$tmp/ab.shbin" | tr -d ' ')" = 2 ] || fail "ab.shbin: not two DVLEs"
"$gpusim" disasm --isa pica "$tmp/ab.shbin" > "$tmp/ab.s" || fail "disasm ab.shbin"
grep -q '2 executable(s), 5 program words' "$tmp/ab.s" || fail "listing header: $(head -1 "$tmp/ab.s")"
grep -q 'dvle 1 .*main 0x002, end 0x005' "$tmp/ab.s" || fail "second DVLE: $(cat "$tmp/ab.s")"

# an error in the second file names it; nothing is written
printf '.proc other\n    mov r0, q1\n    end\n.end\n' > "$tmp/bad.pica"
"$gpusim" asm --isa pica "$tmp/a.pica" "$tmp/bad.pica" -o "$tmp/bad.shbin" 2> "$tmp/err"
[ $? -eq 1 ] || fail "asm with bad.pica did not exit 1"
grep -q 'bad.pica:2:' "$tmp/err" || fail "no bad.pica:2: in: $(cat "$tmp/err")"
[ ! -e "$tmp/bad.shbin" ] || fail "bad.shbin was written"

# several inputs for the QPU: a usage error
"$gpusim" asm --isa qpu "$tmp/a.pica" "$tmp/b.pica" -o "$tmp/q.bin" 2> "$tmp/err"
[ $? -eq 2 ] || fail "qpu with two inputs did not exit 2"
grep -q "more than one input file ('.*b.pica'); only PICA200 programs link several files" "$tmp/err" ||
  fail "qpu two inputs: $(cat "$tmp/err")"
exit 0
