"""Probe: host and GPU time of dl.lu_factor on batches of small matrices, float32 against float64 (session 60)."""
import os, sys
import torch
import densela as dl
from densela.bench.timing import host_us, kernel_times, time_gpu

out = os.environ.get("OUT", ".")
torch.manual_seed(0)
for batch, n in ((1000, 8), (1000, 16), (10000, 8)):
    for dt in (torch.float32, torch.float64):
        a = torch.randn(batch, n, n, device="cuda", dtype=dt)
        fn = lambda: dl.lu_factor(a, check_finite=False)
        fn(); torch.cuda.synchronize()
        t = time_gpu(fn, max_seconds=1.0)
        h = host_us(fn, calls=200, profile=f"{out}/prof-{batch}x{n}-{str(dt)[6:]}.txt")
        k = kernel_times(fn)
        ks = ", ".join(f"{name[:40]} {sum(v):.1f}" for name, v in k.items())
        print(f"{batch}x{n}x{n} {str(dt)[6:]:8s} lab {t.median_ms*1000:6.1f} us host {h:6.1f} us kernels: {ks}", flush=True)
