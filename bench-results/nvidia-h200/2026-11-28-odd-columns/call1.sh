#!/usr/bin/env bash
# Session 66 call 1: 16-bit odd columns copied as padded columns (new66) against main (main66): GPU tests, A/B in four
# orders with cuBLAS; 16-bit odd threshold (pad0: from any size) at 257-449; lab gemm-odd on main.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=27347de
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SHARDS=4 SHARD_TIMEOUT=120 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "odd_rows or padded or odd" > /dev/null 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 )) s"; grep -h "passed\|failed\|error" $OUT/tests/pytest-gpu.log | tail -3
(cd $OUT && tar czf call1-gpu-tests.tar.gz tests && rm -rf tests)
export PYTHONPATH=.br/trees/main66/src
timeout 100 python3 scripts/ab-trees.py --trees .br/trees/main66/src .br/trees/new66/src --rounds 2 --seconds 0.15 --cublas --dtype bfloat16 \
  --gemm 1001x1001x1001,1000x1001x1000 --layouts nn,nt,tn,tt > $OUT/call1-cols.log 2>&1; echo "cols rc=$? $(( $(date +%s) - t0 )) s"
mv $OUT/ab-trees.jsonl $OUT/call1-cols.jsonl
timeout 80 python3 scripts/ab-trees.py --trees .br/trees/main66/src .br/trees/pad0/src --rounds 2 --seconds 0.15 --cublas --dtype bfloat16 \
  --gemm 257x257x257,321x321x321,385x385x385,449x449x449,511x511x511 --layouts nn > $OUT/call1-threshold.log 2>&1; echo "thr rc=$? $(( $(date +%s) - t0 )) s"
mv $OUT/ab-trees.jsonl $OUT/call1-threshold.jsonl
timeout 200 python3 -m densela.cli bench gemm-odd --max-seconds 1 --quiet --out $OUT/lab-gemm-odd-27347de > $OUT/call1-lab.log 2>&1; echo "lab rc=$? $(( $(date +%s) - t0 )) s"
(cd $OUT && rm -f lab-*/*.png && tar czf call1-lab-gemm-odd.tar.gz lab-gemm-odd-27347de && rm -rf lab-gemm-odd-27347de)
grep -h "^gemm" $OUT/call1-cols.log $OUT/call1-threshold.log | sed 's/\.br\/trees\///g; s/\/src//g' | cut -c1-130
tail -30 $OUT/call1-lab.log | cut -c1-150
