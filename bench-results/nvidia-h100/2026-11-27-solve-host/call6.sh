#!/usr/bin/env bash
# Session 60 call 6 (two GPUs): the two-GPU test at 170af98 (716c6ee's fixed helper; lu_solve's new set-up kernel
# on both GPUs).
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
OUT=$OUT/two timeout 240 bash scripts/gpu-tests.sh tests/test_gemm.py -k "each_gpu" > /dev/null 2>&1
tail -n 4 $OUT/two/pytest-gpu.log; grep -h -E "^(FAILED|ERROR|E )" $OUT/two/pytest-shard-*.log | head
(cd $OUT && tar czf two.tar.gz two && rm -rf two)
