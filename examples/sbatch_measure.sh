#!/bin/bash
# A Slurm job array measuring one space in shards (one shard per task), on a
# CPU partition. From the repository root, after the set-up command:
#   sbatch examples/sbatch_measure.sh                       # 8 tasks, cpu table of the OFA space
#   sbatch --array=0-2 --export=ALL,SPACE=examples/fbnet.json,CALCULATOR=mac_thop examples/sbatch_measure.sh
# then the merge, run only when every task succeeded (JOBID: what sbatch printed):
#   sbatch --dependency=afterok:JOBID --kill-on-invalid-dep=yes \
#          --wrap 'build/sslat merge parts/lat.*-of-8.sslat -o lat.sslat'
# GPU partitions: examples/sbatch_measure_gpu.sh. Each task takes shard
# SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT. A
# preempted or cancelled task (SIGTERM) exits 4 and keeps its journal; Slurm
# requeues it (--requeue; or `scontrol requeue JOBID_TASK`) and --resume
# re-uses every unit it finished. SSLAT_ARGS adds options (e.g. "--runs 30").
#SBATCH --job-name=sslat-measure
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --time=02:00:00
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=sslat-measure.%A_%a.log

set -euo pipefail
mkdir -p parts
SPACE=${SPACE:-examples/ofa_mobilenet_v3.json}
CALCULATOR=${CALCULATOR:-cpu}
# one oneDNN thread per CPU Slurm gave the task, so array tasks sharing a node do not compete
threads=()
[ "$CALCULATOR" = cpu ] && threads=(--threads "${SLURM_CPUS_PER_TASK:-1}")
# the part's name carries the shard count, so parts of another run never mix in
part="parts/lat.${SLURM_ARRAY_TASK_ID}-of-${SLURM_ARRAY_TASK_COUNT}.sslat"
# shellcheck disable=SC2086 # SSLAT_ARGS is a list of options
exec build/sslat measure -c "$CALCULATOR" "$SPACE" "${threads[@]}" -o "$part" --resume ${SSLAT_ARGS:-}
