#!/usr/bin/env bash
# Session 59 call 2: float32 FMA thin products: forced configurations (probe-cfg.py), and THIN_WS_MN 4096^2 -> 2048^2.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s59/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PYTHONPATH=src timeout 240 python3 .br/probe-cfg.py 2>&1 | tee $OUT/probe-cfg.log
