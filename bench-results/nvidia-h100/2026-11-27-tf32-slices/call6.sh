#!/usr/bin/env bash
# Session 61 call 6: lu_solve's permutation by permutation_kernel (one thread per row; uncommitted on 49550e4):
# the kernel by block and unroll against the interchange walk; set-up kernels and lu_solve, 49550e4 against the
# working tree; GPU tests of the permutation, interchanges, solves and sweeps.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
PYTHONPATH=src timeout 120 python3 .br/s61/probe-perm.py 2>&1 | tail -5
for t in 49550e4 new; do
  if [ $t = new ]; then P=src; else P=.br/trees/$t/src; fi
  PYTHONPATH=$P timeout 100 python3 bench-results/nvidia-h100/2026-11-27-solve-host/probe-setup.py $t 2>&1 | grep "n="
done
SHARDS=8 SHARD_TIMEOUT=230 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py \
  -k "permutation_follows or interchanges_match or test_lu_solve or sweep or checks_a_piv" > /dev/null 2>&1
tail -9 $OUT/tests/pytest-gpu.log | head -3; grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -8; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
