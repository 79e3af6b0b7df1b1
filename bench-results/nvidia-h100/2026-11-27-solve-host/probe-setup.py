"""Probe (session 60): GPU time by kernel of lu_solve's set-up (_Sweeps) and of one unchecked lu_solve."""
import sys
import torch
import densela as dl
from densela import lu as L
from densela.bench.timing import kernel_times, time_gpu

torch.manual_seed(0)
tag = sys.argv[1]
for n in (4096, 8192):
    for dt in (torch.float64, torch.float32):
        a = torch.randn(n, n, device="cuda", dtype=dt)
        b = torch.randn(n, device="cuda", dtype=dt)
        lu, piv = dl.lu_factor(a)
        p32 = piv.to(torch.int32)
        L._Sweeps(lu, p32, 0)
        k = kernel_times(lambda: L._Sweeps(lu, p32, 0))
        ks = ", ".join(f"{name[:28]} {sum(v):.1f}" for name, v in sorted(k.items(), key=lambda e: -sum(e[1]))[:6])
        t = time_gpu(lambda: dl.lu_solve((lu, piv), b, check_finite=False), max_seconds=1.0).median_ms * 1000
        print(f"{tag} n={n} {str(dt)[6:]}: lu_solve {t:7.1f} us | set-up kernels {sum(sum(v) for v in k.values()):6.1f}: {ks}", flush=True)
