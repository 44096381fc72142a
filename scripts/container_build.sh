#!/usr/bin/env bash
# Build sslat with every calculator this machine allows: the build step of the
# container recipes (Dockerfile, sslat.def), and the same commands by hand on
# any Linux machine, with or without root (docs/cluster.md).
#
#   bash scripts/container_build.sh [--install PREFIX] [--require-cuda] [--dry-run] [CMAKE ARGS...]
#
# As root where apt-get exists (a container build, a fresh Debian / Ubuntu) it
# installs what is missing first; with nothing missing, or without root, it
# installs nothing and says what it could not find. oneDNN 2.x (the cpu
# calculator's API: oneDNN 3.x is another API) comes from the distribution
# where it has 2.x (Debian 12: libdnnl-dev 2.6) and otherwise from PyPI's
# oneDNN 2.6 wheels into a private venv (Ubuntu 24.04 ships 3.1). cuDNN's
# headers may sit outside the CUDA toolkit (NVIDIA's .deb packages, a module,
# pip's nvidia-cudnn-cu13): they are looked for and handed to CMake.
#
#   --install PREFIX  cmake --install into PREFIX (root: /usr/local; without
#                     root e.g. ~/.local), with libdnnl.so.2 when it came from PyPI
#   --require-cuda    fail unless the cuda calculator is built (the GPU images)
#   --dry-run         print what would be installed and run, change nothing
# Environment: SSLAT_BUILD_DIR (build folder, default build), CUDAARCHS (GPU
# architectures, e.g. 80 or "80;90": default in CMakeLists.txt), CUDNN_HOME
# (a cuDNN 9 outside the toolkit), SSLAT_DEPS_VENV (the venv of PyPI's oneDNN,
# default $SSLAT_BUILD_DIR/deps-venv), JOBS (parallel compile jobs).
set -euo pipefail
self=$(readlink -f "$0")
cd "$(dirname "$self")/.."

prefix="" require_cuda=0 dry=0
cmake_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --install) prefix=${2:?--install needs a PREFIX}; shift 2 ;;
    --require-cuda) require_cuda=1; shift ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$self"; exit 0 ;;
    *) cmake_args+=("$1"); shift ;;
  esac
done
build=${SSLAT_BUILD_DIR:-build}
deps=$(readlink -m "${SSLAT_DEPS_VENV:-$build/deps-venv}")
jobs=${JOBS:-$(nproc)}

say() { echo "container_build: $*"; }
run() { # a command, printed; not run under --dry-run
  echo "+ $*"
  [ "$dry" = 1 ] || "$@"
}
is_root() { [ "$(id -u)" = 0 ]; }
have_apt() { command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# DNNL_VERSION_MAJOR of the oneDNN headers under an include folder ("" when none)
dnnl_major() {
  local h
  for h in "$1/oneapi/dnnl/dnnl_version.h" "$1/dnnl_version.h"; do
    [ -f "$h" ] && { sed -nE 's/^#define DNNL_VERSION_MAJOR ([0-9]+).*/\1/p' "$h" | head -n 1; return; }
  done
}

# ---- the CUDA toolkit: nvcc on PATH or in its usual home -----------------------
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ]; then
  toolkit_include=$(cd "$(dirname "$(readlink -f "$nvcc")")/.." && pwd)/include
  say "CUDA: $nvcc ($("$nvcc" --version | sed -nE 's/.*release ([0-9.]+).*/\1/p'))"
elif [ "$require_cuda" = 1 ]; then
  say "FAIL: --require-cuda, but no nvcc (PATH, /usr/local/cuda/bin): load the CUDA module or install the toolkit"
  exit 1
else
  toolkit_include=""
  say "no nvcc: building without the cuda calculator"
fi

# ---- what apt would bring (as root, where apt-get exists) ----------------------
packages=(build-essential cmake pkg-config libjansson-dev protobuf-c-compiler libprotobuf-c-dev libonnx-dev python3)
dnnl_from=""   # system | apt | pypi | "" (none)
dnnl_include="${DNNL_INCLUDE_DIR:-}"
if [ -n "$dnnl_include" ]; then
  dnnl_from=given
elif [ "$(dnnl_major /usr/include)" = 2 ] || [ "$(dnnl_major /usr/local/include)" = 2 ]; then
  dnnl_from=system
fi
missing=()
if have_apt; then
  for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
