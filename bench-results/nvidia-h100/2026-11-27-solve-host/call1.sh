#!/usr/bin/env bash
# Session 60 call 1: session 59's pending checks (GMRES early give-up 6ecf44a on the GPU: tests and lab lu-refine;
# tune's graph timing fed90a7) and a probe of batched LU's host time (float32 against float64).
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s60/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PYTHONPATH=src timeout 100 python3 .br/s60/probe-batched.py 2>&1 | tail -8
SHARDS=8 SHARD_TIMEOUT=150 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py \
  -k "gmres or stalls or refine or budget or fall" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log | tail -3; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
t0=$(date +%s)
PYTHONPATH=src timeout 60 python3 -m densela.cli tune --shape 4096x4096x4096 --shape 1024x1024x1024 --dtype float32 --precision tf32 --force > $OUT/tune.log 2>&1; echo "tune rc=$? $(( $(date +%s) - t0 )) s"; tail -3 $OUT/tune.log
rm -rf ~/.cache/densela
t0=$(date +%s)
PYTHONPATH=src timeout 300 python3 -m densela.cli bench lu-refine --max-seconds 1 --quiet --out $OUT/lu-refine-$C > /dev/null 2>&1; echo "lu-refine rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/lu-refine-$C/*.png
python3 - <<'PY'
import json, glob, os
for f in glob.glob(os.environ["OUT"] + "/lu-refine-*/rows.jsonl"):
    for r in map(json.loads, open(f)):
        if r["provider"] == "densela":
            print(f"{r['label']:24s} {str(r.get('precision')):5s} {(r['median_ms'] or 0):9.1f} ms {r['speedup'] or 0:.3f} {r.get('note')}")
PY
