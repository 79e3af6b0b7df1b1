"""Look-ahead below 8192 now that the update beside the panel can run on the tiles kernel: lu_factor_ex GPU time
(do_bench) with lu.LOOKAHEAD_FROM and lu.AHEAD_UPDATE_TILES_FROM as they are, and lowered to n. argv: sizes"""
import json, os, sys, time
from functools import partial
import torch
from triton.testing import do_bench
import densela as dl
import densela.lu as L

OUT = os.environ.get("OUT", ".")
BASE = (L.LOOKAHEAD_FROM, dict(L.AHEAD_UPDATE_TILES_FROM))

def bench(fn, budget=1.0):
    fn(); torch.cuda.synchronize(); t = time.perf_counter(); fn(); torch.cuda.synchronize(); once = time.perf_counter() - t
    reps = max(3, min(40, int(budget / max(once, 1e-6))))
    return do_bench(fn, warmup=0, rep=max(1, int(once * reps * 1000)), quantiles=[0.5, 0.2, 0.8])

for n in [int(x) for x in sys.argv[1].split(",")]:
    for dtype in (torch.float64, torch.float32):
        torch.manual_seed(n)
        a = torch.randn(n, n, dtype=dtype, device="cuda")
        torch.backends.cuda.preferred_linalg_library("cusolver")
        cus = bench(lambda: torch.linalg.lu_factor_ex(a))
        torch.backends.cuda.preferred_linalg_library("default")
        for tag in ("tables", "ahead", "tables", "ahead"):
            if tag == "tables":
                L.LOOKAHEAD_FROM, L.AHEAD_UPDATE_TILES_FROM = BASE[0], dict(BASE[1])
            else:
                L.LOOKAHEAD_FROM, L.AHEAD_UPDATE_TILES_FROM = n, {torch.float64: n, torch.float32: n}
            dl.lu_factor_ex(a)
            q = bench(partial(dl.lu_factor_ex, a))
            row = dict(n=n, dtype=str(dtype), variant=tag, ms=q[0], p20=q[1], p80=q[2], cusolver_ms=cus[0])
            print(n, str(dtype)[6:], tag, "%.2f" % q[0], "cus %.2f" % cus[0], "x%.3f" % (cus[0] / q[0]), flush=True)
            with open(f"{OUT}/la4096.jsonl", "a") as f:
                f.write(json.dumps(row) + "\n")
