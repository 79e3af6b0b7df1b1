#!/usr/bin/env bash
# Session 58 call 2: float32 FMA on the warp-specialized kernel with A copied M-major (the tn order's layout).
# Trees: HEAD 05a1482; new = A copied M-major wherever it is K-major (both K-major: B stays K-major);
# both = the same, and B copied N-major too where both are K-major.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 330 python3 scripts/ab-trees.py --trees .br/trees/head/src src .br/trees/both/src \
  --gemm 5000x5000x50,4096x4096x36,8192x8192x48,20480x20480x32,20480x20480x128,128x4096x4096,256x4096x4096,2000x2000x2000,4096x4096x4096,8192x8192x8192 \
  --layouts nn,nt,tn --dtype float32 --precision ieee --seconds 0.4 2>&1 | tee $OUT/ab.log
SHARDS=8 SHARD_TIMEOUT=150 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py \
  -k "fp32-fma or k_steps_of_16 or each_gpu or fma" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
