#!/usr/bin/env bash
# Session 66 call 5: GPU tests of the padded paths at HEAD; lab gemm-odd at HEAD; A/B m66b -> new66c (TF32 thresholds);
# 3xTF32 near 513^3 on forced tilings (the 84-us rows of calls 3-4).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s66/commit); export DENSELA_GIT_COMMIT=$C
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SHARDS=4 SHARD_TIMEOUT=120 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "odd_rows or padded or odd" > /dev/null 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 )) s"; grep -h "passed\|failed\|error" $OUT/tests/*.log | grep -v progress | tail -5
(cd $OUT && tar czf call5-gpu-tests.tar.gz tests && rm -rf tests)
timeout 150 python3 -m densela.cli bench gemm-odd --max-seconds 1 --quiet --out $OUT/gemm-odd-$C > $OUT/call5-lab.log 2>&1; echo "lab rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/gemm-odd-$C/*.png
timeout 60 python3 scripts/ab-trees.py --trees .br/trees/m66b/src .br/trees/new66c/src --rounds 2 --seconds 0.15 --dtype float32 --precision tf32 \
  --gemm 1001x1001x1001,1201x1201x1201,1999x1999x1999 --layouts nn,tt > $OUT/call5-tf32.log 2>&1; echo "tf32 rc=$? $(( $(date +%s) - t0 )) s"
mv $OUT/ab-trees.jsonl $OUT/call5-tf32.jsonl
timeout 100 python3 scripts/ab-trees.py --trees src --rounds 2 --seconds 0.15 --dtype float32 --precision tf32x3 --cublas \
  --gemm 512x512x512,513x513x513,520x520x520,513x513x512,641x641x641,1001x1001x1001 --layouts nn \
  --cfg "tiles 32x32x32, group 8, 2 warps, 3 stages" --cfg "tiles 64x64x32, group 8, 4 warps, 3 stages" --cfg "tiles 64x64x64, group 8, 4 warps, 2 stages" > $OUT/call5-x3.log 2>&1; echo "x3 rc=$? $(( $(date +%s) - t0 )) s"
mv $OUT/ab-trees.jsonl $OUT/call5-x3.jsonl
grep -h "^gemm" $OUT/call5-tf32.log $OUT/call5-x3.log | sed 's/\.br\/trees\///g; s/\/src//g' | cut -c1-110
grep "gemm-odd" $OUT/call5-lab.log | grep densela | cut -c1-110
