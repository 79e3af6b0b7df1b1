"""Probe: float32 5000 x 50 x 5000 (A's rows of 200 bytes, copied for TMA): host time per call, plan replays,
and the lab's timer, against A pre-padded and torch."""
import time
import numpy as np
import torch
import densela as dl
import densela._launch as L
from densela.bench.timing import _timed_calls, time_gpu

torch.manual_seed(0)
m, k, n = 5000, 50, 5000
a = torch.randn(m, k, device="cuda")
b = torch.randn(k, n, device="cuda")
ap = torch.empty(m, 52, device="cuda")[:, :50]
ap.copy_(a)
fns = {"torch": lambda: a @ b, "densela": lambda: dl.matmul(a, b), "densela-padded": lambda: dl.matmul(ap, b)}
for name, fn in fns.items():
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(200):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    print(f"{name}: host {1e6 * (t1 - t0) / 200:.1f} us/call, with the GPU {1e6 * (t2 - t0) / 200:.1f} us/call", flush=True)
print("plans", [(key if isinstance(key, str) else type(key).__name__, v is not None) for key, v in list(L.PLANS.items())[:6]])
for name, fn in fns.items():
    t = _timed_calls(fn)
    xs = [t() for _ in range(300)]
    print(name, "per-call p5 p20 p50 p80 p95", np.percentile(xs, [5, 20, 50, 80, 95]).round(4), flush=True)
for rnd in range(3):
    for name, fn in fns.items():
        print(rnd, name, time_gpu(fn, max_seconds=1), flush=True)
