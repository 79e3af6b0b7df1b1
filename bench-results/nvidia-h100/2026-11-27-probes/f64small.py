"""Probe: float64 512^3 (and 384, 640) on the warp-specialized kernel's DMMA groups with small tiles, four operand orders."""
import importlib, json, os
import torch
import densela as dl
from densela.tuning import GemmConfig
from densela.tuning.tune import graph_ms
from densela.bench.timing import gpu_median_ms
G = importlib.import_module("densela.gemm")
cfgs = {
    "64x64x16s4": GemmConfig(64, 64, 16, 8, 4, 4, "ws", epilogue_split=1),
    "64x64x32s3": GemmConfig(64, 64, 32, 8, 4, 3, "ws", epilogue_split=1),
    "64x64x16s6": GemmConfig(64, 64, 16, 8, 4, 6, "ws", epilogue_split=1),
    "128x64x16s4": GemmConfig(128, 64, 16, 8, 4, 4, "ws", epilogue_split=2),
    "64x128x16s4": GemmConfig(64, 128, 16, 8, 4, 4, "ws", epilogue_split=2),
    "64x32x16s4": GemmConfig(64, 32, 16, 8, 4, 4, "ws", epilogue_split=1),
}
rows = []
for n in (512, 384, 640, 768):
    for layout in ("nn", "nt", "tn", "tt"):
        a = torch.randn(n, n, device="cuda", dtype=torch.float64)
        b = torch.randn(n, n, device="cuda", dtype=torch.float64)
        a = a if layout[0] == "n" else a.T.contiguous().T
        b = b if layout[1] == "n" else b.T.contiguous().T
        o = torch.empty(n, n, device="cuda", dtype=torch.float64)
        ref = a @ b
        r = {"n": n, "layout": layout,
             "cublas_lab": 1e3 * gpu_median_ms(lambda: torch.matmul(a, b)),
             "now_lab": 1e3 * gpu_median_ms(lambda: dl.matmul(a, b)),
             "now_graph": 1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee"))[0]}
        for name, cfg in cfgs.items():
            try:
                G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee", cfg=cfg)
                e = float((o - ref).norm() / ref.norm())
                r[name] = (round(1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee", cfg=cfg))[0], 2), f"{e:.0e}")
            except Exception as ex:  # noqa
                r[name] = repr(ex)[:120]
        rows.append(r)
        best = min((v[0], k) for k, v in r.items() if isinstance(v, tuple))
        print(f"{n}^3 {layout}: cublas {r['cublas_lab']:.1f} now {r['now_lab']:.1f} (graph {r['now_graph']:.1f}) best ws {best}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "f64small.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
