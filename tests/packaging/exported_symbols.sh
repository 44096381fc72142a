#!/usr/bin/env bash
# libsslat.so exports exactly the functions of include/sslat.h, nothing else.
set -euo pipefail
library=$1 header=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nm -D --defined-only "$library" | awk '{print $3}' | grep -v '^_' | sort -u > "$work/exported"
grep -oE '^SSLAT_API [^(]*\bsslat_[a-z0-9_]+\(' "$header" | grep -oE 'sslat_[a-z0-9_]+\($' | tr -d '(' | sort -u > "$work/declared"
[ -s "$work/declared" ] || { echo "FAIL: no SSLAT_API declarations found in $header"; exit 1; }
if ! diff -u "$work/declared" "$work/exported"; then
  echo "FAIL: the exported symbols (+) differ from the header's functions (-)"
  exit 1
fi
echo "ok: $(wc -l < "$work/exported") symbols, exactly the header's"
