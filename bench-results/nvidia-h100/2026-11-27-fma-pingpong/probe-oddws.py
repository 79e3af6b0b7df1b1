"""Probe (session 63): odd float32 sizes N = 1001..1100 (pa2-sgemm) on the tables' path against the warp-specialized
FMA kernel (operands copied for TMA, split along K in 1..3), GPU time of CUDA-graph replays, cuBLAS beside.
JSON lines to $OUT/probe-oddws.jsonl."""
import json, os
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C
from densela.tuning.tune import graph_ms

WS = C(128, 128, 32, 8, 8, 4, "ws", epilogue_split=1)
rows = []
for n in (1001, 1012, 1013, 1015, 1016, 1023, 1025, 1030, 1050, 1057, 1099, 1100):
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    out = torch.empty(n, n, device="cuda")
    ref = a.double() @ b.double()
    res = {"n": n}
    for name, cfg in [("cublas", None), ("tables", None)] + [(f"ws{s}", WS._replace(split_k=s)) for s in (1, 2, 3)]:
        if name == "cublas":
            call = lambda: torch.matmul(a, b, out=out)  # noqa: E731
        else:
            call = lambda cfg=cfg: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg=cfg)  # noqa: E731
        try:
            call()
            err = float((out.double() - ref).norm() / ref.norm())
            res[name] = round(graph_ms(call, rep_ms=40)[0] * 1e3, 2)
            assert err < 1e-5, err
        except Exception as e:  # noqa: BLE001
            res[name] = f"{type(e).__name__}: {str(e)[:100]}"
    rows.append(res)
    print(res, flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-oddws.jsonl"), "w") as fh:
    for r in rows:
        fh.write(json.dumps(r) + "\n")
