#!/usr/bin/env bash
# Session 66 call 3: odd row strides padded for TF32, 3xTF32 and float64 too (padall: from any size) against main (m66b,
# 66d70af), nn, cuBLAS beside; bfloat16 1000 x 1001 x 1000 nt/tt again (m66b against main66 = 27347de).
export PYTHONUNBUFFERED=1 PYTHONPATH=.br/trees/m66b/src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=513x513x513,1001x1001x1001,1999x1999x1999,1000x1001x1000,1000x1000x1001
for d in float64 tf32 tf32x3; do
  if [ $d = float64 ]; then args="--dtype float64"; else args="--dtype float32 --precision $d"; fi
  timeout 100 python3 scripts/ab-trees.py --trees .br/trees/m66b/src .br/trees/padall/src --rounds 2 --seconds 0.15 --cublas $args \
    --gemm $S --layouts nn > $OUT/call3-$d.log 2>&1; echo "$d rc=$? $(( $(date +%s) - t0 )) s"
  mv $OUT/ab-trees.jsonl $OUT/call3-$d.jsonl
done
timeout 60 python3 scripts/ab-trees.py --trees .br/trees/main66/src .br/trees/m66b/src --rounds 3 --seconds 0.15 --dtype bfloat16 \
  --gemm 1000x1001x1000,1000x1000x1000 --layouts nt,tt > $OUT/call3-bf16.log 2>&1; echo "bf16 rc=$? $(( $(date +%s) - t0 )) s"
mv $OUT/ab-trees.jsonl $OUT/call3-bf16.jsonl
grep -h "^gemm" $OUT/call3-*.log | sed 's/\.br\/trees\///g; s/\/src//g' | cut -c1-90
