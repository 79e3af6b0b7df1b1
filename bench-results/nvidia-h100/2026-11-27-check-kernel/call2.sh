#!/usr/bin/env bash
# Session 56 call 2: the finite check by one kernel into the mapped flag (working tree) against torch.isfinite (HEAD);
# whole against blocked around WARP_FLOAT64_BATCH unchecked (as the lab); GPU tests of the check and test_gemm_ws.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=4155e88+check
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
PYTHONPATH=.br/trees/main/src timeout 150 python3 .br/probe_check.py head > $OUT/probe-check-head.log 2>&1
PYTHONPATH=src timeout 150 python3 .br/probe_check.py new > $OUT/probe-check-new.log 2>&1
CHECK=0 ONLY64=1 PYTHONPATH=.br/trees/anyblk/src timeout 120 python3 .br/probe_warp.py > $OUT/probe-warp-check0.log 2>&1
SHARDS=4 SHARD_TIMEOUT=150 OUT=$OUT/tests-lu bash scripts/gpu-tests.sh tests/test_lu.py -k "finite or check" > /dev/null 2>&1
SHARDS=8 SHARD_TIMEOUT=150 OUT=$OUT/tests-ws bash scripts/gpu-tests.sh tests/test_gemm_ws.py > /dev/null 2>&1
tail -n 3 $OUT/tests-lu/pytest-gpu.log $OUT/tests-ws/pytest-gpu.log
cat $OUT/probe-check-head.log $OUT/probe-check-new.log $OUT/probe-warp-check0.log | grep -v Warn
cd $OUT && tar czf tests.tar.gz tests-lu tests-ws && rm -rf tests-lu tests-ws
