#!/usr/bin/env bash
# Session 64 call 9: where _GEMM_DEEP_16BIT's fill threshold lies (probe-deep3.py; the first try found no machine).
export PYTHONPATH=src PYTHONUNBUFFERED=1; unset TRITON_INTERPRET; rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
timeout 200 python3 .br/s64/probe-deep3.py 2>&1 | grep -v Warn
