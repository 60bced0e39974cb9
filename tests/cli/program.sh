#!/bin/sh
# program.sh GPUSIM SOURCE_DIR — the gpusim program's own options and how it
# runs scripts: --help, --version, usage errors, exit statuses, `arg`, error
# messages with file:line, --traceback, and scripts from standard input.
set -u
gpusim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$gpusim" --help > "$tmp/out" || fail "--help exit status"
grep -q "usage: gpusim" "$tmp/out" || fail "--help text"
grep -q -- "--headless" "$tmp/out" || fail "--help does not mention --headless"
"$gpusim" -h | grep -q "usage: gpusim" || fail "-h"
"$gpusim" --version > "$tmp/out" || fail "--version exit status"
grep -q "^gpusim [0-9][0-9.]*$" "$tmp/out" || fail "--version prints $(cat "$tmp/out")"

"$gpusim" --frobnicate 2> "$tmp/err"
[ $? -eq 2 ] || fail "unknown option did not exit 2"
grep -q "unknown option '--frobnicate'" "$tmp/err" || fail "message: $(cat "$tmp/err")"
grep -q -- "--help" "$tmp/err" || fail "no hint to --help"
"$gpusim" 2> /dev/null
[ $? -eq 2 ] || fail "no script did not exit 2"
"$gpusim" --headless "$tmp/none.lua" 2> "$tmp/err"
[ $? -eq 1 ] || fail "missing script did not exit 1"
grep -q "^gpusim: .*none.lua" "$tmp/err" || fail "missing script message: $(cat "$tmp/err")"

# arg and ... as with the lua interpreter; options after the script are the script's
cat > "$tmp/args.lua" <<'LUA'
local a, b = ...
assert(a == "one" and b == "--two", "varargs")
assert(arg[1] == "one" and arg[2] == "--two" and #arg == 2, "arg[1..]")
assert(arg[0]:match("args%.lua$"), "arg[0]")
assert(arg[-1] == "--headless", "arg[-1]")
assert(require("gpusim").version, "module preloaded")
print("args ok")
LUA
"$gpusim" --headless "$tmp/args.lua" one --two > "$tmp/out" || fail "args.lua"
grep -q "args ok" "$tmp/out" || fail "args.lua output"

# exit statuses
echo 'os.exit(3)' > "$tmp/exit3.lua"
"$gpusim" --headless "$tmp/exit3.lua"
[ $? -eq 3 ] || fail "os.exit(3) status"
echo 'os.exit(true)' > "$tmp/exit0.lua"
"$gpusim" --headless "$tmp/exit0.lua" || fail "os.exit(true) status"

# a failing script: status 1, "gpusim: file:line: message", traceback only on request
printf 'local x = 1\nerror("boom")\n' > "$tmp/boom.lua"
"$gpusim" --headless "$tmp/boom.lua" 2> "$tmp/err"
[ $? -eq 1 ] || fail "error status"
grep -q "^gpusim: .*boom.lua:2: boom$" "$tmp/err" || fail "error message: $(cat "$tmp/err")"
grep -q "traceback" "$tmp/err" && fail "traceback without --traceback"
"$gpusim" --headless --traceback "$tmp/boom.lua" 2> "$tmp/err"
[ $? -eq 1 ] || fail "error status with --traceback"
grep -q "stack traceback" "$tmp/err" || fail "no traceback: $(cat "$tmp/err")"
echo 'error(setmetatable({}, {__tostring = function() return "custom" end}))' > "$tmp/obj.lua"
"$gpusim" --headless "$tmp/obj.lua" 2> "$tmp/err"
grep -q "^gpusim: custom$" "$tmp/err" || fail "error object message: $(cat "$tmp/err")"
printf 'x = = 1\n' > "$tmp/syntax.lua"
"$gpusim" --headless "$tmp/syntax.lua" 2> "$tmp/err"
[ $? -eq 1 ] || fail "syntax error status"
grep -q "syntax.lua:1:" "$tmp/err" || fail "syntax error message: $(cat "$tmp/err")"

# module errors keep the script position
printf 'local g = require "gpusim"\n\ng.mem.write(16, "u32", {1})\n' > "$tmp/fault.lua"
"$gpusim" --headless "$tmp/fault.lua" 2> "$tmp/err"
[ $? -eq 1 ] || fail "fault status"
grep -q "fault.lua:3: gpusim.mem.write: .*0x00000010" "$tmp/err" || fail "fault message: $(cat "$tmp/err")"

# script from standard input; -- ends the options
echo 'print("stdin " .. arg[1])' | "$gpusim" --headless - x > "$tmp/out" || fail "stdin script"
grep -q "stdin x" "$tmp/out" || fail "stdin script output"
cp "$tmp/exit3.lua" "$tmp/-dash.lua"
(cd "$tmp" && "$gpusim" -- -dash.lua)
[ $? -eq 3 ] || fail "-- before a script whose name starts with -"
# without --headless the script runs too (the window comes later)
echo 'print("ran " .. arg[-1])' > "$tmp/plain.lua"
"$gpusim" "$tmp/plain.lua" > "$tmp/out" || fail "script without --headless"
grep -q "^ran .*gpusim$" "$tmp/out" || fail "without options arg[-1] is the program: $(cat "$tmp/out")"
exit 0
