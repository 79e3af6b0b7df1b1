import torch, densela as dl, densela.lu as L
def per_call(fn, calls=100):
    fn(); torch.cuda.synchronize()
    best = 1e9
    for _ in range(3):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(calls): fn()
        e.record(); torch.cuda.synchronize()
        best = min(best, s.elapsed_time(e) / calls)
    return best * 1000
for count in (1000, 10000):
    for n in (8, 16, 32):
        for dt in (torch.float64, torch.float32):
            a = torch.randn(count, n, n, dtype=dt, device="cuda")
            torch.backends.cuda.preferred_linalg_library("cusolver")
            cus = per_call(lambda: torch.linalg.lu_factor_ex(a))
            torch.backends.cuda.preferred_linalg_library("magma")
            mag = per_call(lambda: torch.linalg.lu_factor_ex(a))
            torch.backends.cuda.preferred_linalg_library("default")
            res = []
            for w in (1, 2, 4, 8):
                L.WARP_WARPS = w
                res.append(per_call(lambda: dl.lu_factor_ex(a)))
            best = min(cus, mag)
            print(f"{count:6d} {n:3d} {str(dt)[6:]:8s} cusolver {cus:7.1f} magma {mag:7.1f} us | warps 1/2/4/8: " + " ".join(f"{t:6.1f}" for t in res) + " | x " + " ".join(f"{best/t:4.2f}" for t in res), flush=True)
