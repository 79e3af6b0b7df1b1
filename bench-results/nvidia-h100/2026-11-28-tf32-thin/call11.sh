#!/usr/bin/env bash
# Session 64 call 11: scripts/ab-trees.py's new options at 63b9fb8, once on the GPU.
unset TRITON_INTERPRET; rm -rf ~/.cache/densela; mkdir -p $OUT
python3 scripts/ab-trees.py --trees src --graph --cublas --gemm 128x4096x4096 --dtype bfloat16 \
    --cfg "tiles 64x64x128, group 8, 4 warps, 3 stages, split 2" --seconds 0.3 2>&1 | tail -5
