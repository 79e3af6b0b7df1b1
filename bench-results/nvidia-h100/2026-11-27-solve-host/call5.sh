#!/usr/bin/env bash
# Session 60 call 5: the set-up kernel's GPU time, b99f3a0 against 170af98 (diagonal entries loaded a step ahead);
# GPU tests of the sweeps at 170af98; lab lu-refine at 170af98.
export PYTHONUNBUFFERED=1
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s60/commit); export DENSELA_GIT_COMMIT=$C
nvidia-smi --query-gpu=name --format=csv,noheader
PYTHONPATH=.br/trees/b99f3a0/src timeout 100 python3 .br/s60/probe-setup.py b99f3a0 2>&1 | grep "n="
PYTHONPATH=src timeout 100 python3 .br/s60/probe-setup.py $C 2>&1 | grep "n="
SHARDS=8 SHARD_TIMEOUT=150 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py -k "sweep_factors or sweep_solves or checks_a_piv" > /dev/null 2>&1
tail -9 $OUT/tests/pytest-gpu.log | head -3; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
(cd $OUT && tar czf tests.tar.gz tests && rm -rf tests)
t0=$(date +%s)
PYTHONPATH=src timeout 280 python3 -m densela.cli bench lu-refine --max-seconds 1 --quiet --out $OUT/lu-refine-$C > /dev/null 2>&1; echo "lu-refine rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/lu-refine-$C/*.png
python3 - <<'PY'
import json, glob, os
for f in glob.glob(os.environ["OUT"] + "/lu-refine-*/rows.jsonl"):
    for r in map(json.loads, open(f)):
        if r["provider"] == "densela":
            print(f"{r['label']:24s} {str(r.get('precision')):5s} {(r['median_ms'] or 0):9.1f} ms {r['speedup'] or 0:.3f} {r.get('note')}")
PY
(cd $OUT && tar czf labs.tar.gz lu-refine-* && rm -rf lu-refine-*)
