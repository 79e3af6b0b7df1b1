#!/usr/bin/env bash
# Session 66 call 8: TF32 / 3xTF32 below TF32_COPY_FROM_WORK (600^3): K-major copies from any size (copy0) against HEAD (h66).
export PYTHONUNBUFFERED=1 PYTHONPATH=.br/trees/h66/src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=385x385x385,513x513x513,513x513x512,577x577x577,384x384x384,512x512x512,256x256x256
for d in tf32x3 tf32; do
  timeout 100 python3 scripts/ab-trees.py --trees .br/trees/h66/src .br/trees/copy0/src --rounds 2 --seconds 0.12 --dtype float32 --precision $d \
    --gemm $S --layouts nn,tt > $OUT/call8-$d.log 2>&1; echo "$d rc=$? $(( $(date +%s) - t0 )) s"
  mv $OUT/ab-trees.jsonl $OUT/call8-$d.jsonl
done
grep -h "^gemm" $OUT/call8-*.log | sed 's/\.br\/trees\///g; s/\/src//g' | cut -c1-80
