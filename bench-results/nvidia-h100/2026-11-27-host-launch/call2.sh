#!/usr/bin/env bash
# Session 57 call 2: TF32 mid-sized products on mma_v2 against the tables' path; the labs not run since the L2 flush
# change (lu-refine, tnl-gemm-thin-1, tnl-gemm-thin-2, tnl-gemm-wide).
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=be43b12 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 200 python3 .br/probe_tf32mid.py 768,1000,1536,2000 > $OUT/probe-tf32mid.log 2>&1
for s in tnl-gemm-thin-1 tnl-gemm-thin-2 tnl-gemm-wide; do
  timeout 110 python3 -m densela.cli bench $s --max-seconds 1 --quiet --out $OUT/lab-$s-$DENSELA_GIT_COMMIT > $OUT/lab-$s.log 2>&1
  echo "$s rc=$?"
done
rm -f $OUT/lab-*/*.png
cd $OUT && tar czf labs.tar.gz lab-* && rm -rf lab-*/
grep -v Warn $OUT/probe-tf32mid.log | tail -20
