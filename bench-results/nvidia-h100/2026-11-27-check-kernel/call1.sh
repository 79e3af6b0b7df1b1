#!/usr/bin/env bash
# Session 56 call 1: batch block widths with the panels on lu_warp_kernel; whole against blocked around
# lu.WARP_FLOAT64_BATCH (float64) and for float32 48 x 48.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=4155e88
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
PYTHONPATH=src timeout 330 python3 scripts/lu-explore.py batch-blocks --blocks 128,32 128,64 128,16 64,32 64,16 > $OUT/batch-blocks.log 2>&1
PYTHONPATH=.br/trees/anyblk/src timeout 200 python3 .br/probe_warp.py > $OUT/probe-warp.log 2>&1
cp lu-explore.jsonl $OUT/ 2>/dev/null
grep "batch-blocks" $OUT/batch-blocks.log | cut -c1-200
cat $OUT/probe-warp.log | tail -20
