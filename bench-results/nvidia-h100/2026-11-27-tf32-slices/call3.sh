#!/usr/bin/env bash
# Session 61 call 3: TF32 register path, three rounds with the trees' order rotated: f402242, slices (06f4d84), slices
# + the stage released once read (working tree); lab gemm-targets on the working tree.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=$(cat .br/s61/commit)
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s61/commit)
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT/ab
OUT=$OUT/ab timeout 330 python3 scripts/ab-trees.py --trees .br/trees/f402242/src .br/trees/slices/src src --rounds 3 \
  --gemm 4096x4096x4096,8192x8192x8192 --layouts nn,tt --dtype float32 --precision tf32 --seconds 0.5 2>&1 | grep -v "^ *$" | tail -8
t0=$(date +%s)
PYTHONPATH=src timeout 230 python3 -m densela.cli bench gemm-targets --max-seconds 1 --quiet --out $OUT/gemm-targets-$C > /dev/null 2>&1; echo "rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/gemm-targets-$C/*.png
grep -h "^| 4 " $OUT/*-$C/report.md
(cd $OUT && tar czf labs.tar.gz gemm-targets-* && rm -rf gemm-targets-*)
