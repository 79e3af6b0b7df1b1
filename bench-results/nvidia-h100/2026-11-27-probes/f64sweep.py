"""Sweep: tiles-kernel configurations for float64 512^3 (GPU time of graph replays), against cuBLAS in the same run."""
import importlib, itertools, json, os
import torch
from densela.tuning import GemmConfig
from densela.tuning.tune import graph_ms
G = importlib.import_module("densela.gemm")
rows = []
def ops(n, layout):
    a = torch.randn(n, n, device="cuda", dtype=torch.float64)
    b = torch.randn(n, n, device="cuda", dtype=torch.float64)
    return (a if layout[0] == "n" else a.T.contiguous().T), (b if layout[1] == "n" else b.T.contiguous().T)
cfgs = [GemmConfig(bm, bn, bk, 8, w, s, split_k=sp) for (bm, bn), bk, w, s, sp in itertools.product(
    [(32, 32), (32, 64), (64, 32), (64, 64)], [32, 64], [2, 4], [3, 4], [1, 2])]
cfgs += [GemmConfig(bm, bn, 64, 8, 2, 3, split_k=sp) for (bm, bn) in [(16, 32), (32, 16), (16, 64)] for sp in (1, 2)]
n = 512
a, b = ops(n, "nn")
o = torch.empty(n, n, device="cuda", dtype=torch.float64)
cub = 1e3 * graph_ms(lambda: torch.matmul(a, b, out=o))[0]
now = 1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee"))[0]
res = []
for cfg in cfgs:
    try:
        t = 1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee", cfg=cfg), rep_ms=40)[0]
    except Exception as e:  # noqa
        print(cfg, repr(e)[:100]); continue
    res.append((t, cfg))
    rows.append({"n": n, "layout": "nn", "cfg": list(cfg), "us": t})
res.sort(key=lambda x: x[0])
print(f"cublas {cub:.2f} now {now:.2f}")
for t, cfg in res[:8]:
    print(f"{t:.2f} {tuple(cfg[:6])} split {cfg.split_k}")
# the best five and the tables' in every layout, cuBLAS beside
for layout in ("nn", "nt", "tn", "tt"):
    a, b = ops(n, layout)
    cub = 1e3 * graph_ms(lambda: torch.matmul(a, b, out=o))[0]
    line = [f"{layout}: cublas {cub:.2f} now {1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, 'ieee'))[0]:.2f}"]
    for t, cfg in res[:5]:
        u = 1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee", cfg=cfg))[0]
        rows.append({"n": n, "layout": layout, "cfg": list(cfg), "us": u, "cublas": cub})
        line.append(f"{u:.2f}")
    print(" ".join(line), flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "f64sweep.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
