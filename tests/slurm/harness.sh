# A real single-node Slurm for the tests, all of it under one temporary folder:
# munged with its own key and socket, slurmctld and slurmd with their own
# state, spool, logs and ports. Sourced by slurm_jobs.sh:
#   slurm_start DIR   start the daemons (returns 77 with the reason when it cannot)
#   slurm_stop        stop them by their pids, whatever happened
#   slurm_wait_job ID STATE... SECONDS   wait until the job is in one of the states
# Needs root (slurmd starts jobs as their user) and Debian's slurm-wlm + munge.

SLURM_DIR=""
SLURM_PIDS=()

slurm_skip() {
  echo "SKIP: $*"
  return 77
}

slurm_start() {
  SLURM_DIR=$1
  [ "$(id -u)" = 0 ] || { slurm_skip "not root: slurmd must run as root to start jobs"; return; }
  for tool in munged slurmctld slurmd sbatch scontrol sinfo; do
    command -v "$tool" >/dev/null || { slurm_skip "no $tool (apt-get install slurm-wlm munge)"; return; }
  done
  local host
  host=$(hostname -s)
  mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/spool"
  chmod 755 "$SLURM_DIR"
  # munge: a private key and socket, nothing under /etc or /run
  head -c 1024 /dev/urandom >"$SLURM_DIR/munge.key"
  chmod 400 "$SLURM_DIR/munge.key"
  munged -F -f --key-file="$SLURM_DIR/munge.key" --socket="$SLURM_DIR/munge.socket" \
    --log-file="$SLURM_DIR/munged.log" --pid-file="$SLURM_DIR/munged.pid" \
    --seed-file="$SLURM_DIR/munged.seed" >"$SLURM_DIR/munged.out" 2>&1 &
  SLURM_PIDS+=($!)
  # ports of our own, away from a real Slurm's 6817/6818
  local port=$((20000 + RANDOM % 20000))
  cat >"$SLURM_DIR/slurm.conf" <<EOF
ClusterName=sslattest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$SLURM_DIR/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SchedulerParameters=sched_interval=1
MinJobAge=600
JobRequeue=1
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=cpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$SLURM_DIR/slurm.conf
  local i
  for i in $(seq 50); do [ -S "$SLURM_DIR/munge.socket" ] && break; sleep 0.1; done
  [ -S "$SLURM_DIR/munge.socket" ] || { slurm_skip "munged did not start: $(tail -3 "$SLURM_DIR/munged.out")"; return; }
  slurmctld -D -i >"$SLURM_DIR/slurmctld.out" 2>&1 &
  SLURM_PIDS+=($!)
  slurmd -D >"$SLURM_DIR/slurmd.out" 2>&1 &
  SLURM_PIDS+=($!)
  for i in $(seq 100); do
    sinfo -h -o %T 2>/dev/null | grep -qx idle && break
    sleep 0.2
  done
  sinfo -h -o %T 2>/dev/null | grep -qx idle ||
    { slurm_skip "the node did not come up idle: $(tail -2 "$SLURM_DIR/slurmctld.log" "$SLURM_DIR/slurmd.log" 2>&1)"; return; }
  echo "slurm: $(sinfo -V) up in $SLURM_DIR (node $host, $(nproc) CPUs)"
}

slurm_stop() {
  [ -n "$SLURM_DIR" ] || return 0
  # end the jobs first: their slurmstepd processes leave with them
  scancel --quiet --user=root 2>/dev/null || true
  for _ in $(seq 50); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
  local pid
  for pid in "${SLURM_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${SLURM_PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  SLURM_PIDS=()
  # a slurmstepd of ours that outlived its job (it holds files under SLURM_DIR)
  for pid in $(pgrep -x slurmstepd); do
    if ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "$SLURM_DIR"; then kill -9 "$pid" 2>/dev/null || true; fi
  done
}

# The state of a job (or array task "ID_TASK"): PENDING, RUNNING, COMPLETED, FAILED, …
slurm_state() {
  scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p' | head -1
}

# The job id of an array task ("12_0" runs as job 13): Slurm signals that one at once
slurm_job_id() {
  scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobId=//p' | head -1
}

slurm_exit_code() {
  scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^ExitCode=//p' | head -1
}

# slurm_wait_job ID SECONDS STATE...: until every job / task of ID is in one of the states
slurm_wait_job() {
  local id=$1 seconds=$2
  shift 2
  local deadline=$((SECONDS + seconds)) states
  while [ $SECONDS -lt $deadline ]; do
    states=$(scontrol -o show job "$id" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p' | sort -u)
    if [ -n "$states" ]; then
      local all=1 state wanted ok
      for state in $states; do
        ok=0
        for wanted in "$@"; do [ "$state" = "$wanted" ] && ok=1; done
        [ $ok = 1 ] || all=0
      done
      [ $all = 1 ] && return 0
    fi
    sleep 0.5
  done
  echo "job $id: still $(echo $states) after ${seconds} s (wanted $*)"
  scontrol show job "$id" | head -30
  return 1
}
