#!/usr/bin/env bash
# The device check (bench/gpu_check.sh) on stub binaries, in a private copy of
# the tree: it says what is missing without gpu-carry/, stops at the probe when
# the cuda calculator cannot run, writes every table with --resume (a table cut
# by its timeout continues instead of being refused), kills a step that ignores
# SIGTERM within its limit, never runs past its budget (later steps say they
# were skipped), and brings back 3 files.
set -euo pipefail
root=$1
# the defaults of the script, whatever the caller set
unset START_S TRANSFER_S SESSION_S SSLAT_PYTHON
work=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
copy=$work/tree
mkdir -p "$copy/bench" "$copy/examples"
cp "$root/bench/gpu_check.sh" "$root/bench/gpu_compare.py" "$copy/bench/"
fail() { echo "FAIL: $*"; exit 1; }
check() { # NAME STEPS BUDGET: run the check, output in $work/NAME
  rm -rf "$work/$1" "$work/scratch"
  (cd "$copy" && OUT=$work/$1 GPU_CHECK_WORK=$work/scratch STEPS=$2 BUDGET=$3 timeout 120 bash bench/gpu_check.sh > /dev/null 2>&1)
}

# without gpu-carry/: exit 2 and the summary says what to do
set +e
check none "probe" 30
rc=$?
set -e
[ $rc -eq 2 ] || fail "without gpu-carry/ the check exited $rc"
grep -q "run bash bench/gpu_build.sh" "$work/none/summary.md" || fail "the summary does not say what is missing"

# stubs: sslat logs its arguments; `measure` leaves a journal, ignores SIGTERM
# for a while (as sslat finishes the unit in flight) unless STUB_FAST is set
mkdir -p "$copy/gpu-carry"
cat > "$copy/gpu-carry/sslat" << 'EOF'
#!/usr/bin/env bash
echo "$*" >> "$STUB_LOG"
case "$1" in
calculators) echo "cuda          timed     ms    ${STUB_CUDA:-available}  stub" ;;
measure)
  csv=
  for a in "$@"; do case "$prev" in -o) out=$a ;; --csv) csv=$a ;; esac; prev=$a; done
  : > "$out.journal"
  # a table (--resume) takes a while and finishes its unit on SIGTERM; the probe's one convolution is quick
  if [ -z "${STUB_FAST:-}" ] && [[ "$*" == *--resume* ]]; then trap '' TERM; sleep 30; fi
  [ -z "$csv" ] || printf 'block,block_name,candidate,label,value\n0,b,0,c,0.5\n' > "$csv"
  echo table > "$out"; rm -f "$out.journal" ;;
export) echo '{"metadata": {"device.name": "stub", "cuda.plan.b:c": "x | conv 0: GEMM, ws 0 B, fma",
  "cuda.plan.b:d": "y | conv 0: graph eng3_k0=1, ws 0 B, notes none, rank 2 of 3 timed (0.1 ms; the first 0.2 ms)",
  "cuda.graph": "1 distinct convolutions on graph-API plans", "cuda.time.wall": "1.0 s"}}' ;;
esac
EOF
cat > "$copy/gpu-carry/sslat_gpu_tests" << 'EOF'
#!/usr/bin/env bash
# the op cases fail one test when STUB_OPS_FAIL is set (gtest's own lines)
echo "sslat_gpu_tests $*" >> "$STUB_LOG"
if [ -n "${STUB_OPS_FAIL:-}" ] && [[ "$*" == *MatchesTheReference* ]]; then
  echo "[  PASSED  ] 2 tests."
  echo "[  FAILED  ] 1 test, listed below:"
  echo "[  FAILED  ] EveryCase/GpuOps.MatchesTheReference/7_conv_k5, where GetParam() = layers \"conv_k5\" (12 ms)"
  exit 1
fi
echo "[  PASSED  ] 3 tests."
EOF
chmod +x "$copy/gpu-carry/sslat" "$copy/gpu-carry/sslat_gpu_tests"
export STUB_LOG=$work/calls.log

