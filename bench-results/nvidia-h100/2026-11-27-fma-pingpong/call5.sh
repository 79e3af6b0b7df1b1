#!/usr/bin/env bash
# Session 63 call 5: GPU time by kernel of small products on the warp-specialized kernel (probe-prof.py).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 300 python3 .br/s63/probe-prof.py 2>&1 | grep -v Warn | tail -60
