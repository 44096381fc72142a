#!/bin/bash
# A Slurm job array measuring one space in 8 shards, then merging them.
#   sbatch examples/sbatch_measure.sh            (the array)
#   sbatch --dependency=afterok:JOBID --wrap 'build/sslat merge parts/lat.*.sslat -o lat.sslat'
# Each task reads its shard from SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT;
# a preempted task (SIGTERM) keeps its journal and is resumed by requeueing
# with --resume, which re-uses every finished unit.
#SBATCH --job-name=sslat-measure
#SBATCH --array=0-7
#SBATCH --gpus-per-task=1
#SBATCH --cpus-per-task=8
#SBATCH --time=02:00:00
#SBATCH --requeue
#SBATCH --output=parts/%x.%a.log

set -euo pipefail
mkdir -p parts
SPACE=${SPACE:-examples/ofa_mobilenet_v3.json}
CALCULATOR=${CALCULATOR:-cpu}   # cuda once the CUDA calculator lands
build/sslat measure -c "$CALCULATOR" "$SPACE" -o "parts/lat.${SLURM_ARRAY_TASK_ID}.sslat" --resume
