#!/usr/bin/env bash
# Session 63 call 14: the lab's provider order and the ratio (probe-order.py).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 300 python3 .br/s63/probe-order.py 2>&1 | grep -v -i warn | tail -26
