"""Probe: lu_factor with check_finite on and off (the check: torch.isfinite at HEAD, nonfinite_flag_kernel in the
working tree), and solve (always checked), in the tree PYTHONPATH names. Writes $OUT/probe-check-TAG.jsonl."""
import json, os, sys, torch
import densela as dl
from densela.bench.timing import time_gpu
OUT, TAG = os.environ.get("OUT", "."), sys.argv[1]
rows = []
SOLVE_ONLY = os.environ.get("SOLVE_ONLY") == "1"
for dtype, count, n in ((torch.float64, 1000, 64), (torch.float64, 10000, 8), (torch.float32, 1000, 16),
                        (torch.float64, 10000, 32), (torch.float64, 10000, 128), (torch.float64, 1, 4096)):
    if SOLVE_ONLY:
        break
    a = torch.randn(count, n, n, dtype=dtype, device="cuda")
    if count == 1:
        a = a[0]
    res = {}
    for check in (True, False):
        t = time_gpu(lambda: dl.lu_factor(a, check_finite=check), max_seconds=1.0)
        res[check] = t.median_ms * 1000
        rows.append(dict(tag=TAG, op="lu_factor", dtype=str(dtype), count=count, n=n, check=check,
                         median_us=res[check], p20_us=t.p20_ms * 1000, p80_us=t.p80_ms * 1000))
    print(f"{TAG:5} lu_factor {str(dtype)[6:]:8} {count:6} x {n:4}: checked {res[True]:9.1f} us  unchecked "
          f"{res[False]:9.1f} us  check {res[True] - res[False]:7.1f} us", flush=True)
for n in (1000, 4096):
    a = torch.randn(n, n, dtype=torch.float64, device="cuda")
    b = torch.randn(n, 1, dtype=torch.float64, device="cuda")
    t = time_gpu(lambda: dl.solve(a, b), max_seconds=1.0)
    rows.append(dict(tag=TAG, op="solve", dtype="torch.float64", count=1, n=n, check=True,
                     median_us=t.median_ms * 1000, p20_us=t.p20_ms * 1000, p80_us=t.p80_ms * 1000))
    print(f"{TAG:5} solve float64 {n}: {t.median_ms * 1000:9.1f} us", flush=True)
with open(os.path.join(OUT, f"probe-check-{TAG}.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
