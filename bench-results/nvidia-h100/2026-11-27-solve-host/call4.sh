#!/usr/bin/env bash
# Session 60 call 4: lu_solve with the remembered checks (b15f7c6, 6dd26fe) and the one-launch set-up (b99f3a0):
# GPU tests of the solves, then the timings of probe-solve3 against getrs.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
SHARDS=8 SHARD_TIMEOUT=200 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py tests/test_kernels_compile.py \
  -k "sweep or checks_a_piv or checks_lu or lu_solve or refine or solve_ex or diagonal" > /dev/null 2>&1
tail -9 $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
timeout 200 python3 .br/s60/probe-solve3.py 2>&1 | grep "^n="
