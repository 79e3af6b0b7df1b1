#!/usr/bin/env bash
# Session 58 call 1: the FMA consumer's exact K tail. A/B (HEAD 05a1482, the working tree, the working tree with
# THIN_WS_MN = 2048^2), GPU tests of the FMA warp-specialized paths and replays, lab gemm-thin on the working tree.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
export DENSELA_GIT_COMMIT=05a1482+ktail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 scripts/ab-trees.py --trees .br/trees/head/src src .br/trees/ws/src \
  --gemm 5000x5000x50,3600x3600x36,2500x2500x25,4096x4096x36,8192x8192x48,8192x8192x50,1200x1200x12,20480x20480x50,4096x4096x4096 \
  --layouts nn --dtype float32 --precision ieee --seconds 0.5 2>&1 | tee $OUT/ab.log
mv $OUT/ab-trees.jsonl $OUT/ab-nn.jsonl
timeout 80 python3 scripts/ab-trees.py --trees .br/trees/head/src src --gemm 5000x5000x50,4096x4096x36 \
  --layouts tn,tt,nt --dtype float32 --precision ieee --seconds 0.5 2>&1 | tee -a $OUT/ab.log
mv $OUT/ab-trees.jsonl $OUT/ab-layouts.jsonl
SHARDS=8 SHARD_TIMEOUT=170 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py \
  -k "fp32-fma or k_steps_of_16 or each_gpu or direct_launch or replay" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
PYTHONPATH=src timeout 200 python3 -m densela.cli bench gemm-thin --max-seconds 1 --quiet --out $OUT/lab-gemm-thin-ktail > /dev/null 2>&1
rm -f $OUT/lab-gemm-thin-ktail/*.png
grep -E "float32" $OUT/lab-gemm-thin-ktail/report.md | head -30
(cd $OUT && tar czf lab.tar.gz lab-gemm-thin-ktail && rm -rf lab-gemm-thin-ktail)
