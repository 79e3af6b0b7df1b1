"""Small batched lu_factor with the flag set by lu_warp_kernel's last program (fused), by any_nonzero_kernel after
it (separate, as at 4a43163) and by the copy check: host time per call (GPU idle at each start, medians of 2000)
and the lab's measure (three rounds)."""
import importlib, statistics, time
from functools import partial
import torch
import densela as dl
from densela.bench.timing import time_gpu
LU = importlib.import_module("densela.lu")
orig_reach, orig_first = LU._flag_reachable, LU._first_singular
def copy_check(info, flag=None):
    host = LU._to_host(info).numpy(); z = host.nonzero()[0]
    return None if not len(z) else (int(z[0]), int(host[z[0]]))
variants = {"fused": {}, "separate": {"_flag_reachable": lambda d: False}, "copy": {"_flag_reachable": lambda d: False, "_first_singular": copy_check}}
def host_us(fn):
    for _ in range(50): fn()
    ts = []
    for _ in range(2000):
        torch.cuda.synchronize(); t = time.perf_counter_ns(); fn(); ts.append(time.perf_counter_ns() - t)
    return statistics.median(ts) / 1e3
for count, n, dtype in [(1000, 8, torch.float64), (10000, 8, torch.float64), (1000, 16, torch.float64), (1000, 8, torch.float32), (1000, 64, torch.float64), (10000, 32, torch.float64)]:
    a = torch.randn(count, n, n, dtype=dtype, device="cuda")
    torch.backends.cuda.preferred_linalg_library("cusolver")
    base = time_gpu(partial(torch.linalg.lu_factor, a), max_seconds=1).median_ms * 1e3
    torch.backends.cuda.preferred_linalg_library("default")
    out = {}
    for rnd in range(3):
        for name, knobs in variants.items():
            for k, v in knobs.items(): setattr(LU, k, v)
            importlib.import_module("densela._launch").PLANS.clear()
            call = partial(dl.lu_factor, a, check_finite=False)
            lab = time_gpu(call, max_seconds=1).median_ms * 1e3
            h = host_us(call) if rnd == 0 else None
            LU._flag_reachable, LU._first_singular = orig_reach, orig_first
            out.setdefault(name, []).append((lab, h))
    print(count, n, str(dtype)[6:], f"cuSOLVER {base:.1f}", "  ".join(f"{k}: lab {statistics.median([x[0] for x in v]):.1f} ({min(x[0] for x in v):.1f}-{max(x[0] for x in v):.1f}) host {v[0][1]:.1f}" for k, v in out.items()), flush=True)
