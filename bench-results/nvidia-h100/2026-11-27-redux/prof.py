"""Host time of lu_factor on small batches, by piece (cProfile), H100."""
import os, time, torch
import densela as dl
from densela.bench.timing import host_us, time_gpu
out = os.environ["OUT"]
for dt in (torch.float64, torch.float32):
    for b, n in ((10000, 8), (1000, 8), (10000, 32)):
        x = torch.randn(b, n, n, device="cuda", dtype=dt)
        f = lambda: dl.lu_factor(x, check_finite=False)
        f(); torch.cuda.synchronize()
        t = time_gpu(f, max_seconds=1).median_ms * 1e3
        ex = time_gpu(lambda: dl.lu_factor_ex(x), max_seconds=1).median_ms * 1e3
        h = host_us(f, calls=300, profile=f"{out}/prof-{b}x{n}-{str(dt)[6:]}.txt")
        hx = host_us(lambda: dl.lu_factor_ex(x), calls=300)
        tc = time_gpu(lambda: torch.linalg.lu_factor(x), max_seconds=1).median_ms * 1e3
        print(f"{b}x{n} {dt}: lab-like lu_factor {t:.1f} us, lu_factor_ex {ex:.1f}, host/call lu_factor {h:.1f} ex {hx:.1f}; torch {tc:.1f}", flush=True)
