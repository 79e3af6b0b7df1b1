"""A/B of the sweeps (one-launch triangular solves): GPU time of lu_solve on n x k right-hand sides (do_bench
medians), the sweep kernel's own time, and the refined solves' wall time, under the source on PYTHONPATH."""
import json, os, sys, time
from functools import partial
import torch
from triton.testing import do_bench
import densela as dl
from densela.bench.providers import conditioned_matrix
from densela.bench.timing import kernel_times

tag = sys.argv[1]
OUT = os.environ.get("OUT", ".")
rows = []
for n in (4096, 8192):
    for dtype in (torch.float64, torch.float32):
        torch.manual_seed(n)
        a = torch.randn(n, n, dtype=dtype, device="cuda")
        lu, piv = dl.lu_factor(a)
        for k in (1, 8, 32):
            b = torch.randn(n, k, dtype=dtype, device="cuda")
            x = dl.lu_solve((lu, piv), b)
            res = float((a.double() @ x.double() - b.double()).norm() / (a.double().norm() * x.double().norm()))
            q = do_bench(partial(dl.lu_solve, (lu, piv), b), warmup=20, rep=300, quantiles=[0.5, 0.2, 0.8])
            kt = kernel_times(partial(dl.lu_solve, (lu, piv), b))
            sweep = [sum(v) / len(v) for kk, v in kt.items() if "sweep" in kk]
            torch.backends.cuda.preferred_linalg_library("cusolver")
            lu_t, piv_t = torch.linalg.lu_factor(a)
            ref = do_bench(partial(torch.linalg.lu_solve, lu_t, piv_t, b), warmup=20, rep=300, quantiles=[0.5, 0.2, 0.8])
            torch.backends.cuda.preferred_linalg_library("default")
            print(f"{tag} lu_solve n={n} k={k} {str(dtype)[6:]}: {q[0]:.3f} ms (p20 {q[1]:.3f} p80 {q[2]:.3f}), sweep kernel {sweep[0] if sweep else float('nan'):.1f} us, cusolver getrs {ref[0]:.3f} -> {ref[0]/q[0]:.2f}x, rel residual {res:.1e}", flush=True)
            rows.append(dict(tag=tag, op="lu_solve", n=n, k=k, dtype=str(dtype), ms=q[0], p20=q[1], p80=q[2], sweep_us=sweep, cusolver_ms=ref[0], residual=res))
a = conditioned_matrix(8192, 1e2, "float64", "cuda")
b = torch.randn(8192, 1, dtype=torch.float64, device="cuda")
for mode in ("fp32", "tf32"):
    fn = partial(dl.solve_ex, a, b, refine=mode)
    fn(); torch.cuda.synchronize()
    ts = []
    for _ in range(4):
        t = time.perf_counter(); x, info = fn(); torch.cuda.synchronize(); ts.append((time.perf_counter() - t) * 1e3)
    print(f"{tag} solve_ex refine={mode} n=8192 cond 1e2: wall {min(ts):.2f} ms (median {sorted(ts)[2]:.2f}), {info}", flush=True)
    rows.append(dict(tag=tag, op="solve_ex", refine=mode, n=8192, wall_ms=min(ts), info=str(info)))
with open(os.path.join(OUT, f"sweepab-{tag}.jsonl"), "a") as f:
    for r in rows:
        f.write(json.dumps(dict(r, gpu=torch.cuda.get_device_name())) + "\n")
