#!/usr/bin/env bash
# Session 63 call 12: odd float32 sizes on the warp-specialized FMA kernel (probe-oddws.py).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 300 python3 .br/s63/probe-oddws.py 2>&1 | grep -v -i warn | tail -14
