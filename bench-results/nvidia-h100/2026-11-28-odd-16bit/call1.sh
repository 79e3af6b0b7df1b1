#!/usr/bin/env bash
# Session 65 call 1: odd float32 sizes below 1025 from padded copies (PAD_ODD_FROM_WORK 1000^3) against HEAD,
# the lab's measure, three rotated rounds, cuBLAS beside.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s65/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
t0=$(date +%s)
timeout 420 python3 scripts/ab-trees.py --trees .br/trees/head/src .br/trees/pad/src --cublas --rounds 3 --seconds 0.3 \
  --gemm 1001x1001x1001,1005x1005x1005,1009x1009x1009,1013x1013x1013,1015x1015x1015,1017x1017x1017,1019x1019x1019,1023x1023x1023,1016x1016x1016 \
  > $OUT/call1-ab.log 2>&1; echo "ab rc=$? $(( $(date +%s) - t0 )) s"
cp $OUT/ab-trees.jsonl $OUT/call1-ab-trees.jsonl 2>/dev/null; rm -f $OUT/ab-trees.jsonl
tail -40 $OUT/call1-ab.log
