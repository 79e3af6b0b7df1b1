#!/usr/bin/env bash
# Session 57 call 5: direct launches (_launch._Direct) A/B against HEAD's tree (host time per call, lab measure),
# twice alternated; GPU tests of the launcher's users.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=be43b12+direct
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
for round in 1 2; do
  PYTHONPATH=.br/trees/base/src timeout 100 python3 .br/probe_ab_host.py base 2>&1 | grep -v Warn
  PYTHONPATH=src timeout 100 python3 .br/probe_ab_host.py new 2>&1 | grep -v Warn
done > $OUT/ab-host.log
SHARDS=12 SHARD_TIMEOUT=300 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py tests/test_lu.py tests/test_transpose.py tests/test_add.py -k "direct or replay or plan or ws or tma or batch_through or small or finite or flag or inplace or odd" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
cd $OUT && tar czf tests.tar.gz tests && rm -rf tests
sort -k2,3 -s $OUT/ab-host.log | awk '{print}' | head -50
