#!/usr/bin/env bash
# Session 57 call 12: 3xTF32 mid-sized products on narrow tiles where the wide ones leave SMs idle: lab measure A/B
# (HEAD d94aeb8 against the working tree), GPU tests of 3xTF32 products.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
for t in head new; do
  src=src; [ $t = head ] && src=.br/trees/head/src
  PYTHONPATH=$src timeout 100 python3 .br/probe_x3lab.py $t 2>&1 | grep -v Warn
done | tee $OUT/x3lab.log
SHARDS=8 SHARD_TIMEOUT=150 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py tests/test_tuning.py -k "tf32x3 or medium" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
cd $OUT && tar czf tests.tar.gz tests && rm -rf tests
