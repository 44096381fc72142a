#!/bin/bash
# The job array of examples/sbatch_measure.sh on a GPU partition: one GPU per
# task, cuda calculator. Slurm's --gpus-per-task makes one GPU visible to each
# task (CUDA_VISIBLE_DEVICES), so device 0 is the task's own GPU; with several
# tasks per node sslat would otherwise pick LOCAL_RANK / SLURM_LOCALID modulo
# the GPUs it sees. A table belongs to one GPU model: ask for the same one in
# every task (--gres=gpu:a100:1 or --constraint=..., as your site names them).
# One GPU and one space, each table validated against PyTorch:
# examples/sbatch_measure_gpu_one.sh. The array:
#   sbatch examples/sbatch_measure_gpu.sh
#   sbatch --dependency=afterok:JOBID --kill-on-invalid-dep=yes \
#          --wrap 'build/sslat merge parts/lat.*-of-8.sslat -o lat.sslat'
#SBATCH --job-name=sslat-measure-gpu
#SBATCH --array=0-7
#SBATCH --gpus-per-task=1
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=sslat-measure-gpu.%A_%a.log

set -euo pipefail
mkdir -p parts
SPACE=${SPACE:-examples/ofa_mobilenet_v3.json}
part="parts/lat.${SLURM_ARRAY_TASK_ID}-of-${SLURM_ARRAY_TASK_COUNT}.sslat"
# shellcheck disable=SC2086 # SSLAT_ARGS is a list of options
exec build/sslat measure -c cuda "$SPACE" -o "$part" --resume ${SSLAT_ARGS:-}
