"""Probe (session 63): thin bfloat16 products (128 or 256 rows, long K) on forced configurations, GPU time of CUDA-graph
replays (tune.graph_ms), against the tables' choice and cuBLAS. JSON lines to $OUT/probe-thin16.jsonl."""
import json, os
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C, gemm_config
from densela.tuning.tune import graph_ms

cases = {
    (128, 4096, 4096): [C(128, 128, 64, 8, 4, 4, "ws", split_k=s) for s in (2, 4, 8)]
    + [C(128, 256, 64, 8, 4, 3, "ws", split_k=s) for s in (4, 8)]
    + [C(128, 128, 64, 8, 4, 5, "ws", epilogue_split=2, pingpong=True, split_k=s) for s in (4, 8)]
    + [C(128, 128, 64, 8, 8, 3, split_k=s) for s in (2, 4)] + [C(128, 64, 128, 8, 4, 3, split_k=s) for s in (1, 2, 4)],
    (256, 4096, 4096): [C(128, 128, 64, 8, 4, 4, "ws", split_k=s) for s in (2, 4)]
    + [C(128, 256, 64, 8, 4, 3, "ws", split_k=s) for s in (2, 4)],
    (256, 256, 8192): [C(128, 128, 64, 8, 4, 4, "ws", split_k=s) for s in (8, 16, 32)]
    + [C(128, 64, 64, 8, 4, 4, "ws", split_k=s) for s in (8, 16)],
}
rows = []
for dtype in (torch.bfloat16,):
    for (m, n, k), cfgs in cases.items():
        torch.manual_seed(0)
        a = torch.randn(m, k, device="cuda").to(dtype)
        b = torch.randn(k, n, device="cuda").to(dtype)
        out = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
        ref = a.double() @ b.double()
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
            name = "cublas" if cfg == "cublas" else ("tables " + gemm_config(m, n, k, dtype, None, batch=1, device=0, tma=True).describe() if cfg is None else cfg.describe())
            rows.append({"shape": [m, n, k], "dtype": str(dtype), "cfg": name, "us": us, "err": err})
            print(f"{m}x{n}x{k} {name:66s} {us:7.1f} us  err {err:.1e}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-thin16.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
