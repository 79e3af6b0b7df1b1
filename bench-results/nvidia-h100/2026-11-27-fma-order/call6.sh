#!/usr/bin/env bash
# Session 58 call 6 (two GPUs): the two-GPU test after the LU guard fix, and LU GPU tests of the guarded paths.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
OUT=$OUT/two timeout 150 bash scripts/gpu-tests.sh tests/test_gemm.py -k "each_gpu" > /dev/null 2>&1
tail -n 4 $OUT/two/pytest-gpu.log
SHARDS=8 SHARD_TIMEOUT=170 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py \
  -k "singular or flag or refine or finite or replay" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests two && rm -rf tests two)
