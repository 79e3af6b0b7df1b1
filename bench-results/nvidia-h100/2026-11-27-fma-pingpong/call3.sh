#!/usr/bin/env bash
# Session 63 call 3: float32 FMA products of 256^3 .. 1500^3 on the warp-specialized kernel split along K (probe-mid.py).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout 400 python3 .br/s63/probe-mid.py 2>&1 | grep -v Warn | tail -100
