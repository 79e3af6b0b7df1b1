#!/usr/bin/env bash
# Session 65 call 6: 16-bit products with odd row strides from padded copies (gemm.PAD_ODD_FROM_WORK["16-bit"]):
# GPU tests of the padded paths, then float16 and more bfloat16 sizes against head, cuBLAS beside.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
t0=$(date +%s)
SHARDS=4 SHARD_TIMEOUT=170 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "odd_rows or padded or odd or unaligned" > /dev/null 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 )) s"; grep -h "passed\|failed\|error" $OUT/tests/pytest-gpu.log | tail -5
(cd $OUT && tar czf call6-gpu-tests.tar.gz tests && rm -rf tests)
export PYTHONPATH=src
timeout 150 python3 scripts/ab-trees.py --trees .br/trees/head/src .br/trees/new/src --rounds 2 --seconds 0.15 --cublas --dtype float16 \
  --gemm 513x513x513,1001x1001x1001,1999x1999x1999,777x1000x1000 > $OUT/call6-fp16.log 2>&1; echo "fp16 rc=$? $(( $(date +%s) - t0 )) s"
cp $OUT/ab-trees.jsonl $OUT/call6-fp16.jsonl; rm -f $OUT/ab-trees.jsonl
timeout 100 python3 scripts/ab-trees.py --trees .br/trees/head/src .br/trees/new/src --rounds 2 --seconds 0.15 --cublas --dtype bfloat16 \
  --gemm 4095x4095x4095,1000x1001x1000 --layouts nn,tn > $OUT/call6-bf16.log 2>&1; echo "bf16 rc=$? $(( $(date +%s) - t0 )) s"
cp $OUT/ab-trees.jsonl $OUT/call6-bf16.jsonl; rm -f $OUT/ab-trees.jsonl
grep -h "^gemm" $OUT/call6-*.log | sed 's/\.br\/trees\///g; s/\/src//g' | cut -c1-130
