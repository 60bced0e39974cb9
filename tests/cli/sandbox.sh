#!/bin/sh
# sandbox.sh GPUSIM SOURCE_DIR — --sandbox, --memory-limit and --time-limit
# (docs/sandbox.md): each thing the sandbox refuses fails with status 1 and
# a message naming it and the script's line (and works without --sandbox,
# so the refusal is the sandbox's); the memory and time caps stop a script
# with their message and status 1; every scene renders the same image
# under --sandbox; bad limits are usage errors (status 2).
set -u
gpusim=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() {
  echo "FAIL: $*" >&2
  status=1
}
now() { date +%s; }
# a run whose limit does not work must not hang the suite
limit=
command -v timeout > /dev/null && limit="timeout 60"

# run NAME [OPTIONS...]: runs $tmp/NAME.lua headless; $rc, $tmp/out, $tmp/err
run() {
  name=$1
  shift
  $limit "$gpusim" --headless "$@" "$tmp/$name.lua" > "$tmp/out" 2> "$tmp/err"
  rc=$?
}

# refused NAME LINE PATTERN LUA: LUA as $tmp/NAME.lua (the refused call on
# line LINE) fails under --sandbox with "NAME.lua:LINE: PATTERN" and status
# 1, and runs to its last line ("reached") without --sandbox.
refused() {
  name=$1 line=$2 pattern=$3
  printf '%s\nprint("reached")\n' "$4" > "$tmp/$name.lua"
  run "$name" --sandbox
  [ "$rc" -eq 1 ] || fail "$name: status $rc under --sandbox, expected 1"
  grep -q "^gpusim: .*$name\.lua:$line: $pattern" "$tmp/err" || fail "$name: message: $(cat "$tmp/err")"
  grep -q reached "$tmp/out" && fail "$name: ran on under --sandbox"
  run "$name"
  [ "$rc" -eq 0 ] && grep -q reached "$tmp/out" || fail "$name: fails without --sandbox too: $(cat "$tmp/err")"
}

echo "a line" > "$tmp/data.txt"
refused io_open 1 "io.open is not available under --sandbox" \
  "local f = assert(io.open('$tmp/data.txt')); assert(f:read('l') == 'a line')"
refused io_lines 2 "io.lines is not available under --sandbox" \
  "local n = 0
for l in io.lines('$tmp/data.txt') do n = n + 1 end"
refused os_execute 1 "os.execute is not available under --sandbox" "os.execute('true')"
refused os_getenv 1 "os.getenv is not available under --sandbox" "assert(os.getenv('HOME') ~= nil or true)"
refused os_remove 1 "os.remove is not available under --sandbox" "os.remove('$tmp/nonexistent')"
refused loadlib 1 "package.loadlib is not available under --sandbox" "package.loadlib('$tmp/none.so', 'f')"
refused package_path 1 "package.path is not available under --sandbox" "package.path = package.path .. ';$tmp/?.lua'"
refused debug 1 "debug.getinfo is not available under --sandbox" "assert(debug.getinfo(1).currentline == 1)"
refused loadfile 1 "loadfile is not available under --sandbox" "assert(loadfile('$tmp/data.txt') == nil)"
echo 'return 7' > "$tmp/seven.lua"
refused dofile 1 "dofile is not available under --sandbox" "assert(dofile('$tmp/seven.lua') == 7)"
refused bytecode 2 "load: binary chunks (string.dump) are not available under --sandbox" \
  "local bin = string.dump(function() return 42 end)
assert(load(bin)() == 42)"
refused bytecode_reader 3 "load: binary chunks (string.dump) are not available under --sandbox" \
  "local bin, done = string.dump(function() return 42 end), false
