"""Probe (session 60): where lu_solve's time goes with one right-hand side -- the public call, the same without
its checks (the piv range check's synchronization), and the sweeps alone with the set-up (inverses, permutation)
made once; the lab's measure (time_gpu, us) and host time (host_us)."""
import torch
import densela as dl
from densela import lu as L
from densela.bench.timing import host_us, time_gpu, kernel_times

torch.manual_seed(0)
for n in (4096, 8192):
    for dt in (torch.float64, torch.float32):
        a = torch.randn(n, n, device="cuda", dtype=dt)
        b = torch.randn(n, device="cuda", dtype=dt)
        lu, piv = dl.lu_factor(a)
        ref = torch.linalg.lu_factor(a)
        p32 = piv.to(torch.int32)

        def public():
            return dl.lu_solve((lu, piv), b, check_finite=False)

        def unchecked():
            x = b.reshape(1, n, 1).clone()
            sw = L._Sweeps(lu, p32, 0)
            sw(x[0].clone(), x[0])
            return x

        sw = L._Sweeps(lu, p32, 0)
        torch.cuda.synchronize()

        def cached():
            x = b.reshape(n, 1).clone()
            sw(x.clone(), x)
            return x

        def getrs():
            return torch.linalg.lu_solve(ref[0], ref[1], b.reshape(n, 1))

        x0 = public().reshape(n)
        for name, fn in (("public", public), ("unchecked", unchecked), ("cached", cached)):
            assert torch.equal(fn().reshape(n), x0), name
        row = []
        for name, fn in (("public", public), ("unchecked", unchecked), ("cached", cached), ("getrs", getrs)):
            t = time_gpu(fn, max_seconds=1.0).median_ms * 1000
            h = host_us(fn, calls=30)
            k = sum(sum(v) for v in kernel_times(fn).values())
            row.append(f"{name} {t:7.1f} (host {h:6.1f}, kernels {k:6.1f})")
        print(f"n={n} {str(dt)[6:]}: " + " | ".join(row), flush=True)
