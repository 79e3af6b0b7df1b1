"""Probe: host time of lu_solve (one right-hand side, n = 8192, float64) under cProfile: cumulative and own time."""
import cProfile, functools, io, os, pstats, time
import torch
import densela as dl

torch.manual_seed(0)
n = 8192
a = torch.randn(n, n, device="cuda", dtype=torch.float64)
b = torch.randn(n, device="cuda", dtype=torch.float64)
lu, piv = dl.lu_factor(a)
for check in (False, True):
    fn = functools.partial(dl.lu_solve, (lu, piv), b, check_finite=check)
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    print(f"check_finite={check}: {(time.perf_counter() - t0) / 10 * 1e6:.1f} us per call (wall, queued)", flush=True)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    prof.disable()
    for key in ("cumulative", "tottime"):
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats(key).print_stats(30)
        print(s.getvalue()[-9000:], flush=True)
