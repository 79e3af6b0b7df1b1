import numpy as np
import torch

import densela as dl
from densela.bench.timing import _timed_calls, kernel_times, time_gpu

torch.manual_seed(0)
m, k, n = 5000, 50, 5000
a = torch.randn(m, k, device="cuda")
b = torch.randn(k, n, device="cuda")
ap = torch.empty(m, 52, device="cuda")[:, :50]
ap.copy_(a)
fns = {"torch": lambda: a @ b, "densela": lambda: dl.matmul(a, b), "densela-padded": lambda: dl.matmul(ap, b)}
for name, fn in fns.items():
    fn()
    t = _timed_calls(fn)
    xs = [t() for _ in range(400)]
    print(name, "per-call p5 p20 p50 p80 p95", np.percentile(xs, [5, 20, 50, 80, 95]).round(4), flush=True)
for rnd in range(2):
    for name, fn in fns.items():
        print(rnd, name, time_gpu(fn, max_seconds=1), flush=True)
print(kernel_times(fns["densela"]))
