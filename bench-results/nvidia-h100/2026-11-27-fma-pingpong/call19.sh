#!/usr/bin/env bash
# Session 63 call 19: float64 thin-K products on the warp-specialized kernel (THIN_WS_FLOAT64_MIN_K): GPU tests, lab
# nonsquare-k.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s63/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
SHARDS=9 SHARD_TIMEOUT=200 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py tests/test_tuning.py -k "thin_float64 or warp_specialized_float64" > /dev/null 2>&1
grep -h "passed\|failed" $OUT/tests/pytest-gpu.log | tail -10; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head -10
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
t0=$(date +%s)
timeout 200 python3 -m densela.cli bench nonsquare-k --max-seconds 1 --quiet --out $OUT/nonsquare-k-$C > /dev/null 2>&1; echo "nonsquare-k rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/*/*.png
grep -h -A4 "geo-mean" $OUT/nonsquare-k-*/report.md | head -6
python3 -c "
import json,glob
for l in open(glob.glob('$OUT/nonsquare-k-*/rows.jsonl')[0]):
    r=json.loads(l)
    if r['provider']=='densela' and r['dtype']=='float64': print(r['label'], round(r['median_ms']*1e3,1), round(r['speedup'],3))
"