# the cuda calculator unavailable: exit 1 at the probe, nothing else run
set +e
STUB_CUDA=no check unavailable "probe ops table_px" 30
rc=$?
set -e
[ $rc -eq 1 ] || fail "an unavailable cuda calculator exited $rc"
grep -q "cannot run here" "$work/unavailable/summary.md" || fail "the probe's failure is not in the summary"
! grep -q "^- ops" "$work/unavailable/summary.md" || fail "steps ran after a failed probe"

# a table that ignores SIGTERM is killed within its limit (75 s cut by a 20 s
# budget, + 5 s for -k), keeps its journal, and the next steps are skipped
: > "$STUB_LOG"
start=$(date +%s)
STUB_OPS_FAIL=1 check slow "probe ops table_px ops_rest capture fill table_ofa" 20
took=$(($(date +%s) - start))
[ $took -le 40 ] || fail "a 20 s budget took $took s"
grep -q -- "--resume --keep-going" "$STUB_LOG" || fail "tables are written without --resume --keep-going"
grep -q "^- px_b1_fp16: rc 1[23][47]" "$work/slow/summary.md" || fail "the cut table's status is not in the summary"
grep -q "^- ofa_b1_fp32: skipped, no time left" "$work/slow/summary.md" || fail "a step past the budget was not skipped"
[ -f "$copy/gpu-results/px_b1_fp16.sslat.journal" ] || fail "the cut table left no journal"

# the next call resumes it: --resume again, the table written, its metadata summarised
: > "$STUB_LOG"
STUB_FAST=1 check resumed "table_px" 60
grep -q "measure .*--resume --keep-going --selection-cache .*/selection -o .*px_b1_fp16.sslat" "$STUB_LOG" ||
  fail "the retry does not resume (with the run's selection cache)"
[ -f "$copy/gpu-results/px_b1_fp16.sslat" ] || fail "the resumed table was not written"
grep -q "conv choices: .*GEMM 1" "$work/resumed/summary.md" || fail "the table's plan is not summarised"
grep -q "graph winners by rank among the timed: 2 of 3 1" "$work/resumed/summary.md" ||
  fail "the graph API's census is not summarised: $(cat "$work/resumed/summary.md")"
grep -q "cuda.time.wall: 1.0 s" "$work/resumed/summary.md" || fail "the phase timers are not summarised"
# the graph-API tables ask for it, under their own names
: > "$STUB_LOG"
STUB_FAST=1 check graph "probe table_px_graph table_ofa_graph" 60
grep -q "measure .*proxylessnas.* --cuda-api graph" "$STUB_LOG" || fail "the graph table is not measured on the graph API"
grep -q "measure .*ofa_mobilenet_v3.*-o .*ofa_b1_fp32_graph.sslat.* --cuda-api graph" "$STUB_LOG" ||
  fail "the OFA graph table: $(cat "$STUB_LOG")"
grep -q "measure .*one.json --cuda-api graph" "$STUB_LOG" || fail "the probe does not try the graph API"
files=$(find "$work/resumed" -type f | wc -l)
[ "$files" -eq 3 ] || fail "$files files come back, not 3"

# --plan: every step in order with its limit, and the time of both runs (two
# starts, two runs, two transfers) within SESSION_S (840 s by default); a
# budget that does not fit is refused, and so is a shorter SESSION_S
plan=$(cd "$copy" && bash bench/gpu_check.sh --plan) || fail "--plan failed: $plan"
order=$(sed -nE 's/^  ([a-z0-9_]+) +[0-9]+s.*/\1/p' <<< "$plan" | tr '\n' ' ')
[ "$order" = "probe ops table_px_graph table_px torch_ops kernels table_px_fp32_graph torch_ops_fp32 table_ofa_graph table_ofa_graph_warm validate_px_graph_torch calibrated_px_torch table_af validate_af_torch ops_rest capture fill table_ofa errors memcheck nvtx calibrated_px_compile " ] ||
  fail "--plan lists the steps as: $order"
total=$(sed -nE 's/^device time: .* = ([0-9]+) s of 840 s$/\1/p' <<< "$plan")
{ [ -n "$total" ] && [ "$total" -le 840 ]; } || fail "--plan's device time is not within 840 s: $plan"
if (cd "$copy" && BUDGET=600 bash bench/gpu_check.sh --plan > "$work/over.txt"); then fail "a 600 s call was planned"; fi
grep -q "^OVER" "$work/over.txt" || fail "an over-budget plan does not say so"
if (cd "$copy" && SESSION_S=600 bash bench/gpu_check.sh --plan > "$work/short.txt"); then fail "a plan past SESSION_S=600 was accepted"; fi
grep -q " of 600 s$" "$work/short.txt" || fail "--plan does not take SESSION_S: $(cat "$work/short.txt")"

