#!/usr/bin/env bash
# Session 58 call 7 (two GPUs): the two-GPU test after the capture stream fix.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
OUT=$OUT/two timeout 120 bash scripts/gpu-tests.sh tests/test_gemm.py tests/test_transpose.py -k "each_gpu or inplace_graph_replays" > /dev/null 2>&1
tail -n 4 $OUT/two/pytest-gpu.log; grep -n "Error\|densela/.*py:[0-9]" $OUT/two/pytest-gpu.log | head -20
