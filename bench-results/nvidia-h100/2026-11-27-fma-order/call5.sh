#!/usr/bin/env bash
# Session 58 call 5 (two GPUs): the launch cache's device key (605234e), test_each_gpu_launches_its_own_kernels.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
OUT=$OUT/tests timeout 200 bash scripts/gpu-tests.sh tests/test_gemm.py -k "each_gpu" -rA > /dev/null 2>&1
tail -n 15 $OUT/tests/pytest-gpu.log
