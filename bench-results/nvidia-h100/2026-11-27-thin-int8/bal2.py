# ruff: noqa
"""Probe: where a K-step-aware balance rule (splits 1-4, work = waves x steps per slice) and the current one
(splits 1-3, waves / split) choose differently: float32 FMA and float64 N^3 on the 64 x 64 x 32 tiles, split 1-4,
GPU time of graph replays (L2 flushed)."""
import importlib, json, os
import torch
import densela.tuning as TU
from densela.tuning import tune as T

G = importlib.import_module("densela.gemm")
OUT = os.path.join(os.environ.get("OUT", "."), "bal2.jsonl")
torch.backends.cuda.matmul.allow_tf32 = False
for dtype, prec in ((torch.float32, "ieee"), (torch.float64, "ieee")):
    cfg = TU._GEMM_MEDIUM["ieee" if dtype == torch.float32 else "float64"]
    for n in (720, 768, 1060, 1088, 1260, 1280, 1450, 1472, 1650, 1350, 1400, 1930, 1980, 1026, 1100, 1200):
        a = torch.randn(n, n, device="cuda", dtype=dtype); b = torch.randn(n, n, device="cuda", dtype=dtype)
        o = torch.empty(n, n, device="cuda", dtype=dtype)
        row = {"dtype": str(dtype), "n": n, "tables": list(TU.gemm_config(n, n, n, dtype, prec, device=0))[:8],
               "cublas": T.graph_ms(lambda: torch.matmul(a, b, out=o))[0] * 1e3}
        for s in (1, 2, 3, 4):
            c = cfg._replace(split_k=s)
            row[f"split{s}"] = T.graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, prec, cfg=c))[0] * 1e3
        with open(OUT, "a") as f:
            f.write(json.dumps(row) + "\n")
        print(" ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)
