#!/usr/bin/env bash
# Session 64 call 3: float64 n <= 512 on split tiles configurations (probe-f64small.py); GPU tests of the thin-K
# warp-specialized route with the TF32 cases (THIN_WS_FROM["tf32"]).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s64/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
timeout 240 python3 .br/s64/probe-f64small.py > $OUT/f64small.log 2>&1
mkdir -p $OUT/tests
SHARDS=6 SHARD_TIMEOUT=300 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "thin_products_on_the_warp" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log | tail -8
tar czf $OUT/tests.tar.gz -C $OUT tests && rm -rf $OUT/tests
cat $OUT/f64small.log
