#!/usr/bin/env bash
# Session 61 call 2: TF32 register path: f402242, slices (94d...: HEAD), slices + stage released at once (working
# tree); set-up kernel after the revert (73ae857); GPU tests of the sweeps and of the warp-specialized TF32 path.
export PYTHONUNBUFFERED=1 PYTHONPATH=src DENSELA_GIT_COMMIT=$(cat .br/s61/commit)
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/ab
OUT=$OUT/ab timeout 300 python3 scripts/ab-trees.py --trees .br/trees/f402242/src .br/trees/slices/src src .br/trees/f402242b/src \
  --gemm 4096x4096x4096,8192x8192x8192 --layouts nn,tt,tn --dtype float32 --precision tf32 --seconds 1 2>&1 | grep -v "^ *$" | tail -8
timeout 120 python3 bench-results/nvidia-h100/2026-11-27-solve-host/probe-setup.py 73ae857 2>&1 | grep "n="
SHARDS=8 SHARD_TIMEOUT=220 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py tests/test_kernels_compile.py tests/test_gemm.py \
  -k "sweep or (warp_specialized_kernel and tf32 and not tf32x3)" > /dev/null 2>&1
tail -9 $OUT/tests/pytest-gpu.log | head -3; grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -8; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
