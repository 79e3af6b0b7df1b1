#!/usr/bin/env bash
# Session 66 call 4: where odd-row TF32 and 3xTF32 products gain from padded copies: m66b (66d70af) against padall (padded
# from any size), nn, 385^3 .. 1801^3.
export PYTHONUNBUFFERED=1 PYTHONPATH=.br/trees/m66b/src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=385x385x385,769x769x769,1201x1201x1201,1401x1401x1401,1601x1601x1601,1801x1801x1801,1999x1999x1001
for d in tf32 tf32x3; do
  timeout 120 python3 scripts/ab-trees.py --trees .br/trees/m66b/src .br/trees/padall/src --rounds 2 --seconds 0.15 --dtype float32 --precision $d \
    --gemm $S --layouts nn > $OUT/call4-$d.log 2>&1; echo "$d rc=$? $(( $(date +%s) - t0 )) s"
  mv $OUT/ab-trees.jsonl $OUT/call4-$d.jsonl
done
grep -h "^gemm" $OUT/call4-*.log | sed 's/\.br\/trees\///g; s/\/src//g' | cut -c1-90
