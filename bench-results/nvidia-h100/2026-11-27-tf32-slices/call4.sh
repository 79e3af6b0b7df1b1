#!/usr/bin/env bash
# Session 61 call 4: TF32 register path at mid sizes (A/B against f402242, two rounds); lab gemm-layouts at d66a619;
# densela tune over gemm-targets (not run since the flush change).
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s61/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/ab
OUT=$OUT/ab timeout 150 python3 scripts/ab-trees.py --trees .br/trees/f402242/src src --rounds 2 \
  --gemm 1000x1000x1000,2000x2000x2000 --layouts nn,tn,tt,nt --dtype float32 --precision tf32 --seconds 0.4 2>&1 | grep -v "^ *$" | tail -8
t0=$(date +%s)
PYTHONPATH=src timeout 300 python3 -m densela.cli bench gemm-layouts --max-seconds 1 --quiet --out $OUT/lab-gemm-layouts-$C > /dev/null 2>&1; echo "gemm-layouts rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/lab-*/*.png
grep -h "^| 4 " $OUT/lab-*/report.md
t0=$(date +%s)
PYTHONPATH=src timeout 120 python3 -m densela.cli tune gemm-targets --quiet > $OUT/tune.log 2>&1; echo "tune rc=$? $(( $(date +%s) - t0 )) s"; tail -5 $OUT/tune.log
(cd $OUT && tar czf labs.tar.gz lab-* && rm -rf lab-*)
