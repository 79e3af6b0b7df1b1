#!/usr/bin/env bash
# Session 63 call 18: float64 short-K products with large outputs, tiles kernel against warp-specialized DMMA (probe).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 400 python3 .br/s63/probe-f64thin.py 2>&1 | grep -v -i warn | tail -12
