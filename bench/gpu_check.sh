#!/usr/bin/env bash
# The device check, in stages that each fit one call of the device tool, run
# in the repository root on the GPU machine with gpu-carry/ (bench/gpu_build.sh)
# carried:
#   bash bench/gpu_check.sh --plan          the stages, their limits, what each returns (runs nothing)
#   bash bench/gpu_check.sh STAGE           run(command="bash bench/gpu_check.sh smoke", carry=["gpu-carry"], timeout_s=LIMIT+30)
# Each stage appends to $OUT/summary.md line by line (a killed stage still says
# how far it got) and packs its logs into $OUT/STAGE.tar.gz after every step:
# two files come back. Tables it makes are kept in gpu-results/ (git-ignored)
# for the later stages of a warm machine; a stage that finds none makes them.
set -uo pipefail
cd "$(dirname "$0")/.."

# stage | limit (s) | what it returns
PLAN=(
  "smoke|90|nvidia-smi, the CUDA libraries found and loaded (paths), sslat calculators (a visible GPU with an unavailable cuda calculator fails the stage), four op cases x every dtype/layout, one capture/replay case, one small table"
  "tests|180|every GPU test (sslat_gpu_tests, SSLAT_REQUIRE_CUDA=1: nothing skips), in two timed runs"
  "tables|180|ProxylessNAS and OFA at batch 1 and 64 in fp32 and fp16 with wall times; OFA b1 fp32 twice: the two-run spread of entries >= 20 us"
  "compare|300|validation of OFA b1 fp32 and fp16 (self, PyTorch CUDA end to end, ONNX Runtime if its CUDA provider is there) and the fair per-op ratio to PyTorch"
)
# A machine's start (1-2 min) + smoke + tests + tables must fit in 10 minutes
# of device time, leaving room for a rerun (tests/packaging/gpu_plan.sh checks it).
START_ALLOWANCE=120

plan() {
  echo "stage    limit  returns"
  local total=$START_ALLOWANCE entry name limit what
  for entry in "${PLAN[@]}"; do
    IFS='|' read -r name limit what <<< "$entry"
    printf '%-8s %4d s  %s\n' "$name" "$limit" "$what"
    [ "$name" = compare ] || total=$((total + limit))
  done
  echo "start allowance ${START_ALLOWANCE} s; start + smoke + tests + tables = ${total} s of device time"
  echo "files back per stage: \$OUT/summary.md and \$OUT/<stage>.tar.gz"
}

stage=${1:-}
if [ "$stage" = "--plan" ]; then plan; exit 0; fi
limit=
for entry in "${PLAN[@]}"; do
  IFS='|' read -r name stage_limit _ <<< "$entry"
  [ "$name" = "$stage" ] && limit=$stage_limit
done
if [ -z "$limit" ]; then
  echo "usage: bash bench/gpu_check.sh --plan | smoke | tests | tables | compare" >&2
  exit 2
fi

OUT=${OUT:-/tmp/gpu_check_out}
mkdir -p "$OUT"
LOGS=/tmp/gpu_check/$stage
RESULTS=$PWD/gpu-results
mkdir -p "$LOGS" "$RESULTS"
BIN=$PWD/gpu-carry
started=$(date +%s)
deadline=$((started + limit - 10))
summary() { echo "$*" | tee -a "$OUT/summary.md"; }
pack() { tar czf "$OUT/$stage.tar.gz" -C "$LOGS" . 2>/dev/null; }
left() { echo $((deadline - $(date +%s))); }
# run NAME SECONDS COMMAND…: at most SECONDS, and never past the stage's deadline
run() {
  local name=$1 seconds=$2
  shift 2
  local remaining
  remaining=$(left)
  [ "$remaining" -lt "$seconds" ] && seconds=$remaining
  if [ "$seconds" -le 0 ]; then
    summary "- $name: not run (the stage's $limit s are spent)"
    return 124
  fi
  local t0 rc
  t0=$(date +%s.%N)
  timeout "$seconds" "$@" > "$LOGS/$name.log" 2>&1
  rc=$?
  elapsed=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)")
  pack
  return $rc
}

