"""Probe (session 64): where _GEMM_DEEP_16BIT's fill threshold should lie: bfloat16 products of 72 to 124 tiles of
64 x 64 (128 rows), the tables (split 2) against the deep unsplit tiles, GPU time of CUDA-graph replays, cuBLAS beside.
JSON lines to $OUT/probe-deep3.jsonl."""
import json, os
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import gemm_config, _GEMM_DEEP_16BIT
from densela.tuning.tune import graph_ms

rows = []
for m, n, k in [(128, 2304, 4096), (128, 2816, 4096), (128, 3200, 4096), (128, 3584, 4096), (128, 3968, 4096),
                (128, 2304, 8192), (128, 3200, 8192), (64, 5120, 8192), (192, 2048, 8192)]:
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    ref = a.double() @ b.double()
    for name, cfg in [("cublas", None), ("tables", None), ("deep", _GEMM_DEEP_16BIT)]:
        if name == "cublas":
            call = lambda: torch.matmul(a, b, out=out)  # noqa: E731
        else:
            call = lambda cfg=cfg: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg=cfg)  # noqa: E731
        call()
        err = float((out.double() - ref).norm() / ref.norm())
        q = graph_ms(call, rep_ms=40, quantiles=(0.2, 0.5, 0.8))
        desc = {"cublas": "cublas", "deep": "deep"}.get(name) or gemm_config(m, n, k, torch.bfloat16, None, batch=1, device=0, tma=True).describe()
        rows.append({"shape": [m, n, k], "path": name, "cfg": desc, "us": [x * 1e3 for x in q], "err": err})
        print(f"{m}x{n}x{k} tiles {(m + 63) // 64 * ((n + 63) // 64):4d} {desc:55s} {q[1]*1e3:6.1f} us  err {err:.1e}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-deep3.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
