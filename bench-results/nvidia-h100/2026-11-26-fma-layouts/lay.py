"""Probe: where transposition states lose (TF32 4096^3, FMA mid sizes): lab timing, graph replays, kernels."""
import json, os, sys
import torch
from triton.testing import do_bench
import densela
from densela.bench.timing import time_gpu, kernel_times

OUT = os.environ.get("OUT", ".")
rec = open(os.path.join(OUT, "lay.jsonl"), "w")

def graph(fn):
    fn()
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return do_bench(g.replay, warmup=10, rep=60, quantiles=[0.2, 0.5, 0.8])[1] * 1e3

def operands(m, n, k, lay, dt):
    a = torch.randn(m, k, device="cuda", dtype=dt) if lay[0] == "n" else torch.randn(k, m, device="cuda", dtype=dt).T
    b = torch.randn(k, n, device="cuda", dtype=dt) if lay[1] == "n" else torch.randn(n, k, device="cuda", dtype=dt).T
    return a, b

for (m, n, k), dt, prec in [((4096, 4096, 4096), torch.float32, "tf32"), ((512, 512, 512), torch.float32, "ieee"),
                            ((777, 333, 1555), torch.float32, "ieee"), ((1000, 1000, 1000), torch.float32, "ieee"),
                            ((512, 512, 512), torch.bfloat16, "ieee"), ((1000, 1000, 1000), torch.float64, "ieee")]:
    for lay in ("nn", "nt", "tn", "tt"):
        torch.manual_seed(0)
        a, b = operands(m, n, k, lay, dt)
        out = torch.empty(m, n, device="cuda", dtype=dt)
        fn = lambda: densela.matmul(a, b, out=out, precision=prec if dt == torch.float32 else None)
        lab = time_gpu(fn, max_seconds=1.0).median_ms * 1e3
        gr = graph(fn)
        ks = {kk: round(sum(v), 1) for kk, v in kernel_times(fn).items()}
        row = dict(shape=[m, n, k], dtype=str(dt), prec=prec, lay=lay, lab_us=lab, graph_us=gr, kernels=ks)
        rec.write(json.dumps(row) + "\n"); rec.flush()
        print(m, n, k, str(dt)[6:], prec, lay, f"lab {lab:8.1f} graph {gr:8.1f}", ks, flush=True)
