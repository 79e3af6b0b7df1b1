"""Probe (session 64): 16-bit products whose tables change with _GEMM_DEEP_16BIT (argv[1] names the tree on
PYTHONPATH), GPU time of CUDA-graph replays against cuBLAS. JSON lines to $OUT/probe-deep2-<tree>.jsonl."""
import json, os, sys
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import gemm_config
from densela.tuning.tune import graph_ms

tree = sys.argv[1]
rows = []
for dtype in (torch.bfloat16, torch.float16):
    for batch, m, n, k in [(1, 128, 4096, 4096), (1, 4096, 128, 4096), (1, 64, 8192, 4096), (2, 64, 4096, 4096),
                           (1, 120, 4096, 8192), (1, 128, 4096, 16384), (1, 128, 3968, 2048)]:
        if dtype == torch.float16 and (m, n, k) != (128, 4096, 4096):
            continue
        torch.manual_seed(0)
        lead = (batch,) if batch > 1 else ()
        a = torch.randn(*lead, m, k, device="cuda").to(dtype)
        b = torch.randn(*lead, k, n, device="cuda").to(dtype)
        out = torch.empty(*lead, m, n, device="cuda", dtype=dtype)
        for name in ("cublas", "tables"):
            call = (lambda: torch.matmul(a, b, out=out)) if name == "cublas" else (lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee"))
            q = graph_ms(call, rep_ms=40, quantiles=(0.2, 0.5, 0.8))
            cfg = "cublas" if name == "cublas" else gemm_config(m, n, k, dtype, None, batch=batch, device=0, tma=True).describe()
            rows.append({"tree": tree, "shape": [batch, m, n, k], "dtype": str(dtype), "cfg": cfg, "us": [x * 1e3 for x in q]})
            print(f"{tree:4s} {batch}x{m}x{n}x{k} {str(dtype)[6:]:8s} {cfg:55s} {q[1]*1e3:6.1f} us", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), f"probe-deep2-{tree}.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
