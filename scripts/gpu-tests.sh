#!/usr/bin/env bash
# Runs the whole test suite (the `large` tests included) and `densela check` on a CUDA GPU.
# Used with the device tool; on a GPU machine with densela's requirements installed it runs as is:
#   bash scripts/gpu-tests.sh [pytest args...]
# Logs go to $OUT (or ./gpu-out) as pytest-gpu.log, junit.xml and check.json.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
python3 -c "import torch, triton, numpy; print('torch', torch.__version__, 'triton', triton.__version__, 'numpy', numpy.__version__)"
python3 -m pytest tests -q -p no:cacheprovider --junitxml="$out/junit.xml" --durations=15 "$@" 2>&1 | tee "$out/pytest-gpu.log"
rc=${PIPESTATUS[0]}
python3 -m densela.cli check --json "$out/check.json" 2>&1 | tee "$out/check.log"
exit "$rc"
