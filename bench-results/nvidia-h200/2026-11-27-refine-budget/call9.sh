#!/usr/bin/env bash
# Session 57 call 9: the refinement's budget (lu.MAX_APPLICATIONS = 80): lab lu-refine; GPU tests of refinement and of
# the direct launches' replay test (now at 2048, on the warp-specialized kernel).
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=41c610b+budget PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
SHARDS=8 SHARD_TIMEOUT=200 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_lu.py tests/test_gemm.py -k "refine or budget or fall or direct_launch" > /dev/null 2>&1
cat $OUT/tests/pytest-gpu.log; grep -h -E "^(FAILED|ERROR)" $OUT/tests/pytest-shard-*.log | head
cd $OUT && tar czf tests.tar.gz tests && rm -rf tests && cd - > /dev/null
timeout 330 python3 -m densela.cli bench lu-refine --max-seconds 1 --quiet --out $OUT/lab-lu-refine-$DENSELA_GIT_COMMIT > $OUT/lab-lu-refine.log 2>&1
echo "lu-refine rc=$?"
rm -f $OUT/lab-*/*.png
python3 - <<'PY'
import json, glob, os
for f in glob.glob(os.environ["OUT"] + "/lab-*/rows.jsonl"):
    for l in open(f):
        r = json.loads(l)
        if r["provider"] == "densela":
            print(f"{r['label']:26s} {r.get('precision')} {r['median_ms']:8.2f} ms {r['speedup']:.2f} {(r.get('note') or '')[:80]}")
PY
cd $OUT && tar czf labs.tar.gz lab-* && rm -rf lab-*/
