#!/usr/bin/env bash
# Session 61 call 9: thin products' configurations under the lab's measure (cold L2), against cuBLAS.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 500 python3 .br/s61/probe-thin.py 2>&1 | tail -60