local function reader() if done then return nil end done = true return bin end
assert(load(reader, 'bin', 'b')() == 42)"
# a Lua module that is not a helper: on LUA_PATH it loads without --sandbox only
echo 'return {answer = 42}' > "$tmp/mymod.lua"
LUA_PATH="$tmp/?.lua;;" && export LUA_PATH
refused require_lua 1 "module 'mymod' is not available under --sandbox" "assert(require('mymod').answer == 42)"
unset LUA_PATH
# a C module: the gpusim module itself as gpusim-c.so on LUA_CPATH (require
# "gpusim-c" calls its luaopen_gpusim)
so=$(dirname "$gpusim")/lua/gpusim.so
if [ -f "$so" ]; then
  mkdir "$tmp/cmod" && cp "$so" "$tmp/cmod/gpusim-c.so"
  LUA_CPATH="$tmp/cmod/?.so" && export LUA_CPATH
  echo "assert(type(require('gpusim-c').version) == 'string')" > "$tmp/require_c.lua"
  run require_c --sandbox
  [ "$rc" -eq 1 ] || fail "require_c: status $rc under --sandbox, expected 1"
  grep -q "^gpusim: .*require_c\.lua:1: module 'gpusim-c' is not available under --sandbox" "$tmp/err" ||
    fail "require_c: message: $(cat "$tmp/err")"
  # without --sandbox the C loader opens the file (it loads, or dlopen says why not)
  run require_c
  [ "$rc" -eq 0 ] || grep -q "gpusim-c\.so" "$tmp/err" || fail "require_c: without --sandbox: $(cat "$tmp/err")"
  unset LUA_CPATH
else
  fail "no $so to load as a C module"
fi

# a precompiled script is refused (written by an unsandboxed run)
cat > "$tmp/compile.lua" <<LUA
local f = assert(io.open("$tmp/compiled.luac", "wb"))
f:write(string.dump(assert(load("print('compiled ran')"))))
f:close()
LUA
run compile
"$gpusim" --headless "$tmp/compiled.luac" | grep -q "compiled ran" || fail "the compiled script does not run"
"$gpusim" --headless --sandbox "$tmp/compiled.luac" > "$tmp/out" 2> "$tmp/err"
[ $? -eq 1 ] || fail "compiled script: status under --sandbox"
grep -q "attempt to load a binary chunk" "$tmp/err" || fail "compiled script message: $(cat "$tmp/err")"

# what a sandboxed script keeps
cat > "$tmp/allowed.lua" <<'LUA'
local gpusim = require "gpusim"
assert(require("gpusim") == gpusim and gpusim.version)
local vm = require "vecmath"
assert(type(vm) == "table" and require("vecmath") == vm, "a helper loads once")
assert(require("string") == string and require("math") == math)
assert(load("return 1 + 1")() == 2 and load("return ...", "chunk", "t", {})(5) == 5)
local env = {}
load("x = 3", "chunk", "t", env)()
assert(env.x == 3 and x == nil, "load with an environment")
assert(math.floor(2.5) == 2 and ("%d"):format(7) == "7" and table.concat({1, 2}, ",") == "1,2")
assert(utf8.char(228) == "\xc3\xa4" and select("#", pcall(error, "x")) == 2)
local co = coroutine.wrap(function(a) coroutine.yield(a + 1) end)
assert(co(1) == 2)
assert(type(os.clock()) == "number" and os.time() > 0 and os.date("%Y"):match("^%d%d%d%d$"))
assert(os.difftime(2, 1) == 1)
io.write("written ", 1, " ", 2.5, "\n")
print("printed")
LUA
run allowed --sandbox
[ "$rc" -eq 0 ] || fail "allowed.lua: status $rc: $(cat "$tmp/err")"
grep -q "^written 1 2.5$" "$tmp/out" || fail "io.write: $(cat "$tmp/out")"
grep -q "^printed$" "$tmp/out" || fail "print: $(cat "$tmp/out")"
echo 'os.exit(3)' > "$tmp/exit3.lua"
run exit3 --sandbox
[ "$rc" -eq 3 ] || fail "os.exit(3) under --sandbox: status $rc"

# memory: a table of 1 MiB strings grows past 16 MiB
cat > "$tmp/grow.lua" <<'LUA'
local t = {}
for i = 1, 64 do t[i] = string.rep(string.char(64 + i % 26), 1 << 20) end
print("grew to " .. math.floor(collectgarbage("count") / 1024) .. " MiB")
LUA
run grow --memory-limit 16M
[ "$rc" -eq 1 ] || fail "grow.lua: status $rc with --memory-limit 16M"
# the message names the line where the allocator refused: string.rep on line 2
grep -q "^gpusim: .*grow\.lua:2: memory limit of 16 MiB exceeded (--memory-limit)$" "$tmp/err" ||
  fail "grow.lua message: $(cat "$tmp/err")"
