#!/usr/bin/env bash
# Session 60 call 7: lab gemm-layouts at 170af98 (last run at 1e2db90; no GEMM path changed since).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s60/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
timeout 400 python3 -m densela.cli bench gemm-layouts --max-seconds 1 --quiet --out $OUT/lab-gemm-layouts-$C > /dev/null 2>&1; echo "gemm-layouts rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/lab-*/*.png
grep -h "^| 4 " $OUT/lab-*/report.md
(cd $OUT && tar czf labs.tar.gz lab-* && rm -rf lab-*)
