#!/usr/bin/env bash
# The layering checker must fail on a forbidden include, an include without its
# folder and an include circle: each put into a copy of the tree in a temp dir.
set -euo pipefail
python=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails_with() { # what, then the text the checker must print
  local what=$1 expected=$2 out
  if out=$("$python" "$root/scripts/check_layers.py" "$work/tree" 2>&1); then
    echo "FAIL: $what was not reported"; echo "$out"; exit 1
  fi
  grep -qF "$expected" <<<"$out" || { echo "FAIL: $what: expected '$expected' in:"; echo "$out"; exit 1; }
  echo "ok: $what"
}
fresh() { rm -rf "$work/tree"; mkdir "$work/tree"; cp -r "$root"/{engine,host,kernels,cli,docs,include} "$work/tree/"; }

fresh
"$python" "$root/scripts/check_layers.py" "$work/tree" >/dev/null || { echo "FAIL: the clean copy is refused"; exit 1; }
sed -i '1i #include "calc/calculator.h"' "$work/tree/engine/table/merge.c"
fails_with "table including calc" "engine/table/merge.c:1: #include \"calc/calculator.h\": engine/table may not include engine/calc"
fresh
sed -i '1i #include "host/program.h"' "$work/tree/kernels/cuda_plan.c"
fails_with "one backend including the other" "kernels may not include host"
fresh
sed -i '1i #include "graph.h"' "$work/tree/engine/ir/op.c"
fails_with "an include without its folder" "name the folder"
fresh
echo '#include "host/lower.h"' >> "$work/tree/host/program.h"
fails_with "a circle" "include circle between modules"
