#!/usr/bin/env bash
# Session 59 call 7 (two GPUs): the two-GPU test (028c3b1's checks, f9bccd6's transpose_ key), and on cuda:0 the A/B
# of lu_solve with the interchanges launched first (HEAD tree against the working tree), one round each.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
OUT=$OUT/two timeout 150 bash scripts/gpu-tests.sh tests/test_gemm.py -k "each_gpu" > /dev/null 2>&1
tail -n 4 $OUT/two/pytest-gpu.log
for t in head new; do
  if [ $t = head ]; then P=.br/trees/head/src; else P=src; fi
  PYTHONPATH=$P timeout 60 python3 .br/ab-solve.py $t 2>&1 | grep -v Warn | tee -a $OUT/ab-solve.log
done
(cd $OUT && tar czf two.tar.gz two && rm -rf two)
