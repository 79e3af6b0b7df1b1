"""Probe: where mma_v2 TF32 stops paying: thin sides 64..512, GPU time of graph replays, tables' path vs mma2."""
import importlib, json, os
import torch
from densela.tuning.tune import graph_ms
G = importlib.import_module("densela.gemm")
rows = []
for (m, n, k) in [(64, 8192, 8192), (256, 4096, 4096), (4096, 256, 4096), (512, 4096, 4096), (192, 4096, 4096), (128, 8192, 2048)]:
    for layout in ("nn", "tn", "tt"):
        a = torch.randn(m, k, device="cuda") if layout[0] == "n" else torch.randn(k, m, device="cuda").T
        b = torch.randn(k, n, device="cuda") if layout[1] == "n" else torch.randn(n, k, device="cuda").T
        o = torch.empty(m, n, device="cuda")
        ref = a.double() @ b.double()
        r = {"shape": [m, n, k], "layout": layout}
        for side in (0, 1024):
            G.TF32_MMA2_SIDE = side
            G.launch_gemm(a, b, None, o, 1.0, 0.0, "tf32")
            r[f"side{side}_err"] = float((o.double() - ref).norm() / ref.norm())
            r[f"side{side}_us"] = 1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "tf32"))[0]
        rows.append(r)
        print(f"{m}x{n}x{k} {layout}: tables {r['side0_us']:.1f} us, mma2 {r['side1024_us']:.1f} us (err {r['side0_err']:.1e} {r['side1024_err']:.1e})", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "side.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
