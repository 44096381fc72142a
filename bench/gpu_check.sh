#!/usr/bin/env bash
# The GPU check, on the H200 machine, in the repository root, with gpu-carry/
# from bench/gpu_build.sh carried:
#   run(command="bash bench/gpu_check.sh", carry=["gpu-carry"], timeout_s=540)
# 1. the GPU tests; 2. cuda tables of ProxylessNAS and OFA at batch 1 and 64, fp32
# and fp16, with the wall time of each; 3. OFA batch 1 fp32 again: the two-run
# spread of entries >= 20 us; 4. validation of OFA batch 1 (fp32, fp16); 5. the
# same ops in PyTorch (channels_last, cudnn.benchmark, CUDA graphs) and the
# ratio ours / PyTorch per op. Prints a table; everything lands in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
BIN=$PWD/gpu-carry
if [ ! -x "$BIN/sslat" ]; then
  echo "gpu_check: no gpu-carry/sslat: run bash bench/gpu_build.sh here first and carry gpu-carry" >&2
  exit 2
fi
NV=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null || true)
export LD_LIBRARY_PATH="$BIN:${NV:+$NV/cudnn/lib:$NV/cublas/lib:}${LD_LIBRARY_PATH:-}"
export SSLAT_EXAMPLES_DIR=$PWD/examples PYTHONUNBUFFERED=1
started=$(date +%s)
log() { echo "[$(($(date +%s) - started)) s] $*" | tee -a "$OUT/progress.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/nvidia-smi.txt" 2>&1
"$BIN/sslat" calculators > "$OUT/calculators.txt" 2>&1
log "calculators: $(grep '^cuda' "$OUT/calculators.txt")"

# 1. GPU tests
timeout 150 "$BIN/sslat_gpu_tests" --gtest_brief=1 > "$OUT/gpu_tests.txt" 2>&1
tests_rc=$?
log "gpu tests: rc $tests_rc, $(grep -E '^\[  (PASSED|FAILED)' "$OUT/gpu_tests.txt" | tr '\n' ' ')"

# 2. tables, with their wall time
declare -A wall
for space in proxylessnas ofa_mobilenet_v3; do
  for batch in 1 64; do
    for dtype in fp32 fp16; do
      name=${space}_b${batch}_${dtype}
      t0=$(date +%s.%N)
      timeout 60 "$BIN/sslat" measure -c cuda "examples/$space.json" --batch "$batch" --dtype "$dtype" \
        -o "$OUT/$name.sslat" --csv "$OUT/$name.csv" 2>> "$OUT/measure.log"
      rc=$?
      wall[$name]=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)")
      [ $rc -eq 0 ] || wall[$name]="failed ($rc)"
      log "table $name: ${wall[$name]} s"
    done
  done
done

# 3. the two-run spread (OFA, batch 1, fp32)
timeout 60 "$BIN/sslat" measure -c cuda examples/ofa_mobilenet_v3.json -o "$OUT/ofa_again.sslat" \
  --csv "$OUT/ofa_again.csv" 2>> "$OUT/measure.log"
spread=$(python3 bench/gpu_compare.py spread "$OUT/ofa_mobilenet_v3_b1_fp32.csv" "$OUT/ofa_again.csv" 2>&1)
log "spread: $spread"

# 4. validation
declare -A valid
for dtype in fp32 fp16; do
  table=$OUT/ofa_mobilenet_v3_b1_$dtype.sslat
  timeout 60 "$BIN/sslat" validate -c cuda examples/ofa_mobilenet_v3.json "$table" -k 20 --json \
    > "$OUT/validation_$dtype.json" 2>> "$OUT/validate.log"
  valid[$dtype]=$(python3 bench/gpu_compare.py validation "$OUT/validation_$dtype.json" 2>&1 | tail -1)
  log "validation $dtype: ${valid[$dtype]}"
done

# 5. PyTorch, the same ops
declare -A ratio
for batch in 1 64; do
  for dtype in fp32 fp16; do
    name=ofa_mobilenet_v3_b${batch}_${dtype}
    "$BIN/sslat" show --ir examples/ofa_mobilenet_v3.json --batch "$batch" > "$OUT/ir_b$batch.json"
    timeout 90 python3 bench/torch_ops.py "$OUT/ir_b$batch.json" --dtype "$dtype" -o "$OUT/torch_$name.csv" \
      2>> "$OUT/torch.log"
    ratio[$name]=$(python3 bench/gpu_compare.py torch "$OUT/$name.csv" "$OUT/torch_$name.csv" 2>&1 | tail -1)
    log "torch $name: ${ratio[$name]}"
  done
done

{
  echo "## bench/gpu_check.sh on $(head -2 "$OUT/nvidia-smi.txt" | tail -1)"
  echo
  echo "GPU tests: rc $tests_rc ($(grep -E '^\[  (PASSED|FAILED)' "$OUT/gpu_tests.txt" | tr '\n' ' '))"
  echo
  echo "| table | wall s |"
  echo "|---|---|"
  for name in "${!wall[@]}"; do echo "| $name | ${wall[$name]} |"; done | sort
  echo
  echo "two runs of OFA b1 fp32, entries >= 20 us: $spread"
  echo
  for dtype in fp32 fp16; do echo "validation OFA b1 $dtype: ${valid[$dtype]}"; done
  echo
  echo "| ours / PyTorch per op | |"
  echo "|---|---|"
  for name in "${!ratio[@]}"; do echo "| $name | ${ratio[$name]} |"; done | sort
  echo
  echo "total $(($(date +%s) - started)) s"
} | tee "$OUT/summary.md"
