#!/usr/bin/env bash
# The GPU self-test: one command on a GPU node runs its steps in priority
# order under one deadline (BUDGET), so even a short job yields the most
# useful results first. Build first (bash bench/gpu_build.sh, on the node or
# on any machine with the toolchain; then copy gpu-carry/ beside the tree),
# then:
#   SSLAT_COMMIT=<hash> bash bench/gpu_check.sh            (within BUDGET + 40 s)
# (SSLAT_COMMIT names the commit in the summary when the tree there has no
# .git). A second run (a new job) re-runs only what the first did not finish,
# read from its summary (the failed or skipped steps, the failed op tests as
# the filter; tables resume from their journals), with gpu-results/ carried
# along:
#   mkdir -p gpu-results && tar xzf tables.tar.gz -C gpu-results && cp summary.md gpu-results/first.md
#   bash bench/gpu_check.sh --retry gpu-results/first.md  (within 280 s)
# --plan prints the steps, their limits and whether both runs fit SESSION_S.
# Narrowed by hand: STEPS="ops table_ofa_graph" OPS_FILTER='*MatchesTheReference*/7_*' VARIANTS=fp16-nhwc
# APIS=graph (OPS_REST_FILTER narrows ops_rest the same way).
# The first steps check the graph-API path (--cuda-api graph): every op case
# through both cuDNN APIs, ProxylessNAS tables on the graph and the legacy API
# with their engine census and phase timers, PyTorch of the same dtype and
# layout per candidate, the kernel names of one unit on both sides, OFA on the
# graph API, the table against PyTorch end to end.
# Each step has `timeout -k 5` and its own log; one summary line per step goes
# to $OUT/summary.md as it ends, and everything is packed after every step into
# $OUT/logs.tar.gz and $OUT/tables.tar.gz (3 files in all). Tables are written
# with --resume and --keep-going: a table cut by its timeout continues instead
# of being refused, and a failing unit is listed instead of ending the table.
set -uo pipefail
cd "$(dirname "$0")/.."
ALL_STEPS="probe ops table_px_graph table_px torch_ops kernels table_px_fp32_graph torch_ops_fp32 table_ofa_graph table_ofa_graph_warm validate_px_graph_torch calibrated_px_torch table_af validate_af_torch ops_rest capture fill table_ofa errors memcheck nvtx calibrated_px_compile"
# each step's limit in seconds (never past the run's deadline). A graph-API
# table: 0.05 s a unit, 0.6 s a distinct convolution (heuristics, up to ten
# plans finalized and timed; runtime-compiled engines compile: a guess until a
# GPU run measures it), 4 s to start (tests/test_cuda_plan_invariants.cc)
LIMITS="probe:40 ops:150 table_px_graph:90 table_px:75 torch_ops:150 kernels:90 table_px_fp32_graph:75
        torch_ops_fp32:120 table_ofa_graph:130 table_ofa_graph_warm:40 validate_px_graph_torch:120 calibrated_px_torch:150
        table_af:90 validate_af_torch:120
        ops_rest:150 capture:60 fill:20 table_ofa:100 errors:30 memcheck:60 nvtx:60 calibrated_px_compile:240"
limit_of() { local pair; for pair in $LIMITS; do [ "${pair%%:*}" = "$1" ] && echo "${pair#*:}" && return; done; echo 60; }
# --plan's model of a time-limited allocation: a node's start-up (START_S), the
# first run, handing results back (TRANSFER_S), and the same for a retry,
# within SESSION_S seconds in all. Set them for your site (a node started in
# 60-90 s on the H200).
START_S=${START_S:-90} TRANSFER_S=${TRANSFER_S:-20} SESSION_S=${SESSION_S:-840}
FIRST_BUDGET=${BUDGET:-360} RETRY_BUDGET=${RETRY_BUDGET:-240}

