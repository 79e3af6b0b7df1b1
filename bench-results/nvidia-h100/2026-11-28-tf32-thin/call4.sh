#!/usr/bin/env bash
# Session 64 call 4: mid-sized TF32 products in four operand orders, the tables' path against mma_v2 (probe-tf32mid.py).
export PYTHONPATH=src; unset TRITON_INTERPRET; rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
timeout 300 python3 .br/s64/probe-tf32mid.py 2>&1 | grep -v Warn
