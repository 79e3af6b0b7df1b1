"""lu_factor (check_finite=False) as the lab times it, three rotating inputs, float64 n = 2048 (and 4096): the
column-major working array against the row-major one, in turns, three rounds; cuSOLVER in the same process."""
import json, os, sys
import torch
from triton.testing import do_bench
import densela as dl
import densela.lu as L

OUT = os.environ.get("OUT", ".")
for n in [int(s) for s in sys.argv[1].split(",")]:
    dtype = torch.float64
    xs = [torch.randn(n, n, dtype=dtype, device="cuda", generator=torch.Generator("cuda").manual_seed(s)) for s in range(3)]
    it = iter(range(10**9))
    def rot(f):
        return lambda: f(xs[next(it) % 3])
    torch.backends.cuda.preferred_linalg_library("cusolver")
    cus = do_bench(rot(torch.linalg.lu_factor), warmup=50, rep=1000, quantiles=[0.5, 0.2, 0.8])
    torch.backends.cuda.preferred_linalg_library("default")
    for rnd in range(3):
        for rm in (0, 1):
            L.ROW_MAJOR_FROM = {dtype: 1} if rm else {}
            q = do_bench(rot(lambda a: dl.lu_factor(a, check_finite=False)), warmup=50, rep=1000, quantiles=[0.5, 0.2, 0.8])
            print(f"lab-like n={n} rm={rm} round {rnd}: {q[0]:.3f} ms (p20 {q[1]:.3f} p80 {q[2]:.3f}) cusolver {cus[0]:.3f} -> {cus[0]/q[0]:.3f}x", flush=True)
            with open(os.path.join(OUT, "lab2048.jsonl"), "a") as f:
                f.write(json.dumps(dict(n=n, dtype="float64", row_major=rm, round=rnd, ms=q[0], p20=q[1], p80=q[2], cusolver_ms=cus[0], gpu=torch.cuda.get_device_name(), commit="3b208c3")) + "\n")
