#!/usr/bin/env bash
# Session 64 call 6: thin 16-bit products on the tiles kernel with deep pipelines (probe-deep.py).
export PYTHONPATH=src PYTHONUNBUFFERED=1; unset TRITON_INTERPRET; rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
timeout 400 python3 .br/s64/probe-deep.py 2>&1 | grep -v Warn
