#!/usr/bin/env bash
# Session 62 call 3: stream-K A/B against HEAD: TF32, 3xTF32, FMA at odd sizes.
export PYTHONUNBUFFERED=1 PYTHONPATH=src DENSELA_GIT_COMMIT=$(cat .br/s62/commit)+stream-k
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
for x in tf32 tf32x3 ieee; do mkdir -p $OUT/ab-$x; done
OUT=$OUT/ab-tf32 timeout 200 python3 scripts/ab-trees.py --trees .br/trees/head/src src --rounds 3 \
  --gemm 4096x4096x4096,8192x8192x8192,3000x3000x3000 --layouts nn,tt --dtype float32 --precision tf32 --seconds 0.4 2>&1 | grep "^gemm"
OUT=$OUT/ab-tf32x3 timeout 100 python3 scripts/ab-trees.py --trees .br/trees/head/src src --rounds 3 \
  --gemm 4096x4096x4096 --layouts nn --dtype float32 --precision tf32x3 --seconds 0.4 2>&1 | grep "^gemm"
OUT=$OUT/ab-ieee timeout 150 python3 scripts/ab-trees.py --trees .br/trees/head/src src --rounds 3 \
  --gemm 3000x3000x3000,2000x2000x2000,4096x4096x4096 --layouts nn,tn --dtype float32 --precision ieee --seconds 0.4 2>&1 | grep "^gemm"
