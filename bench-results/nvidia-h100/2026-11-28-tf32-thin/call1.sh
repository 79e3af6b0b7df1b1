#!/usr/bin/env bash
# Session 64 call 1: K slices read in rotated order (a tile's first step at tile mod steps) against the plain order,
# for products split along K (tiles and warp-specialized kernels); TF32 short-K products by the tables before and
# after THIN_WS_FROM["tf32"].
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s64/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
for t in head rot; do PYTHONPATH=.br/trees/$t/src timeout 230 python3 .br/s64/probe-split.py $t split > $OUT/split-$t.log 2>&1; done
PYTHONPATH=.br/trees/head/src timeout 100 python3 .br/s64/probe-split.py head tf32thin > $OUT/tf32-head.log 2>&1
PYTHONPATH=src timeout 100 python3 .br/s64/probe-split.py src tf32thin > $OUT/tf32-src.log 2>&1
paste <(cut -c1-100 $OUT/split-head.log) <(awk '{print $(NF-3)}' $OUT/split-rot.log) | sed 's/  */ /g'
paste <(cut -c1-100 $OUT/tf32-head.log) <(awk '{print $(NF-3)}' $OUT/tf32-src.log) | sed 's/  */ /g'
