#!/bin/sh
# tutorial.sh GPUSIM SOURCE_DIR — runs docs/tutorial.md as a reader would, so
# that the page stays true: every line of a ```sh block is run in order, in
# one shell, starting in the source directory (the page's setup block then
# moves to its scratch directory, which this test replaces with a temporary
# one); a ```lua block whose first line is "-- NAME.lua" is written to
# NAME.lua where it stands. A command must exit 0, or the status its
# "# exit status N" comment gives. Every line of an ```output block must be
# a whole line of what the ```sh block before it printed (stdout and
# stderr). The gpusim under test comes first on PATH after the setup block;
# DISPLAY is unset, so window commands run without a window.
. "$2/tests/cli/lib/common.sh"
page="$src/docs/tutorial.md"
[ -r "$page" ] || fail "cannot read $page"
case $gpusim in /*) ;; *) gpusim="$PWD/$gpusim" ;; esac
bindir=$(dirname "$gpusim")
[ "$(basename "$gpusim")" = gpusim ] || { ln -s "$gpusim" "$tmp/gpusim" && bindir=$tmp; }

# The page as a script: each command is run by run_cmd, each output block
# checked by check_out against the output of the block before it.
awk -v scratch="$tmp/tour" '
function q(s) { gsub(/\047/, "\047\\\047\047", s); return "\047" s "\047" }
/^```sh$/     { mode = "sh"; nblock++; print "begin_block " nblock; next }
/^```output$/ { mode = "out"; print "check_out " nblock " <<\047TUTORIAL_EOF\047"; next }
/^```lua$/    { mode = "lua0"; next }
/^```/ && mode != "" {
  if (mode == "out" || mode == "lua") print "TUTORIAL_EOF"
  if (mode == "sh") print "end_block"
  mode = ""; next
}
/^```/ { mode = "other"; next }
mode == "sh" {
  if ($0 ~ /^[ \t]*(#|$)/) next
  line = $0; gsub(/\/tmp\/gpusim-tour/, scratch, line)
  status = 0
  if (match(line, /# exit status [0-9]+/)) status = substr(line, RSTART + 14, RLENGTH - 14) + 0
  print "run_cmd " status " " q(line)
  next
}
mode == "out" { print; next }
mode == "lua0" {
  if (match($0, /^-- [A-Za-z0-9_]+\.lua$/)) { mode = "lua"; print "cat > " substr($0, 4) " <<\047TUTORIAL_EOF\047" }
  else mode = "other"
}
mode == "lua" { print; next }
' "$page" > "$tmp/page.sh" || fail "cannot extract the commands of $page"
grep -q '^run_cmd' "$tmp/page.sh" || fail "no commands found in $page"

cat > "$tmp/run.sh" <<'EOF'
set -u
unset DISPLAY WAYLAND_DISPLAY
fail() { echo "FAIL: docs/tutorial.md: $*" >&2; exit 1; }
begin_block() { block=$1; : > "$tmpdir/out.$block"; }
end_block() { PATH="$bindir:$PATH"; export PATH; }
run_cmd() {
  want=$1
  shift
  eval "$1" >> "$tmpdir/out.$block" 2>&1
  rc=$?
  [ "$rc" -eq "$want" ] || { cat "$tmpdir/out.$block" >&2; fail "block $block: '$1' exited $rc, not $want"; }
}
check_out() {
  while IFS= read -r want; do
    grep -qxF -- "$want" "$tmpdir/out.$1" ||
      { cat "$tmpdir/out.$1" >&2; fail "block $1 did not print the line: $want"; }
  done
}
EOF
cat "$tmp/page.sh" >> "$tmp/run.sh"
echo 'exit 0' >> "$tmp/run.sh"
mkdir "$tmp/tour" || exit 1
cd "$src" || exit 1
tmpdir=$tmp bindir=$bindir PATH="$bindir:$PATH" timeout 300 sh "$tmp/run.sh" || fail "the tutorial's commands failed (see above)"
# the page's own scratch directory, and nothing else, was used
[ -e "$tmp/tour/lists.txt" ] && [ -e "$tmp/tour/stats.lua" ] || fail "the commands did not run in the scratch directory"
exit 0
