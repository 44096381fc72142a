#!/bin/bash
# The cluster path on a real single-node Slurm (tests/slurm/harness.sh):
#   1. the example array as documented + a dependent merge = the unsharded table
#   2. preemption: SIGTERM mid-run, exit 4 with the journal, requeue, --resume
#   3. MPI ranks inside an allocation = one process
#   4. a failed task: the documented afterok merge never runs; an afterany merge
#      refuses, naming the missing shard
# Each case works in its own folder of the scratch directory, which holds links
# to the build and the examples (a checkout as a user has it).
# Usage: slurm_jobs.sh REPO BUILD [CASE...]. Exit 77 (ctest: skipped) when no
# Slurm can be started here.
set -uo pipefail
repo=$1 build=$2
shift 2
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(array preemption mpi failed_task gpu_one)

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
source "$here/harness.sh"
scratch=$(mktemp -d)
trap 'slurm_stop; rm -rf "$scratch"' EXIT
slurm_start "$scratch/slurm" || exit $?

fail() {
  echo "FAIL: $*"
  for log in ./*.log; do [ -f "$log" ] && { echo "--- $log"; tail -15 "$log"; }; done
  echo "--- slurmctld.log"; tail -15 "$SLURM_DIR/slurmctld.log"
  exit 1
}

# A folder that looks like a checkout: build/ and examples/ (links), nothing else.
checkout() {
  mkdir -p "$scratch/$1"
  ln -s "$build" "$scratch/$1/build"
  ln -s "$repo/examples" "$scratch/$1/examples"
  cd "$scratch/$1" || exit 1
}

# Two tables hold the same entries (CSV: every block × candidate, all figures).
same_entries() {
  cmp -s <(build/sslat export "$1" --csv) <(build/sslat export "$2" --csv)
}

case_array() {
  checkout array
  local jid mid
  jid=$(sbatch --parsable --array=0-2 --export=ALL,SPACE=examples/fbnet.json,CALCULATOR=mac_thop \
    examples/sbatch_measure.sh) || fail "sbatch of examples/sbatch_measure.sh refused"
  mid=$(sbatch --parsable --dependency="afterok:$jid" --kill-on-invalid-dep=yes --output=merge.log \
    --wrap 'build/sslat merge parts/lat.*-of-3.sslat -o fbnet.sslat') || fail "sbatch of the merge refused"
  slurm_wait_job "$jid" 120 COMPLETED || fail "the array did not complete"
  slurm_wait_job "$mid" 60 COMPLETED || fail "the dependent merge did not complete"
  build/sslat measure -c mac_thop examples/fbnet.json -o whole.sslat 2>/dev/null || fail "unsharded run"
  same_entries fbnet.sslat whole.sslat || fail "the merged table differs from the unsharded one"
  echo "ok array: 3 tasks + afterok merge = the unsharded mac_thop table of FBNet"
}

# Units in a journal (168-byte records after the 24-byte header; the unit hash at
# bytes 16..23 of a record): "records distinct".
journal_units() {
  python3 - "$1" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()[24:]
units = [data[i + 16:i + 24] for i in range(0, len(data) - len(data) % 168, 168)]
print(len(units), len(set(units)))
EOF
}

case_preemption() {
  checkout preemption
  local jid task journal
  jid=$(sbatch --parsable --array=0-2 \
    "--export=ALL,SPACE=examples/mobilenet_v2_space.json,CALCULATOR=cpu,SSLAT_ARGS=--adaptive 0.0001 --max-seconds 0.6 --keep-journal" \
    examples/sbatch_measure.sh) || fail "sbatch refused"
  task="${jid}_0"
  journal=parts/lat.0-of-3.sslat.journal
  # mid-run: the task runs and its journal holds at least one synced record
  local deadline=$((SECONDS + 120))
  until [ "$(slurm_state "$task")" = RUNNING ] && [ -f "$journal" ] && [ "$(stat -c %s "$journal")" -gt 24 ]; do
    [ $SECONDS -lt $deadline ] || fail "task $task never ran with a journal"
    sleep 0.1
  done
  # slurmctld may answer "Job can not be altered now, try again later" while it
  # still has the step signalled, and scancel then retries by itself after 5 s:
  # send it in the background until the task stops running
  local tries=0 senders=()
  while [ "$(slurm_state "$task")" = RUNNING ]; do
    tries=$((tries + 1))
    [ $tries -le 10 ] || fail "scancel --signal=TERM $task: the task kept running"
    scancel --signal=TERM --batch "$task" 2>/dev/null &
    senders+=($!)
    for _ in $(seq 30); do [ "$(slurm_state "$task")" = RUNNING ] || break; sleep 0.1; done
  done
  wait "${senders[@]}"
  slurm_wait_job "$task" 60 FAILED COMPLETED || fail "the signalled task did not end"
  [ "$(slurm_state "$task")" = FAILED ] && [ "$(slurm_exit_code "$task")" = 4:0 ] ||
    fail "the signalled task ended $(slurm_state "$task") with $(slurm_exit_code "$task"), not exit 4"
  [ -f "$journal" ] || fail "the signalled task left no journal"
  local before
  before=$(journal_units "$journal")
  scontrol requeue "$task" || fail "scontrol requeue $task"
  # Slurm holds a requeued job back for about two minutes; a test need not wait
  scontrol update JobId="$task" StartTime=now || fail "scontrol update StartTime=now"
  slurm_wait_job "$jid" 180 COMPLETED || fail "the requeued array did not complete"
  build/sslat merge parts/lat.*-of-3.sslat -o merged.sslat || fail "merge after the requeue"
  build/sslat stats merged.sslat >/dev/null || fail "the merged table is not whole"
  local after records distinct
  after=$(journal_units "$journal")
  read -r records distinct <<<"$after"
  [ "$records" = "$distinct" ] || fail "the journal holds $records records of $distinct units: some twice"
  [ "${before%% *}" -lt "$records" ] || fail "the resumed run added nothing ($before → $after)"
  grep -q "resum" sslat-measure."${jid}"_0.log || fail "the requeued task's log does not say it resumed"
  echo "ok preemption: exit 4 with ${before%% *} units journaled, requeued, resumed to $records units, each once"
}

case_mpi() {
  checkout mpi
  command -v mpirun >/dev/null || { echo "skip mpi: no mpirun"; return 0; }
  grep -q '^SSLAT_MPI:BOOL=ON' "$build/CMakeCache.txt" || { echo "skip mpi: built without MPI"; return 0; }
  local jid
  # root needs Open MPI's consent flag; a normal user drops it
  jid=$(sbatch --parsable -n 2 --output=mpi.log \
    --wrap 'mpirun --allow-run-as-root -np 2 build/sslat measure -c mac examples/fbnet.json -o mpi.sslat') ||
    fail "sbatch -n 2 refused"
  slurm_wait_job "$jid" 120 COMPLETED || fail "the MPI job did not complete"
  build/sslat measure -c mac examples/fbnet.json -o one.sslat 2>/dev/null || fail "one-process run"
  same_entries mpi.sslat one.sslat || fail "2 MPI ranks gave another table than one process"
  [ "$(build/sslat export mpi.sslat --json | grep -c '"mpi.ranks": "2"')" = 1 ] || fail "mpi.ranks is not 2"
  echo "ok mpi: sbatch -n 2 + mpirun -np 2 = one process"
}

case_failed_task() {
  checkout failed_task
  # task 1 is given a space that does not exist
  cat >fail_one.sh <<'EOF'
#!/bin/bash
if [ "$SLURM_ARRAY_TASK_ID" = 1 ]; then export SPACE=examples/missing.json; fi
exec bash examples/sbatch_measure.sh
EOF
  local jid ok_merge any_merge
  jid=$(sbatch --parsable --array=0-2 --output=task.%a.log \
    --export=ALL,SPACE=examples/fbnet.json,CALCULATOR=mac fail_one.sh) || fail "sbatch refused"
  ok_merge=$(sbatch --parsable --dependency="afterok:$jid" --kill-on-invalid-dep=yes --output=ok_merge.log \
    --wrap 'build/sslat merge parts/lat.*-of-3.sslat -o ok.sslat')
  any_merge=$(sbatch --parsable --dependency="afterany:$jid" --output=any_merge.log \
    --wrap 'build/sslat merge parts/lat.*-of-3.sslat -o any.sslat')
  slurm_wait_job "$jid" 120 COMPLETED FAILED || fail "the array did not end"
  [ "$(slurm_state "${jid}_1")" = FAILED ] && [ "$(slurm_exit_code "${jid}_1")" = 1:0 ] ||
    fail "task 1 ended $(slurm_state "${jid}_1") $(slurm_exit_code "${jid}_1"), not exit 1 (a file that cannot be read)"
  grep -q "missing.json" task.1.log || fail "task 1's log does not name the missing space"
  slurm_wait_job "$ok_merge" 60 CANCELLED || fail "the afterok merge was not cancelled"
  slurm_wait_job "$any_merge" 60 FAILED COMPLETED || fail "the afterany merge did not end"
  [ "$(slurm_exit_code "$any_merge")" = 2:0 ] || fail "the afterany merge exited $(slurm_exit_code "$any_merge")"
  grep -q "missing.*1" any_merge.log || fail "the merge does not name the missing shard 1"
  [ ! -e any.sslat ] && [ ! -e ok.sslat ] || fail "a merge wrote a table"
  echo "ok failed_task: afterok merge cancelled; afterany merge refused: $(grep -o 'missing[^;]*' any_merge.log | head -1)"
}

# The one-GPU example on a node without a GPU: it runs as written and stops
# before measuring, saying why (the cuda row of sslat calculators).
case_gpu_one() {
  checkout gpu_one
  mkdir -p venv/bin
  printf 'export PATH=%s:"$PATH"\n' "$PWD/build" > venv/bin/activate  # the venv the example sources: this build
  # as written but for its resource requests (a GPU, 4 CPUs, 16 GB), which the
  # test node (2 CPUs, no GPU) cannot grant: the job would wait forever
  grep -vE '^#SBATCH --(gpus|cpus-per-task|mem)=' examples/sbatch_measure_gpu_one.sh > gpu_one.sh
  [ "$(wc -l < gpu_one.sh)" -eq $(($(wc -l < examples/sbatch_measure_gpu_one.sh) - 3)) ] || fail "the example's requests"
  local jid
  jid=$(sbatch --parsable --export=ALL,VENV="$PWD/venv" --output=gpu_one.log gpu_one.sh) ||
    fail "sbatch of examples/sbatch_measure_gpu_one.sh refused"
  slurm_wait_job "$jid" 120 FAILED COMPLETED || fail "the one-GPU job did not end"
  [ "$(slurm_state "$jid")" = FAILED ] || fail "the one-GPU job ran on though cuda cannot run here"
  grep -q "FAIL: the cuda calculator cannot run here: no CUDA device" gpu_one.log ||
    fail "the one-GPU job's log does not say why it stopped"
  [ -s "results/$jid/calculators.txt" ] || fail "no calculators.txt in results/$jid"
  [ ! -e "results/$jid/fp32.sslat" ] || fail "a table was measured"
  echo "ok gpu_one: stopped before measuring: $(grep -o 'no CUDA device[^(]*' gpu_one.log | head -1)"
}

for name in "${cases[@]}"; do
  start=$SECONDS
  "case_$name"
  echo "   ($name: $((SECONDS - start)) s)"
done
echo "slurm_jobs: ${#cases[@]} cases passed"
