#!/bin/sh
# course.sh GPUSIM SOURCE_DIR — keeps the course (docs/course/) true. For
# every lesson docs/course/NN-NAME.md:
# - every command in a ```console block (a line "$ gpusim ..."; a pipe into
#   grep, sed, head or wc is allowed) is run in a scratch directory whose
#   scenes/ is the source tree's (so that the files a command writes land
#   there), with the gpusim under test first on PATH; what it prints (stdout) must
#   be the lines that follow it up to the next "$ " line or the block's
#   end, bus addresses masked on both sides (tests/cli/lib/docmask.sh);
# - the lesson has its scene scenes/course/NN-NAME.lua, its check
#   scenes/course/NN-check.lua and its worked answer tests/course/NN.sed
#   (a sed script that edits the scene), whose replacement lines the page
#   does not contain;
# - the check says "not yet: ..." for the unmodified scene and "correct"
#   for the scene the worked answer makes.
. "$2/tests/cli/lib/common.sh"
. "$src/tests/cli/lib/docmask.sh"
case $gpusim in /*) ;; *) gpusim="$PWD/$gpusim" ;; esac
bindir=$(dirname "$gpusim")
[ "$(basename "$gpusim")" = gpusim ] || { ln -s "$gpusim" "$tmp/gpusim" && bindir=$tmp; }
PATH="$bindir:$PATH"; export PATH
unset DISPLAY WAYLAND_DISPLAY
cd "$src" || exit 1
mkdir "$tmp/work" && ln -s "$PWD/scenes" "$tmp/work/scenes" || fail "cannot make the scratch directory"
n=0
for page in docs/course/[0-9][0-9]-*.md; do
  [ -r "$page" ] || fail "no lessons in docs/course/"
  n=$((n + 1))
  base=$(basename "$page" .md)
  nn=${base%%-*}
  scene=scenes/course/$base.lua
  check=scenes/course/$nn-check.lua
  answer=tests/course/$nn.sed
  for f in "$scene" "$check" "$answer"; do [ -r "$f" ] || fail "$page: no $f"; done
  # the page's commands and outputs, one file per command: cmd.K and want.K
  rm -f "$tmp"/cmd.* "$tmp"/want.*
  awk -v dir="$tmp" '
    /^```console$/ { on = 1; next }
    /^```/ && on   { on = 0; next }
    on && /^\$ /   { k++; print substr($0, 3) > (dir "/cmd." k); printf "" > (dir "/want." k); next }
    on && k        { print > (dir "/want." k) }
  ' "$page"
  [ -r "$tmp/cmd.1" ] || fail "$page: no \$ gpusim command in a console block"
  k=1
  while [ -r "$tmp/cmd.$k" ]; do
    cmd=$(cat "$tmp/cmd.$k")
    case $cmd in gpusim\ *) ;; *) fail "$page: a command that is not gpusim's: $cmd" ;; esac
    (cd "$tmp/work" && sh -c "$cmd") > "$tmp/real" 2> "$tmp/err" || fail "$page: '$cmd' exited $?: $(cat "$tmp/err")"
    doc_mask < "$tmp/want.$k" > "$tmp/want.masked"
    doc_mask < "$tmp/real" > "$tmp/real.masked"
    cmp -s "$tmp/want.masked" "$tmp/real.masked" ||
      fail "$page: '$cmd' prints something else now: $(diff "$tmp/want.$k" "$tmp/real")"
    k=$((k + 1))
  done
  # the exercise: not yet as given, correct with the worked answer, which
  # the page must not give away (no line of the answer's replacements in it)
  sed -n 's/^s\/[^/]*\/\([^/]*\)\/.*/\1/p' "$answer" | while IFS= read -r line; do
    if grep -qF -- "$line" "$page"; then fail "$page gives away the answer: $line"; fi
  done || exit 1
  gpusim --headless "$check" > "$tmp/as_given" 2>&1 || fail "$check exited $?: $(cat "$tmp/as_given")"
  grep -q '^not yet: ' "$tmp/as_given" || fail "$check on the scene as given: $(cat "$tmp/as_given")"
  sed -f "$answer" "$scene" > "$tmp/answer.lua" || fail "$answer"
  cmp -s "$scene" "$tmp/answer.lua" && fail "$answer leaves $scene as it is"
  gpusim --headless "$check" "$tmp/answer.lua" > "$tmp/answered" 2>&1 || fail "$check exited $?: $(cat "$tmp/answered")"
  [ "$(cat "$tmp/answered")" = correct ] || fail "$check on the worked answer: $(cat "$tmp/answered")"
done
echo "$n lessons checked"
exit 0
