"""Probe (session 60): lu_solve (one right-hand side) with the piv check remembered (public, unchecked and
checked) against getrs, and a cProfile of the unchecked call's host time by function."""
import cProfile, io, os, pstats, sys
import torch
import densela as dl
from densela.bench.timing import host_us, time_gpu, kernel_times

torch.manual_seed(0)
out = os.environ.get("OUT", ".")
for n in (4096, 8192):
    for dt in (torch.float64, torch.float32):
        a = torch.randn(n, n, device="cuda", dtype=dt)
        b = torch.randn(n, device="cuda", dtype=dt)
        lu, piv = dl.lu_factor(a)
        ref = torch.linalg.lu_factor(a)
        fns = {
            "unchecked": lambda: dl.lu_solve((lu, piv), b, check_finite=False),
            "checked": lambda: dl.lu_solve((lu, piv), b),
            "getrs": lambda: torch.linalg.lu_solve(ref[0], ref[1], b.reshape(n, 1)),
        }
        row = []
        for name, fn in fns.items():
            t = time_gpu(fn, max_seconds=1.0).median_ms * 1000
            h = host_us(fn, calls=30)
            k = sum(sum(v) for v in kernel_times(fn).values())
            row.append(f"{name} {t:7.1f} (host {h:6.1f}, kernels {k:6.1f})")
        print(f"n={n} {str(dt)[6:]}: " + " | ".join(row), flush=True)
        if n == 4096 and dt == torch.float64:
            fn = fns["unchecked"]
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(20):
                fn()
            torch.cuda.synchronize()
            prof.disable()
            with open(f"{out}/prof-solve.txt", "w") as f:
                for key in ("tottime", "cumulative"):
                    s = io.StringIO()
                    pstats.Stats(prof, stream=s).sort_stats(key).print_stats(45)
                    f.write(s.getvalue())
