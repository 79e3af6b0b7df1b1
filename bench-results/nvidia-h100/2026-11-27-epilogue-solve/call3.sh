#!/usr/bin/env bash
# Session 59 call 3: FMA consumer with 16 x 8 products per thread (probe-fma.py).
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s59/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PYTHONPATH=src timeout 400 python3 .br/probe-fma.py 2>&1 | tee $OUT/probe-fma.log
