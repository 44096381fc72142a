#!/usr/bin/env bash
# Install what sslat needs from Debian (as root), the project's Python
# environment (build/python-venv: ONNX and ONNX Runtime, the independent
# reference of `sslat validate --reference onnxruntime`), and build into build/.
# Usage: bash scripts/setup.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config libjansson-dev libgtest-dev clang libclang-rt-14-dev
          libdnnl-dev libopenmpi-dev openmpi-bin python3 python3-venv chromium
          protobuf-c-compiler libprotobuf-c-dev libonnx-dev slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The project's Python environment, from PyPI: numpy, onnx and onnxruntime
# (the --reference runtime of sslat validate; PyTorch, the other one, is
# optional: pip install torch into it). The command finds it by itself.
venv=build/python-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c 'import numpy, onnx, onnxruntime' 2>/dev/null ||
  "$venv/bin/pip" install -q --disable-pip-version-check numpy onnx onnxruntime

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build -j"$(nproc)"
