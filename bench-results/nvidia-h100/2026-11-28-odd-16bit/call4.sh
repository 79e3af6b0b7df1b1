#!/usr/bin/env bash
# Session 65 call 4: the tiles kernel's K loop from scalar bases and fixed offsets (offs), and with edge tiles moved
# inside the operands so that its loads take no masks (new), against head (9b574e3); lab measure, rotated rounds.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s65/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
T=".br/trees/head/src .br/trees/offs/src .br/trees/new/src"
t0=$(date +%s)
timeout 200 python3 scripts/ab-trees.py --trees $T --rounds 3 --seconds 0.2 \
  --gemm 1001x1001x1001,1015x1015x1015,1016x1016x1016,1022x1022x1022,1000x1000x1000,1031x1031x1031,1057x1057x1057,1026x1026x1026,256x256x256,512x512x512,2049x2049x2049,2500x2500x25 \
  > $OUT/call4-fp32.log 2>&1; echo "fp32 rc=$? $(( $(date +%s) - t0 )) s"
cp $OUT/ab-trees.jsonl $OUT/call4-fp32.jsonl; rm -f $OUT/ab-trees.jsonl
for d in float64 bfloat16; do
  timeout 100 python3 scripts/ab-trees.py --trees $T --rounds 3 --seconds 0.2 --dtype $d \
    --gemm 256x256x256,512x512x512,1001x1001x1001 > $OUT/call4-$d.log 2>&1; echo "$d rc=$? $(( $(date +%s) - t0 )) s"
  cp $OUT/ab-trees.jsonl $OUT/call4-$d.jsonl; rm -f $OUT/ab-trees.jsonl
done
timeout 80 python3 scripts/ab-trees.py --trees $T --rounds 3 --seconds 0.2 --precision tf32 \
  --gemm 512x512x512,1001x1001x1001 > $OUT/call4-tf32.log 2>&1; echo "tf32 rc=$? $(( $(date +%s) - t0 )) s"
cp $OUT/ab-trees.jsonl $OUT/call4-tf32.jsonl; rm -f $OUT/ab-trees.jsonl
timeout 60 python3 scripts/ab-trees.py --trees $T --rounds 2 --seconds 0.2 --dtype float64 --lu 1000,10000x32,1000x128 \
  > $OUT/call4-lu.log 2>&1; echo "lu rc=$? $(( $(date +%s) - t0 )) s"
cp $OUT/ab-trees.jsonl $OUT/call4-lu.jsonl; rm -f $OUT/ab-trees.jsonl
grep -h "^gemm\|^lu" $OUT/call4-*.log | sed 's/\.br\/trees\///g; s/\/src//g' | cut -c1-150
