#!/usr/bin/env bash
# Session 61 call 12: lab quick (make demo's suite) at HEAD.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s61/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
timeout 400 python3 -m densela.cli bench quick --max-seconds 1 --quiet --out $OUT/lab-quick-$C > /dev/null 2>&1; echo "quick rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/lab-*/*.png
grep -h "^| [456] " $OUT/lab-*/report.md | head -20
(cd $OUT && tar czf labs.tar.gz lab-* && rm -rf lab-*)
