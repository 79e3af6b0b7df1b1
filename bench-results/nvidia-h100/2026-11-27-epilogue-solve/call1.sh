#!/usr/bin/env bash
# Session 59 call 1: pending checks of session 58 (GPU tests, lab gemm-thin, float32 LU A/B against 05a1482) and a
# probe: float32 FMA thin products with the epilogue skipped (how much of their time the stores take).
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s59/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SHARDS=8 SHARD_TIMEOUT=120 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py \
  -k "fp32-fma or faster_order or thin_k_fma" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
mkdir -p $OUT/ab1 $OUT/ab2
OUT=$OUT/ab1 timeout 200 python3 scripts/ab-trees.py --trees src .br/trees/noepi/src \
  --gemm 2500x2500x25,3600x3600x36,4096x4096x32,5000x5000x50,8192x8192x48,12288x12288x64,20480x20480x32,4096x4096x4096 \
  --layouts nn --dtype float32 --precision ieee --seconds 0.4 2>&1 | tee $OUT/ab-noepi.log
OUT=$OUT/ab2 timeout 200 python3 scripts/ab-trees.py --trees .br/trees/05a1482/src src --lu 4096,8192 \
  --dtype float32 --seconds 1 2>&1 | tee $OUT/ab-lu.log
for s in gemm-thin; do
  PYTHONPATH=src timeout 170 python3 -m densela.cli bench $s --max-seconds 1 --quiet --out $OUT/$s-$C > /dev/null 2>&1
  rm -f $OUT/$s-$C/*.png
done
grep -h "^| 4 " $OUT/*-$C/report.md
(cd $OUT && tar czf labs.tar.gz *-$C ab1 ab2 && rm -rf *-$C ab1 ab2)
