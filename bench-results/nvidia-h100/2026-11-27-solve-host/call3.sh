#!/usr/bin/env bash
# Session 60 call 3: lu_solve with the piv check remembered (_pivots_in_range) and the interchange kernel's
# clamped pivots: GPU tests, timings against getrs, a host profile.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 python3 .br/s60/probe-solve3.py 2>&1 | grep "^n="
SHARDS=8 SHARD_TIMEOUT=200 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py \
  -k "checks_a_piv or interchanges or lu_solve or bad_arguments" > /dev/null 2>&1
tail -9 $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
