"""Probe (session 64): float64 products of n <= 512 on tiles-kernel configurations split along K (the tiles kernel
sums the slices in the same launch), GPU time of CUDA-graph replays (tune.graph_ms, L2 flushed), against the tables'
choice and cuBLAS, row-major operands (nn) and A column-major (tn). JSON lines to $OUT/probe-f64small.jsonl."""
import json, os
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C, gemm_config
from densela.tuning.tune import graph_ms

cfgs = [C(32, 32, 64, 8, 4, 3, split_k=2), C(32, 32, 32, 8, 2, 3, split_k=2), C(64, 64, 32, 8, 4, 3, split_k=2),
        C(64, 64, 32, 8, 4, 3, split_k=4), C(64, 64, 64, 8, 4, 2, split_k=2), C(64, 32, 32, 8, 4, 3, split_k=2),
        C(32, 64, 32, 8, 4, 3, split_k=2), C(64, 64, 16, 8, 4, 4, split_k=2), C(64, 64, 32, 8, 8, 3, split_k=2),
        C(64, 32, 64, 8, 4, 3), C(64, 64, 32, 8, 4, 3), C(32, 64, 64, 8, 4, 3)]
rows = []
for n, layouts, these in [(512, ("nn", "tn", "nt"), cfgs), (384, ("nn",), cfgs[:6]), (256, ("nn",), cfgs[:3])]:
    for layout in layouts:
        torch.manual_seed(0)
        a = torch.randn(n, n, device="cuda", dtype=torch.float64)
        b = torch.randn(n, n, device="cuda", dtype=torch.float64)
        if layout[0] == "t":
            a = a.T.contiguous().T
        if layout[1] == "t":
            b = b.T.contiguous().T
        out = torch.full((n, n), float("nan"), device="cuda", dtype=torch.float64)
        ref = a @ b
        for cfg in ["cublas", None] + list(these):
            if cfg == "cublas":
                call = lambda: torch.matmul(a, b, out=out)  # noqa: E731
            else:
                call = lambda cfg=cfg: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg=cfg)  # noqa: E731
            try:
                out.fill_(float("nan"))
                call()
                err = float((out - ref).norm() / ref.norm())
                q = graph_ms(call, rep_ms=60, quantiles=(0.2, 0.5, 0.8))
            except Exception as e:  # noqa: BLE001
                print(f"{n} {layout} {cfg}: {type(e).__name__}: {str(e)[:200]}", flush=True)
                continue
            name = "cublas" if cfg == "cublas" else ("tables " + gemm_config(n, n, n, torch.float64, None, batch=1, device=0, tma=True).describe() if cfg is None else cfg.describe())
            rows.append({"n": n, "layout": layout, "cfg": name, "us": [x * 1e3 for x in q], "err": err})
            print(f"{n} {layout} {name:58s} {q[1]*1e3:6.2f} us ({q[0]*1e3:.2f}-{q[2]*1e3:.2f})  err {err:.1e}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-f64small.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
