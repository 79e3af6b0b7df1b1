#!/usr/bin/env bash
# Session 57 call 11: 3xTF32 mid-sized tilings (H100), after `densela tune quick` found 64 x 64 tiles faster at 1024^3 on an H200.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 250 python3 .br/probe_x3mid.py 2>&1 | grep -v Warn | tee $OUT/x3mid.log
