#!/usr/bin/env bash
# Session 63 call 6: at the workspace change: stream-K GPU tests (FMA, forced thresholds) and the other FMA
# warp-specialized tests, then lab gemm-layouts (not run since session 62's stream-K).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s63/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
SHARDS=12 SHARD_TIMEOUT=150 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "stream_k or (warp_specialized_kernel and fp32-fma and ws-128x128)" > /dev/null 2>&1
grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -13; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head -10
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
t0=$(date +%s)
timeout 400 python3 -m densela.cli bench gemm-layouts --max-seconds 1 --quiet --out $OUT/gemm-layouts-$C > /dev/null 2>&1; echo "gemm-layouts rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/gemm-layouts-*/*.png
grep -h "^| 4 " $OUT/gemm-layouts-*/report.md | head
