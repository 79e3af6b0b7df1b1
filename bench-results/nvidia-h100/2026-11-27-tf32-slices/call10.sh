#!/usr/bin/env bash
# Session 61 call 10: the rest of test_gemm's warp-specialized tests at HEAD (16-bit, 3xTF32, float64, FMA, splits,
# ping-pong: the consumer's end-of-tile wait changed for the TF32 register path only).
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
SHARDS=8 SHARD_TIMEOUT=400 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py \
  -k "warp_specialized and not (tf32 and not tf32x3)" > /dev/null 2>&1
tail -9 $OUT/tests/pytest-gpu.log | head -3; grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -8; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
