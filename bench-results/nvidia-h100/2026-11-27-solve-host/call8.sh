#!/usr/bin/env bash
# Session 60 call 8: LU with look-ahead (its interchange kernel now clamps the rows piv names), fed90a7 against
# 170af98, n = 8192, float64 and float32.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
for d in float64 float32; do
  mkdir -p $OUT/ab-$d
  OUT=$OUT/ab-$d timeout 150 python3 scripts/ab-trees.py --trees .br/trees/fed90a7/src src --lu 8192 --dtype $d --seconds 1 2>&1 | tail -4
done
(cd $OUT && tar czf ab.tar.gz ab-* && rm -rf ab-*)
