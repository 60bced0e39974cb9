#!/bin/sh
# scenes.sh GPUSIM SOURCE_DIR — every scene under scenes/ runs headless from
# the source tree and exits 0 (the scenes check their own results).
set -u
gpusim=$1
src=$2
cd "$src" || exit 1
status=0
for scene in scenes/*.lua; do
  [ -e "$scene" ] || continue
  if ! "$gpusim" --headless "$scene" > /dev/null; then
    echo "FAIL: $scene" >&2
    status=1
  fi
done
exit $status
