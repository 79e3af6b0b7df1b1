#!/usr/bin/env bash
# Session 63 call 21: TF32 and 3xTF32 short-K products, tiles kernel against the warp-specialized kernel (probe).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 200 python3 .br/s63/probe-tf32thin.py 2>&1 | grep -v -i warn | tail -12
