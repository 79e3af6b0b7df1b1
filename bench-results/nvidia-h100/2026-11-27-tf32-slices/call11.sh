#!/usr/bin/env bash
# Session 61 call 11: densela tune's closing lines naming its choice (uncommitted GPU test on a522317).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_cli.py -k "tune" 2>&1 | tail -3
XDG_CACHE_HOME=$OUT/cache timeout 200 python3 -m densela.cli tune --shape 512x512x512 --shape 1024x1024x1024 --dtype bfloat16 2>&1 | tail -4
