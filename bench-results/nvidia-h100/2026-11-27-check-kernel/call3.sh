#!/usr/bin/env bash
# Session 56 call 3: whole against blocked (float64, unchecked) at small batches; solve's check (HEAD against the
# working tree) twice, interleaved.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=4155e88+check
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
CHECK=0 ONLY64=1 COUNTS=20,100,300,600 SIZES=64,48,40 PYTHONPATH=.br/trees/anyblk/src timeout 200 python3 .br/probe_warp.py > $OUT/probe-warp-small.log 2>&1
mv $OUT/probe-warp-check0.jsonl $OUT/probe-warp-small.jsonl
for i in 1 2; do
  SOLVE_ONLY=1 PYTHONPATH=.br/trees/main/src timeout 60 python3 .br/probe_check.py head$i > $OUT/probe-solve-head$i.log 2>&1
  SOLVE_ONLY=1 PYTHONPATH=src timeout 60 python3 .br/probe_check.py new$i > $OUT/probe-solve-new$i.log 2>&1
done
cat $OUT/probe-warp-small.log $OUT/probe-solve-*.log | grep -v Warn