# --retry from the first call's own summary (the "slow" one: ops failed one
# test, the ProxylessNAS table was cut, OFA, ops_rest, capture and fill were
# skipped): those, the failed test as the ops filter, all cases for ops_rest
: > "$STUB_LOG"
rm -rf "$work/retry"
(cd "$copy" && OUT=$work/retry GPU_CHECK_WORK=$work/scratch STUB_FAST=1 timeout 120 bash bench/gpu_check.sh --retry "$work/slow/summary.md" > "$work/retry.txt" 2>&1) ||
  fail "the retry failed: $(cat "$work/retry.txt")"
grep -q "gtest_filter=EveryCase/GpuOps.MatchesTheReference/7_conv_k5 .*ops.xml" "$STUB_LOG" || fail "the retry does not run only the failed op test: $(cat "$STUB_LOG")"
grep -q "gtest_filter=\*MatchesTheReference\* .*ops_rest.xml" "$STUB_LOG" || fail "the skipped ops_rest does not run every case: $(cat "$STUB_LOG")"
grep -q "Measured" "$STUB_LOG" || fail "the skipped capture step does not run: $(cat "$STUB_LOG")"
grep -q "measure .*proxylessnas.*--resume --keep-going" "$STUB_LOG" || fail "the retry does not resume the cut table"
grep -q "measure .*ofa_mobilenet_v3.*--resume --keep-going" "$STUB_LOG" || fail "the retry does not run the skipped table"
grep -q "budget 240 s" "$work/retry/summary.md" || fail "the retry does not keep to its 240 s"

# a first call whose steps passed: its retry runs the probe (a new machine) and nothing else
: > "$STUB_LOG"
STUB_FAST=1 check passed "probe ops table_px capture" 60
: > "$STUB_LOG"
(cd "$copy" && OUT=$work/retry4 GPU_CHECK_WORK=$work/scratch STUB_FAST=1 timeout 120 bash bench/gpu_check.sh --retry "$work/passed/summary.md" > "$work/retry4.txt" 2>&1) ||
  fail "the retry of a passed call failed: $(cat "$work/retry4.txt")"
! grep -qE "ops.xml|Measured|--resume" "$STUB_LOG" || fail "the retry ran steps that passed: $(cat "$STUB_LOG")"
grep -q "steps: probe$" "$work/retry4/summary.md" || fail "the retry of a passed call: $(head -n 3 "$work/retry4/summary.md")"

# a retry without its first summary: a clear error, nothing run
: > "$STUB_LOG"
set +e
retry_out=$(cd "$copy" && OUT=$work/retry3 GPU_CHECK_WORK=$work/scratch bash bench/gpu_check.sh --retry "$work/no-such.md" 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] || fail "a retry of a missing summary exited $rc"
grep -q "no summary $work/no-such.md" <<< "$retry_out" || fail "a retry of a missing summary says: $retry_out"
[ ! -s "$STUB_LOG" ] || fail "a retry of a missing summary ran something"

# a first call whose probe found no cuda calculator: the retry runs every step
: > "$STUB_LOG"
(cd "$copy" && OUT=$work/retry2 GPU_CHECK_WORK=$work/scratch STUB_FAST=1 timeout 120 bash bench/gpu_check.sh --retry "$work/unavailable/summary.md" > "$work/retry2.txt" 2>&1) ||
  fail "the retry after a failed probe failed: $(cat "$work/retry2.txt")"
grep -q "steps: $(sed -nE 's/^ALL_STEPS="(.*)"$/\1/p' "$copy/bench/gpu_check.sh")$" "$work/retry2/summary.md" || fail "a failed probe is not retried with every step: $(head -n 3 "$work/retry2/summary.md")"
echo "ok: missing carry, failed probe, a cut table resumed, budget kept ($took s of 20 + kill), graph tables on the graph API, 3 files back, --plan within 840 s, --retry of what did not finish"
