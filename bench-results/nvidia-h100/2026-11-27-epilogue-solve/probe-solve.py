"""Probe: where lu_solve's time goes with one right-hand side (n = 4096, 8192; float64, float32), and a refined
solve's kernels: the lab's measure (time_gpu), host time, GPU time by kernel (torch.profiler)."""
import functools, json, os, sys
import torch
import densela as dl
from densela.bench.timing import time_gpu, kernel_times, host_us

rows = []
def report(label, fn):
    fn(); torch.cuda.synchronize()
    t = time_gpu(fn, max_seconds=1.0).median_ms * 1e3
    h = host_us(fn, calls=20, warmup=2)
    ks = kernel_times(fn)
    total = sum(sum(v) for v in ks.values())
    print(f"{label:40s} lab {t:9.1f} us  host {h:8.1f} us  kernels {total:9.1f} us in {sum(len(v) for v in ks.values())} launches", flush=True)
    for name, v in sorted(ks.items(), key=lambda kv: -sum(kv[1]))[:8]:
        print(f"    {sum(v):9.1f} us  x{len(v):4d}  {name}", flush=True)
    rows.append({"case": label, "lab_us": t, "host_us": h, "kernels": {k: v for k, v in ks.items()}})

for n in (4096, 8192):
    for dtype in (torch.float64, torch.float32):
        torch.manual_seed(0)
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        b = torch.randn(n, device="cuda", dtype=dtype)
        lu, piv = dl.lu_factor(a)
        tlu, tpiv = torch.linalg.lu_factor(a)
        d = str(dtype)[6:]
        report(f"{n} {d} densela lu_solve", functools.partial(dl.lu_solve, (lu, piv), b))
        report(f"{n} {d} densela lu_solve unchecked", functools.partial(dl.lu_solve, (lu, piv), b, check_finite=False))
        report(f"{n} {d} torch lu_solve", functools.partial(torch.linalg.lu_solve, tlu, tpiv, b.unsqueeze(1)))
torch.manual_seed(0)
n = 8192
a = torch.randn(n, n, device="cuda", dtype=torch.float64) + n ** 0.5 * torch.eye(n, device="cuda", dtype=torch.float64)
b = torch.randn(n, device="cuda", dtype=torch.float64)
x, info = dl.solve_ex(a, b, refine="fp32")
print("refine fp32", info, flush=True)
report("8192 solve refine fp32", functools.partial(dl.solve, a, b, refine="fp32"))
report("8192 solve float64", functools.partial(dl.solve, a, b))
with open(os.path.join(os.environ.get("OUT", "."), "probe-solve.json"), "w") as f:
    json.dump(rows, f)
