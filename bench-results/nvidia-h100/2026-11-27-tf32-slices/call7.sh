#!/usr/bin/env bash
# Session 61 call 7: permutation_kernel with piv's loads of a turn ahead of its steps (uncommitted on 49550e4).
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
PYTHONPATH=src timeout 120 python3 .br/s61/probe-perm.py 2>&1 | grep "^n="
PYTHONPATH=src timeout 100 python3 bench-results/nvidia-h100/2026-11-27-solve-host/probe-setup.py new 2>&1 | grep "n="
