#!/usr/bin/env bash
# Session 59 call 6: lu_solve's sweeps set-up with whole 64-row diagonal inverses (A/B against HEAD), GPU tests.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in head new; do
  if [ $t = head ]; then P=.br/trees/head/src; else P=src; fi
  PYTHONPATH=$P timeout 200 python3 .br/ab-solve.py $t 2>&1 | tee -a $OUT/ab-solve.log
done
SHARDS=8 SHARD_TIMEOUT=150 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py \
  -k "solve or inverse or refine or sweep" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