if [ "${1:-}" = "--plan" ]; then
  echo "bench/gpu_check.sh: steps in priority order (a step past the deadline is skipped)"
  printf '  %-24s %6s %10s  %s\n' step limit "ends by" "in a ${FIRST_BUDGET} s call"
  at=0
  for name in ${STEPS:-$ALL_STEPS}; do
    at=$((at + $(limit_of "$name")))
    printf '  %-24s %5ss %9ss  %s\n' "$name" "$(limit_of "$name")" "$at" "$( ((at <= FIRST_BUDGET)) && echo yes || echo "if the steps before end early")"
  done
  total=$((START_S + FIRST_BUDGET + TRANSFER_S + START_S + RETRY_BUDGET + TRANSFER_S))
  echo "device time: start ${START_S} + first call ${FIRST_BUDGET} + transfer ${TRANSFER_S} + start ${START_S} + retry ${RETRY_BUDGET} + transfer ${TRANSFER_S} = ${total} s of ${SESSION_S} s"
  if ((total > SESSION_S)); then echo "OVER: lower BUDGET or RETRY_BUDGET"; exit 1; fi
  exit 0
fi

# --retry SUMMARY: the steps the first run asked for and did not finish (no
# "rc 0" line: failed, cut, skipped or never reached), everything again when
# the probe did not pass; the op tests the ops / ops_rest steps reported failed
# become those steps' filters (all of them when the list was cut at 20).
if [ "${1:-}" = "--retry" ]; then
  first=${2:?--retry needs the summary.md of the first call}
  [ -f "$first" ] || { echo "FAIL: no summary $first"; exit 2; }
  # the name of a step's summary line (its log), for a STEPS name
  line_name() { case "$1" in table_px) echo px_b1_fp16 ;; table_ofa) echo ofa_b1_fp32 ;;
    table_px_graph) echo px_b1_fp16_graph ;; table_px_fp32_graph) echo px_b1_fp32_graph ;;
    table_ofa_graph) echo ofa_b1_fp32_graph ;; table_ofa_graph_warm) echo ofa_b1_fp32_graph_warm ;;
    table_af) echo af_b1_fp16_graph ;;
    *) echo "$1" ;; esac; }
  asked=$(sed -nE 's/^## bench\/gpu_check.sh, .*, steps: (.*)$/\1/p' "$first" | tail -n 1)
  # the probe passed when it ran and said no FAIL (its rc is that of its last
  # command, which only looks for compute-sanitizer and ncu)
  if ! grep -q '^- probe: ' "$first" || grep -q '^FAIL: ' "$first"; then
    STEPS=$ALL_STEPS
  else
    STEPS=
    for name in ${asked:-$ALL_STEPS}; do
      [ "$name" = probe ] || grep -q "^- $(line_name "$name"): rc 0," "$first" || STEPS="$STEPS $name"
    done
    STEPS="probe${STEPS}" # the probe again: a new node
  fi
  # failed_in STEP: the tests listed failed under STEP's line; "" when none or cut
  failed_in() {
    local names
    # a step cut by its limit (rc 124 / 137) left tests unrun: all of them again
    grep -qE "^- $1: rc (124|137)," "$first" && return
    names=$(awk -v step="- $1:" 'index($0, "- ") == 1 { inside = index($0, step) == 1; next }
      inside && /^ +\[  FAILED  \] / { sub(/,$/, "", $4); print $4 }' "$first")
    [ "$(printf '%s\n' "$names" | grep -c .)" -ge 20 ] && return # cut at 20: run them all
    printf '%s\n' "$names" | grep . | sort -u | paste -sd: -
  }
  OPS_FILTER=${OPS_FILTER:-$(failed_in ops)}
  OPS_REST_FILTER=${OPS_REST_FILTER:-$(failed_in ops_rest)}
  BUDGET=$RETRY_BUDGET
  echo "retry of $first: steps $STEPS; op tests ${OPS_FILTER:-all}; remaining variants ${OPS_REST_FILTER:-all}"
fi

OUT=${OUT:-/tmp/gpu_check_out}
WORK=${GPU_CHECK_WORK:-/tmp/gpu_check} # logs and scratch files
L=$WORK/logs
R=$PWD/gpu-results                     # tables (git-ignored; carry it to reuse them)
mkdir -p "$OUT" "$L" "$R"
END=$(($(date +%s) + ${BUDGET:-360}))
STEPS=${STEPS:-$ALL_STEPS}
OPS_FILTER=${OPS_FILTER:-'*MatchesTheReference*'}
OPS_REST_FILTER=${OPS_REST_FILTER:-'*MatchesTheReference*'}
BIN=$PWD/gpu-carry
T=$BIN/sslat_gpu_tests

say() { echo "$*" | tee -a "$OUT/summary.md"; }
pack() {
  tar czf "$OUT/logs.tar.gz" -C "$L" . 2>/dev/null
  tar czf "$OUT/tables.tar.gz" -C "$R" . 2>/dev/null
}
wanted() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# step NAME SECONDS COMMAND…: at most SECONDS and never past the deadline;
# its output in $L/NAME.log, cuDNN's log in $L/cudnn_NAME.log.
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((END - $(date +%s)))
  ((limit > left)) && limit=$left
  if ((limit < 8)); then
    say "- $name: skipped, no time left"
    return 124
  fi
  local start rc
  start=$(date +%s)
  CUDNN_LOGDEST_DBG=$L/cudnn_$name.log CUBLASLT_LOG_FILE=$L/cublaslt_$name.log \
    timeout -k 5 "$limit" "$@" > "$L/$name.log" 2>&1
  rc=$?
  say "- $name: rc $rc, $(($(date +%s) - start)) s of $limit $(grep -hE '^\[  (PASSED|FAILED)  \] [0-9]' "$L/$name.log" | tr '\n' ' ')"
  grep -hE '^\[  FAILED  \] [A-Z]' "$L/$name.log" | sed 's/ ([0-9]* ms)$//' | sort -u | head -n 20 | sed 's/^/    /' | tee -a "$OUT/summary.md"
  pack
  return $rc
}

