"""Probe (session 63): TF32 and 3xTF32 products with a short K (32-64) and a large output on the tables' thin-K tiles
(the tiles kernel) against the warp-specialized kernel's large tiles, GPU time of CUDA-graph replays, cuBLAS beside;
row-major operands. JSON lines to $OUT/probe-tf32thin.jsonl."""
import json, os
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import _GEMM_LARGE, gemm_config
from densela.tuning.tune import graph_ms

rows = []
for precision in ("tf32", "tf32x3"):
    for m, n, k in ((4096, 4096, 32), (8192, 8192, 48), (12288, 12288, 64), (20480, 20480, 32), (20480, 20480, 64)):
        torch.manual_seed(0)
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(k, n, device="cuda")
        out = torch.empty(m, n, device="cuda")
        ref = a.double() @ b.double()
        res = {"precision": precision, "shape": [m, n, k], "tables": gemm_config(m, n, k, torch.float32, precision, batch=1, device=0, tma=True).describe()}
        for name, cfg in (("cublas", None), ("tables_us", None), ("ws-large", _GEMM_LARGE[precision])):
            if name == "cublas":
                torch.backends.cuda.matmul.allow_tf32 = True
                call = lambda: torch.matmul(a, b, out=out)  # noqa: E731
            else:
                call = lambda cfg=cfg: G.launch_gemm(a, b, None, out, 1.0, 0.0, precision, cfg=cfg)  # noqa: E731
            try:
                call()
                res[name + "_err"] = float((out.double() - ref).norm() / ref.norm())
                res[name] = round(graph_ms(call, rep_ms=40)[0] * 1e3, 1)
            except Exception as e:  # noqa: BLE001
                res[name] = f"{type(e).__name__}: {str(e)[:80]}"
            torch.backends.cuda.matmul.allow_tf32 = False
        rows.append(res)
        print({k2: v for k2, v in res.items() if not k2.endswith("_err")}, flush=True)
        del a, b, out, ref
        torch.cuda.empty_cache()
with open(os.path.join(os.environ.get("OUT", "."), "probe-tf32thin.jsonl"), "w") as fh:
    for r in rows:
        fh.write(json.dumps(r) + "\n")
