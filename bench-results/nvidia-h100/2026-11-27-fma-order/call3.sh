#!/usr/bin/env bash
# Session 58 call 3: b29ddb3 (FMA operands copied into the consumer's faster order) against HEAD 05a1482: A/B, GPU
# tests, labs gemm-thin and gemm-targets.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
export DENSELA_GIT_COMMIT=b29ddb3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 170 python3 scripts/ab-trees.py --trees .br/trees/head/src src \
  --gemm 5000x5000x50,4096x4096x36,8192x8192x48,20480x20480x64,128x4096x4096,2000x2000x2000,4096x4096x4096,8192x8192x8192 \
  --layouts nn,nt,tt --dtype float32 --precision ieee --seconds 0.4 2>&1 | tee $OUT/ab.log
SHARDS=8 SHARD_TIMEOUT=100 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py \
  -k "fp32-fma or k_steps_of_16 or faster_order" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
for s in gemm-thin gemm-targets; do
  PYTHONPATH=src timeout 150 python3 -m densela.cli bench $s --max-seconds 1 --quiet --out $OUT/$s-b29ddb3 > /dev/null 2>&1
  rm -f $OUT/$s-b29ddb3/*.png
done
grep -h "^| 4 " $OUT/*-b29ddb3/report.md
(cd $OUT && tar czf labs.tar.gz *-b29ddb3 && rm -rf *-b29ddb3)
