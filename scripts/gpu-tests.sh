#!/usr/bin/env bash
# Runs the whole test suite (the `large` tests included) and `densela check` on a CUDA GPU.
# Used with the device tool; on a GPU machine with densela's requirements installed it runs as is:
#   bash scripts/gpu-tests.sh [pytest args...]
# Logs go to $OUT (or ./gpu-out) as pytest-gpu.log, junit.xml and check.json. With SHARDS=N (N > 1) the selected
# tests run in N pytest processes at once, every N-th test each (most of a GPU test's time is compiling kernels on
# the CPU): pytest-shard-I.log and junit-I.xml per shard, each shard's summary line in pytest-gpu.log; no check.
# SHARD_TIMEOUT=SECONDS stops each shard after that long (the device tool's calls end at 600 s). A shard that ran
# none of its tests fails the run. The tests are those of this script's tree (pytest's --rootdir), also where
# the tree is a copy inside another checkout (a branch's src, tests and scripts carried beside main's). Test ids
# given as arguments must reach it whole (ids hold spaces and brackets: pass them as "${ids[@]}"); where none is
# collected the run stops, its collection's last lines in pytest-gpu.log.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
python3 -c "import torch, triton, numpy; print('torch', torch.__version__, 'triton', triton.__version__, 'numpy', numpy.__version__)"
paths=(tests)  # unless a test path is given
for arg in "$@"; do
  case $arg in tests/*) paths=() ;; esac
done
shards=${SHARDS:-1}
if [ "$shards" -gt 1 ]; then
  # --rootdir: test ids relative to this tree, also in a copy of it inside another checkout (a branch's tree)
  python3 -m pytest "${paths[@]}" -q -p no:cacheprovider --rootdir "$PWD" --collect-only "$@" > "$out/collect.log" 2>&1
  grep -E '^[^ ]+\.py::' "$out/collect.log" > "$out/tests.txt"  # ids (not "ERROR: not found: ...::...")
  count=$(wc -l < "$out/tests.txt")
  if [ "$count" -eq 0 ]; then  # a shard without ids would run every test
    { echo "no tests collected:"; tail -n 20 "$out/collect.log"; } | tee "$out/pytest-gpu.log"
    exit 1
  fi
  shards=$((shards < count ? shards : count))
  echo "$count tests in $shards shards" | tee "$out/pytest-gpu.log"
  for ((i = 0; i < shards; i++)); do
    mapfile -t ids < <(awk -v n="$shards" -v i="$i" 'NR % n == i' "$out/tests.txt")
    timeout "${SHARD_TIMEOUT:-0}" python3 -m pytest -q -p no:cacheprovider --rootdir "$PWD" \
      --junitxml="$out/junit-$i.xml" "${ids[@]}" > "$out/pytest-shard-$i.log" 2>&1 &
  done
  rc=0
  for ((i = 0; i < shards; i++)); do
    wait -n || rc=1
  done
  for ((i = 0; i < shards; i++)); do  # a shard stopped by SHARD_TIMEOUT ends in its progress line
    log="$out/pytest-shard-$i.log"
    counted=$(grep -E '^[.sFExX]+( +\[ *[0-9]+%\])?$' "$log" | sed 's/ .*//' |
      awk '{p += gsub(/\./, ""); f += gsub(/[FE]/, "")} END {printf "progress %d passed, %d failed", p, f}')
    echo "shard $i: $counted; $(tail -n 1 "$log" | cut -c1-100)" | tee -a "$out/pytest-gpu.log"
    case $counted in  # a shard that ran none of its tests (ids that did not resolve, say) fails the run
      "progress 0 passed, 0 failed") rc=1 ;;
    esac
  done
  exit "$rc"
fi
python3 -m pytest "${paths[@]}" -q -p no:cacheprovider --rootdir "$PWD" --junitxml="$out/junit.xml" --durations=15 "$@" 2>&1 |
  tee "$out/pytest-gpu.log"
rc=${PIPESTATUS[0]}
python3 -m densela.cli check --json "$out/check.json" 2>&1 | tee "$out/check.log"
exit "$rc"
