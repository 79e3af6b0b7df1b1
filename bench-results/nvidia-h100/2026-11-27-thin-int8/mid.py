# ruff: noqa
"""Probe: TF32 1000^3 / 2000^3 in the four orders: the current path against the mma_v2 path forced (several tiles and
splits). GPU time of graph replays (L2 flushed), medians; errors against float64."""
import importlib, json, os
import torch
from densela.tuning import GemmConfig
from densela.tuning import tune as T
import densela.tuning as TU

G = importlib.import_module("densela.gemm")
OUT = os.path.join(os.environ.get("OUT", "."), "mid.jsonl")


def rec(**row):
    with open(OUT, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)


def operand(rows, cols, major_rows):  # rows x cols, row-major if major_rows else column-major
    x = torch.randn(rows, cols, device="cuda") if major_rows else torch.randn(cols, rows, device="cuda").T
    return x

BASE = TU._GEMM_TF32_MMA2
for n in (1000, 2000, 1536):
    for lay in ("nn", "nt", "tn", "tt"):
        a = operand(n, n, lay[0] == "n"); b = operand(n, n, lay[1] == "n")
        ref = (a.double() @ b.double())
        o = torch.empty(n, n, device="cuda")
        def err():
            return float((o.double() - ref).norm() / ref.norm())
        side, mink = G.TF32_MMA2_SIDE, G.SPLIT_K_MIN_K
        cur = T.graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "tf32"))[0]
        rec(n=n, layout=lay, path="current", us=cur * 1e3, err=err())
        G.TF32_MMA2_SIDE, G.SPLIT_K_MIN_K = 10**9, 0
        try:
            if not G._tf32_mma2(a, b, None, o, "tf32", 0):
                continue
            for bm, bn, bk, st, sp, ep in [(128, 128, 32, 4, 1, 2), (128, 128, 32, 4, 2, 2), (64, 128, 32, 4, 1, 2), (128, 64, 32, 4, 1, 2),
                                           (64, 128, 32, 4, 2, 2), (64, 64, 32, 4, 1, 1), (128, 128, 16, 6, 2, 2), (64, 128, 64, 3, 1, 2)]:
                cfg = BASE._replace(block_m=bm, block_n=bn, block_k=bk, num_stages=st, split_k=sp, epilogue_split=ep)
                try:
                    t = T.graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "tf32", cfg=cfg))[0]
                    rec(n=n, layout=lay, path=f"mma2 {bm}x{bn}x{bk} s{st} split{sp}", us=t * 1e3, err=err())
                except Exception as e:
                    print("fail", cfg, type(e).__name__, str(e)[:300])
        finally:
            G.TF32_MMA2_SIDE, G.SPLIT_K_MIN_K = side, mink
