#!/usr/bin/env bash
# Session 63 call 4: thin bfloat16 products on forced configurations, GPU time (probe-thin16.py).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 400 python3 .br/s63/probe-thin16.py 2>&1 | grep -v Warn | tail -60
