#!/usr/bin/env bash
# Install the build into a temp prefix, then build and run programs against it
# as other projects would: with find_package(sslat CONFIG REQUIRED) (shared and
# static targets) and with pkg-config (shared and --static).
set -euo pipefail
build=$1 consumer=$2 cc=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/sslat.h bin/sslat; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f was not installed"; exit 1; }
done
lib=$(dirname "$(find "$prefix" -name 'libsslat.so.*.*.*' | head -n 1)")
[ -n "$lib" ] && [ -e "$lib/libsslat.a" ] && [ -L "$lib/libsslat.so" ] || { echo "FAIL: libraries missing in $prefix"; exit 1; }
readelf -d "$lib/libsslat.so" | grep -q 'SONAME.*libsslat.so.0.2' || { echo "FAIL: no versioned SONAME"; exit 1; }
"$prefix/bin/sslat" calculators >/dev/null

# CMake package
cmake -S "$consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/cmake-build" >/dev/null
"$work/cmake-build/consumer_shared" | grep -q "consumer: ok" || { echo "FAIL: the shared find_package consumer"; exit 1; }
"$work/cmake-build/consumer_static" | grep -q "consumer: ok" || { echo "FAIL: the static find_package consumer"; exit 1; }
echo "ok: find_package(sslat) consumers, shared and static"

# pkg-config
export PKG_CONFIG_PATH=$lib/pkgconfig
pkg-config --exists sslat || { echo "FAIL: pkg-config does not find sslat.pc"; exit 1; }
[ "$(pkg-config --modversion sslat)" = "$("$prefix/bin/sslat" --version | awk '{print $2}')" ] ||
  { echo "FAIL: sslat.pc's version is not the command's"; exit 1; }
# shellcheck disable=SC2046
"$cc" "$consumer/main.c" -o "$work/pc_shared" $(pkg-config --cflags --libs sslat)
LD_LIBRARY_PATH=$lib "$work/pc_shared" | grep -q "consumer: ok" || { echo "FAIL: the pkg-config consumer"; exit 1; }
# shellcheck disable=SC2046
"$cc" "$consumer/main.c" -o "$work/pc_static" $(pkg-config --cflags sslat) "$lib/libsslat.a" \
  $(pkg-config --static --libs-only-other --libs-only-L sslat) $(pkg-config --static --libs-only-l sslat | sed 's/-lsslat//')
"$work/pc_static" | grep -q "consumer: ok" || { echo "FAIL: the static pkg-config consumer"; exit 1; }
echo "ok: pkg-config consumers, shared and static"
