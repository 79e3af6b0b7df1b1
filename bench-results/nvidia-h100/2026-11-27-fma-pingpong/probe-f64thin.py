"""Probe (session 63): float64 products with a short K (32-64) and a large output (suite nonsquare-k) on the tables'
thin-K tiles (the tiles kernel) against the warp-specialized kernel's DMMA consumer groups, GPU time of CUDA-graph
replays, cuBLAS beside; row-major operands. JSON lines to $OUT/probe-f64thin.jsonl."""
import json, os
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C, gemm_config
from densela.tuning.tune import graph_ms

cfgs = {"ws-large": C(128, 128, 32, 8, 4, 2, "ws", epilogue_split=2), "ws-k16-4st": C(128, 128, 16, 8, 4, 4, "ws", epilogue_split=2),
        "ws-narrow": C(128, 64, 16, 8, 4, 4, "ws", epilogue_split=2), "ws-k16-3st": C(128, 128, 16, 8, 4, 3, "ws", epilogue_split=2)}
rows = []
for m, n, k in ((4096, 4096, 32), (8192, 8192, 48), (12288, 12288, 64), (20480, 20480, 32), (20480, 20480, 48),
                (20480, 20480, 64), (20480, 20480, 96), (2048, 2048, 64), (5000, 5000, 50)):
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=torch.float64)
    b = torch.randn(k, n, device="cuda", dtype=torch.float64)
    out = torch.empty(m, n, device="cuda", dtype=torch.float64)
    ref = a @ b  # float64 reference: the products must match to rounding
    res = {"shape": [m, n, k], "tables": gemm_config(m, n, k, torch.float64, None, batch=1, device=0, tma=True).describe()}
    for name, cfg in [("cublas", None), ("tables_us", None)] + list(cfgs.items()):
        if name == "cublas":
            call = lambda: torch.matmul(a, b, out=out)  # noqa: E731
        else:
            call = lambda cfg=cfg: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg=cfg)  # noqa: E731
        try:
            call()
            err = float((out - ref).norm() / ref.norm())
            assert err < 1e-13, err
            res[name] = round(graph_ms(call, rep_ms=40)[0] * 1e3, 1)
        except Exception as e:  # noqa: BLE001
            res[name] = f"{type(e).__name__}: {str(e)[:80]}"
    rows.append(res)
    print(res, flush=True)
    del a, b, out, ref
    torch.cuda.empty_cache()
with open(os.path.join(os.environ.get("OUT", "."), "probe-f64thin.jsonl"), "w") as fh:
    for r in rows:
        fh.write(json.dumps(r) + "\n")
