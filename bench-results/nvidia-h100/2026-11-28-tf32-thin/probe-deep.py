"""Probe (session 64): thin 16-bit products (few output tiles, long K) on the tiles kernel with deep pipelines and no
or little split (cuBLAS runs 128 x 4096 x 4096 as 128 unsplit 64 x 64 tiles with 13 stages of K 64, clusters of two:
call 5's Nsight Compute), GPU time of CUDA-graph replays, against the tables and cuBLAS. JSON lines to
$OUT/probe-deep.jsonl."""
import json, os
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C, gemm_config
from densela.tuning.tune import graph_ms

cases = {
    (128, 4096, 4096): [C(64, 64, 64, 8, 4, s) for s in (6, 8, 10, 12)] + [C(64, 64, 128, 8, 4, s) for s in (4, 5, 6)]
    + [C(64, 64, 64, 8, 4, 6, split_k=2), C(64, 64, 128, 8, 4, 3, split_k=2), C(64, 64, 64, 8, 8, 10),
       C(64, 64, 32, 8, 4, 16), C(64, 32, 128, 8, 4, 6)],
    (256, 256, 8192): [C(64, 64, 64, 8, 4, s, split_k=8) for s in (4, 6, 8)] + [C(64, 64, 128, 8, 4, s, split_k=8) for s in (4, 6)]
    + [C(64, 64, 64, 8, 4, 8, split_k=4), C(64, 64, 128, 8, 4, 6, split_k=4), C(32, 64, 128, 8, 4, 6, split_k=4)],
    (4096, 64, 8192): [C(64, 64, 64, 8, 4, s) for s in (8, 12)] + [C(64, 64, 128, 8, 4, 6), C(64, 64, 128, 8, 4, 4, split_k=2)],
}
rows = []
for (m, n, k), cfgs in cases.items():
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
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
            q = graph_ms(call, rep_ms=40, quantiles=(0.2, 0.5, 0.8))
        except Exception as e:  # noqa: BLE001
            print(f"{m}x{n}x{k} {cfg}: {type(e).__name__}: {str(e)[:160]}", flush=True)
            continue
        name = "cublas" if cfg == "cublas" else ("tables " + gemm_config(m, n, k, torch.bfloat16, None, batch=1, device=0, tma=True).describe() if cfg is None else cfg.describe())
        rows.append({"shape": [m, n, k], "cfg": name, "us": [x * 1e3 for x in q], "err": err})
        print(f"{m}x{n}x{k} {name:62s} {q[1]*1e3:6.1f} us ({q[0]*1e3:.1f}-{q[2]*1e3:.1f})  err {err:.1e}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-deep.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
