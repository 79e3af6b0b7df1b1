"""A/B of row-major vs column-major working arrays under one source tree (PYTHONPATH): GPU time of lu_factor_ex,
cuSOLVER's in the same process. argv: TAG sizes dtypes(f64,f32) [warm]"""
import json, os, sys, time
from functools import partial
import torch
from triton.testing import do_bench
import densela as dl
import densela.lu as L

OUT = os.environ.get("OUT", ".")
tag, sizes, dts = sys.argv[1], [int(s) for s in sys.argv[2].split(",")], sys.argv[3].split(",")
warm = len(sys.argv) > 4
DT = {"f64": torch.float64, "f32": torch.float32}

def bench(fn, budget=1.0):
    fn(); torch.cuda.synchronize(); t = time.perf_counter(); fn(); torch.cuda.synchronize(); once = time.perf_counter() - t
    reps = max(3, min(40, int(budget / max(once, 1e-6))))
    return do_bench(fn, warmup=0, rep=max(1, int(once * reps * 1000)), quantiles=[0.5, 0.2, 0.8])

for n in sizes:
    for d in dts:
        dtype = DT[d]
        torch.manual_seed(n)
        a = torch.randn(n, n, dtype=dtype, device="cuda")
        if warm:
            for rm in (0, 1):
                L.ROW_MAJOR_FROM = {dtype: 1} if rm else {}
                dl.lu_factor_ex(a); torch.cuda.synchronize()
            continue
        torch.backends.cuda.preferred_linalg_library("cusolver")
        cus = bench(lambda: torch.linalg.lu_factor_ex(a))
        torch.backends.cuda.preferred_linalg_library("default")
        ref = None
        for rm in (0, 1):
            L.ROW_MAJOR_FROM = {dtype: 1} if rm else {}
            lu, piv, _ = dl.lu_factor_ex(a)
            ref = piv if ref is None else ref
            same = bool(torch.equal(piv, ref))
            q = bench(partial(dl.lu_factor_ex, a))
            row = dict(tag=tag, n=n, dtype=str(dtype), row_major=rm, ms=q[0], p20=q[1], p80=q[2], cusolver_ms=cus[0],
                       same_pivots=same, gpu=torch.cuda.get_device_name())
            print(f"{tag} n={n} {d} rm={rm}: {q[0]:.2f} ms (p20 {q[1]:.2f} p80 {q[2]:.2f}) cusolver {cus[0]:.2f} -> {cus[0]/q[0]:.3f}x same {same}", flush=True)
            with open(os.path.join(OUT, "rmab2.jsonl"), "a") as f:
                f.write(json.dumps(row) + "\n")
