#!/usr/bin/env bash
# Runs benchmark suites on a CUDA GPU and packs the run folder into one file (for the device tool,
# which brings back a few files from $OUT). On any GPU machine with densela's requirements:
#   bash scripts/bench-device.sh RUN_NAME SUITE... [densela bench options]
# leaves $OUT/RUN_NAME.tar.gz (or ./bench-out/...) holding rows.jsonl, results.csv, ceilings.json and report.md
# (no plots: `densela report FOLDER` draws them from the rows).
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
out="${OUT:-bench-out}"
name=$1
shift
mkdir -p "$out"
python3 -m densela.cli bench "$@" --out "$out/$name" --quiet
rc=$?
tar -czf "$out/$name.tar.gz" --exclude="*.png" -C "$out" "$name" && rm -rf "${out:?}/$name"
exit "$rc"
