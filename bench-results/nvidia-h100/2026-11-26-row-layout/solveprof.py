"""Where lu_solve's time goes at n = 8192, one right-hand side: wall per call (check_finite on and off), GPU time
by kernel, and the host's share (cProfile over 20 calls)."""
import cProfile, io, json, os, pstats, time
from functools import partial
import torch
import densela as dl
from densela.bench.timing import kernel_times

OUT = os.environ.get("OUT", ".")
res = {}
for dtype in (torch.float64, torch.float32):
    n = 8192
    torch.manual_seed(0)
    a = torch.randn(n, n, dtype=dtype, device="cuda")
    lu, piv = dl.lu_factor(a)
    b = torch.randn(n, 1, dtype=dtype, device="cuda")
    torch.backends.cuda.preferred_linalg_library("cusolver")
    lt, pt = torch.linalg.lu_factor(a)
    for name, fn in [("check", partial(dl.lu_solve, (lu, piv), b)), ("nocheck", partial(dl.lu_solve, (lu, piv), b, check_finite=False)),
                     ("getrs", partial(torch.linalg.lu_solve, lt, pt, b))]:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        ts = []
        for _ in range(20):
            t = time.perf_counter(); fn(); torch.cuda.synchronize(); ts.append((time.perf_counter() - t) * 1e3)
        k = kernel_times(fn)
        gpu = sum(sum(v) for v in k.values()) / 1e3
        print(f"{str(dtype)[6:]} {name}: wall {sorted(ts)[10]:.3f} ms (min {min(ts):.3f}), kernels {gpu:.3f} ms", flush=True)
        for kn, t in sorted(k.items(), key=lambda kv: -sum(kv[1]))[:8]:
            print(f"   {sum(t)/1000:8.3f} ms {len(t):4d} x {sum(t)/len(t):8.1f} us {kn}")
        res[f"{dtype} {name}"] = dict(wall_ms=sorted(ts)[10], gpu_ms=gpu, kernels={kk: [len(v), sum(v) / 1e3] for kk, v in k.items()})
    torch.backends.cuda.preferred_linalg_library("default")
    pr = cProfile.Profile(); pr.enable()
    for _ in range(20):
        dl.lu_solve((lu, piv), b, check_finite=False)
    torch.cuda.synchronize(); pr.disable()
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(12); print(s.getvalue()[:3500])
with open(os.path.join(OUT, "solveprof.json"), "w") as f:
    json.dump(res, f)
