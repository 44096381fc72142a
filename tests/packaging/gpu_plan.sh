#!/usr/bin/env bash
# The device check's plan (bench/gpu_check.sh --plan) fits the device time:
# each stage one call of at most 300 s, smoke at most 120 s, and a machine's
# start + smoke + tests + tables within 10 minutes (15 in all leaves a rerun).
# Without gpu-carry/ a stage fails at once, saying what to do, in its summary.
set -euo pipefail
root=$1
plan=$(bash "$root/bench/gpu_check.sh" --plan)
echo "$plan"
stages=$(echo "$plan" | awk '$2 ~ /^[0-9]+$/ && $3 == "s" {print $1}' | tr '\n' ' ')
[ "$stages" = "smoke tests tables compare " ] || { echo "FAIL: stages are '$stages'"; exit 1; }
limit() { echo "$plan" | awk -v s="$1" '$1 == s {print $2}'; }
for s in smoke tests tables compare; do
  [ "$(limit "$s")" -le 300 ] || { echo "FAIL: $s exceeds one 300 s call"; exit 1; }
done
[ "$(limit smoke)" -le 120 ] || { echo "FAIL: smoke exceeds 120 s"; exit 1; }
start=$(echo "$plan" | sed -n 's/^start allowance \([0-9]*\) s.*/\1/p')
[ "$start" -ge 60 ] || { echo "FAIL: the start allowance $start s is less than a machine's start"; exit 1; }
total=$((start + $(limit smoke) + $(limit tests) + $(limit tables)))
[ "$total" -le 600 ] || { echo "FAIL: start + smoke + tests + tables = $total s > 600 s"; exit 1; }
# nothing is run by --plan, and an unknown stage is a usage error
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy=$work/tree
mkdir -p "$copy/bench"
cp "$root/bench/gpu_check.sh" "$copy/bench/"
set +e
(cd "$copy" && OUT=$work/out bash bench/gpu_check.sh bogus 2>/dev/null)
[ $? -eq 2 ] || { echo "FAIL: an unknown stage is not exit 2"; exit 1; }
(cd "$copy" && OUT=$work/out bash bench/gpu_check.sh smoke > /dev/null 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] || { echo "FAIL: smoke without gpu-carry/ exited $rc"; exit 1; }
grep -q "no gpu-carry/sslat" "$work/out/summary.md" || { echo "FAIL: the summary does not say what is missing"; exit 1; }
echo "ok: 4 stages, start + smoke + tests + tables = $total s"
