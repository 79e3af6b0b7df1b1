#!/usr/bin/env bash
# Session 59 call 4: lu_solve with one right-hand side and a refined solve, by kernel (probe-solve.py).
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s59/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PYTHONPATH=src timeout 400 python3 .br/probe-solve.py 2>&1 | tee $OUT/probe-solve.log
