#!/usr/bin/env bash
# Session 64 call 2: block-local LU (lu._factor_local) after a random butterfly transform against partial pivoting
# and cuSOLVER, float32, n = 8192 and 16384, cond 1e2 and 1e6.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
timeout 560 python3 .br/s64/probe-local.py 2>&1 | grep -v Warning
