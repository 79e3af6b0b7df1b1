#!/usr/bin/env bash
# Session 63 call 22: float64 and 3xTF32 thin-K products on the warp-specialized kernel (THIN_WS_MIN_K): GPU tests.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
SHARDS=9 SHARD_TIMEOUT=150 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py tests/test_tuning.py -k "thin_products" > /dev/null 2>&1
grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -10; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head -10
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
