#!/usr/bin/env bash
# Session 64 call 8: lab gemm-thin at 3325787 again, its folder tarred (call 7's rows.jsonl did not come back).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s64/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
t0=$(date +%s)
timeout 250 python3 -m densela.cli bench gemm-thin --max-seconds 1 --quiet --out $OUT/lab-gemm-thin-$C > /dev/null 2>&1; echo "gemm-thin rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/lab-*/*.png
grep -h "^| 4 \|geo-mean" $OUT/lab-*/report.md | head -8
(cd $OUT && tar czf labs.tar.gz lab-* && rm -rf lab-*)
