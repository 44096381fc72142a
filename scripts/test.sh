#!/usr/bin/env bash
# The whole test suite: install and build (scripts/setup.sh), then ctest.
#   bash scripts/test.sh            the normal build in build/
#   bash scripts/test.sh --sanitize a second build in build-asan/ with ASan + UBSan
#   bash scripts/test.sh --fuzz S [N]  build the libFuzzer targets with clang and run each
#                                      for N inputs (default 10^6) or S seconds, the first to come
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-normal}

# The Python package as a user installs it: `pip install .` builds the wheel
# (scikit-build-core runs CMake: libsslat.so and the command inside it) into a
# venv (the project's environment scripts/setup.sh made, with onnx and
# onnxruntime); then its pytest suite. pytest and scikit-build-core come from PyPI.
python_tests() {
  local venv=build/python-venv
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check pytest numpy onnx onnxruntime pypdf "scikit-build-core>=0.10"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps .
  # sslat.torch's tests (python/tests/test_torch*.py) run the libraries: torch
  # (PyPI's default wheel: the CPU-only index is not reachable from every
  # machine; ~2 min and ~5 GB the first time), torchvision, thop, fvcore,
  # pthflops and timm (pinned: the zoo test's expected outcomes are per
  # version), installed once into the venv. SSLAT_TEST_TORCH=0 skips them.
  local timm_pin=timm==1.0.31
  if [ "${SSLAT_TEST_TORCH:-1}" = 1 ] &&
     ! "$venv/bin/python" -c 'import torch, torchvision, thop, fvcore, pthflops, timm
assert timm.__version__ == "'"${timm_pin#timm==}"'"' 2>/dev/null; then
    local start=$SECONDS
    if "$venv/bin/pip" install -q --disable-pip-version-check torch torchvision thop fvcore pthflops "$timm_pin"; then
      echo "test.sh: torch, torchvision and the counting libraries installed in $((SECONDS - start)) s"
    else
      echo "test.sh: torch could not be installed (offline?): python/tests/test_torch.py skips"
    fi
  fi
  # from build/, so `import sslat` is the installed package, not python/sslat
  (cd build && SSLAT_REQUIRE_CHROMIUM=1 SSLAT_REQUIRE_ONNX=1 SSLAT_INSTALLED_PACKAGE=1 SSLAT_COMMAND="$PWD/sslat" \
     SSLAT_REFERENCE="$PWD/tests/sslat_reference" \
     "../$venv/bin/python" -m pytest -q -p no:cacheprovider ../python/tests)
}

case "$mode" in
  normal)
    bash scripts/setup.sh
    ctest --test-dir build --output-on-failure -j2
    python_tests
    ;;
  --sanitize)
    bash scripts/setup.sh >/dev/null  # packages
    # CUDA off: sanitizers and the static CUDA runtime do not mix, and nothing CUDA runs here
    # MPI off too: Open MPI's own allocations would flood LeakSanitizer
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSSLAT_SANITIZE=ON -DSSLAT_CUDA=OFF -DSSLAT_MPI=OFF >/dev/null
    cmake --build build-asan -j"$(nproc)"
    # LeakSanitizer cannot stop libgomp's worker threads at exit: oneDNN runs on
    # one thread here (the normal pass covers threading)
    OMP_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest --test-dir build-asan --output-on-failure -j2
    # the Python misuse cases (copies, frees, threads) against the ASan library,
    # its runtime preloaded into the interpreter; Python's own leaks are not ours
    venv=build/python-venv
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check pytest numpy
    (cd build-asan && PYTHONPATH="$PWD/../python" SSLAT_LIBRARY="$PWD/libsslat.so" \
       LD_PRELOAD="$(gcc -print-file-name=libasan.so)" OMP_NUM_THREADS=1 \
       ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       "../$venv/bin/python" -m pytest -q -p no:cacheprovider ../python/tests/test_misuse.py)
    ;;
  --fuzz)
    # Each libFuzzer target until RUNS inputs (default 1,000,000) or SECONDS
    # have passed, whichever comes first; the library instrumented, ASan and
    # UBSan on. One line per target: inputs run, edges reached, no crash.
    seconds=${2:-60}
    runs=${3:-1000000}
    bash scripts/setup.sh >/dev/null  # packages, and build/sslat for the table seeds
    CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSSLAT_FUZZ=ON \
      -DSSLAT_SANITIZE=ON -DSSLAT_CUDA=OFF -DSSLAT_MPI=OFF -DSSLAT_TESTS=OFF >/dev/null
    cmake --build build-fuzz --target fuzz_loader fuzz_space_export fuzz_container fuzz_table_pair fuzz_enot \
      -j"$(nproc)"
    bash scripts/fuzz_seeds.sh build/sslat build-fuzz/seeds
    fuzz_one() { # NAME MAX_LEN [libFuzzer options]: seeds from build-fuzz/seeds/NAME
      local name=$1 max_len=$2 log=build-fuzz/$1.log corpus=build-fuzz/corpus-$1
      shift 2
      mkdir -p "$corpus"
      if ! SSLAT_FUZZ_SPACES="$PWD/build-fuzz/seeds/spaces" build-fuzz/"$name" -runs="$runs" \
           -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -print_final_stats=1 "$@" \
           "$corpus" "build-fuzz/seeds/$name" >"$log" 2>&1; then
        tail -n 40 "$log"
        echo "fuzz: $name FAILED (its log: $log; the input that failed is in the folder it names)" >&2
        exit 1
      fi
      local done_runs edges
      done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
      edges=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
      printf 'fuzz: %-18s %10s inputs in at most %s s, %5s edges of the library reached, no crash\n' \
        "$name" "$done_runs" "$seconds" "$edges"
      if [ "${edges:-0}" -lt 200 ]; then  # a blind fuzzer reaches a handful (the harness alone)
        echo "fuzz: $name reached only ${edges:-0} edges: is the library built with -fsanitize=fuzzer-no-link?" >&2
        exit 1
      fi
    }
    fuzz_one fuzz_loader 65536 -dict=tests/fuzz_loader.dict
    fuzz_one fuzz_space_export 16384 -dict=tests/fuzz_loader.dict
    fuzz_one fuzz_container 65536
    fuzz_one fuzz_table_pair 131072
    fuzz_one fuzz_enot 4096
    ;;
  *)
    echo "usage: bash scripts/test.sh [--sanitize | --fuzz SECONDS [RUNS]]" >&2
    exit 2
    ;;
esac
