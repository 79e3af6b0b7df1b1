"""Where a refined solve's time goes at n = 8192, cond 1e2: the preconditioner's set-up (the factorization in each
mode and the sweeps' set-up) and the applications (count, time each), against a float64 solve."""
import time, torch, densela as dl, densela.lu as L
from densela.bench.providers import conditioned_matrix

n = 8192
a = conditioned_matrix(n, 1e2, "float64", "cuda")
b = torch.randn(n, 1, dtype=torch.float64, device="cuda")
counts = {"apply": 0, "apply_s": 0.0, "setup_s": 0.0}
Pre = L._Preconditioner
orig_init, orig_call = Pre.__init__, Pre.__call__
def init(self, *args, **kw):
    torch.cuda.synchronize(); t = time.perf_counter()
    orig_init(self, *args, **kw)
    torch.cuda.synchronize(); counts["setup_s"] += time.perf_counter() - t
def call(self, v):
    torch.cuda.synchronize(); t = time.perf_counter()
    out = orig_call(self, v)
    torch.cuda.synchronize(); counts["apply_s"] += time.perf_counter() - t; counts["apply"] += 1
    return out
Pre.__init__, Pre.__call__ = init, call
for mode in ("fp32", "tf32", "bf16", "fp32", "tf32", "bf16"):
    for k in counts: counts[k] = 0
    torch.cuda.synchronize(); t = time.perf_counter()
    x, info = dl.solve_ex(a, b, refine=mode)
    torch.cuda.synchronize(); total = time.perf_counter() - t
    print(f"{mode}: total {total*1e3:.1f} ms (synced per piece), set-up {counts['setup_s']*1e3:.1f} ms, "
          f"{counts['apply']} applications {counts['apply_s']*1e3:.1f} ms ({counts['apply_s']/max(1,counts['apply'])*1e3:.2f} each), "
          f"steps {info.iterations}, converged {info.converged}, backward error {info.backward_error:.1e}", flush=True)
for _ in range(2):
    torch.cuda.synchronize(); t = time.perf_counter()
    dl.solve(a, b); torch.cuda.synchronize()
    print(f"float64 solve {1e3*(time.perf_counter()-t):.1f} ms")
