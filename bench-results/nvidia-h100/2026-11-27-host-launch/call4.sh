#!/usr/bin/env bash
# Session 57 call 4: host cost of the pieces of replayed calls.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=be43b12 PYTHONPATH=src
unset TRITON_INTERPRET
timeout 200 python3 .br/probe_hostparts.py 2>&1 | grep -v Warn | tee $OUT/probe-hostparts.log | cut -c1-180
