"""lu_factor of one 1000 x 1000 float64 matrix (lab measure) with the singularity flag polled for 0, 2 (default) or
10 ms before the stream wait, and with the copy check; float32 and 2048 for comparison."""
import importlib, statistics
from functools import partial
import torch
import densela as dl
from densela.bench.timing import time_gpu
LU = importlib.import_module("densela.lu")
def copy_check(info):
    host = LU._to_host(info).numpy(); z = host.nonzero()[0]
    return None if not len(z) else (int(z[0]), int(host[z[0]]))
orig = LU._first_singular
for n, dtype in [(1000, torch.float64), (1000, torch.float32), (2048, torch.float64)]:
    a = torch.randn(n, n, dtype=dtype, device="cuda")
    res = {}
    for rnd in range(3):
        for name in ("spin 2 ms", "spin 0", "spin 10 ms", "copy"):
            LU.SPIN_SECONDS = {"spin 2 ms": 0.002, "spin 0": 0.0, "spin 10 ms": 0.01}.get(name, 0.002)
            LU._first_singular = copy_check if name == "copy" else orig
            res.setdefault(name, []).append(time_gpu(partial(dl.lu_factor, a, check_finite=False), max_seconds=1).median_ms)
    LU._first_singular = orig; LU.SPIN_SECONDS = 0.002
    print(n, str(dtype)[6:], "  ".join(f"{k}: {statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})" for k, v in res.items()), flush=True)
