#!/usr/bin/env bash
# Session 59 call 5: host profile of lu_solve (probe-host.py).
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PYTHONPATH=src timeout 300 python3 .br/probe-host.py > $OUT/probe-host.log 2>&1
grep "per call" $OUT/probe-host.log
