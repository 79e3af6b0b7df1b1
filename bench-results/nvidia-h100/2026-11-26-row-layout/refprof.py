"""Where a refined solve's time goes (n = 8192, cond 1e2, one right-hand side): wall time of solve_ex per mode,
its info, the GPU time by kernel (top 10), and the float32/float64 factorization alone for comparison."""
import json, os, sys, time
from functools import partial
import torch
import densela as dl
from densela.bench.providers import conditioned_matrix
from densela.bench.timing import kernel_times

OUT = os.environ.get("OUT", ".")
n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
a = conditioned_matrix(n, 1e2, "float64", "cuda")
b = torch.randn(n, 1, dtype=torch.float64, device="cuda")
a32 = a.to(torch.float32)

def wall(fn, reps=3):
    fn(); torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); fn(); torch.cuda.synchronize(); ts.append((time.perf_counter() - t) * 1e3)
    return min(ts)

res = {}
for name, fn in [("lu_factor_ex f64", partial(dl.lu_factor_ex, a)), ("lu_factor_ex f32", partial(dl.lu_factor_ex, a32)),
                 ("solve f64", partial(dl.solve, a, b))] + [(f"solve_ex {m}", partial(dl.solve_ex, a, b, refine=m)) for m in ("fp32", "tf32", "bf16")]:
    ms = wall(fn)
    out = fn()
    info = getattr(out, "info", None) if not isinstance(out, tuple) else out[-1]
    k = kernel_times(fn)
    gpu = sum(sum(v) for v in k.values()) / 1000
    print(f"{name}: wall {ms:.2f} ms, kernels {gpu:.2f} ms, info {info}", flush=True)
    top = sorted(k.items(), key=lambda kv: -sum(kv[1]))[:10]
    for kn, t in top:
        print(f"   {sum(t)/1000:8.2f} ms {len(t):6d} x {sum(t)/len(t):9.1f} us {kn}")
    res[name] = dict(wall_ms=ms, gpu_ms=gpu, info=str(info), kernels={kk: [len(v), sum(v) / 1000] for kk, v in k.items()})
with open(os.path.join(OUT, f"refprof-{n}.json"), "w") as f:
    json.dump(dict(n=n, gpu=torch.cuda.get_device_name(), results=res), f)
