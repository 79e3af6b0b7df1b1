"""Host time of densela.lu_factor on small batches (H100): wall time per call over back-to-back calls, and a
cProfile of the calls, to see where a host-bound call's time goes."""
import cProfile, pstats, time, io
import torch, densela as dl
import densela.lu as L
from densela._arrays import prepare

def per_call(fn, calls=300):
    for _ in range(20): fn()
    torch.cuda.synchronize()
    best = 1e9
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls): fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6

for count, n, dt in [(1000, 8, torch.float32), (1000, 32, torch.float64), (10000, 16, torch.float32)]:
    a = torch.randn(count, n, n, dtype=dt, device="cuda")
    torch.backends.cuda.preferred_linalg_library("cusolver")
    t_torch = per_call(lambda: torch.linalg.lu_factor(a))
    t_torch_ex = per_call(lambda: torch.linalg.lu_factor_ex(a))
    torch.backends.cuda.preferred_linalg_library("default")
    t_dl = per_call(lambda: dl.lu_factor(a, check_finite=False))
    t_dl_ex = per_call(lambda: dl.lu_factor_ex(a))
    t_prep = per_call(lambda: prepare("lu_factor", {"a": a}))
    call = prepare("lu_factor", {"a": a})
    t_factor = per_call(lambda: L.factor(call, a))
    info = torch.zeros(count, dtype=torch.int32, device="cuda")
    t_first = per_call(lambda: L._first_singular(info))
    t_cpu = per_call(lambda: info.cpu())
    t_empty = per_call(lambda: torch.empty((count, n, n), dtype=dt, device="cuda"))
    print(f"{count} x {n} {str(dt)[6:]}: us/call torch lu_factor {t_torch:.1f} (_ex {t_torch_ex:.1f}); densela lu_factor "
          f"{t_dl:.1f} (_ex {t_dl_ex:.1f}); prepare {t_prep:.1f}, factor {t_factor:.1f}, _first_singular {t_first:.1f} "
          f"(info.cpu {t_cpu:.1f}), torch.empty {t_empty:.1f}", flush=True)
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(300):
        dl.lu_factor(a, check_finite=False)
    torch.cuda.synchronize()
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(22)
    print("\n".join(s.getvalue().splitlines()[:40]))
