#!/usr/bin/env bash
# Build what bench/gpu_check.sh runs on a GPU node, which then needs neither
# GoogleTest nor network access: Release, the GPU architectures of CUDAARCHS
# (default: CMakeLists.txt's list), static CUDA runtime, no MPI; the command,
# the GPU test binary, libsslat.so, libjansson and libprotobuf-c go to
# gpu-carry/ (git-ignored), beside the tree (copy it there if the node is
# another machine), where
#   bash bench/gpu_check.sh    runs the check (bench/gpu_check.sh says how)
# Needs the build packages of scripts/setup.sh: --setup runs it first (apt, a
# venv and a full build: minutes, so only on a fresh machine).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--setup" ]; then bash scripts/setup.sh >/dev/null; fi
if [ -n "${CUDAARCHS:-}" ]; then arch=("-DCMAKE_CUDA_ARCHITECTURES=$CUDAARCHS"); else arch=(-UCMAKE_CUDA_ARCHITECTURES); fi
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSSLAT_MPI=OFF "${arch[@]}" >/dev/null
cmake --build build-gpu -j"$(nproc)" --target sslat_cli sslat_gpu_tests sslat_shared
rm -rf gpu-carry && mkdir -p gpu-carry
cp build-gpu/sslat build-gpu/tests/sslat_gpu_tests gpu-carry/
cp "$(readlink -f build-gpu/libsslat.so)" gpu-carry/libsslat.so
# the libraries the command really links (system, conda or ~/.local alike);
# libprotobuf-c only when the build has the ONNX export
linked() { ldd build-gpu/sslat | awk -v lib="$1" '$1 == lib && $3 ~ /^\// {print $3; exit}'; }
cp "$(linked libjansson.so.4)" gpu-carry/libjansson.so.4
protobuf_c=$(linked libprotobuf-c.so.1)
if [ -n "$protobuf_c" ]; then cp "$protobuf_c" gpu-carry/libprotobuf-c.so.1; fi
echo "gpu-carry/: $(du -sh gpu-carry | cut -f1); needs on the GPU node:"
ldd gpu-carry/sslat | awk '{print "  " $1}'