{
  echo
  echo "## bench/gpu_check.sh $stage, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo
} | tee -a "$OUT/summary.md"

if [ ! -x "$BIN/sslat" ]; then
  summary "FAIL: no gpu-carry/sslat: run bash bench/gpu_build.sh here first and carry gpu-carry"
  exit 2
fi

# The CUDA libraries: the loader's path, pip's wheels (CUDA 13: cuBLAS in
# nvidia/cu13/lib, cuDNN in nvidia/cudnn/lib), the toolkit.
NV=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null || true)
folders=
for d in ${NV:+"$NV/cudnn/lib" "$NV/cu13/lib" "$NV/cublas/lib" "$NV/cuda_runtime/lib" "$NV/cuda_nvrtc/lib"} \
         /usr/local/cuda/lib64 /usr/local/nvidia/lib64; do
  [ -d "$d" ] && folders=${folders:+$folders:}$d
done
export SSLAT_CUDA_LIBRARY_PATH=$folders
export LD_LIBRARY_PATH="$BIN${folders:+:$folders}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SSLAT_EXAMPLES_DIR=$PWD/examples PYTHONUNBUFFERED=1 SSLAT_REQUIRE_CUDA=1 SSLAT_PYTHON=python3

gpu_visible() { nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }

# Whether the cuda calculator runs here; fails the stage loudly when a GPU is
# visible but it does not (every GPU test would skip: a green run that checked nothing).
require_cuda() {
  "$BIN/sslat" calculators > "$LOGS/calculators.log" 2>&1
  local line
  line=$(grep -E '^cuda ' "$LOGS/calculators.log" | head -1)
  summary "- sslat calculators: ${line:-no cuda line}"
  if ! echo "$line" | grep -qE '^cuda +timed +ms +available'; then
    if gpu_visible; then
      summary "FAIL: a GPU is visible but the cuda calculator cannot run (see calculators.log, libraries.log)"
      pack
      exit 1
    fi
  fi
}

table() { # NAME SPACE BATCH DTYPE [extra…]
  local name=$1 space=$2 batch=$3 dtype=$4
  shift 4
  run "table_$name" 25 "$BIN/sslat" measure -c cuda "examples/$space.json" --batch "$batch" --dtype "$dtype" \
    -o "$RESULTS/$name.sslat" --csv "$RESULTS/$name.csv" "$@"
  local rc=$?
  if [ $rc -eq 0 ]; then summary "- table $name: ${elapsed} s wall"
  else summary "- table $name: FAILED (rc $rc; $(tail -n 1 "$LOGS/table_$name.log"))"; fi
  return $rc
}

