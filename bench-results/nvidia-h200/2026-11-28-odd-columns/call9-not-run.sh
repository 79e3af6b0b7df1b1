#!/usr/bin/env bash
# Session 66 call 9 (refused: no device time left; for the next session). Trees: .br/trees/h66/src = 4cce9d4,
# .br/trees/x3/src = 8158b2b (3xTF32 B of odd rows copied K-major from 512^3), .br/trees/guard/src = eccb8de (odd-stride
# copies only where the other output side is at least COPY_MIN_SIDE). GPU tests of both rules, then A/B.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
t0=$(date +%s)
SHARDS=2 SHARD_TIMEOUT=60 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "tf32x3_odd_b or tf32_operands_reach or odd_rows" > /dev/null 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 )) s"; grep -h "^shard" $OUT/tests/pytest-gpu.log
(cd $OUT && tar czf call9-gpu-tests.tar.gz tests && rm -rf tests)
export PYTHONPATH=.br/trees/h66/src
timeout 70 python3 scripts/ab-trees.py --trees .br/trees/h66/src .br/trees/x3/src --rounds 2 --seconds 0.1 --dtype float32 --precision tf32x3 \
  --gemm 513x513x513,577x577x577,513x513x512,385x385x385,512x512x512 --layouts nn > $OUT/call9-x3.log 2>&1; echo "x3 rc=$? $(( $(date +%s) - t0 )) s"
mv $OUT/ab-trees.jsonl $OUT/call9-x3.jsonl
timeout 70 python3 scripts/ab-trees.py --trees .br/trees/x3/src .br/trees/guard/src --rounds 2 --seconds 0.1 --dtype bfloat16 --cublas \
  --gemm 4096x1x4097,4096x8x4097,16384x1x8193,1001x1001x1001 --layouts nn,tn > $OUT/call9-guard.log 2>&1; echo "guard rc=$? $(( $(date +%s) - t0 )) s"
mv $OUT/ab-trees.jsonl $OUT/call9-guard.jsonl
grep -h "^gemm" $OUT/call9-*.log | sed 's/\.br\/trees\///g; s/\/src//g' | cut -c1-80