say ""
say "## bench/gpu_check.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), commit ${SSLAT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}, budget ${BUDGET:-360} s, steps: $STEPS"
if [ ! -x "$BIN/sslat" ] || [ ! -x "$T" ]; then
  say "FAIL: no gpu-carry/: run bash bench/gpu_build.sh first (here, or where the toolchain is, then copy gpu-carry/ beside the tree)"
  exit 2
fi

# The Python holding torch and the CUDA wheels (cuDNN in nvidia/cudnn/lib,
# cuBLAS 13 in nvidia/cu13/lib): SSLAT_PYTHON, else python3 on PATH (an
# activated venv); then the toolkit's folders.
PY=${SSLAT_PYTHON:-$(command -v python3)}
NV=$("$PY" -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null)
folders=
for d in ${NV:+"$NV/cudnn/lib" "$NV/cu13/lib" "$NV/cublas/lib" "$NV/cuda_runtime/lib" "$NV/cuda_nvrtc/lib"} \
         /usr/local/cuda/lib64 /usr/local/nvidia/lib64; do
  [ -d "$d" ] && folders=${folders:+$folders:}$d
done
export SSLAT_CUDA_LIBRARY_PATH=$folders
export LD_LIBRARY_PATH="$BIN${folders:+:$folders}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SSLAT_REQUIRE_CUDA=1 SSLAT_EXAMPLES_DIR=$PWD/examples SSLAT_PYTHON=$PY PYTHONUNBUFFERED=1
# cuDNN: warnings and errors (2) for the tests, errors (1) for the big runs;
# cuBLASLt: errors. Never CUDA_LAUNCH_BLOCKING here: it breaks stream capture.
export CUDNN_LOGLEVEL_DBG=2 CUBLASLT_LOG_LEVEL=1
say "- python $PY, wheels ${NV:-none}; library folders: ${folders:-none}"

