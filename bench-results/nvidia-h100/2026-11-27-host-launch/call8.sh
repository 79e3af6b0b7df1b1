#!/usr/bin/env bash
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
timeout 150 python3 .br/probe_launch.py 2>&1 | grep -v Warn | tee $OUT/launch.log | tail -20
