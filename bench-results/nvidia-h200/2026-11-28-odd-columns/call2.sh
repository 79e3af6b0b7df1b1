#!/usr/bin/env bash
# Session 66 call 2: M-major 16-bit A copied as padded columns now also loads whole vectors along M (LOAD_M); 16-bit
# odd threshold 256^3. GPU tests, A/B main66 -> new66 (and pad0) with cuBLAS; Nsight Compute of float32 1015^3 / 1016^3.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=27347de
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SHARDS=4 SHARD_TIMEOUT=120 OUT=$OUT/tests bash scripts/gpu-tests.sh tests/test_gemm.py -k "odd_rows or padded or odd or hint or layout" > /dev/null 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 )) s"; grep -h "passed\|failed\|error" $OUT/tests/pytest-gpu.log | tail -3
(cd $OUT && tar czf call2-gpu-tests.tar.gz tests && rm -rf tests)
export PYTHONPATH=.br/trees/new66/src
timeout 100 python3 scripts/ab-trees.py --trees .br/trees/main66/src .br/trees/new66/src --rounds 2 --seconds 0.15 --cublas --dtype bfloat16 \
  --gemm 1001x1001x1001,1000x1001x1000,513x513x513 --layouts nn,nt,tn,tt > $OUT/call2-cols.log 2>&1; echo "cols rc=$? $(( $(date +%s) - t0 )) s"
mv $OUT/ab-trees.jsonl $OUT/call2-cols.jsonl
timeout 60 python3 scripts/ab-trees.py --trees .br/trees/new66/src .br/trees/pad0/src --rounds 2 --seconds 0.15 --dtype float16 \
  --gemm 129x129x129,201x201x201,255x255x255,257x257x257,255x1001x64 --layouts nn,tt > $OUT/call2-threshold.log 2>&1; echo "thr rc=$? $(( $(date +%s) - t0 )) s"
mv $OUT/ab-trees.jsonl $OUT/call2-threshold.jsonl
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
for n in 1015 1016; do
  timeout 90 $NCU --clock-control none -k "regex:gemm_tiles" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section MemoryWorkloadAnalysis_Chart \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --section Occupancy --csv --page details \
    python3 .br/s66/probe-ncu.py $n > $OUT/ncu-$n.csv 2> $OUT/ncu-$n.err
  echo "ncu $n rc=$? $(( $(date +%s) - t0 )) s"
done
grep -h "^gemm" $OUT/call2-cols.log $OUT/call2-threshold.log | sed 's/\.br\/trees\///g; s/\/src//g' | cut -c1-100
python3 - <<'PY'
import csv, os, re
vals = {}
for n in (1015, 1016):
    rows = [r for r in csv.reader(open(f"{os.environ['OUT']}/ncu-{n}.csv")) if len(r) > 10]
    if not rows:
        print(n, "no rows"); continue
    h = rows[0]; i, u, v = h.index("Metric Name"), h.index("Metric Unit"), h.index("Metric Value")
    for r in rows[1:]:
        vals.setdefault(r[i], {})[n] = f"{r[v]} {r[u]}"
for name, d in vals.items():
    if re.search(r"Duration|Stall|Issue|Eligible|Ipc|Busy|Throughput|Wavefront|Bank|Sectors|Occupancy|Registers|Shared Memory|Hit|L1", name):
        print(f"{name[:48]:48s} {d.get(1015, ''):>22s} {d.get(1016, ''):>22s}")
PY
