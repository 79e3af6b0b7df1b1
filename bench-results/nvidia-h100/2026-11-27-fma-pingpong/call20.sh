#!/usr/bin/env bash
# Session 63 call 20: lab tnl-gemm-thin-2 at 2d97833 (its float64 3600 x 36 x 3600 and 5000 x 50 x 5000 now on the
# warp-specialized kernel).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s63/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 250 python3 -m densela.cli bench tnl-gemm-thin-2 --max-seconds 1 --quiet --out $OUT/tnl-gemm-thin-2-$C > /dev/null 2>&1; echo "rc=$?"
rm -f $OUT/*/*.png
python3 -c "
import json,glob
for l in open(glob.glob('$OUT/tnl-gemm-thin-2-*/rows.jsonl')[0]):
    r=json.loads(l)
    if r['provider']=='densela': print(r['label'], r['dtype'], round(r['median_ms']*1e3,1), round(r['speedup'],3))
"
