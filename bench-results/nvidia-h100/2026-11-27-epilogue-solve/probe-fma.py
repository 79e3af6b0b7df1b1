"""Probe: float32 FMA products on the warp-specialized kernel's FMA consumer with 16 x 8 (or 8 x 16) products per
thread (256 x 128 or 128 x 256 tiles) against the tables' 128 x 128 (8 x 8 per thread) and cuBLAS, the lab's measure
(time_gpu after an L2 flush), at the launch's register cap WS_MAXNREG 168 and 216. JSON lines to
$OUT/probe-fma.jsonl."""
import functools, importlib, json, os
import torch
import densela as dl
from densela.tuning import GemmConfig, gemm_config
from densela.bench.timing import time_gpu

G = importlib.import_module("densela.gemm")
CFGS = [
    GemmConfig(256, 128, 32, 8, 8, 3, "ws", epilogue_split=4),
    GemmConfig(256, 128, 16, 8, 8, 5, "ws", epilogue_split=4),
    GemmConfig(128, 256, 32, 8, 8, 3, "ws", epilogue_split=2),
]
SHAPES = [((4096, 4096, 4096), "nn"), ((4096, 4096, 4096), "tn"), ((8192, 8192, 8192), "nn"),
          ((4096, 4096, 32), "nn"), ((8192, 8192, 48), "nn"), ((20480, 20480, 32), "nn"), ((2048, 2048, 2048), "nn")]
rows = []
for (m, n, k), layout in SHAPES:
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda") if layout[0] == "n" else torch.randn(k, m, device="cuda").T
    b = torch.randn(k, n, device="cuda") if layout[1] == "n" else torch.randn(n, k, device="cuda").T
    out = torch.full((m, n), float("nan"), device="cuda")
    ref = a.double() @ b.double() if m * n * k <= 4096**3 else None
    def run(cfg, regs):
        G.WS_MAXNREG = regs
        out.fill_(float("nan"))
        if cfg is None:
            call = functools.partial(dl.matmul, a, b, out=out)
        elif cfg == "cublas":
            call = functools.partial(torch.matmul, a, b, out=out)
        else:
            call = functools.partial(G.launch_gemm, a, b, None, out, 1.0, 0.0, "ieee", cfg=cfg)
        call()
        err = float((out.double() - ref).norm() / ref.norm()) if ref is not None else float(out.isnan().sum())
        return time_gpu(call, max_seconds=0.5).median_ms * 1e3, err
    base = gemm_config(m, n, k, torch.float32, "ieee", batch=1, device=0, tma=True)
    for cfg, regs in [("cublas", 168), (None, 168)] + [(c, r) for c in CFGS for r in (168, 216)]:
        try:
            us, err = run(cfg, regs)
        except Exception as e:  # noqa: BLE001
            print(f"  {m}x{n}x{k} {layout} {cfg} {regs}: {type(e).__name__}: {str(e)[:300]}", flush=True)
            continue
        name = "cublas" if cfg == "cublas" else ("tables " + str(tuple(base)[:6]) if cfg is None else str(tuple(cfg)[:6]) + f" e{cfg.epilogue_split}")
        rows.append({"shape": [m, n, k], "layout": layout, "cfg": name, "maxnreg": regs, "us": us, "err": err})
        print(f"{m}x{n}x{k} {layout} {name:40s} r{regs} {us:9.1f} us  err {err:.1e}", flush=True)
G.WS_MAXNREG = 168
with open(os.path.join(os.environ.get("OUT", "."), "probe-fma.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
