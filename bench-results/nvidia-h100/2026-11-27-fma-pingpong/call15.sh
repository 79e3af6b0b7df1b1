#!/usr/bin/env bash
# Session 63 call 15: the float32 FMA consumer's K step and stages at 4096^3 and 8192^3 (probe-fmacfg.py).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 500 python3 .br/s63/probe-fmacfg.py 2>&1 | grep -v -i warn | tail -8
