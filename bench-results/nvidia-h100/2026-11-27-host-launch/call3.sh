#!/usr/bin/env bash
# Session 57 call 3: TF32 mid-sized products on mma_v2 against the tables' path; the lu-refine lab (not run since the
# L2 flush change).
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=be43b12 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 220 python3 .br/probe_tf32mid.py 768,1000,1536,2000 > $OUT/probe-tf32mid.log 2>&1
timeout 300 python3 -m densela.cli bench lu-refine --max-seconds 1 --quiet --out $OUT/lab-lu-refine-$DENSELA_GIT_COMMIT > $OUT/lab-lu-refine.log 2>&1
echo "lu-refine rc=$?"
rm -f $OUT/lab-*/*.png
cd $OUT && tar czf labs.tar.gz lab-* && rm -rf lab-*/
grep -v Warn $OUT/probe-tf32mid.log | tail -20
