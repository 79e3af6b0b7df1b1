"""Probe (session 64): mid-sized TF32 products in the four operand orders, the tables' path (wgmma; an operand not
K-major copied K-major first or read through registers) against the warp-specialized kernel's mma_v2 path (both
operands read where they are; forced by lifting gemm.TF32_MMA2_SIDE and SPLIT_K_MIN_K) and cuBLAS TF32, GPU time of CUDA-graph replays
(tune.graph_ms, L2 flushed). JSON lines to $OUT/probe-tf32mid.jsonl."""
import json, os
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning.tune import graph_ms

torch.backends.cuda.matmul.allow_tf32 = True
rows = []
side, min_k = G.TF32_MMA2_SIDE, G.SPLIT_K_MIN_K
for n in (768, 1000, 1024, 1500, 2000):
    for layout in ("nn", "nt", "tn", "tt"):
        torch.manual_seed(0)
        a = torch.randn(n, n, device="cuda")
        b = torch.randn(n, n, device="cuda")
        if layout[0] == "t":
            a = a.T.contiguous().T
        if layout[1] == "t":
            b = b.T.contiguous().T
        out = torch.full((n, n), float("nan"), device="cuda")
        ref = a.double() @ b.double()
        for name in ("cublas", "tables", "mma2"):
            if name == "cublas":
                call = lambda: torch.matmul(a, b, out=out)  # noqa: E731
            else:
                G.TF32_MMA2_SIDE = 1 << 30 if name == "mma2" else side
                G.SPLIT_K_MIN_K = 0 if name == "mma2" else min_k
                call = lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, "tf32")  # noqa: E731
            try:
                out.fill_(float("nan"))
                call()
                err = float((out.double() - ref).norm() / ref.norm())
                q = graph_ms(call, rep_ms=60, quantiles=(0.2, 0.5, 0.8))
            except Exception as e:  # noqa: BLE001
                print(f"{n} {layout} {name}: {type(e).__name__}: {str(e)[:200]}", flush=True)
                continue
            rows.append({"n": n, "layout": layout, "path": name, "us": [x * 1e3 for x in q], "err": err})
            print(f"{n} {layout} {name:7s} {q[1]*1e3:7.2f} us ({q[0]*1e3:.2f}-{q[2]*1e3:.2f})  err {err:.1e}", flush=True)
        G.TF32_MMA2_SIDE, G.SPLIT_K_MIN_K = side, min_k
with open(os.path.join(os.environ.get("OUT", "."), "probe-tf32mid.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
