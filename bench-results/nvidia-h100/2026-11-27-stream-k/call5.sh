#!/usr/bin/env bash
# Session 62 call 5: at 5d2578f: labs gemm-thin (thin-K FMA outputs now streamed where their waves are uneven) and quick.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s62/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
for s in gemm-thin quick; do
  t0=$(date +%s)
  timeout 270 python3 -m densela.cli bench $s --max-seconds 1 --quiet --out $OUT/lab-$s-$C > /dev/null 2>&1; echo "$s rc=$? $(( $(date +%s) - t0 )) s"
done
rm -f $OUT/lab-*/*.png
grep -h "^| [456] \|geo-mean\|^| gemm\|^| quick" $OUT/lab-*/report.md | head -30
(cd $OUT && tar czf labs.tar.gz lab-* && rm -rf lab-*)
