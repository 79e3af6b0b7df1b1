"""Probe (session 63): odd float32 sizes below 1025 (rows at an odd stride, loaded element by element, unpadded) on
tilings of the tiles kernel, GPU time of CUDA-graph replays, cuBLAS beside. JSON lines to $OUT/probe-oddtiles.jsonl."""
import json, os
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C, gemm_config
from densela.tuning.tune import graph_ms

cfgs = [C(64, 64, 32, 8, 4, 3), C(64, 64, 32, 8, 4, 4), C(64, 64, 16, 8, 4, 4), C(64, 64, 64, 8, 4, 2), C(64, 64, 32, 8, 8, 3),
        C(128, 64, 32, 8, 4, 3), C(128, 64, 32, 8, 8, 3), C(64, 128, 32, 8, 4, 3), C(64, 128, 32, 8, 8, 3),
        C(128, 128, 32, 8, 8, 3), C(32, 64, 32, 8, 4, 3), C(64, 32, 32, 8, 4, 3), C(64, 64, 32, 8, 4, 3, split_k=2)]
rows = []
for n in (1001, 1015, 1023, 1014, 1016):
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    out = torch.empty(n, n, device="cuda")
    ref = a.double() @ b.double()
    res = {"n": n, "tables": gemm_config(n, n, n, torch.float32, "ieee", batch=1, device=0, tma=True).describe()}
    for name, cfg in [("cublas", None), ("tables", None)] + [(c.describe(), c) for c in cfgs]:
        if name == "cublas":
            call = lambda: torch.matmul(a, b, out=out)  # noqa: E731
        else:
            call = lambda cfg=cfg: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg=cfg)  # noqa: E731
        try:
            call()
            err = float((out.double() - ref).norm() / ref.norm())
            assert err < 1e-5, err
            res[name if name != "tables" else "tables_us"] = round(graph_ms(call, rep_ms=40)[0] * 1e3, 2)
        except Exception as e:  # noqa: BLE001
            res[name] = f"{type(e).__name__}: {str(e)[:80]}"
    rows.append(res)
    best = min((v, k) for k, v in res.items() if isinstance(v, float) and k != "cublas")
    print(n, "cublas", res["cublas"], "tables", res["tables_us"], "best", best, flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-oddtiles.jsonl"), "w") as fh:
    for r in rows:
        fh.write(json.dumps(r) + "\n")
