#!/usr/bin/env bash
# Session 62 call 2: stream-K in the warp-specialized kernel (float32 outputs): GPU tests, then A/B against HEAD.
export PYTHONUNBUFFERED=1 PYTHONPATH=src DENSELA_GIT_COMMIT=$(cat .br/s62/commit)+stream-k
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
SHARDS=8 SHARD_TIMEOUT=200 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "stream_k" > /dev/null 2>&1
grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -8; grep -h -E "^(FAILED|ERROR)|Error" $OUT/tests/pytest-shard-*.log | head -20
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
mkdir -p $OUT/ab
OUT=$OUT/ab timeout 150 python3 scripts/ab-trees.py --trees .br/trees/head/src src --rounds 3 \
  --gemm 4096x4096x4096,8192x8192x8192,2000x2000x2000 --layouts nn --dtype float32 --precision ieee --seconds 0.4 2>&1 | grep -v "^ *$" | tail -5
OUT=$OUT/ab2 timeout 150 python3 scripts/ab-trees.py --trees .br/trees/head/src src --rounds 3 \
  --gemm 4096x4096x4096,8192x8192x8192 --layouts nn,tt --dtype float32 --precision tf32 --seconds 0.4 2>&1 | grep -v "^ *$" | tail -6
