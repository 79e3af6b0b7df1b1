#!/usr/bin/env bash
# Session 62 call 4: at 5d2578f (stream-K for FMA): GPU tests (stream-K, warp-specialized FMA), lab gemm-targets.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s62/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
timeout 300 python3 -m densela.cli bench gemm-targets --max-seconds 1 --quiet --out $OUT/gemm-targets-$C > /dev/null 2>&1; echo "gemm-targets rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/gemm-targets-*/*.png
grep -h "^| 4 " $OUT/gemm-targets-*/report.md | head -12
SHARDS=8 SHARD_TIMEOUT=150 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "stream_k or (warp_specialized and fma)" > /dev/null 2>&1
grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -8; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head -20
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
