"""Probe: float32 FMA 4097^3 (rows TMA cannot write: the tiles kernel, operands padded) on several tiles."""
import importlib, json, os, sys
import torch
from triton.testing import do_bench
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C

OUT = os.environ.get("OUT", ".")
rec = open(os.path.join(OUT, "probe-4097.jsonl"), "w")

def med(fn):
    fn()
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return do_bench(g.replay, warmup=5, rep=100, quantiles=[0.2, 0.5, 0.8])[1] * 1e3

CFGS = [None, C(64, 128, 32, 8, 4, 3), C(64, 64, 16, 8, 4, 4), C(64, 64, 32, 8, 4, 3), C(128, 64, 32, 8, 4, 3),
        C(128, 128, 32, 8, 8, 3), C(128, 128, 16, 8, 8, 4), C(64, 128, 16, 8, 4, 4)]
for n in [int(x) for x in sys.argv[1:]]:
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda")
    out = torch.empty(n, n, device="cuda")
    ref = a.double() @ b.double()
    row = {"n": n, "cublas": med(lambda: torch.matmul(a, b))}
    for i, cfg in enumerate(CFGS):
        out.fill_(float("nan"))
        G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg); torch.cuda.synchronize()
        row[f"err{i}"] = float((out.double() - ref).norm() / ref.norm())
        row[f"c{i}"] = med(lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg))
    rec.write(json.dumps(row) + "\n"); rec.flush()
    print(n, f"cublas={row['cublas']:.0f}", " ".join(f"c{i}={row[f'c{i}']:.0f} ({row['cublas']/row[f'c{i}']:.2f})" for i in range(len(CFGS))),
          "maxerr %.1e" % max(row[f"err{i}"] for i in range(len(CFGS))), flush=True)
print("CFGS", CFGS)
