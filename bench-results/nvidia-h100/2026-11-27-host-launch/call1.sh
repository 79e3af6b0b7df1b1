#!/usr/bin/env bash
# Session 57 call 1: GPU tests pending since session 56 (43ac66b's wide/tall float64 batches, be43b12's finite check
# word from kept_counters) and the host-time probe of small batched lu_factor calls.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=be43b12 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
timeout 200 python3 .br/probe_host.py base > $OUT/probe-host-base.log 2>&1
SHARDS=8 SHARD_TIMEOUT=200 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py -k "warp_sized or finite or flag" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
cd $OUT && tar czf tests.tar.gz tests && rm -rf tests
grep -v Warn $OUT/probe-host-base.log | head -80
