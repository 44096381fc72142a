#!/usr/bin/env bash
# The fuzz targets' seed corpora, made from the example spaces and real tables:
#   bash scripts/fuzz_seeds.sh SSLAT_COMMAND DIR
# DIR/<target>/ for each target, DIR/spaces/ the spaces the table-pair target
# binds tables to. Tables are made by the analytic calculators (instant).
set -euo pipefail
cd "$(dirname "$0")/.."
sslat=$1
out=$2
rm -rf "$out"
mkdir -p "$out"/{fuzz_loader,fuzz_space_export,fuzz_container,fuzz_table_pair,fuzz_enot,spaces,tables}
cp examples/*.json tests/data/*.json "$out/fuzz_loader/"
cp examples/*.json tests/data/*.json "$out/fuzz_space_export/"
cp tests/data/enot/*.pkl "$out/fuzz_enot/"
spaces="examples/fbnet.json examples/proxylessnas.json tests/data/probe.json examples/yolov5s_ss.json"
for space in $spaces; do
  name=$(basename "$space" .json)
  cp "$space" "$out/spaces/"
  "$sslat" measure -c mac "$space" -o "$out/tables/$name.mac.sslat" 2>/dev/null
  "$sslat" measure -c mac_thop "$space" -o "$out/tables/$name.thop.sslat" 2>/dev/null
  "$sslat" measure -c mac "$space" --shard 0/2 -o "$out/tables/$name.part0.sslat" 2>/dev/null
  "$sslat" measure -c mac "$space" --shard 1/2 -o "$out/tables/$name.part1.sslat" 2>/dev/null
done
cp "$out"/tables/*.sslat "$out/fuzz_container/"
for table in "$out"/tables/*.sslat; do  # the JSON form too (the container target reads both)
  "$sslat" export "$table" --json -o "$out/fuzz_container/$(basename "$table" .sslat).json" 2>/dev/null || true
done
# pairs: u32 (little-endian) length of the first, the first, the second
pair() {
  python3 -c 'import sys, struct; a = open(sys.argv[1], "rb").read(); b = open(sys.argv[2], "rb").read()
open(sys.argv[3], "wb").write(struct.pack("<I", len(a)) + a + b)' "$1" "$2" "$3"
}
for space in $spaces; do
  name=$(basename "$space" .json)
  t=$out/tables/$name
  pair "$t.part0.sslat" "$t.part1.sslat" "$out/fuzz_table_pair/$name.parts"     # merge
  pair "$t.mac.sslat" "$t.thop.sslat" "$out/fuzz_table_pair/$name.budget"       # budget, bind, validate
  pair "$t.part1.sslat" "$t.part1.sslat" "$out/fuzz_table_pair/$name.twice"     # a duplicate part
done
pair "$out/tables/fbnet.mac.sslat" "$out/tables/proxylessnas.mac.sslat" "$out/fuzz_table_pair/two-spaces"
cp tests/data/fuzz/*.pair "$out/fuzz_table_pair/"  # what the fuzzer once found (regressions)
