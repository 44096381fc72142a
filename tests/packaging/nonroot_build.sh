#!/bin/bash
# The non-root build of docs/cluster.md, as an unprivileged user (nobody) in a
# fresh virtual environment: oneDNN 2.6 from PyPI (no apt, no root), then
# `pip install` of the checkout with every calculator, then the command in that
# venv runs a cpu table and its reference runtime with the venv's own Python.
# The checkout is read-only to that user, so a build that wrote into the
# source tree would fail; the tree is also compared before and after.
# Usage: nonroot_build.sh REPO. Exit 77 (ctest: skipped) when it cannot run
# here: not root (to become nobody), or PyPI unreachable.
set -uo pipefail
repo=$(cd "$1" && pwd)
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to run as the unprivileged user nobody"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: no setpriv (util-linux)"; exit 77; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
mkdir -p "$scratch/home" && chown nobody "$scratch/home"
# a copy of the checkout owned by root, readable by nobody: what a shared read-only checkout is
mkdir -p "$scratch/src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp -a --parents -t "$scratch/src") ||
  { echo "FAIL: cannot copy the checkout"; exit 1; }
chmod -R a+rX,go-w "$scratch/src"
before=$(cd "$scratch/src" && find . -type f | sort | md5sum)

as_user() { # a command as nobody, with a home of its own and nothing of root's environment
  setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
    env -i HOME="$scratch/home" PATH=/usr/local/cuda/bin:/usr/bin:/bin TMPDIR="$scratch/home" "$@"
}
venv=$scratch/home/venv
as_user python3 -m venv "$venv" || { echo "FAIL: python3 -m venv as nobody"; exit 1; }
if ! as_user "$venv/bin/pip" install -q --disable-pip-version-check onednn-cpu-gomp==2022.2.1 \
     onednn-devel-cpu-gomp==2022.2.1 numpy onnx onnxruntime 2>"$scratch/pip.log"; then
  tail -5 "$scratch/pip.log"
  echo "SKIP: PyPI is not reachable from here (the oneDNN 2.6 wheels)"
  exit 77
fi
echo "== oneDNN from PyPI: $(ls "$venv/include/oneapi/dnnl/dnnl_version.h" "$venv/lib/libdnnl.so.2")"
# the build: one GPU architecture keeps it short (the default list is docs/cluster.md's)
if ! as_user "$venv/bin/pip" install -q --disable-pip-version-check "$scratch/src" \
     --config-settings=cmake.define.DNNL_INCLUDE_DIR="$venv/include" \
     --config-settings=cmake.define.CMAKE_CUDA_ARCHITECTURES=90 >"$scratch/build.log" 2>&1; then
  tail -30 "$scratch/build.log"
  echo "FAIL: pip install of the checkout as nobody"
  exit 1
fi
after=$(cd "$scratch/src" && find . -type f | sort | md5sum)
[ "$before" = "$after" ] || { echo "FAIL: pip install wrote into the source tree"; exit 1; }
echo "== pip install as nobody: built outside the source tree"
calculators=$(as_user env SSLAT_DNNL_LIBRARY="$venv/lib/libdnnl.so.2" "$venv/bin/sslat" calculators)
echo "$calculators"
echo "$calculators" | grep -qE '^cpu +timed +ms +available' || { echo "FAIL: the cpu calculator is not available"; exit 1; }
echo "$calculators" | grep -qE '^cuda +timed +ms +(available|no +no CUDA device)' ||
  { echo "FAIL: the cuda calculator was not built"; exit 1; }
space=$scratch/src/examples/mobilenet_v2_space.json
table=$scratch/home/cpu.sslat
as_user env SSLAT_DNNL_LIBRARY="$venv/lib/libdnnl.so.2" "$venv/bin/sslat" measure -c cpu "$space" --threads 1 \
  --runs 3 --warmup 1 --resolution 96 -o "$table" || { echo "FAIL: a cpu table as nobody"; exit 1; }
# the reference runtime runs in the command's own venv (onnxruntime is only there), not python3 from PATH
as_user env SSLAT_DNNL_LIBRARY="$venv/lib/libdnnl.so.2" "$venv/bin/sslat" validate -c cpu "$space" "$table" \
  --resolution 96 -k 2 --runs 3 --warmup 1 --reference onnxruntime >"$scratch/validate.txt" 2>"$scratch/validate.err" ||
  { cat "$scratch/validate.err"; echo "FAIL: validate --reference onnxruntime with the venv's Python"; exit 1; }
grep -q "$venv/bin/python3" "$scratch/validate.err" || { cat "$scratch/validate.err"; echo "FAIL: not the venv's Python"; exit 1; }
echo "== a cpu table and its ONNX Runtime check as nobody, in the venv, without apt: ok"
