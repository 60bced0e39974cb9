# common.sh — the preamble every CLI test shares. A test script
# (run as `sh SCRIPT GPUSIM SOURCE_DIR`) starts with
#   . "$2/tests/cli/lib/common.sh"
# which sets gpusim and src from the arguments, makes a scratch directory
# $tmp removed on exit, and defines:
#   fail MESSAGE       print "FAIL: MESSAGE" and exit 1
#   mkpng ARGS...      write a test image with tests/cli/mkpng.lua
#   has FILE LINE      fail unless FILE has LINE as a whole line
# (lib/ is not a test: only tests/cli/*.sh are.)
set -u
gpusim=$1
src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkpng() { "$gpusim" --headless "$src/tests/cli/mkpng.lua" "$@" || fail "mkpng.lua $*"; }
has() { grep -Fxq -- "$2" "$1" || fail "expected the line '$2' in: $(cat "$1")"; }
