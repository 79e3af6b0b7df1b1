#!/usr/bin/env bash
# Session 65 call 2: TF32 4096^3 with row-major operands (A through registers) against K-major ones and cuBLAS:
# Nsight Compute (tensor pipe, shared-memory conflicts, stalls) and graph times with forced K depths.
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
C=$(cat .br/s65/commit); export DENSELA_GIT_COMMIT=$C
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
for v in nn nt cublas; do
  python3 .br/s65/probe-ncu.py $v
  timeout 100 $NCU --clock-control none -k "regex:gemm|nvjet|sm90|cutlass|xmma" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --csv --page details \
    python3 .br/s65/probe-ncu.py $v > $OUT/ncu-$v.csv 2> $OUT/ncu-$v.err
  echo "$v rc=$?"
done
python3 - <<'PY'
import csv, glob, os, re
for path in sorted(glob.glob(os.environ["OUT"] + "/ncu-*.csv")):
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    if not rows:
        print(path, "no rows"); continue
    head = rows[0]
    ik, iname, iunit, ival = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Unit"), head.index("Metric Value")
    print("==", os.path.basename(path), rows[1][ik][:50])
    for r in rows[1:]:
        if re.search(r"Duration|Pipe|pipe|Bank|Conflict|Stall|Issue|Eligible|Executed Ipc|SM Busy|Throughput|Registers|Shared", r[iname]):
            print(f"   {r[iname]} = {r[ival]} {r[iunit]}")
PY
t0=$(date +%s)
timeout 200 python3 scripts/ab-trees.py --trees src --graph --cublas --gemm 4096x4096x4096 --layouts nn,nt,tt --dtype float32 --precision tf32 \
  --cfg "ws 128x256x32, group 16, 4 warps, 4 stages, epilogue in 4" --cfg "ws 128x256x64, group 8, 4 warps, 2 stages, epilogue in 4" \
  --cfg "ws 128x256x16, group 8, 4 warps, 6 stages, epilogue in 4" --rounds 2 --seconds 0.4 > $OUT/call2-ab.log 2>&1; echo "ab rc=$? $(( $(date +%s) - t0 )) s"
cp $OUT/ab-trees.jsonl $OUT/call2-ab-trees.jsonl 2>/dev/null; rm -f $OUT/ab-trees.jsonl
grep "^gemm" $OUT/call2-ab.log | cut -c1-100
