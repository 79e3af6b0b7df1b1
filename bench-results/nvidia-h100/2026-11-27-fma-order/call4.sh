#!/usr/bin/env bash
# Session 58 call 4: thin-K FMA products with operands TMA cannot read stay on the warp-specialized kernel (copies).
# A/B HEAD 05a1482, b29ddb3, the new commit; GPU tests; labs gemm-thin and gemm-targets.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s58/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 scripts/ab-trees.py --trees .br/trees/head/src .br/trees/b29/src src \
  --gemm 5000x5000x50,8192x8192x50,4096x4096x50,4096x4096x25,6000x6000x17,20480x20480x50,3600x3600x36 \
  --layouts nn,tn --dtype float32 --precision ieee --seconds 0.4 2>&1 | tee $OUT/ab.log
SHARDS=8 SHARD_TIMEOUT=100 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py \
  -k "fp32-fma or k_steps_of_16 or faster_order or thin_k_fma" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
for s in gemm-thin gemm-targets; do
  PYTHONPATH=src timeout 150 python3 -m densela.cli bench $s --max-seconds 1 --quiet --out $OUT/$s-$C > /dev/null 2>&1
  rm -f $OUT/$s-$C/*.png
done
grep -h "^| 4 " $OUT/*-$C/report.md
(cd $OUT && tar czf labs.tar.gz *-$C && rm -rf *-$C)
