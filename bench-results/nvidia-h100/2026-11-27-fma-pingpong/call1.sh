#!/usr/bin/env bash
# Session 63 call 1: float32 FMA ping-pong on the warp-specialized kernel: probe (two per-thread blocks), GPU tests.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
TRITON_CACHE_DIR=/tmp/tc1 PP_BLOCK=16x8 timeout 230 python3 .br/s63/probe-pp.py > $OUT/probe-16x8.txt 2>&1
SHARDS=12 SHARD_TIMEOUT=200 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "warp_specialized_kernel and (pingpong or pp) and (fp32-fma or bf16)" > /dev/null 2>&1
TRITON_CACHE_DIR=/tmp/tc2 PP_BLOCK=8x16 timeout 110 python3 .br/s63/probe-pp.py > $OUT/probe-8x16.txt 2>&1
grep -v Warn $OUT/probe-16x8.txt | tail -44; grep -v Warn $OUT/probe-8x16.txt | tail -24
grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -13; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head -10
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
