#!/usr/bin/env bash
# Session 57 call 10: the quick suite (make demo's job) at d94aeb8, then `densela tune quick` (pending since the flush
# change), then the quick suite again with the tuned table.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=d94aeb8 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
timeout 200 python3 -m densela.cli bench quick --max-seconds 1 --quiet --out $OUT/lab-quick-d94aeb8 > $OUT/lab-quick.log 2>&1; echo "bench quick rc=$? $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
timeout 200 python3 -m densela.cli tune quick > $OUT/tune-quick.log 2>&1; echo "tune quick rc=$? $(( $(date +%s) - t0 )) s"
cp ~/.cache/densela/*.json $OUT/ 2>/dev/null
t0=$(date +%s)
timeout 180 python3 -m densela.cli bench quick --max-seconds 1 --quiet --out $OUT/lab-quick-d94aeb8-tuned > $OUT/lab-quick-tuned.log 2>&1; echo "bench quick tuned rc=$? $(( $(date +%s) - t0 )) s"
rm -f $OUT/lab-*/*.png
python3 - <<'PY'
import json, glob, os
runs = {os.path.basename(d): {(r["label"], r["dtype"], r.get("precision"), r["op"]): r for r in map(json.loads, open(d + "/rows.jsonl")) if r["provider"] == "densela"} for d in sorted(glob.glob(os.environ["OUT"] + "/lab-quick-*"))}
names = sorted(runs)
keys = runs[names[0]].keys()
for k in keys:
    print(f"{k[3]:10s} {k[0]:26s} {k[1][:5]:5s} {str(k[2] or ''):6s}", " ".join(f"{runs[n][k]['speedup']:.2f}" if k in runs[n] else "-" for n in names))
PY
tail -5 $OUT/tune-quick.log
cd $OUT && tar czf labs.tar.gz lab-* && rm -rf lab-*/
