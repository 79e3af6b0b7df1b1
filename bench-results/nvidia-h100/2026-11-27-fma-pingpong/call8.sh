#!/usr/bin/env bash
# Session 63 call 8: float32 FMA short-K products on the tiles kernel, K steps of 16 / 32 / 64 (probe-think.py).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 400 python3 .br/s63/probe-think.py 2>&1 | grep -v Warn | tail -110
