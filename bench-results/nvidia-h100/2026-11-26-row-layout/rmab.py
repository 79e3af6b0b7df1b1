"""A/B of lu.ROW_MAJOR_FROM: GPU time of lu_factor_ex replays (column-major vs row-major working array) in turns,
with cuSOLVER's in the same process; then each variant's kernels at one size."""
import json, os, sys, time
from functools import partial
import torch
from triton.testing import do_bench
import densela as dl
import densela.lu as L
from densela.bench.timing import kernel_times

OUT = os.environ.get("OUT", ".")
sizes = [int(s) for s in sys.argv[1].split(",")]
prof = [int(s) for s in sys.argv[2].split(",")] if len(sys.argv) > 2 else []

def bench(fn, budget=1.5):
    fn(); torch.cuda.synchronize(); t = time.perf_counter(); fn(); torch.cuda.synchronize(); once = time.perf_counter() - t
    reps = max(3, min(40, int(budget / max(once, 1e-6))))
    return do_bench(fn, warmup=0, rep=max(1, int(once * reps * 1000)), quantiles=[0.5, 0.2, 0.8])

for n in sizes:
    for dtype in (torch.float64, torch.float32):
        torch.manual_seed(n)
        a = torch.randn(n, n, dtype=dtype, device="cuda")
        torch.backends.cuda.preferred_linalg_library("cusolver")
        cus = bench(lambda: torch.linalg.lu_factor_ex(a))
        torch.backends.cuda.preferred_linalg_library("default")
        ref = None
        for rm in (0, 1, 0, 1):
            L.ROW_MAJOR_FROM = {dtype: 1} if rm else {}
            dl.tuning.clear_cache()
            lu, piv, _ = dl.lu_factor_ex(a)
            ref = piv if ref is None else ref
            same = bool(torch.equal(piv, ref))
            q = bench(partial(dl.lu_factor_ex, a))
            row = dict(n=n, dtype=str(dtype), row_major=rm, ms=q[0], p20=q[1], p80=q[2], cusolver_ms=cus[0],
                       same_pivots=same, gpu=torch.cuda.get_device_name(), commit=os.environ["TAG"])
            print(f"{os.environ['TAG']} n={n} {str(dtype)[6:]} row_major={rm}: {q[0]:.2f} ms (p20 {q[1]:.2f} p80 {q[2]:.2f}) cusolver {cus[0]:.2f} -> {cus[0]/q[0]:.3f}x same pivots {same}", flush=True)
            with open(os.path.join(OUT, f"rmab-{os.environ['TAG']}.jsonl"), "a") as f:
                f.write(json.dumps(row) + "\n")
for n in prof:
    for dtype in (torch.float64, torch.float32):
        a = torch.randn(n, n, dtype=dtype, device="cuda")
        for rm in (0, 1):
            L.ROW_MAJOR_FROM = {dtype: 1} if rm else {}
            dl.tuning.clear_cache()
            for _ in range(3):
                dl.lu_factor_ex(a)
            k = kernel_times(partial(dl.lu_factor_ex, a))
            print(f"profile n={n} {str(dtype)[6:]} row_major={rm}: kernels {sum(sum(v) for v in k.values())/1000:.2f} ms")
            for name, t in sorted(k.items(), key=lambda kv: -sum(kv[1]))[:7]:
                print(f"   {sum(t)/1000:8.2f} ms {len(t):6d} x {sum(t)/len(t):8.1f} us {name}")
            with open(os.path.join(OUT, f"rmab-{os.environ['TAG']}.jsonl"), "a") as f:
                f.write(json.dumps(dict(kind="profile", n=n, dtype=str(dtype), row_major=rm, kernels={kk: [len(v), sum(v)/1000] for kk, v in k.items()})) + "\n")
