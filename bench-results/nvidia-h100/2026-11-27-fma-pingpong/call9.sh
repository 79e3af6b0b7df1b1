#!/usr/bin/env bash
# Session 63 call 9: odd float32 sizes, where the time goes (probe-odd.py).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 300 python3 .br/s63/probe-odd.py 2>&1 | grep -v -i warn | tail -30
