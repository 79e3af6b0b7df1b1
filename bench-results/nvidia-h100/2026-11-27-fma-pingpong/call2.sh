#!/usr/bin/env bash
# Session 63 call 2: 16-bit row-major operands swapped on the warp-specialized kernel (out^T = B^T A^T, tiles stored
# transposed): A/B of HEAD (.br/trees/head/src) against the working tree, three rounds; GPU tests of the swapped path.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
mkdir -p $OUT/ab-bf16 $OUT/ab-fp16
G=4096x4096x4096,8192x8192x8192,2048x2048x2048,3000x3000x3000,1500x1500x1500,8192x4096x4096,4096x8192x2048
OUT=$OUT/ab-bf16 timeout 200 python3 scripts/ab-trees.py --trees .br/trees/head/src src --rounds 3 --gemm $G --layouts nn --dtype bfloat16 --seconds 0.4 2>&1 | grep "^gemm" > $OUT/ab-bf16.txt
OUT=$OUT/ab-fp16 timeout 200 python3 scripts/ab-trees.py --trees .br/trees/head/src src --rounds 3 --gemm $G --layouts nn --dtype float16 --seconds 0.4 2>&1 | grep "^gemm" > $OUT/ab-fp16.txt
SHARDS=12 SHARD_TIMEOUT=170 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "warp_specialized_kernel and (bf16 or fp16) and row-row" > /dev/null 2>&1
cat $OUT/ab-bf16.txt $OUT/ab-fp16.txt
grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -13; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head -10
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
