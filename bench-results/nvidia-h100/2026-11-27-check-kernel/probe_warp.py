"""Probe: lu_factor (the lab's op, lab timer) of float64 / float32 batches of 48x48 and 64x64, whole (warp kernel
across warps) against blocked, around lu.WARP_FLOAT64_BATCH. Run with the tree .br/trees/anyblk/src (the
threshold applies to float32 too). Prints us and writes $OUT/probe-warp-checkC.jsonl
(CHECK=0: check_finite=False, as the lab; ONLY64=1: float64 only; COUNTS, SIZES: the float64 batches)."""
import json, os, torch
import densela as dl
import densela.lu as L
from densela.bench.timing import time_gpu
OUT = os.environ.get("OUT", ".")
CHECK = os.environ.get("CHECK", "1") == "1"  # check_finite (the lab passes False)
ONLY64 = os.environ.get("ONLY64") == "1"
rows = []
COUNTS = [int(x) for x in os.environ.get("COUNTS", "1000,1200,1500").split(",")]
SIZES = [int(x) for x in os.environ.get("SIZES", "64,48").split(",")]
CASES = [(torch.float64, n, COUNTS) for n in SIZES]
if not ONLY64:
    CASES += [(torch.float32, 48, (2000, 10000)), (torch.float32, 64, (2000,))]
for dtype, n, counts in CASES:
    for count in counts:
        a = torch.randn(count, n, n, dtype=dtype, device="cuda")
        res = {}
        for mode, thr in (("whole", 1 << 30), ("blocked", 0)):
            saved = L.WARP_FLOAT64_BATCH
            L.WARP_FLOAT64_BATCH = thr
            try:
                dl.lu_factor(a, check_finite=CHECK)
                t = time_gpu(lambda: dl.lu_factor(a, check_finite=CHECK), max_seconds=1.0)
            finally:
                L.WARP_FLOAT64_BATCH = saved
            res[mode] = t.median_ms * 1000
            rows.append(dict(dtype=str(dtype), n=n, count=count, mode=mode, median_us=res[mode],
                             p20_us=t.p20_ms * 1000, p80_us=t.p80_ms * 1000))
        print(f"{str(dtype)[6:]:8} {count:6} x {n:3}: whole {res['whole']:8.1f} us  blocked {res['blocked']:8.1f} us  "
              f"blocked/whole {res['blocked'] / res['whole']:.3f}", flush=True)
with open(os.path.join(OUT, f"probe-warp-check{int(CHECK)}.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
