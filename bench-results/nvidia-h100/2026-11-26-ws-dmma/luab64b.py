"""LU with look-ahead (n >= 8192), one process: the tables' float64 GEMM on the tiles kernel or the warp-specialized
one, and the trailing update beside the look-ahead panel on the tiles kernel or not (lu.AHEAD_UPDATE_TILES).
GPU time of lu_factor_ex (do_bench medians), cuSOLVER's, pivots against the first variant's.
argv: sizes dtypes(f64,f32)"""
import json, os, sys, time
from functools import partial
import torch
from triton.testing import do_bench
import densela as dl
import densela.lu as L
import densela.tuning as T

OUT = os.environ.get("OUT", ".")
NEW, OLD = T._GEMM_LARGE["float64"], T._GEMM_LARGE_TILES_FLOAT64
DT = {"f64": torch.float64, "f32": torch.float32}

def bench(fn, budget=1.0):
    fn(); torch.cuda.synchronize(); t = time.perf_counter(); fn(); torch.cuda.synchronize(); once = time.perf_counter() - t
    reps = max(3, min(40, int(budget / max(once, 1e-6))))
    return do_bench(fn, warmup=0, rep=max(1, int(once * reps * 1000)), quantiles=[0.5, 0.2, 0.8])

for n in [int(x) for x in sys.argv[1].split(",")]:
    for d in sys.argv[2].split(","):
        dtype = DT[d]
        torch.manual_seed(n)
        a = torch.randn(n, n, dtype=dtype, device="cuda")
        torch.backends.cuda.preferred_linalg_library("cusolver")
        cus = bench(lambda: torch.linalg.lu_factor_ex(a))
        torch.backends.cuda.preferred_linalg_library("default")
        variants = [("tiles-gemm", OLD, False), ("ws-gemm", NEW, False), ("ws-gemm+ahead-tiles", NEW, True)]
        if dtype == torch.float32:
            variants = [("ahead-as-tables", NEW, False), ("ahead-tiles", NEW, True)]
        ref = None
        for tag, cfg, ahead in variants * 2:
            T._GEMM_LARGE["float64"] = cfg
            L.AHEAD_UPDATE_TILES = {dtype} if ahead else set()
            T.clear_cache()
            lu, piv, _ = dl.lu_factor_ex(a)
            ref = (lu, piv) if ref is None else ref
            q = bench(partial(dl.lu_factor_ex, a))
            row = dict(n=n, dtype=d, variant=tag, ms=q[0], p20=q[1], p80=q[2], cusolver_ms=cus[0],
                       pivots_same=bool(torch.equal(piv, ref[1])), lu_maxdiff=float((lu - ref[0]).abs().max()))
            print(json.dumps(row), flush=True)
            with open(f"{OUT}/luab64b.jsonl", "a") as f:
                f.write(json.dumps(row) + "\n")
