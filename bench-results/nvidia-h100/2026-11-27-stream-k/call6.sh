#!/usr/bin/env bash
# Session 62 call 6: at 44f1b92 (stream-K from K = 512): A/B against 3fd04d0 on the thin-K rows that lost, the
# streamed squares; GPU test of stream-K again (its thresholds forced down).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s62/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/ab
OUT=$OUT/ab timeout 200 python3 scripts/ab-trees.py --trees .br/trees/head/src src --rounds 3 \
  --gemm 4096x4096x32,5000x5000x50,3000x3000x3000,4096x4096x4096 --layouts nn --dtype float32 --precision ieee --seconds 0.4 2>&1 | grep "^gemm"
SHARDS=8 SHARD_TIMEOUT=100 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "stream_k" > /dev/null 2>&1
grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -8; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head -20
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
