"""Probe (session 63): float32 FMA products with a short K (12-64) and outputs below THIN_WS_MN on the tiles kernel's
thin-K tiles: K steps of 16 (the tables) against 32 and 64, GPU time of CUDA-graph replays (tune.graph_ms), cuBLAS
beside. JSON lines to $OUT/probe-think.jsonl."""
import json, os
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C, gemm_config
from densela.tuning.tune import graph_ms

cfgs = [C(64, 64, 16, 8, 4, 2), C(64, 64, 32, 8, 4, 2), C(64, 64, 64, 8, 4, 2), C(64, 64, 32, 8, 4, 1), C(64, 64, 16, 8, 4, 3),
        C(64, 64, 32, 8, 8, 2), C(128, 64, 32, 8, 4, 2), C(64, 128, 32, 8, 4, 2)]
shapes = [(1200, 1200, 12), (2048, 2048, 24), (2500, 2500, 25), (2500, 2500, 32), (3000, 3000, 30), (3600, 3600, 36),
          (3600, 3600, 20), (4000, 4000, 28), (2000, 2000, 50), (3000, 3000, 64)]
rows = []
for m, n, k in shapes:
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda")
    b = torch.randn(k, n, device="cuda")
    out = torch.full((m, n), float("nan"), device="cuda")
    ref = a.double() @ b.double()
    line = []
    for cfg in ["cublas", None] + cfgs:
        if cfg == "cublas":
            call = lambda: torch.matmul(a, b, out=out)  # noqa: E731
        else:
            call = lambda cfg=cfg: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg=cfg)  # noqa: E731
        try:
            out.fill_(float("nan"))
            call()
            err = float((out.double() - ref).norm() / ref.norm())
            us = graph_ms(call, rep_ms=40)[0] * 1e3
        except Exception as e:  # noqa: BLE001
            print(f"{m}x{n}x{k} {cfg}: {type(e).__name__}: {str(e)[:200]}", flush=True)
            continue
        name = "cublas" if cfg == "cublas" else ("tables " + gemm_config(m, n, k, torch.float32, "ieee", batch=1, device=0, tma=True).describe() if cfg is None else cfg.describe())
        rows.append({"shape": [m, n, k], "cfg": name, "us": us, "err": err})
        line.append(f"{us:6.1f}")
        print(f"{m}x{n}x{k} {name:60s} {us:7.1f} us  err {err:.1e}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-think.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
