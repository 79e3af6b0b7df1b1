#!/usr/bin/env bash
# Session 64 call 7: the deep 16-bit tiles (_GEMM_DEEP_16BIT) at 3325787: the tables before (afb7f88's tree) and after on
# the shapes the rule changes (graph time), GPU tests of the path, lab gemm-thin.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s64/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
PYTHONPATH=.br/trees/head/src timeout 90 python3 .br/s64/probe-deep2.py head > $OUT/deep2-head.log 2>&1
PYTHONPATH=src timeout 90 python3 .br/s64/probe-deep2.py src > $OUT/deep2-src.log 2>&1
paste -d'|' $OUT/deep2-head.log <(awk '{print $(NF-1), $4, $5, $6, $7, $8, $9, $10}' $OUT/deep2-src.log)
export PYTHONPATH=src
mkdir -p $OUT/tests
SHARDS=6 SHARD_TIMEOUT=200 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "deep_16bit or few_tile" > /dev/null 2>&1
tail -8 $OUT/tests/pytest-gpu.log
tar czf $OUT/tests.tar.gz -C $OUT tests && rm -rf $OUT/tests
t0=$(date +%s)
timeout 250 python3 -m densela.cli bench gemm-thin --max-seconds 1 --quiet --out $OUT/lab-gemm-thin-$C > /dev/null 2>&1; echo "gemm-thin rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/lab-*/*.png
grep -h "^| 4 \|geo-mean" $OUT/lab-*/report.md | head -8
python3 -c "
import json,glob
for l in open(glob.glob('$OUT/lab-gemm-thin-*/rows.jsonl')[0]):
    r=json.loads(l)
    if r['provider']=='densela' and r['dtype']=='bfloat16' and (r.get('speedup') or 9) < 1.0: print(r['label'], round(r['median_ms']*1e3,1), round(r['speedup'],3))
"
