#!/bin/sh
# outputs.sh GPUSIM SOURCE_DIR — every output option (-o of a scene,
# --dump-cl, asm -o, disasm -o, diff -o) writes through one rule:
# - a new path or a regular file is written whole or not at all, keeping an
#   existing file's mode, with no temporary file left behind;
# - an existing device, FIFO or socket is written in place, never replaced;
# - a symbolic link is followed: its target is written, the link stays;
# - "-" is standard output;
# - an output that was asked for and not written is an error (exit 1).
. "$2/tests/cli/lib/common.sh"
src=$(cd "$src" && pwd)

"$gpusim" asm --isa qpu "$src/tests/cli/square.s" -o "$tmp/square.bin" || fail "asm"
cp "$src/tests/ref/triangle.png" "$tmp/a.png"

# run_output NAME PATH: writes output NAME to PATH, exit status 0 expected.
# The outputs: scene (-o PNG), dumpcl (--dump-cl text), asm, disasm, diff.
run_output() {
  case $1 in
    scene)  "$gpusim" --headless --size 64x48 -o "$2" "$src/scenes/triangle.lua" ;;
    dumpcl) "$gpusim" --headless --size 64x48 --dump-cl "$2" "$src/scenes/triangle.lua" ;;
    asm)    "$gpusim" asm --isa qpu "$src/tests/cli/square.s" -o "$2" ;;
    disasm) "$gpusim" disasm --isa qpu "$tmp/square.bin" -o "$2" ;;
    diff)   if [ "$2" = - ]; then "$gpusim" diff "$tmp/a.png" "$tmp/a.png" -o - 2> /dev/null
            else "$gpusim" diff "$tmp/a.png" "$tmp/a.png" -o "$2" > /dev/null; fi ;;
  esac
}

for out in scene dumpcl asm disasm diff; do
  d=$tmp/$out
  mkdir "$d"

  # A new path, then a regular file replaced whole; its mode is kept.
  run_output $out "$d/new" || fail "$out: new file"
  [ -f "$d/new" ] && [ -s "$d/new" ] || fail "$out: new file not written"
  chmod 640 "$d/new"
  printf 'old' > "$d/old"
  chmod 604 "$d/old"
  run_output $out "$d/old" || fail "$out: over a regular file"
  [ "$(cat "$d/old")" != old ] || fail "$out: regular file not replaced"
  [ "$(stat -c %a "$d/old")" = 604 ] || fail "$out: mode not kept: $(stat -c %a "$d/old")"
  cmp -s "$d/new" "$d/old" || fail "$out: the same output differs between two runs"

  # A symbolic link: the target gets the bytes, the link stays a link.
  ln -s old "$d/link"
  printf 'old' > "$d/old"
  run_output $out "$d/link" || fail "$out: through a symlink"
  [ -L "$d/link" ] || fail "$out: the symlink was replaced"
  cmp -s "$d/new" "$d/old" || fail "$out: the symlink's target was not written"
  # A dangling link: its target is created, the link stays.
  ln -s made "$d/dangling"
  run_output $out "$d/dangling" || fail "$out: through a dangling symlink"
  [ -L "$d/dangling" ] && cmp -s "$d/new" "$d/made" || fail "$out: dangling symlink"

  # A FIFO is written in place: a reader gets the bytes, the FIFO stays.
  mkfifo "$d/fifo"
  cat "$d/fifo" > "$d/from_fifo" &
  reader=$!
  run_output $out "$d/fifo" || fail "$out: into a FIFO"
  wait $reader
  [ -p "$d/fifo" ] || fail "$out: the FIFO was replaced by $(stat -c %F "$d/fifo")"
  cmp -s "$d/new" "$d/from_fifo" || fail "$out: the FIFO's reader got other bytes"

  # A character device (a null device made here, as root): written, kept.
  if mknod -m 666 "$d/null" c 1 3 2> /dev/null; then
    run_output $out "$d/null" || fail "$out: into a device"
    [ -c "$d/null" ] || fail "$out: the device was replaced by $(stat -c %F "$d/null")"
  fi

  # "-" is standard output, and no file named - appears.
  (cd "$d" && run_output $out - > "$d/stdout") || fail "$out: to standard output"
  [ ! -e "$d/-" ] || fail "$out: created a file named -"
  cmp -s "$d/new" "$d/stdout" || fail "$out: standard output differs from the file"

  # A path that cannot be written: exit non-zero, nothing left behind.
  run_output $out "$d/no/such/dir/x" 2> "$d/err" && fail "$out: unwritable path succeeded"
  grep -q "no/such/dir/x" "$d/err" || fail "$out: message does not name the path: $(cat "$d/err")"
  run_output $out "$d" 2> /dev/null && fail "$out: writing to a directory succeeded"

  # No temporary files are left in the directory.
  leftovers=$(ls -A "$d" | grep -c tmp-)
  [ "$leftovers" = 0 ] || fail "$out: temporary files left: $(ls -A "$d")"
done

# A scene that fails leaves an existing output untouched.
printf 'keep' > "$tmp/keep.png"
printf 'error("broken scene")\n' > "$tmp/broken.lua"
"$gpusim" --headless -o "$tmp/keep.png" "$tmp/broken.lua" 2> /dev/null && fail "broken scene exit 0"
[ "$(cat "$tmp/keep.png")" = keep ] || fail "a failed run changed the output file"

# An output asked for and not written is an error that says why.
printf 'print("no frames")\n' > "$tmp/plain.lua"
"$gpusim" --headless -o "$tmp/plain.png" "$tmp/plain.lua" > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] || fail "-o on a script that renders nothing did not exit 1"
grep -q "not written" "$tmp/err" || fail "message: $(cat "$tmp/err")"
[ ! -e "$tmp/plain.png" ] || fail "-o wrote a file for a script that renders nothing"
"$gpusim" --headless --dump-cl "$tmp/plain.cl" "$tmp/plain.lua" > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] || fail "--dump-cl on a script that renders nothing did not exit 1"

# Two outputs cannot share standard output.
"$gpusim" --headless -o - --dump-cl - "$src/scenes/triangle.lua" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "-o - --dump-cl - did not exit 2"

# diff -o - sends its report to standard error, the image to standard output.
"$gpusim" diff "$tmp/a.png" "$tmp/a.png" -o - > "$tmp/d.png" 2> "$tmp/report" || fail "diff -o -"
grep -q "differing pixels: 0" "$tmp/report" || fail "diff report not on stderr"
head -c 8 "$tmp/d.png" | od -c | grep -q "P   N   G" || fail "diff -o - did not write a PNG"
exit 0
