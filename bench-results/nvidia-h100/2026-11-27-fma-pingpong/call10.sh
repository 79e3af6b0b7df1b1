#!/usr/bin/env bash
# Session 63 call 10: padded-row copies, copy_rows_kernel against a flat copy (probe-copy.py).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 200 python3 .br/s63/probe-copy.py 2>&1 | grep -v -i warn | tail -12
