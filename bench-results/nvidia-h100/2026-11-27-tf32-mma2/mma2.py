"""Probe: TF32 on the ws kernel with mma_v2 where B is N-major (no copies), against densela.matmul now."""
import json, os, sys
import torch
import densela as dl
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig, gemm_config
from densela.bench.timing import gpu_median_ms
from densela.tuning.tune import graph_ms

orig = G._tma_view
out_rows = []
def operands(m, n, k, layout):
    a = torch.randn(m, k, device="cuda") if layout[0] == "n" else torch.randn(k, m, device="cuda").T
    b = torch.randn(k, n, device="cuda") if layout[1] == "n" else torch.randn(n, k, device="cuda").T
    return a, b

def err(x, ref):
    return float((x.double() - ref).norm() / ref.norm())

shapes = [(64, 4096, 4096), (4096, 64, 4096), (128, 4096, 4096), (4096, 128, 4096)]
cfgs = {
    "64x128x32s4": GemmConfig(64, 128, 32, 8, 4, 4, "ws", epilogue_split=2),
    "64x256x32s3": GemmConfig(64, 256, 32, 8, 4, 3, "ws", epilogue_split=2),
    "64x64x32s6": GemmConfig(64, 64, 32, 8, 4, 6, "ws", epilogue_split=1),
    "128x64x32s4": GemmConfig(128, 64, 32, 8, 4, 4, "ws", epilogue_split=2),
    "128x128x32s4": GemmConfig(128, 128, 32, 8, 4, 4, "ws", epilogue_split=2),
    "256x64x32s3": GemmConfig(256, 64, 32, 8, 4, 3, "ws", epilogue_split=2),
}
for (m, n, k) in shapes:
    thin = min(m, n) <= 128
    for layout in ("nn", "tn", "nt", "tt"):
        if layout in ("nt", "tt") and (m, n) != (64, 4096):
            continue
        a, b = operands(m, n, k, layout)
        ref = a.double() @ b.double()
        G._tma_view = orig
        out = dl.matmul(a, b, precision="tf32")
        row = {"shape": [m, n, k], "layout": layout, "now_us": 1e3 * gpu_median_ms(lambda: dl.matmul(a, b, precision="tf32")),
               "now_err": err(out, ref), "now_graph_us": 1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, "tf32"))[0], "now_cfg": str(gemm_config(m, n, k, torch.float32, "tf32", device=0))}
        G._tma_view = lambda x, k_major_only: orig(x, False)
        for name, cfg in cfgs.items():
            tiles = -(-m // cfg.block_m) * -(-n // cfg.block_n)
            splits = [s for s in (1, 2, 4, 8) if tiles * s <= 264]
            for sk in splits:
                c = cfg._replace(split_k=sk)
                o = torch.full((m, n), float("nan"), device="cuda")
                try:
                    G.launch_gemm(a, b, None, o, 1.0, 0.0, "tf32", cfg=c)
                    torch.cuda.synchronize()
                    t = 1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "tf32", cfg=c))[0]
                    row[f"{name}/k{sk}"] = (round(t, 1), f"{err(o, ref):.1e}")
                except Exception as e:  # noqa
                    row[f"{name}/k{sk}"] = repr(e)[:200]
        G._tma_view = orig
        out_rows.append(row)
        best = min((v[0], kk) for kk, v in row.items() if isinstance(v, tuple))
        print(f"{m}x{n}x{k} {layout} now {row['now_us']:.1f} us graph {row['now_graph_us']:.1f} (err {row['now_err']:.1e}) best mma2/cfg {best}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "mma2.jsonl"), "w") as f:
    for r in out_rows:
        f.write(json.dumps(r) + "\n")
