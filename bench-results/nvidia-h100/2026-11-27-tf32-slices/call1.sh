#!/usr/bin/env bash
# Session 61 call 1: 3c31b85's sweep_factors_kernel on the GPU (tests, set-up time); TF32 register path in
# one-instruction slices (uncommitted) against f402242, the lab's measure.
export PYTHONUNBUFFERED=1 PYTHONPATH=src DENSELA_GIT_COMMIT=f402242+slices
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
mkdir -p $OUT/ab
OUT=$OUT/ab timeout 240 python3 scripts/ab-trees.py --trees .br/trees/f402242/src src \
  --gemm 2048x2048x2048,4096x4096x4096,8192x8192x8192 --layouts nn,tn,tt,nt --dtype float32 --precision tf32 --seconds 1 2>&1 | tail -16
timeout 100 python3 bench-results/nvidia-h100/2026-11-27-solve-host/probe-setup.py 3c31b85 2>&1 | grep "n="
SHARDS=8 SHARD_TIMEOUT=200 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py tests/test_kernels_compile.py tests/test_gemm.py \
  -k "sweep or checks_a_piv or checks_lu or lu_solve or diagonal or (warp_specialized_kernel and tf32 and not tf32x3)" > /dev/null 2>&1
tail -9 $OUT/tests/pytest-gpu.log | head -3; grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -8; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
