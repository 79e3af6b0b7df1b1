# ruff: noqa
"""Probe: float32 FMA N^3 around 1000-1200 on the tiles kernel's 64 x 64 x 32 tiles split 1-4 along K (GPU time of
graph replays, L2 flushed), the tables' choice and cuBLAS alike."""
import importlib, json, os
import torch
from densela.tuning import gemm_config
from densela.tuning import tune as T

G = importlib.import_module("densela.gemm")
OUT = os.path.join(os.environ.get("OUT", "."), "bal.jsonl")
torch.backends.cuda.matmul.allow_tf32 = False
for n in (1026, 1030, 1050, 1054, 1058, 1062, 1070, 1086, 1090, 1094, 1025, 1057, 1089, 1099, 1100, 1056, 1088, 1120, 1152, 1200, 1280):
    a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda"); o = torch.empty(n, n, device="cuda")
    cur = gemm_config(n, n, n, torch.float32, "ieee", device=0)
    row = {"n": n, "current": list(cur)[:8], "cublas": T.graph_ms(lambda: torch.matmul(a, b, out=o))[0] * 1e3,
           "tables": T.graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee"))[0] * 1e3}
    if cur.kernel == "tiles":
        for s in (1, 2, 3, 4, 5, 6):
            cfg = cur._replace(split_k=s)
            row[f"split{s}"] = T.graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee", cfg=cfg))[0] * 1e3
    with open(OUT, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(" ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)
