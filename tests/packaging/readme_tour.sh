#!/bin/bash
# Runs every line of the README's tour, as written, in a scratch folder that
# holds links to the build and the examples (the tour's outputs land there,
# never in the repository). Usage: readme_tour.sh REPO BUILD
set -euo pipefail
repo=$1 build=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ln -s "$build" "$scratch/build"
ln -s "$repo/examples" "$scratch/examples"
# the indented lines of "## Five lines …" and "## A tour", each up to the next section
lines=$(awk '/^## (Five lines|A tour)/ {on = 1; next} /^## / {on = 0} on && /^    / {sub(/^    /, ""); print}' "$repo/README.md")
[ -n "$lines" ] || { echo "readme_tour: no tour found in $repo/README.md"; exit 1; }
cd "$scratch"
count=0
touch "$scratch/empty"  # the commands' stdin (mpirun reads it)
while IFS= read -r line <&3; do
  case "$line" in
    mpirun*) command -v mpirun >/dev/null || { echo "skip (no mpirun): $line"; continue; }
             grep -q '^SSLAT_MPI:BOOL=ON' "$build/CMakeCache.txt" ||
               { echo "skip (built without MPI): $line"; continue; } ;;
  esac
  echo "+ $line"
  start=$SECONDS
  if ! bash -euo pipefail -c "$line" <"$scratch/empty" >"$scratch/out.txt" 2>&1; then
    echo "readme_tour: this README line failed:"
    echo "  $line"
    tail -20 "$scratch/out.txt"
    exit 1
  fi
  echo "  ok in $((SECONDS - start)) s"
  count=$((count + 1))
done 3<<< "$lines"
echo "readme_tour: $count lines ran"
