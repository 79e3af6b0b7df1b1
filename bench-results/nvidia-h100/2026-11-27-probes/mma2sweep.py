"""Sweep: the mma_v2 TF32 path's tiles for the thin gemm-layouts shapes (GPU time of graph replays)."""
import importlib, itertools, json, os
import torch
from densela.tuning import tf32_mma2_config
from densela.tuning.tune import graph_ms
G = importlib.import_module("densela.gemm")
rows = []
for (m, n, k), layout in [((64, 4096, 4096), "nn"), ((64, 4096, 4096), "tn"), ((4096, 64, 4096), "nn"), ((128, 4096, 4096), "tn")]:
    a = torch.randn(m, k, device="cuda") if layout[0] == "n" else torch.randn(k, m, device="cuda").T
    b = torch.randn(k, n, device="cuda") if layout[1] == "n" else torch.randn(n, k, device="cuda").T
    o = torch.empty(m, n, device="cuda")
    base = tf32_mma2_config(m, n, k, 0)
    now = 1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "tf32"))[0]
    res = []
    for bk, st, sp, bn in itertools.product([32, 64], [3, 4, 6], [2, 4, 8], [base.block_n, 2 * base.block_n]):
        cfg = base._replace(block_k=bk, num_stages=st, split_k=sp, block_n=bn)
        if bk == 64 and st == 6:
            continue
        try:
            t = 1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "tf32", cfg=cfg), rep_ms=40)[0]
        except Exception as e:  # noqa
            continue
        res.append((t, cfg))
        rows.append({"shape": [m, n, k], "layout": layout, "cfg": list(cfg), "us": t})
    res.sort(key=lambda x: x[0])
    print(f"{m}x{n}x{k} {layout}: tables {now:.1f} ({tuple(base[:6])} split {base.split_k}); best", [(round(t, 1), tuple(c[:6]), c.split_k) for t, c in res[:4]], flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "mma2sweep.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
