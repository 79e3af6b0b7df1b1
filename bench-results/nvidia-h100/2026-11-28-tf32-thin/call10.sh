#!/usr/bin/env bash
# Session 64 call 10: GPU tests of the deep 16-bit tiles' route at 1c0ac3e (DEEP_MIN_FILL 0.5).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
mkdir -p $OUT/tests
SHARDS=8 SHARD_TIMEOUT=150 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py tests/test_tuning.py -k "deep_16bit or few_tile or nearly_fill" > /dev/null 2>&1
tail -10 $OUT/tests/pytest-gpu.log
tar czf $OUT/tests.tar.gz -C $OUT tests && rm -rf $OUT/tests
