"""A/B of lu_factor's singularity check: the lab's measure of lu_factor, the wall time of the check after a launch."""
import json, os, sys, time
from functools import partial
import torch
import densela as dl
import densela.lu as L
from densela.bench.timing import time_gpu

tag = sys.argv[1]
for count, n, dtype in [(10000, 8, torch.float32), (10000, 8, torch.float64), (1000, 16, torch.float32), (10000, 16, torch.float32), (1000, 32, torch.float64)]:
    a = torch.randn(count, n, n, dtype=dtype, device="cuda")
    lab = time_gpu(partial(dl.lu_factor, a, check_finite=False), max_seconds=1).median_ms * 1e3
    ts = []
    for _ in range(200):
        torch.cuda.synchronize()
        r = dl.lu_factor_ex(a)
        t = time.perf_counter(); L._first_singular(r[2]); ts.append(time.perf_counter() - t)
    sync = sorted(ts)[100] * 1e6
    print(f"{tag} {count}x{n}x{n} {str(dtype)[6:]}: lab lu_factor {lab:.1f} us, check {sync:.1f} us", flush=True)
    with open(os.path.join(os.environ.get("OUT", "."), "hostab.jsonl"), "a") as f:
        f.write(json.dumps(dict(tag=tag, shape=[count, n, n], dtype=str(dtype), lab_us=lab, check_us=sync)) + "\n")