X="--gtest_output=xml:$L/"
if wanted probe; then
  # the tiny space the probe measures on the graph API: one convolution
  printf '%s' '{"sslat": 1, "input": {"shape": [16, 28, 28]}, "layers": [{"name": "b0", "choice": ["conv_k3_c16"], "c": 16}]}' > "$WORK/one.json"
  step probe "$(limit_of probe)" sh -c "nvidia-smi; nvidia-smi -q -d CLOCK,PERFORMANCE; lscpu | head -20;
    $PY -m pip show nvidia-cudnn-cu13 nvidia-cublas torch 2>/dev/null | grep -E '^(Name|Version|Location)';
    $PY -c 'import torch; print(\"torch\", torch.__version__, \"cudnn\", torch.backends.cudnn.version())';
    echo \"NVIDIA_TF32_OVERRIDE=\${NVIDIA_TF32_OVERRIDE-unset}\";
    echo \"nvrtc: \$(ls ${NV:+$NV/cu13/lib/libnvrtc* $NV/cuda_nvrtc/lib/libnvrtc*} /usr/local/cuda/lib64/libnvrtc* 2>/dev/null | tr '\n' ' ')\";
    ldconfig -p | grep -i nvrtc | head -3;
    ldd $BIN/sslat $T; $BIN/sslat calculators; command -v compute-sanitizer ncu;
    $BIN/sslat measure -c cuda $WORK/one.json --cuda-api graph --runs 3 -o $WORK/one.sslat --json $WORK/one_table.json;
    grep -E '\"cuda\.(api|graph|plan\.b0:conv_k3_c16|tf32_override)\"' $WORK/one_table.json"
  say "    $(grep -E '^cuda ' "$L/probe.log")"
  say "    $(grep -m1 -E 'NVIDIA H|Driver Version' "$L/probe.log" | tr -s ' ')"
  grep -E '^nvrtc: |^NVIDIA_TF32_OVERRIDE=|"cuda\.(graph|plan\.)' "$L/probe.log" | cut -c1-400 | sed 's/^/    /' | tee -a "$OUT/summary.md"
  if ! grep -qE '^cuda +timed +ms +available' "$L/probe.log"; then
    LD_DEBUG=libs "$BIN/sslat" calculators > "$L/lddebug.log" 2>&1
    say "FAIL: the cuda calculator cannot run here (logs: probe.log, lddebug.log)"
    pack
    exit 1
  fi
fi
# op_matrix NAME: the counts of step NAME's "sslat-op:" lines (one per case,
# variant, mode and cuDNN API, with its plan or cuDNN's reason) and the ones that failed
op_matrix() {
  local log=$L/$1.log api
  for api in legacy graph; do
    say "    per (case, variant, mode), $api API: $(grep -c "^sslat-op: .* $api: ok:" "$log") ok, $(grep -c "^sslat-op: .* $api: WRONG:" "$log") wrong, $(grep -c "^sslat-op: .* $api: FAILED:" "$log") refused, $(grep -c "^sslat-op: .* $api: ok:.*legacy API: " "$log") on the legacy API instead"
  done
  grep -E '^sslat-op: .*: (WRONG|FAILED):' "$log" | head -n 30 | cut -c1-400 | sed 's/^/    /' | tee -a "$OUT/summary.md"
  grep -E '^sslat-op: .* graph: ok:.*legacy API: ' "$log" | head -n 5 | cut -c1-400 | sed 's/^/    /' | tee -a "$OUT/summary.md"
}
# every op case against the plain-C reference, the main variants, both modes, both cuDNN APIs
if wanted ops; then
  SSLAT_GPU_APIS=${APIS:-legacy,graph} SSLAT_GPU_VARIANTS=${VARIANTS:-fp32-nchw,fp16-nhwc} \
    step ops "$(limit_of ops)" "$T" --gtest_filter="$OPS_FILTER" "${X}ops.xml"
  op_matrix ops