# a table's array part growing on line 3 (a reallocation, not a new block)
printf 'local t = {}\nfor i = 1, 1e9 do\n  t[i] = i\nend\n' > "$tmp/tgrow.lua"
run tgrow --memory-limit 16M
[ "$rc" -eq 1 ] && grep -q "^gpusim: .*tgrow\.lua:3: memory limit of 16 MiB exceeded (--memory-limit)$" "$tmp/err" ||
  fail "tgrow.lua: status $rc: $(cat "$tmp/err")"
# in a coroutine: the line where the main thread resumed it (5)
printf 'local co = coroutine.wrap(function()\n  local s = {}\n  for i = 1, 1e9 do s[#s + 1] = {i} end\nend)\nco()\n' \
  > "$tmp/cogrow.lua"
run cogrow --sandbox --memory-limit 16M
[ "$rc" -eq 1 ] && grep -q "^gpusim: .*cogrow\.lua:5: memory limit of 16 MiB exceeded (--memory-limit)$" "$tmp/err" ||
  fail "cogrow.lua: status $rc: $(cat "$tmp/err")"
# while the script is read, before any of it runs: the script without a line
{ printf 'local s = "'; head -c 20000000 /dev/zero | tr '\0' x; printf '"\n'; } > "$tmp/big.lua"
run big --memory-limit 16M
[ "$rc" -eq 1 ] && grep -q "^gpusim: .*big\.lua: memory limit of 16 MiB exceeded (--memory-limit)$" "$tmp/err" ||
  fail "big.lua: status $rc: $(cat "$tmp/err")"
