#!/usr/bin/env bash
# sslat as a subproject: its tests and install rules stay off (no GoogleTest
# needed, nothing of the parent's changed), its paths are its own, and the
# parent links sslat::sslat.
set -euo pipefail
source_dir=$1 parent=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S "$parent" -B "$work/build" -DSSLAT_SOURCE_DIR="$source_dir" -DSSLAT_CUDA=OFF -DSSLAT_MPI=OFF \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cache=$work/build/CMakeCache.txt
grep -q '^SSLAT_TESTS:BOOL=OFF' "$cache" || { echo "FAIL: SSLAT_TESTS is not off in a subproject"; exit 1; }
grep -q '^SSLAT_INSTALL:BOOL=OFF' "$cache" || { echo "FAIL: SSLAT_INSTALL is not off in a subproject"; exit 1; }
[ ! -e "$work/build/sslat/tests" ] || { echo "FAIL: the test folder was configured"; exit 1; }
cmake --build "$work/build" --target parent_consumer -j"$(nproc)" > "$work/build.log" ||
  { tail -n 30 "$work/build.log"; echo "FAIL: the parent does not build"; exit 1; }
"$work/build/parent_consumer" | grep -q "consumer: ok" || { echo "FAIL: the parent's program"; exit 1; }
echo "ok: add_subdirectory(sslat): tests and install off, sslat::sslat links and runs"
