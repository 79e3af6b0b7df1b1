#!/usr/bin/env bash
# Session 65 call 3: the tiles kernel's K loop from scalar bases and fixed offsets, unmasked on interior tiles
# (trees: head = 9b574e3, new = the working tree, nopad = new without the odd sizes' padded copies), lab measure,
# three rotated rounds; float32 FMA odd/even sizes, then other dtypes on the tiles kernel.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s65/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
T=".br/trees/head/src .br/trees/new/src .br/trees/nopad/src"
t0=$(date +%s)
timeout 250 python3 scripts/ab-trees.py --trees $T --rounds 3 --seconds 0.25 \
  --gemm 1001x1001x1001,1015x1015x1015,1016x1016x1016,1022x1022x1022,1000x1000x1000,1025x1025x1025,1031x1031x1031,1057x1057x1057,1099x1099x1099,1026x1026x1026,256x256x256,512x512x512,2049x2049x2049 \
  > $OUT/call3-fp32.log 2>&1; echo "fp32 rc=$? $(( $(date +%s) - t0 )) s"
cp $OUT/ab-trees.jsonl $OUT/call3-fp32.jsonl; rm -f $OUT/ab-trees.jsonl
for d in float64 bfloat16; do
  timeout 120 python3 scripts/ab-trees.py --trees .br/trees/head/src .br/trees/new/src --rounds 3 --seconds 0.25 --dtype $d \
    --gemm 256x256x256,512x512x512,1000x1000x1000,1001x1001x1001 > $OUT/call3-$d.log 2>&1; echo "$d rc=$? $(( $(date +%s) - t0 )) s"
  cp $OUT/ab-trees.jsonl $OUT/call3-$d.jsonl; rm -f $OUT/ab-trees.jsonl
done
timeout 100 python3 scripts/ab-trees.py --trees .br/trees/head/src .br/trees/new/src --rounds 3 --seconds 0.25 --precision tf32 \
  --gemm 256x256x256,512x512x512,1001x1001x1001 --layouts nn,tn > $OUT/call3-tf32.log 2>&1; echo "tf32 rc=$? $(( $(date +%s) - t0 )) s"
cp $OUT/ab-trees.jsonl $OUT/call3-tf32.jsonl; rm -f $OUT/ab-trees.jsonl
grep -h "^gemm" $OUT/call3-*.log | cut -c1-150
