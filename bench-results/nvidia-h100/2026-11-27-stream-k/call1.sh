#!/usr/bin/env bash
# Session 62 call 1: wave quantization of the large products (probe-waves.py).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout 500 python3 .br/s62/probe-waves.py 2>&1 | tail -40
