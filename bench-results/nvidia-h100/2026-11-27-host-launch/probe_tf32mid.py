"""Session 57: TF32 mid-sized products in the four operand orders, the tables' path against mma_v2 (GPU time of graph
replays and the lab's measure), cuBLAS beside; host time per matmul call."""
import json, os, sys
import torch
import densela as dl
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning.tune import graph_ms
from densela.tuning import clear_cache
from densela.bench.timing import time_gpu, host_us

torch.backends.cuda.matmul.allow_tf32 = True
rows = []
base_side = G.TF32_MMA2_SIDE
def ops(n, layout):
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    return (a if layout[0] == "n" else a.T.contiguous().T), (b if layout[1] == "n" else b.T.contiguous().T)
for n in [int(x) for x in sys.argv[1].split(",")]:
    for layout in ("nn", "nt", "tn", "tt"):
        a, b = ops(n, layout)
        o = torch.empty(n, n, device="cuda")
        r = {"n": n, "layout": layout}
        r["cublas_gpu"] = 1e3 * graph_ms(lambda: torch.matmul(a, b, out=o))[0]
        r["cublas_lab"] = 1e3 * time_gpu(lambda: torch.matmul(a, b), max_seconds=1).median_ms
        for name, side in (("now", base_side), ("mma2", 1 << 30)):
            G.TF32_MMA2_SIDE = side
            clear_cache()
            r[name + "_gpu"] = 1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "tf32"))[0]
            r[name + "_lab"] = 1e3 * time_gpu(lambda: dl.matmul(a, b, precision="tf32"), max_seconds=1).median_ms
            r[name + "_host"] = host_us(lambda: dl.matmul(a, b, precision="tf32"), 200)
            c = dl.matmul(a, b, precision="tf32")
            ref = a.double() @ b.double()
            r[name + "_err"] = float((c.double() - ref).norm() / ref.norm())
        G.TF32_MMA2_SIDE = base_side
        rows.append(r)
        print(" ".join(f"{k}={v:.2f}" if isinstance(v, float) and k[-3:] != "err" else f"{k}={v}" for k, v in r.items()), flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "tf32mid.jsonl"), "a") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
