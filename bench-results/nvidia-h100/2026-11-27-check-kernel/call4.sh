#!/usr/bin/env bash
# Session 56 call 4: lab lu-batched at b93b440 (float64 warp-sized batches blocked from 600 matrices), GPU tests of
# the finite check (dense arrays as rows of up to 256) and the batch paths.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=b93b440 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 330 python3 -m densela.cli bench lu-batched --max-seconds 1 --quiet --out $OUT/lab-lu-batched-$DENSELA_GIT_COMMIT > $OUT/lab.log 2>&1
echo "lab rc $?"; rm -f $OUT/lab-*/*.png; cp $OUT/lab.log $OUT/lab-lu-batched-$DENSELA_GIT_COMMIT/run.log
SHARDS=8 SHARD_TIMEOUT=140 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py tests/test_kernels_compile.py -k "finite or check or warp_sized or batch_through or writes_every" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
cd $OUT && tar czf lab-and-tests.tar.gz lab-lu-batched-$DENSELA_GIT_COMMIT tests && rm -rf tests
grep -E "issue|  no|below|lu_factor" lab.log | tail -30