case "$stage" in
smoke)
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$LOGS/nvidia-smi.log" 2>&1
  summary "- GPU: $(tail -n 1 "$LOGS/nvidia-smi.log")"
  { echo "SSLAT_CUDA_LIBRARY_PATH=$SSLAT_CUDA_LIBRARY_PATH"; ldconfig -p | grep -E 'cudnn|cublas' || true
    for d in ${folders//:/ }; do ls "$d" 2>/dev/null | grep -E 'libcudnn.so|libcublas' | sed "s|^|$d/|"; done; } > "$LOGS/libraries.log"
  summary "- libraries: $(grep -cE 'libcudnn.so|libcublas' "$LOGS/libraries.log") candidate files in $(echo "$folders" | tr ':' ' ')"
  require_cuda
  run gpu_ops 45 "$BIN/sslat_gpu_tests" --gtest_brief=1 \
    --gtest_filter='GpuFill*:*GpuOps.MatchesTheReference*/0_*:*GpuOps.MatchesTheReference*/25_*:*GpuOps.MatchesTheReference*/30_*:*GpuOps.MatchesTheReference*/33_*:*GpuOps.Measured*/7_*'
  summary "- op cases (conv, fc10 NHWC walk-back, MBConv residual, SE; fp32/tf32/fp16/bf16, NCHW/NHWC, eager/fused; capture/replay): rc $?, $(grep -E '^\[  (PASSED|FAILED)' "$LOGS/gpu_ops.log" | tr '\n' ' ')"
  table proxyless_b1_fp16 proxylessnas 1 fp16
  "$BIN/sslat" export "$RESULTS/proxyless_b1_fp16.sslat" --json > "$LOGS/proxyless_b1_fp16.json" 2>&1 &&
    python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['metadata']; [print('- %s: %s' % (k, m[k])) for k in sorted(m) if k.startswith(('software.', 'cuda.find', 'cuda.blocking', 'cuda.fused', 'cuda.relaxed', 'quality.'))]" \
      "$LOGS/proxyless_b1_fp16.json" | tee -a "$OUT/summary.md"
  ;;
tests)
  require_cuda
  run gpu_tests_ops 110 "$BIN/sslat_gpu_tests" --gtest_brief=1 --gtest_filter='*GpuOps*'
  summary "- GpuOps (every op case, every dtype/layout/mode, capture/replay): rc $?, ${elapsed} s, $(grep -E '^\[  (PASSED|FAILED)' "$LOGS/gpu_tests_ops.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED' "$LOGS/gpu_tests_ops.log" | head -n 12 | sed 's/^/    /' | tee -a "$OUT/summary.md"
  run gpu_tests_rest 60 "$BIN/sslat_gpu_tests" --gtest_brief=1 --gtest_filter='-*GpuOps*'
  summary "- the other GPU tests: rc $?, ${elapsed} s, $(grep -E '^\[  (PASSED|FAILED)' "$LOGS/gpu_tests_rest.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED' "$LOGS/gpu_tests_rest.log" | head -n 12 | sed 's/^/    /' | tee -a "$OUT/summary.md"
  ;;
tables)
  require_cuda
  for space in proxylessnas ofa_mobilenet_v3; do
    for batch in 1 64; do
      for dtype in fp32 fp16; do table "${space}_b${batch}_${dtype}" "$space" "$batch" "$dtype"; done
    done
  done
  table ofa_again ofa_mobilenet_v3 1 fp32
  summary "- two runs of OFA b1 fp32, entries >= 20 us: $(python3 bench/gpu_compare.py spread "$RESULTS/ofa_mobilenet_v3_b1_fp32.csv" "$RESULTS/ofa_again.csv" 2>&1)"
  ;;
compare)
  require_cuda
  for dtype in fp32 fp16; do
    [ -f "$RESULTS/ofa_mobilenet_v3_b1_$dtype.sslat" ] || table "ofa_mobilenet_v3_b1_$dtype" ofa_mobilenet_v3 1 "$dtype"
    for reference in sslat torch onnxruntime; do
      run "validate_${dtype}_$reference" 60 sh -c "\"\$0\" validate -c cuda examples/ofa_mobilenet_v3.json \"\$1\" -k 20 --reference $reference --json > \"\$2\"" \
        "$BIN/sslat" "$RESULTS/ofa_mobilenet_v3_b1_$dtype.sslat" "$LOGS/validate_${dtype}_$reference.json"
      rc=$?
      if [ $rc -eq 0 ]; then
        summary "- validation OFA b1 $dtype against $reference: $(python3 bench/gpu_compare.py validation "$LOGS/validate_${dtype}_$reference.json" 2>&1)"
      else
        summary "- validation OFA b1 $dtype against $reference: rc $rc ($(tail -n 1 "$LOGS/validate_${dtype}_$reference.log"))"
      fi
    done
  done
  for dtype in fp32 fp16; do
    "$BIN/sslat" show --ir examples/ofa_mobilenet_v3.json > "$LOGS/ir_b1.json"
    run "torch_$dtype" 60 python3 bench/torch_ops.py "$LOGS/ir_b1.json" --dtype "$dtype" -o "$LOGS/torch_$dtype.csv"
    summary "- ours / PyTorch per op, OFA b1 $dtype (fair: per-copy weights, BN folded, the same layout): $(python3 bench/gpu_compare.py torch "$RESULTS/ofa_mobilenet_v3_b1_$dtype.csv" "$LOGS/torch_$dtype.csv" 2>&1 | tail -n 1)"
  done
  ;;
esac
summary "- stage $stage: $(($(date +%s) - started)) s of its $limit s"
pack