run grow --sandbox --memory-limit 16M
[ "$rc" -eq 1 ] && grep -q "memory limit of 16 MiB exceeded" "$tmp/err" || fail "grow.lua under --sandbox"
run grow --sandbox
[ "$rc" -eq 0 ] && grep -q "grew to 6[45] MiB" "$tmp/out" || fail "grow.lua with the default 256M: $(cat "$tmp/err" "$tmp/out")"
run grow --memory-limit 80M
[ "$rc" -eq 0 ] || fail "grow.lua with 80M: $(cat "$tmp/err")"
# the cap is Lua's own count (collectgarbage "count"): a script that
# catches the error holds at most 16 MiB, and the strings it kept (1 MiB
# each) plus the two 1 MiB pieces of the next one (string.rep's result and
# the concatenation) came to more than 16 MiB: 13 to 15 strings
cat > "$tmp/catch.lua" <<'LUA'
local t = {}
local ok, err = pcall(function()
  for i = 1, 64 do t[i] = string.rep("x", 1 << 20) .. i end
end)
local bytes = collectgarbage("count") * 1024
assert(not ok and err == "not enough memory", tostring(err))
print(string.format("held %d bytes in %d strings", bytes, #t))
assert(bytes <= 16 * 2^20, bytes)
LUA
run catch --sandbox --memory-limit 16M
[ "$rc" -eq 0 ] || fail "catch.lua: $(cat "$tmp/err")"
grep -q "in 1[345] strings" "$tmp/out" || fail "catch.lua: $(cat "$tmp/out")"

# time: an endless loop, one that swallows the error with pcall, one in a
# coroutine, and an endless QPU program inside gpusim.qpu.run
echo 'while true do end' > "$tmp/loop.lua"
printf 'local n = 0\nwhile true do n = n + 1; pcall(function() while true do end end) end\n' > "$tmp/swallow.lua"
printf 'local co = coroutine.wrap(function()\n  while true do end\nend)\nco()\n' > "$tmp/coloop.lua"
for name in loop swallow coloop; do
  t0=$(now)
  run $name --sandbox --time-limit 1
  t1=$(now)
  [ "$rc" -eq 1 ] || fail "$name: status $rc with --time-limit 1"
  grep -q "^gpusim: .*$name\.lua:[0-9]*: .*time limit of 1 s exceeded (--time-limit)$" "$tmp/err" ||
    fail "$name: message: $(cat "$tmp/err")"
  # at the limit, not before; a few seconds at most even on a loaded machine
  [ $((t1 - t0)) -ge 1 ] && [ $((t1 - t0)) -le 6 ] || fail "$name: stopped after $((t1 - t0)) s"
done
grep -q "coloop\.lua:2: time limit" "$tmp/err" || fail "coloop: the loop's line: $(cat "$tmp/err")"
# until the deadline the main thread runs without a hook (the watchdog
# signals it then); a coroutine gets a count hook of 1000 instructions
cat > "$tmp/hooks.lua" <<'LUA'
assert(debug.gethook() == nil, "the main thread has a hook before the deadline")
local co = coroutine.create(function() end)
local hook, mask, count = debug.gethook(co)
assert(hook == "external hook" and mask == "" and count == 1000, tostring(hook) .. " " .. tostring(count))
local wrapped = coroutine.wrap(function() return select(3, debug.gethook()) end)
assert(wrapped() == 1000, "coroutine.wrap's coroutine has no count hook")
print("hooks ok")
LUA
run hooks --time-limit 60
[ "$rc" -eq 0 ] && grep -q "hooks ok" "$tmp/out" || fail "hooks.lua: $(cat "$tmp/err")"
cat > "$tmp/qpuloop.lua" <<'LUA'
local gpusim = require "gpusim"
local code = gpusim.qpu.load(gpusim.asm("qpu", [[
loop:
    brr -, loop
    nop
    nop
    nop
]]))
gpusim.config{watchdog = 1 << 60}
gpusim.qpu.run{{code = code, uniforms = 0}}
LUA
t0=$(now)
run qpuloop --time-limit 1
t1=$(now)
[ "$rc" -eq 1 ] || fail "qpuloop: status $rc"
grep -q "^gpusim: .*qpuloop\.lua: time limit of 1 s exceeded (--time-limit); the run was ended 2 s later inside gpusim.qpu.run$" \
  "$tmp/err" || fail "qpuloop: message: $(cat "$tmp/err")"
[ $((t1 - t0)) -ge 3 ] && [ $((t1 - t0)) -le 8 ] || fail "qpuloop: stopped after $((t1 - t0)) s"
# a string pattern backtracking inside the string library (C, no Lua
# instructions for the hook to count), and a finalizer that loops (Lua runs
# it without hooks): ended like a simulator call
echo 'print(string.find(("a"):rep(30000), ("a*"):rep(30) .. "b"))' > "$tmp/pattern.lua"
printf 'setmetatable({}, {__gc = function() while true do end end})\ncollectgarbage()\n' > "$tmp/finalizer.lua"
for name in pattern finalizer; do
  t0=$(now)
  run $name --sandbox --time-limit 1
  t1=$(now)
  [ "$rc" -eq 1 ] || fail "$name: status $rc"
  grep -q "^gpusim: .*$name\.lua: time limit of 1 s exceeded (--time-limit); the run was ended 2 s later$" "$tmp/err" ||
    fail "$name: message: $(cat "$tmp/err")"
  [ $((t1 - t0)) -ge 3 ] && [ $((t1 - t0)) -le 8 ] || fail "$name: stopped after $((t1 - t0)) s"
done
# a scene rendering frame after frame: checked at each frame
t0=$(now)
$limit "$gpusim" --headless --sandbox --time-limit 1 --frames 1000000000 "$src/scenes/triangle.lua" > /dev/null 2> "$tmp/err"
rc=$?
t1=$(now)
[ "$rc" -eq 1 ] || fail "endless frames: status $rc"
grep -q "^gpusim: .*triangle\.lua: time limit of 1 s exceeded (--time-limit) in gpusim.render$" "$tmp/err" ||
  fail "endless frames: message: $(cat "$tmp/err")"
[ $((t1 - t0)) -ge 1 ] && [ $((t1 - t0)) -le 6 ] || fail "endless frames: stopped after $((t1 - t0)) s"

# images: from the script's directory and ../assets beside it, nowhere else
mkdir -p "$tmp/course/scenes" "$tmp/course/assets" "$tmp/course/secret"
cp "$src/assets/checker.png" "$tmp/course/assets/checker.png"
cp "$src/assets/checker.png" "$tmp/course/scenes/own.png"
cp "$src/assets/checker.png" "$tmp/course/secret/reference.png"
for f in ../assets/checker.png own.png ../secret/reference.png; do
  echo "local t = require('gpusim').texture{file = '$tmp/course/scenes/$f'}" > "$tmp/course/scenes/tex.lua"
  "$gpusim" --headless --sandbox "$tmp/course/scenes/tex.lua" 2> "$tmp/err"
  rc=$?
  case $f in
    *secret*)
      [ "$rc" -eq 1 ] || fail "texture $f: status $rc under --sandbox"
      grep -q "tex\.lua:1: .*reference.png is outside the directories a script may read images from under --sandbox" \
        "$tmp/err" || fail "texture $f: message: $(cat "$tmp/err")"
      "$gpusim" --headless "$tmp/course/scenes/tex.lua" || fail "texture $f without --sandbox" ;;
    *) [ "$rc" -eq 0 ] || fail "texture $f: $(cat "$tmp/err")" ;;
  esac
