#!/usr/bin/env bash
# Session 57 call 6: direct launches on and off in one process (host time per call, alternated five times); GPU tests of
# the launcher's replays.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=be43b12+direct PYTHONPATH=src
unset TRITON_INTERPRET
timeout 250 python3 .br/probe_toggle.py 2>&1 | grep -v Warn > $OUT/toggle.log
SHARDS=8 SHARD_TIMEOUT=200 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py tests/test_lu.py tests/test_transpose.py -k "direct_launch or replayed or replay or warp_sized or flag" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
cd $OUT && tar czf tests.tar.gz tests && rm -rf tests
cat $OUT/toggle.log
