# ruff: noqa
import importlib, json, os
import torch
import densela.tuning as TU
from densela.tuning import tune as T
G = importlib.import_module("densela.gemm")
OUT = os.path.join(os.environ.get("OUT", "."), "bal3.jsonl")
cfg = TU._GEMM_MEDIUM["ieee"]
for n in (900, 930, 960, 1160, 1220):
    a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda"); o = torch.empty(n, n, device="cuda")
    row = {"n": n, "tables": list(TU.gemm_config(n, n, n, torch.float32, "ieee", device=0))[:8]}
    for s in (1, 2, 3, 4):
        c = cfg._replace(split_k=s)
        row[f"split{s}"] = T.graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee", cfg=c))[0] * 1e3
    with open(OUT, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(" ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)
