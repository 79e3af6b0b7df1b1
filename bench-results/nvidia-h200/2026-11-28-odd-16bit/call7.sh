#!/usr/bin/env bash
# Session 65 call 7: 16-bit odd rows padded alone (an M-major A read where it is): GPU tests, A/B against head in four
# operand orders, cuBLAS beside.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
t0=$(date +%s)
SHARDS=4 SHARD_TIMEOUT=150 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "odd_rows or padded or odd" > /dev/null 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 )) s"; grep -h "passed\|failed\|error" $OUT/tests/pytest-gpu.log | tail -5
(cd $OUT && tar czf call7-gpu-tests.tar.gz tests && rm -rf tests)
export PYTHONPATH=src
timeout 150 python3 scripts/ab-trees.py --trees .br/trees/head/src .br/trees/new/src --rounds 2 --seconds 0.15 --cublas --dtype bfloat16 \
  --gemm 1000x1001x1000,1001x1001x1001 --layouts nn,nt,tn,tt > $OUT/call7-bf16.log 2>&1; echo "bf16 rc=$? $(( $(date +%s) - t0 )) s"
cp $OUT/ab-trees.jsonl $OUT/call7-bf16.jsonl; rm -f $OUT/ab-trees.jsonl
grep -h "^gemm" $OUT/call7-*.log | sed 's/\.br\/trees\///g; s/\/src//g' | cut -c1-120
