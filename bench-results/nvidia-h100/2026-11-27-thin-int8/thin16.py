# ruff: noqa
"""Probe: thin products below 0.95 of cuBLAS in gemm-thin (bfloat16 128 x 4096 x 4096, 256 x 256 x 8192; float32 FMA
128 x 4096 x 4096, 256 x 256 x 8192): the current configuration against others (tiles kernel splits, the
warp-specialized kernel split along K), GPU time of graph replays (L2 flushed), cuBLAS alike."""
import importlib, json, os
import torch
from densela.tuning import GemmConfig, gemm_config
from densela.tuning import tune as T

G = importlib.import_module("densela.gemm")
OUT = os.path.join(os.environ.get("OUT", "."), "thin16.jsonl")


def rec(**row):
    with open(OUT, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)


C = GemmConfig
CANDIDATES = {
    "16": [C(64, 64, 128, 8, 4, 3, "tiles", 2), C(64, 64, 128, 8, 4, 4, "tiles", 2), C(64, 64, 128, 8, 4, 3, "tiles", 4),
           C(64, 128, 128, 8, 4, 3, "tiles", 2), C(64, 128, 128, 8, 4, 3, "tiles", 4), C(128, 64, 64, 8, 4, 4, "tiles", 4),
           C(64, 64, 64, 8, 4, 4, "tiles", 2), C(64, 64, 64, 8, 4, 4, "tiles", 4), C(128, 128, 64, 8, 8, 3, "tiles", 4),
           C(128, 128, 64, 8, 4, 4, "ws", 4), C(128, 128, 64, 8, 4, 4, "ws", 2), C(128, 256, 64, 8, 4, 3, "ws", 8),
           C(128, 128, 64, 8, 4, 6, "ws", 4), C(128, 64, 64, 8, 4, 6, "ws", 2, epilogue_split=1),
           C(128, 128, 64, 8, 4, 4, "ws", 8)],
    "32": [C(64, 64, 32, 8, 4, 3, "tiles", 4), C(64, 64, 32, 8, 4, 3, "tiles", 8), C(64, 64, 32, 8, 4, 4, "tiles", 4),
           C(32, 64, 32, 8, 4, 3, "tiles", 4), C(64, 32, 32, 8, 4, 3, "tiles", 4), C(64, 128, 32, 8, 4, 3, "tiles", 4),
           C(128, 128, 32, 8, 8, 4, "ws", 4, epilogue_split=1), C(128, 128, 32, 8, 8, 4, "ws", 8, epilogue_split=1),
           C(128, 128, 32, 8, 8, 6, "ws", 4, epilogue_split=1)],
}
for dtype, prec in ((torch.bfloat16, "ieee"), (torch.float32, "ieee")):
    for m, n, k in ((128, 4096, 4096), (256, 256, 8192), (4096, 128, 4096)):
        a = torch.randn(m, k, device="cuda").to(dtype); b = torch.randn(k, n, device="cuda").to(dtype)
        o = torch.empty(m, n, device="cuda", dtype=dtype)
        ref = a.double() @ b.double()
        err = lambda: float((o.double() - ref).norm() / ref.norm())
        torch.backends.cuda.matmul.allow_tf32 = False
        t_cublas = T.graph_ms(lambda: torch.matmul(a, b, out=o))[0]
        e_cublas = err()
        cur = gemm_config(m, n, k, dtype, prec, device=0)
        t_cur = T.graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, prec))[0]
        rec(shape=[m, n, k], dtype=str(dtype), path="cublas", us=t_cublas * 1e3, err=e_cublas)
        rec(shape=[m, n, k], dtype=str(dtype), path="current " + str(tuple(cur)), us=t_cur * 1e3, err=err(), vs_cublas=t_cublas / t_cur)
        best = (t_cur, "current")
        for cfg in CANDIDATES["16" if dtype != torch.float32 else "32"]:
            try:
                o.fill_(float("nan"))
                t = T.graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, prec, cfg=cfg))[0]
                e = err()
                rec(shape=[m, n, k], dtype=str(dtype), path=str(tuple(cfg)), us=t * 1e3, err=e, vs_cublas=t_cublas / t)
                if e < 1e-2:
                    best = min(best, (t, str(tuple(cfg))))
            except Exception as ex:
                print("fail", tuple(cfg), type(ex).__name__, str(ex)[:200])
        rec(shape=[m, n, k], dtype=str(dtype), best=best[1], best_us=best[0] * 1e3, best_vs_cublas=t_cublas / best[0])
