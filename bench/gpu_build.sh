#!/usr/bin/env bash
# Build, here, what bench/gpu_check.sh runs on the GPU machine (which has no
# GoogleTest and no network): Release, sm_90, static CUDA runtime, no MPI; the
# command, the GPU test binary, libsslat.so, libjansson and libprotobuf-c go to
# gpu-carry/ (git-ignored), to copy beside the tree on the GPU node, where
#   bash bench/gpu_check.sh    runs the check (bench/gpu_check.sh says how)
# Needs the build packages of scripts/setup.sh: --setup runs it first (apt, a
# venv and a full build: minutes, so only on a fresh machine).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--setup" ]; then bash scripts/setup.sh >/dev/null; fi
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSSLAT_MPI=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build build-gpu -j"$(nproc)" --target sslat_cli sslat_gpu_tests sslat_shared
rm -rf gpu-carry && mkdir -p gpu-carry
cp build-gpu/sslat build-gpu/tests/sslat_gpu_tests gpu-carry/
cp "$(readlink -f build-gpu/libsslat.so)" gpu-carry/libsslat.so
cp "$(ldconfig -p | awk '/libjansson.so.4 /{print $NF; exit}')" gpu-carry/libjansson.so.4
cp "$(ldconfig -p | awk '/libprotobuf-c.so.1 /{print $NF; exit}')" gpu-carry/libprotobuf-c.so.1
echo "gpu-carry/: $(du -sh gpu-carry | cut -f1); needs on the GPU machine:"
ldd gpu-carry/sslat | awk '{print "  " $1}'
