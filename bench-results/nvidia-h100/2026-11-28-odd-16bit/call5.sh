#!/usr/bin/env bash
# Session 65 call 5: 16-bit products with odd row strides (element-by-element loads without asynchronous copies):
# head, offs (the K loop from scalar bases and fixed offsets), pad16 (head with padded copies of odd 16-bit rows);
# cuBLAS beside; lab measure, rotated rounds.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
T=".br/trees/head/src .br/trees/offs/src .br/trees/pad16/src"
t0=$(date +%s)
timeout 170 python3 scripts/ab-trees.py --trees $T --rounds 2 --seconds 0.15 --cublas --dtype bfloat16 \
  --gemm 255x255x255,513x513x513,1001x1001x1001,1025x1025x1025,1999x1999x1999,1001x1000x1000,1000x1000x1001 \
  > $OUT/call5-bf16.log 2>&1; echo "bf16 rc=$? $(( $(date +%s) - t0 )) s"
cp $OUT/ab-trees.jsonl $OUT/call5-bf16.jsonl; rm -f $OUT/ab-trees.jsonl
grep -h "^gemm" $OUT/call5-*.log | sed 's/\.br\/trees\///g; s/\/src//g' | cut -c1-140
