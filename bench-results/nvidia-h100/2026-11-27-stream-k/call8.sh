#!/usr/bin/env bash
# Session 62 call 8: at 37e76b8: the warp-specialized kernel's other paths after the refactor (16-bit, TF32,
# 3xTF32, float64, ping-pong, splits), GPU tests.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
SHARDS=12 SHARD_TIMEOUT=260 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "warp_specialized and not fma" > /dev/null 2>&1
grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -12; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head -20
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
