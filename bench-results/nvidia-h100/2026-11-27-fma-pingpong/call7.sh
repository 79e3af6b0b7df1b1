#!/usr/bin/env bash
# Session 63 call 7: at the workspace change: labs pa2-sgemm (not run since session 62's stream-K) and gemm-targets.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s63/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
for s in pa2-sgemm gemm-targets; do
  t0=$(date +%s)
  timeout 280 python3 -m densela.cli bench $s --max-seconds 1 --quiet --out $OUT/$s-$C > /dev/null 2>&1; echo "$s rc=$? $(( $(date +%s) - t0 )) s"
done
rm -f $OUT/*/*.png
grep -h "^| 4 " $OUT/*/report.md | head
