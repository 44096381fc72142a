#!/usr/bin/env bash
# The whole test suite: install and build (scripts/setup.sh), then ctest.
#   bash scripts/test.sh            the normal build in build/
#   bash scripts/test.sh --sanitize a second build in build-asan/ with ASan + UBSan
#   bash scripts/test.sh --fuzz S   build the libFuzzer target with clang and fuzz S seconds
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
  "$venv/bin/pip" install -q --disable-pip-version-check pytest numpy onnx onnxruntime "scikit-build-core>=0.10"
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
    seconds=${2:-60}
    bash scripts/setup.sh >/dev/null
    CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSSLAT_FUZZ=ON \
      -DSSLAT_SANITIZE=ON -DSSLAT_CUDA=OFF -DSSLAT_MPI=OFF -DSSLAT_TESTS=OFF >/dev/null
    cmake --build build-fuzz --target fuzz_loader fuzz_container fuzz_enot -j"$(nproc)"
    # the loader: seeded with every example space
    mkdir -p build-fuzz/corpus-loader build-fuzz/corpus-container
    cp examples/*.json tests/data/*.json build-fuzz/corpus-loader/
    build-fuzz/fuzz_loader -max_total_time="$seconds" -max_len=65536 -timeout=10 \
      -print_final_stats=1 -dict=tests/fuzz_loader.dict build-fuzz/corpus-loader 2>&1 | tail -n 6
    # the container reader: seeded with real containers of two spaces
    build/sslat measure -c mac examples/fbnet.json -o build-fuzz/corpus-container/fbnet.sslat 2>/dev/null
    build/sslat measure -c mac_thop tests/data/probe.json -o build-fuzz/corpus-container/probe.sslat 2>/dev/null
    build-fuzz/fuzz_container -max_total_time="$seconds" -max_len=65536 -timeout=10 \
      -print_final_stats=1 build-fuzz/corpus-container 2>&1 | tail -n 6
    # the ENOT pickle reader: seeded with the pickles Python wrote
    mkdir -p build-fuzz/corpus-enot
    cp tests/data/enot/*.pkl build-fuzz/corpus-enot/
    build-fuzz/fuzz_enot -max_total_time="$((seconds / 2))" -max_len=4096 -timeout=10 \
      -print_final_stats=1 build-fuzz/corpus-enot 2>&1 | tail -n 6
    echo "fuzz: no crash in ${seconds}s per target (${seconds}/2 s for the ENOT reader)"
    ;;
  *)
    echo "usage: bash scripts/test.sh [--sanitize | --fuzz SECONDS]" >&2
    exit 2
    ;;
esac
