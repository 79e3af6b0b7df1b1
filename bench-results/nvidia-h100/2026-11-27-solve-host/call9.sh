#!/usr/bin/env bash
# Session 60 call 9: densela's in-place writes advancing torch's version counter (0e34634): GPU tests and the host
# time of matmul at 128^3 with out=.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 60 python3 .br/s60/probe-out.py 2>&1 | grep "host"
SHARDS=8 SHARD_TIMEOUT=150 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_arrays.py tests/test_lu.py tests/test_gemm.py \
  -k "version_counter or out_is or checks_lu or checks_a_piv or replay" > /dev/null 2>&1
tail -9 $OUT/tests/pytest-gpu.log | head -2; grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -8; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
