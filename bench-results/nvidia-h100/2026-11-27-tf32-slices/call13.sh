#!/usr/bin/env bash
# Session 61 call 13: which configuration densela tune chooses for TF32 8192^3 (call 4: 3.00 against the tables' 3.23 ms).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
XDG_CACHE_HOME=$OUT/cache timeout 200 python3 -m densela.cli tune --shape 8192x8192x8192 --shape 4096x4096x4096 --dtype float32 --precision tf32 2>&1 | tail -5