fi
# table NAME SECONDS SPACE DTYPE [extra…]: batch 1, --resume, CSV and JSON beside it
table() {
  local name=$1 limit=$2 space=$3 dtype=$4
  shift 4
  local start=$(date +%s.%N)
  # every table keeps its choices in one selection cache of this run (a warm
  # table is the same space again: its wall time is the warm build's)
  CUDNN_LOGLEVEL_DBG=1 step "$name" "$limit" "$BIN/sslat" measure -c cuda "examples/$space.json" --dtype "$dtype" \
    --resume --keep-going --selection-cache "$R/selection" -o "$R/$name.sslat" --csv "$R/$name.csv" "$@"
  local rc=$?
  # 5: written, some units failed (listed in the log; the retry resumes them)
  [ $rc -eq 5 ] && grep -E '^sslat: FAILED' "$L/$name.log" | head -n 10 | cut -c1-300 | sed 's/^/    /' | tee -a "$OUT/summary.md"
  say "    wall $(python3 -c "import sys,time; print('%.1f s' % (time.time() - float(sys.argv[1])))" "$start"); $(tail -n 3 "$L/$name.log" | tr '\n' ' ' | cut -c1-300)"
  if [ $rc -eq 0 ] || [ $rc -eq 5 ]; then
    "$BIN/sslat" export "$R/$name.sslat" --json > "$R/$name.json" 2>> "$L/export.log"
    "$PY" -c "
import collections, json, re, sys
m = json.load(open(sys.argv[1]))['metadata']
keys = [k for k in sorted(m) if k.startswith(('device.', 'software.', 'cuda.api', 'cuda.graph', 'cuda.time', 'cuda.tf32',
        'cuda.selection',
        'cuda.find', 'cuda.blocking', 'cuda.fused', 'cuda.fma', 'cuda.relaxed', 'cuda.noisy', 'quality.', 'failed.'))]
for k in keys: print('    %s: %s' % (k, m[k]))
plans = [v for k, v in m.items() if k.startswith('cuda.plan.')]
algos, ranks, legacy, notes = collections.Counter(), collections.Counter(), collections.Counter(), collections.Counter()
for v in plans:
    for part in v.split(' | '):
        if not (part.startswith('conv ') and ': ' in part): continue
        chosen = part.split(': ', 1)[1]
        if chosen.startswith(('graph ', 'graph_fused ', 'own_depthwise')):
            algos[chosen.split(',')[0]] += 1
            r = re.search(r'rank (\d+) of (\d+) timed', chosen)
            if r: ranks['%s of %s' % r.groups()] += 1
            n = re.search(r'notes ([a-z_]+(?:,[a-z_]+)*)', chosen)
            if n: notes[n.group(1)] += 1
        else:
            algos[chosen.split(',')[0]] += 1
            if 'legacy API: ' in chosen: legacy[chosen.split('legacy API: ', 1)[1][:120]] += 1
top = lambda c, n: ', '.join('%s %d' % kv for kv in c.most_common(n))
print('    cuda.plan: %d units; conv choices: %s' % (len(plans), top(algos, 12)))
if ranks: print('    graph winners by rank among the timed: %s; notes: %s' % (top(ranks, 10), top(notes, 6)))
if legacy: print('    on the legacy API instead: %s' % top(legacy, 4))
" "$R/$name.json" 2>&1 | tee -a "$OUT/summary.md"
  fi
  pack
  return $rc
}
if wanted table_px_graph; then table px_b1_fp16_graph "$(limit_of table_px_graph)" proxylessnas fp16 --cuda-api graph; fi
if wanted table_px; then table px_b1_fp16 "$(limit_of table_px)" proxylessnas fp16; fi
# per candidate against PyTorch of the same dtype and layout (per-copy weights
# and intermediates, BN folded, a GPU spin before each sample; the plain regime beside)
# torch_ops NAME DTYPE LAYOUT TABLES…: PyTorch's CSV, then ours / PyTorch for each table present
torch_ops() {
  local name=$1 dtype=$2 layout=$3 t
  shift 3
  "$BIN/sslat" show --ir examples/proxylessnas.json > "$L/ir_px_b1.json" 2>> "$L/export.log"
  step "$name" "$(limit_of "$name")" "$PY" bench/torch_ops.py "$L/ir_px_b1.json" --dtype "$dtype" --layout "$layout" \
    --compare-regimes -o "$R/torch_px_b1_${dtype}_$layout.csv" || return
  for t in "$@"; do
    [ -f "$R/$t.csv" ] || continue
    for column in torch_ms torch_plain_ms; do
      say "    $t / PyTorch $dtype $layout ($column), ProxylessNAS b1: $("$PY" bench/gpu_compare.py torch "$R/$t.csv" "$R/torch_px_b1_${dtype}_$layout.csv" $column 2>&1)"
    done
  done
  tail -n 2 "$L/$name.log" | cut -c1-300 | sed 's/^/    /' | tee -a "$OUT/summary.md"
}
if wanted torch_ops; then torch_ops torch_ops fp16 nhwc px_b1_fp16_graph px_b1_fp16; fi
# the kernels of one unit (expansion 1x1, 7x7 depthwise, projection 1x1 with
# the residual), fp16 NHWC: ncu on sslat's profile replay (graph and legacy
# API), torch.profiler on PyTorch's module
if wanted kernels && command -v ncu > /dev/null; then
  printf '%s' '{"sslat": 1, "input": {"shape": [24, 56, 56]}, "layers": [{"name": "b0", "choice": ["ir_k7_e6"], "c": 24}]}' > "$WORK/k7.json"
  "$BIN/sslat" show --ir "$WORK/k7.json" > "$WORK/k7_ir.json" 2>> "$L/export.log"
  step kernels "$(limit_of kernels)" sh -c "for api in graph legacy; do echo \"== sslat \$api\";
      ncu --nvtx --nvtx-include 'sslat@b0:ir_k7_e6/profile/' --clock-control none --metrics gpu__time_duration.sum \
        $BIN/sslat measure -c cuda $WORK/k7.json --dtype fp16 --cuda-api \$api --profile --runs 3 -o $WORK/k7_\$api.sslat; done;
    echo '== torch'; $PY bench/torch_ops.py $WORK/k7_ir.json --dtype fp16 --kernels b0:ir_k7_e6"
  # each profiled kernel's name (ncu's header: NAME (grid)x(block)) and its duration
  awk '/^== /{side=$0; next}
       /^  [^ ].*\([0-9]+, ?[0-9]+, ?[0-9]+\)x\(/{name=$0; sub(/^ +/, "", name); sub(/ \(.*/, "", name); next}
       /gpu__time_duration.sum/ && name != "" {print "    " side ": " name " " $(NF-1) " " $NF; name=""}' "$L/kernels.log" |
    cut -c1-260 | head -n 30 | tee -a "$OUT/summary.md"
  grep -E '^torch b0:ir_k7_e6' "$L/kernels.log" | cut -c1-600 | sed 's/^/    /' | tee -a "$OUT/summary.md"
fi
if wanted table_px_fp32_graph; then table px_b1_fp32_graph "$(limit_of table_px_fp32_graph)" proxylessnas fp32 --cuda-api graph; fi
if wanted torch_ops_fp32; then torch_ops torch_ops_fp32 fp32 nchw px_b1_fp32_graph; fi
if wanted table_ofa_graph; then table ofa_b1_fp32_graph "$(limit_of table_ofa_graph)" ofa_mobilenet_v3 fp32 --cuda-api graph; fi
# the same table again, every choice from the selection cache the first one wrote: the warm build's wall time
if wanted table_ofa_graph_warm; then
  table ofa_b1_fp32_graph_warm "$(limit_of table_ofa_graph_warm)" ofa_mobilenet_v3 fp32 --cuda-api graph
fi
# validate NAME SPACE TABLE REFERENCE K [extra…]: the table against K random
# whole architectures (+ the fastest and the slowest) timed end to end
validate() {
  local name=$1 space=$2 table=$3 reference=$4 k=$5
  shift 5
  CUDNN_LOGLEVEL_DBG=1 step "$name" "$(limit_of "$name")" sh -c "\"\$0\" validate -c cuda examples/$space.json \"\$1\" -k $k --reference $reference $* --json > \"\$2\"" \
    "$BIN/sslat" "$R/$table.sslat" "$R/$name.json" &&
    say "    $table against $reference: $("$PY" bench/gpu_compare.py validation "$R/$name.json" 2>&1)"
  tail -n 2 "$L/$name.log" | cut -c1-300 | sed 's/^/    /' | tee -a "$OUT/summary.md"
}
if wanted validate_px_graph_torch && [ -f "$R/px_b1_fp16_graph.sslat" ]; then
  validate validate_px_graph_torch proxylessnas px_b1_fp16_graph torch 100 --cuda-api graph
fi
# calibrated NAME DTYPE REFERENCE N K: a ProxylessNAS table fitted to N
# architectures timed in REFERENCE (--context), then validated against it on
# K held-out strata (the fitted ones left out), with the MAC count's tau beside
calibrated() {
  local name=$1 dtype=$2 reference=$3 n=$4 k=$5
  CUDNN_LOGLEVEL_DBG=1 step "$name" "$(limit_of "$name")" sh -c "\"\$0\" measure -c cuda examples/proxylessnas.json --dtype $dtype --cuda-api graph --selection-cache \"\$3\" --context $n --reference $reference -o \"\$1\" && \"\$0\" validate -c cuda examples/proxylessnas.json \"\$1\" -k $k --reference $reference --json > \"\$2\"" \
    "$BIN/sslat" "$R/$name.sslat" "$R/$name.json" "$R/selection" &&
    say "    fitted to $reference ($n archs), held out: $("$PY" bench/gpu_compare.py validation "$R/$name.json" 2>&1)"
  grep -E '^\[context\]|compiled in|warning' "$L/$name.log" | tail -n 4 | cut -c1-300 | sed 's/^/    /' | tee -a "$OUT/summary.md"
}
if wanted calibrated_px_torch; then calibrated calibrated_px_torch fp16 torch 100 100; fi
# transformers (the token kernels, attention's batched products): the AutoFormer-like space's fp16 table,
# then that table against PyTorch on 30 strata of whole architectures
if wanted table_af; then table af_b1_fp16_graph "$(limit_of table_af)" autoformer_tiny fp16 --cuda-api graph; fi
if wanted validate_af_torch && [ -f "$R/af_b1_fp16_graph.sslat" ]; then
  validate validate_af_torch autoformer_tiny af_b1_fp16_graph torch 30 --cuda-api graph
fi
# the other variants: tf32 NCHW, bf16 NHWC, fp32 NHWC
if wanted ops_rest; then
  CUDNN_LOGLEVEL_DBG=1 SSLAT_GPU_APIS=${APIS:-legacy,graph} SSLAT_GPU_VARIANTS=tf32-nchw,bf16-nhwc,fp32-nhwc \
    step ops_rest "$(limit_of ops_rest)" "$T" --gtest_filter="$OPS_REST_FILTER" "${X}ops_rest.xml"
  op_matrix ops_rest
fi
# capture, replay over rotating copies (capped at 8 here), hot and cold; OOM; a bad device
if wanted capture; then
  SSLAT_GPU_APIS=${APIS:-legacy,graph} SSLAT_GPU_VARIANTS=fp32-nchw,fp16-nhwc SSLAT_CUDA_COPIES_CAP=8 CUDNN_LOGLEVEL_DBG=1 \
    step capture "$(limit_of capture)" "$T" --gtest_filter='*Measured*:GpuCalculator.ColdAndHot*:*OutOfMemory*:*BadDevice*' "${X}capture.xml"
fi
if wanted fill; then step fill "$(limit_of fill)" "$T" --gtest_filter='GpuFill*:GpuKernels*' "${X}fill.xml"; fi
if wanted table_ofa; then table ofa_b1_fp32 "$(limit_of table_ofa)" ofa_mobilenet_v3 fp32; fi
# clear errors from the command: a bad device, out of memory
if wanted errors; then
  step errors "$(limit_of errors)" sh -c "\"\$0\" measure -c cuda examples/proxylessnas.json --device 999 -o $WORK/bad.sslat; echo \"exit \$?\";
    printf '%s' '{\"sslat\": 1, \"input\": {\"shape\": [256, 8, 8]}, \"layers\": [{\"choice\": [\"conv_k3_c256\", \"skip\"], \"c\": 256}]}' > $WORK/big.json;
    \"\$0\" measure -c cuda $WORK/big.json --batch 4096 --resolution 1024 -o $WORK/big.sslat; echo \"exit \$?\"" "$BIN/sslat"
  grep -vE '^\s*$' "$L/errors.log" | cut -c1-300 | sed 's/^/    /' | tee -a "$OUT/summary.md"
fi
# the own kernels, and the graph API's plans, under compute-sanitizer memcheck
# (gap, shuffle, concat/slice, upsample, Focus, from; the first convolutions)
if wanted memcheck && command -v compute-sanitizer > /dev/null; then
  SSLAT_GPU_APIS=${APIS:-legacy,graph} SSLAT_GPU_VARIANTS=fp32-nchw,fp16-nhwc step memcheck "$(limit_of memcheck)" \
    compute-sanitizer --tool memcheck --error-exitcode 99 \
    "$T" --gtest_filter="$(printf '*MatchesTheReference*/%s_*:' 0 1 23 27 42 44 45 53 54)"
  grep -E 'ERROR SUMMARY|Invalid' "$L/memcheck.log" | head -n 8 | sed 's/^/    /' | tee -a "$OUT/summary.md"
fi
# NVTX: ncu profiles only the kernels of one unit's profile replay, chosen by
# the documented filter (docs/nsight.md)
if wanted nvtx && command -v ncu > /dev/null; then
  printf '%s' '{"sslat": 1, "input": {"shape": [16, 28, 28]}, "layers": [{"name": "b0", "choice": ["conv_k3_c16", "ir_k3_e3", "skip"], "c": 16}]}' > $WORK/small.json
  step nvtx "$(limit_of nvtx)" ncu --nvtx --nvtx-include "sslat@b0:ir_k3_e3/profile/" --clock-control none --metrics gpu__time_duration.sum \
    "$BIN/sslat" measure -c cuda $WORK/small.json --profile --runs 3 -o $WORK/small.sslat
  kernel_line='^  [^ ].*\(([0-9]+, ?){2}[0-9]+\)x\(' # ncu's header of a profiled kernel: NAME (grid)x(block)
  say "    ncu profiled $(grep -cE "$kernel_line" "$L/nvtx.log") kernels in sslat@b0:ir_k3_e3/profile/: $(grep -E "$kernel_line" "$L/nvtx.log" | sed 's/(.*//' | tr -s ' ' | head -n 12 | tr '\n' ';' | cut -c1-400)"
  grep -E '==PROF==|==WARNING==|==ERROR==' "$L/nvtx.log" | head -n 4 | cut -c1-200 | sed 's/^/    /' | tee -a "$OUT/summary.md"
fi
# torch.compile as the reference: each network compiled once (its compile time said apart), fewer
# architectures than above (a compile takes seconds): that the regime works, and what the table predicts
if wanted calibrated_px_compile; then calibrated calibrated_px_compile fp16 torch-compile 30 30; fi
nvidia-smi -q -d CLOCK,PERFORMANCE > "$L/nvidia-smi-after.log" 2>&1
say "- done, $((${BUDGET:-360} - (END - $(date +%s)))) s of ${BUDGET:-360}"
pack
