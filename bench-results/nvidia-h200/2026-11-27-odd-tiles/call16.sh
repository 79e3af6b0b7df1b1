#!/usr/bin/env bash
# Session 63 call 16: odd float32 sizes below 1025 on tilings of the tiles kernel (probe-oddtiles.py).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 400 python3 .br/s63/probe-oddtiles.py 2>&1 | grep -v -i warn | tail -8
python3 -c "
import json,os
for l in open(os.environ['OUT']+'/probe-oddtiles.jsonl'):
    r=json.loads(l); print(r['n'], {k: v for k, v in r.items() if isinstance(v, float)})
"
