#!/usr/bin/env bash
# Session 64 call 5: Nsight Compute on bfloat16 128 x 4096 x 4096 (the thin row under 0.9): densela's tables (tiles
# kernel split 2), the warp-specialized kernel split 4 (and its split_sum_kernel), cuBLAS.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
echo "ncu: $NCU"
for v in tables ws4 cublas; do
  python3 .br/s64/probe-ncu.py $v  # compile outside the profile
  timeout 150 $NCU --clock-control none -k "regex:gemm|xmma|split_sum|sm90|cutlass|nvjet" --launch-skip 2 --launch-count 3 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --csv --page details \
    python3 .br/s64/probe-ncu.py $v > $OUT/ncu-$v.csv 2> $OUT/ncu-$v.err
  echo "$v rc=$?"
done
python3 - <<'PY'
import csv, glob, os
keys = ("Duration", "DRAM Throughput", "L2 Cache Throughput", "L1/TEX Cache Throughput", "Memory Throughput",
        "Compute (SM) Throughput", "Achieved Occupancy", "Registers Per Thread", "Grid Size", "Block Size",
        "Issue Slots Busy", "No Eligible", "Warp Cycles Per Issued Instruction", "L2 Hit Rate", "Mem Busy",
        "Max Bandwidth", "Dynamic Shared Memory Per Block", "Waves Per SM")
for path in sorted(glob.glob(os.environ["OUT"] + "/ncu-*.csv")):
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    if not rows:
        print(path, "no rows"); continue
    head = rows[0]
    ik, iname, iunit, ival = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Unit"), head.index("Metric Value")
    iid = head.index("ID")
    seen = {}
    for r in rows[1:]:
        if r[iname] in keys:
            seen.setdefault((r[iid], r[ik][:60]), []).append(f"{r[iname]}={r[ival]}{r[iunit]}")
    for (i, name), vals in seen.items():
        print(os.path.basename(path), i, name)
        print("   ", "; ".join(vals))
PY
