#!/usr/bin/env bash
# Session 56 call 6: the finite check's own flag (the fix after call 2's probe, where the check's verdict in the shared
# flag ended lu_factor's wait for its factorization): lu_factor checked and unchecked again; GPU tests of the check,
# the flag and singular batches.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=73c7128+flag PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
SOLVE_ONLY=0 timeout 120 python3 .br/probe_check.py fixed > $OUT/probe-check-fixed.log 2>&1
SHARDS=8 SHARD_TIMEOUT=120 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py -k "finite or check or flag or singular" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
cd $OUT && tar czf tests.tar.gz tests && rm -rf tests
grep -v Warn $OUT/probe-check-fixed.log
