#!/usr/bin/env bash
# Session 63 call 17: labs nonsquare-k and itu-mul at HEAD (last run on an H200 on 2026-11-21).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s63/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
for s in nonsquare-k itu-mul; do
  t0=$(date +%s)
  timeout 270 python3 -m densela.cli bench $s --max-seconds 1 --quiet --out $OUT/$s-$C > /dev/null 2>&1; echo "$s rc=$? $(( $(date +%s) - t0 )) s"
done
rm -f $OUT/*/*.png
grep -h "geo\|^| 4 " $OUT/*/report.md | head