done

# every scene renders under --sandbox, the same image as without; -o and
# --dump-cl still work
for scene in "$src"/scenes/*.lua; do
  [ -e "$scene" ] || continue
  name=$(basename "$scene" .lua)
  if ! grep -q "gpusim\.frame" "$scene"; then # a compute program: runs, renders nothing
    (cd "$tmp" && "$gpusim" --headless --sandbox "$scene" > /dev/null 2> "$tmp/err") ||
      fail "$name under --sandbox: $(cat "$tmp/err")"
    continue
  fi
  (cd "$tmp" && "$gpusim" --headless --sandbox -o "$tmp/$name-sb.png" "$scene" > /dev/null 2> "$tmp/err") ||
    fail "$name under --sandbox: $(cat "$tmp/err")"
  (cd "$tmp" && "$gpusim" --headless -o "$tmp/$name.png" "$scene" > /dev/null 2> /dev/null) || fail "$name"
  "$gpusim" diff "$tmp/$name.png" "$tmp/$name-sb.png" > /dev/null || fail "$name: another image under --sandbox"
done
"$gpusim" --headless --sandbox --dump-cl "$tmp/lists.txt" "$src/scenes/triangle.lua" > /dev/null &&
  grep -q "^ *0x[0-9a-f]*" "$tmp/lists.txt" || fail "--dump-cl under --sandbox"

# gpusim test --sandbox runs each case's scene sandboxed: a scene that
# reads a file passes without it and fails with the refusal under it
mkdir "$tmp/grade"
{ echo 'local f = assert(io.open("/dev/null")); f:close()'; cat "$src/scenes/triangle.lua"; } > "$tmp/grade/scene.lua"
"$gpusim" --headless --size 64x48 -o "$tmp/grade/reference.png" "$src/scenes/triangle.lua" ||
  fail "the reference render"
echo 'case {name = "student", scene = "scene.lua", size = "64x48", reference = "reference.png"}' > "$tmp/grade/m.lua"
(cd "$tmp/grade" && "$gpusim" test "$tmp/grade/m.lua" > "$tmp/out" 2>&1) || fail "gpusim test: $(cat "$tmp/out")"
(cd "$tmp/grade" && "$gpusim" test --sandbox "$tmp/grade/m.lua" > "$tmp/out" 2>&1)
[ $? -eq 1 ] || fail "gpusim test --sandbox: status"
grep -q "scene.lua:1: io.open is not available under --sandbox" "$tmp/out" ||
  fail "gpusim test --sandbox: $(cat "$tmp/out")"

# limits: values, and usage errors for bad ones
echo 'print("ok")' > "$tmp/ok.lua"
for v in 16M 1G 256MiB 2048k 1048576; do
  run ok --memory-limit "$v"
  [ "$rc" -eq 0 ] || fail "--memory-limit $v: status $rc: $(cat "$tmp/err")"
done
run ok --time-limit 5 --sandbox
[ "$rc" -eq 0 ] || fail "--time-limit 5: status $rc"
for opt in "--memory-limit 0" "--memory-limit abc" "--memory-limit 16X" "--memory-limit 1000" \
  "--memory-limit -1" "--memory-limit 2T" "--time-limit -1" "--time-limit 0" "--time-limit 1.5" \
  "--time-limit abc" "--time-limit 99999999999"; do
  # shellcheck disable=SC2086
  run ok $opt
  [ "$rc" -eq 2 ] || fail "$opt: status $rc, expected 2"
  grep -q "^gpusim: --[a-z-]*: expected .*got" "$tmp/err" || fail "$opt: message: $(cat "$tmp/err")"
done
"$gpusim" --headless "$tmp/ok.lua" --memory-limit > /dev/null 2>&1 || fail "options after the script are the script's"
"$gpusim" --headless --memory-limit 2> /dev/null
[ $? -eq 2 ] || fail "--memory-limit without a value"
"$gpusim" --help | grep -q -- "--sandbox" || fail "--help does not mention --sandbox"

exit $status
