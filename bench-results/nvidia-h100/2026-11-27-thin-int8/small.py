# ruff: noqa
"""Probe: n <= 512 rows of issue 4 near 1.0 (bfloat16 256^3, float64 512^3 and 256^3): the tables' configuration
against others, in the lab's measure (time_gpu through matmul's plan) and GPU time of graph replays; cuBLAS alike,
interleaved rounds."""
import importlib, json, os
import torch
from densela.bench.timing import time_gpu
from densela.tuning import GemmConfig, gemm_config
from densela.tuning import tune as T
import densela as dl

G = importlib.import_module("densela.gemm")
OUT = os.path.join(os.environ.get("OUT", "."), "small.jsonl")
C = GemmConfig
CANDS = {
    torch.bfloat16: [C(64, 64, 128, 8, 4, 4), C(64, 64, 128, 8, 4, 3), C(32, 64, 128, 8, 4, 3), C(64, 32, 128, 8, 4, 3),
                     C(32, 32, 128, 8, 2, 3), C(64, 64, 64, 8, 4, 3, "tiles", 2), C(32, 32, 64, 8, 2, 3, "tiles", 2),
                     C(64, 64, 128, 8, 4, 3, "tiles", 2), C(32, 64, 64, 8, 4, 4), C(64, 128, 64, 8, 4, 4, "tma"),
                     C(64, 64, 64, 8, 4, 4, "tma"), C(16, 64, 128, 8, 2, 3), C(32, 32, 256, 8, 4, 2)],
    torch.float64: [C(64, 64, 32, 8, 4, 3), C(32, 64, 32, 8, 4, 3), C(64, 32, 32, 8, 4, 3), C(32, 32, 32, 8, 4, 3),
                    C(64, 64, 16, 8, 4, 4), C(64, 64, 32, 8, 4, 3, "tiles", 2), C(32, 32, 32, 8, 2, 3, "tiles", 2),
                    C(64, 64, 32, 8, 4, 3, "tiles", 4), C(32, 64, 32, 8, 4, 3, "tiles", 2)],
}
for dtype, n in ((torch.bfloat16, 256), (torch.float64, 512), (torch.float64, 256), (torch.bfloat16, 128), (torch.bfloat16, 512)):
    a = torch.randn(n, n, device="cuda").to(dtype); b = torch.randn(n, n, device="cuda").to(dtype)
    o = torch.empty(n, n, device="cuda", dtype=dtype)
    cur = gemm_config(n, n, n, dtype, "ieee", device=0)
    res = {"cublas_lab": [], "tables_lab": [], "cublas_graph": [], "tables_graph": []}
    cands = [c for c in CANDS[dtype] if c != cur]
    for _ in range(3):
        res["cublas_lab"].append(time_gpu(lambda: torch.matmul(a, b), max_seconds=0.5).median_ms * 1e3)
        res["tables_lab"].append(time_gpu(lambda: dl.matmul(a, b), max_seconds=0.5).median_ms * 1e3)
        res["cublas_graph"].append(T.graph_ms(lambda: torch.matmul(a, b, out=o), rep_ms=30)[0] * 1e3)
        res["tables_graph"].append(T.graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee"), rep_ms=30)[0] * 1e3)
        for c in cands:
            try:
                res.setdefault(str(tuple(c)[:8]), []).append(T.graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee", cfg=c), rep_ms=30)[0] * 1e3)
            except Exception as e:
                print("fail", c, str(e)[:100])
    med = {k: sorted(v)[len(v) // 2] for k, v in res.items()}
    row = {"dtype": str(dtype), "n": n, "tables_cfg": list(cur)[:8], **{k: round(v, 2) for k, v in med.items()}}
    with open(OUT, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)
