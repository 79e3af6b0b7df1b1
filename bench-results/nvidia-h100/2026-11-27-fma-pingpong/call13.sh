#!/usr/bin/env bash
# Session 63 call 13: float32 FMA tiles stored from registers (no shared-memory round trip, no TMA store) in the
# warp-specialized kernel's epilogue (probe diff): A/B of HEAD (.br/trees/head/src) against the working tree.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
mkdir -p $OUT/ab
G=4096x4096x32,8192x8192x48,12288x12288x64,20480x20480x32,20480x20480x64,16384x16384x96,20480x20480x128,5000x5000x50,2048x2048x2048
OUT=$OUT/ab timeout 500 python3 scripts/ab-trees.py --trees .br/trees/head/src src --rounds 3 --gemm $G --layouts nn --dtype float32 --precision ieee --seconds 0.4 2>&1 | grep "^gemm"
