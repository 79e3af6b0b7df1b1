#!/usr/bin/env bash
# Session 66 call 6: the whole of tests/test_gemm.py on the GPU at HEAD (the tiles kernel's new LOAD_M argument).
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SHARDS=16 SHARD_TIMEOUT=330 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py > /dev/null 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 )) s"; grep -h "^shard" $OUT/tests/pytest-gpu.log | tail -16
grep -h "FAILED\|Error" $OUT/tests/*.log | head -20
(cd $OUT && tar czf call6-gpu-tests-gemm.tar.gz tests && rm -rf tests)