fi
if is_root && have_apt; then
  if [ ${#missing[@]} -gt 0 ] || [ -z "$dnnl_from" ]; then
    export DEBIAN_FRONTEND=noninteractive
    run apt-get update -qq
  fi
  if [ -z "$dnnl_from" ]; then
    # the distribution's oneDNN when it is 2.x (Debian 12: 2.6.3; Ubuntu 22.04's 2.2 is too old, 24.04's 3.1 another API)
    candidate=$(apt-cache policy libdnnl-dev 2>/dev/null | sed -nE 's/^ *Candidate: *([^ ]+).*/\1/p')
    if [[ "$candidate" =~ ^2\.([6-9]|[1-9][0-9])\. ]]; then
      missing+=(libdnnl-dev)
      dnnl_from=apt
    else
      say "libdnnl-dev here is '${candidate:-none}', not oneDNN >= 2.6 < 3: oneDNN 2.6 from PyPI instead"
    fi
  fi
  [ -z "$dnnl_from" ] && ! python3 -c 'import ensurepip' 2>/dev/null && missing+=(python3-venv)
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    run apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    say "every package is installed: no apt"
  fi
elif [ ${#missing[@]} -gt 0 ]; then
  say "not root: not installing ${missing[*]} (what is really needed is checked below; docs/cluster.md)"
fi

# ---- oneDNN 2.x from PyPI when the system has none -------------------------------
if [ -z "$dnnl_from" ]; then
  dnnl_from=pypi
  [ -x "$deps/bin/python" ] || run python3 -m venv "$deps"
  run "$deps/bin/pip" install -q --disable-pip-version-check onednn-cpu-gomp==2022.2.1 onednn-devel-cpu-gomp==2022.2.1
  dnnl_include=$deps/include
fi
[ -n "$dnnl_include" ] && cmake_args=("-DDNNL_INCLUDE_DIR=$dnnl_include" "${cmake_args[@]}")
say "oneDNN: ${dnnl_from}${dnnl_include:+ ($dnnl_include)}"

# ---- what the build cannot do without ------------------------------------------
for tool in cmake pkg-config cc c++; do
  command -v "$tool" >/dev/null || { [ "$dry" = 1 ] && say "(dry run) $tool not found yet" || { say "FAIL: no $tool"; exit 1; }; }
done
if [ "$dry" != 1 ] && ! pkg-config --exists jansson; then
  say "FAIL: no jansson for pkg-config (libjansson-dev; without root: conda-forge's jansson and PKG_CONFIG_PATH, docs/cluster.md)"
  exit 1
fi

# ---- cuDNN 9's headers: beside the toolkit's, or where else they are ------------
if [ -n "$toolkit_include" ] && [ -f "$toolkit_include/cudnn_version.h" ]; then
  say "cuDNN headers: beside the toolkit's ($toolkit_include)"
fi
if [ -n "$toolkit_include" ] && [ ! -f "$toolkit_include/cudnn_version.h" ]; then
  cudnn_include=""
  for d in ${SSLAT_CUDNN_INCLUDE_DIR:-} ${CUDNN_HOME:+$CUDNN_HOME/include} ${CUDNN_ROOT:+$CUDNN_ROOT/include} \
           /usr/include /usr/include/"$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)"; do
    [ -f "$d/cudnn_version.h" ] && { cudnn_include=$d; break; }
  done
  if [ -z "$cudnn_include" ]; then
    say "no cudnn_version.h beside $toolkit_include nor in CUDNN_HOME, /usr/include: cuDNN 9 is needed for the cuda calculator"
    if [ "$require_cuda" = 1 ]; then exit 1; fi
    cmake_args=(-DSSLAT_CUDA=OFF "${cmake_args[@]}")
  else
    say "cuDNN headers: $cudnn_include"
    cmake_args=("-DSSLAT_CUDNN_INCLUDE_DIR=$cudnn_include" "${cmake_args[@]}")
  fi
fi

# ---- configure, build, install ----------------------------------------------------
# CUDAARCHS handed on explicitly: a CMakeLists.txt that sets its own default
# before enable_language(CUDA) would not read it from the environment
[ -n "${CUDAARCHS:-}" ] && cmake_args=("-DCMAKE_CUDA_ARCHITECTURES=$CUDAARCHS" "${cmake_args[@]}")
run cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSSLAT_TESTS=OFF "${cmake_args[@]}"
run cmake --build "$build" -j"$jobs"
sslat=$build/sslat
if [ -n "$prefix" ]; then
  run cmake --install "$build" --prefix "$prefix"
  if [ "$dnnl_from" = pypi ]; then
    # the cpu calculator dlopens libdnnl.so.2: beside the installed library
    run install -D -m 0644 "$deps/lib/libdnnl.so.2" "$prefix/lib/libdnnl.so.2"
    if is_root; then
      [ -f /etc/ld.so.conf.d/sslat.conf ] || { [ "$dry" = 1 ] || echo "$prefix/lib" > /etc/ld.so.conf.d/sslat.conf; }
      run ldconfig
    else
      say "without root: export SSLAT_DNNL_LIBRARY=$prefix/lib/libdnnl.so.2 (or LD_LIBRARY_PATH=$prefix/lib)"
    fi
  fi
  sslat=$prefix/bin/sslat
elif [ "$dnnl_from" = pypi ]; then
  export SSLAT_DNNL_LIBRARY=$deps/lib/libdnnl.so.2
  say "export SSLAT_DNNL_LIBRARY=$SSLAT_DNNL_LIBRARY before running $sslat (the cpu calculator's oneDNN)"
fi

# ---- what was built: every calculator there, whether or not this machine has a GPU --
[ "$dry" = 1 ] && { say "dry run: nothing built"; exit 0; }
"$sslat" calculators | tee "$build/calculators.txt"
if grep -qE '^cpu .*has no oneDNN' "$build/calculators.txt"; then say "FAIL: built without the cpu calculator"; exit 1; fi
if [ "$require_cuda" = 1 ] && grep -qE '^cuda .*has no CUDA' "$build/calculators.txt"; then
  say "FAIL: --require-cuda, but built without the cuda calculator"
  exit 1
fi
say "done: $sslat"
