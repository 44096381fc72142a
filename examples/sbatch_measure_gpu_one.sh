#!/bin/bash
# One GPU, one space: an fp32 and an fp16 cuda table, each then checked against
# PyTorch running the same architectures on the same GPU. Submit from the
# repository root (the job starts in the folder sbatch was called from):
#   sbatch examples/sbatch_measure_gpu_one.sh
#   sbatch --export=ALL,SPACE=examples/ofa_mobilenet_v3.json,K=100 examples/sbatch_measure_gpu_one.sh
#   sbatch --export=ALL,PROFILE=1 examples/sbatch_measure_gpu_one.sh     # an nsys profile too
# Results go to results/JOBID/: fp32.sslat, fp16.sslat (+ CSV), fp32_vs_torch.json,
# fp16_vs_torch.json, calculators.txt and, with PROFILE=1, sslat_run.nsys-rep.
#
# Set up once, on a login node (docs/cluster.md, section 2a, has every step):
#   module load cuda/13.0                     # the module names are your site's: `module avail cuda`
#   python3 -m venv ~/venvs/sslat && source ~/venvs/sslat/bin/activate
#   pip install torch nvidia-cudnn-cu13 nvidia-cublas   # PyTorch for --reference torch; cuDNN 9 and cuBLAS
#   CUDNN_HOME=... pip install .              # sslat itself, into the venv's bin/ (2a: oneDNN, architectures)
# A latency table belongs to one GPU model: ask for the same one every time
# (--gres=gpu:a100:1, or --constraint=..., as your site names them).
#SBATCH --job-name=sslat-gpu
#SBATCH --gpus=1
#SBATCH --cpus-per-task=4
#SBATCH --mem=16G
#SBATCH --time=01:00:00
#SBATCH --output=sslat-gpu.%j.log
# Some sites also want a partition (#SBATCH --partition=gpu) or --gres=gpu:1 instead of --gpus=1.

set -euo pipefail
SPACE=${SPACE:-examples/proxylessnas.json}
K=${K:-20}                                   # architectures validate runs (100 or more for firm figures)
VENV=${VENV:-$HOME/venvs/sslat}
OUT=${OUT:-results/${SLURM_JOB_ID:-local}}
mkdir -p "$OUT"

# The driver comes with the GPU node. A module is only needed when the site
# keeps cuDNN there instead of in the venv (then: module load cudnn/9...).
# module load cuda/13.0
# shellcheck disable=SC1091 # the venv is the user's
source "$VENV/bin/activate"

# cuDNN and cuBLAS from pip's wheels (nvidia-cudnn-cu13, nvidia-cublas: torch
# installs them): sslat loads them at run time, from SSLAT_CUDA_LIBRARY_PATH
# (and LD_LIBRARY_PATH, which cuDNN's own sub-libraries are found through).
NV=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null || true)
if [ -n "$NV" ]; then
  for d in "$NV/cudnn/lib" "$NV/cu13/lib" "$NV/cublas/lib"; do
    [ -d "$d" ] && SSLAT_CUDA_LIBRARY_PATH=${SSLAT_CUDA_LIBRARY_PATH:+$SSLAT_CUDA_LIBRARY_PATH:}$d
  done
  export SSLAT_CUDA_LIBRARY_PATH
  export LD_LIBRARY_PATH=${SSLAT_CUDA_LIBRARY_PATH:-}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

echo "== $(date -u '+%F %T UTC') on $(hostname), CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset}"
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv || echo "nvidia-smi failed: no driver or no GPU?"
else
  echo "no nvidia-smi: this is not a GPU node (or the driver is not installed)"
fi
echo "SSLAT_CUDA_LIBRARY_PATH=${SSLAT_CUDA_LIBRARY_PATH:-unset}"

# Fail early, saying why, when the cuda calculator cannot run on this node.
sslat calculators | tee "$OUT/calculators.txt"
if ! grep -qE '^cuda +timed +ms +available' "$OUT/calculators.txt"; then
  echo "FAIL: the cuda calculator cannot run here: $(grep -E '^cuda ' "$OUT/calculators.txt" | sed -E 's/^cuda +timed +ms +no +//')" >&2
  echo "  (docs/cluster.md, 'When sslat calculators says no'; bash bench/gpu_check.sh tests a node in depth)" >&2
  exit 1
fi

# The tables: fp32 NCHW and fp16 NHWC (fp16's default layout). --resume picks a
# requeued or cut job up where its journal ends; the selection cache
# (~/.cache/sslat, or $SSLAT_SELECTION_CACHE) makes the second table of a space faster.
for dtype in fp32 fp16; do
  sslat measure -c cuda "$SPACE" --dtype "$dtype" --resume -o "$OUT/$dtype.sslat" --csv "$OUT/$dtype.csv"
done

# Each table against PyTorch on the same GPU: the fastest, the slowest and K
# architectures across the latency range, each one CUDA graph in the table's
# dtype and layout (MAPE, within ±5 / ±10 %, Kendall's tau with its interval).
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  for dtype in fp32 fp16; do
    sslat validate -c cuda "$SPACE" "$OUT/$dtype.sslat" -k "$K" --reference torch --json > "$OUT/${dtype}_vs_torch.json"
  done
else
  echo "no PyTorch that sees the GPU in $VENV: validation against torch skipped (pip install torch)" >&2
fi

# Optional: where the time goes, in Nsight Systems (docs/nsight.md). A profiled
# run is slower: its table is written apart and is not a measurement to keep.
if [ "${PROFILE:-0}" = 1 ]; then
  # module load nsight-systems               # where nsys is not on PATH
  if command -v nsys > /dev/null; then
    nsys profile -t cuda,nvtx -o "$OUT/sslat_run" --force-overwrite true \
      sslat measure -c cuda "$SPACE" --dtype fp16 --runs 3 -o "$OUT/profiled.sslat"
    nsys stats --report nvtx_sum "$OUT/sslat_run.nsys-rep" > "$OUT/nvtx_sum.txt" || true
    # one clean replay per unit only: add --profile to the measure line and
    # --capture-range=cudaProfilerApi --capture-range-end=repeat to nsys profile
  else
    echo "PROFILE=1 but no nsys on PATH (module load nsight-systems?)" >&2
  fi
fi
echo "== done: $OUT"
