"""Probe: odd-size float32 FMA products unpadded on larger tiles split along K (GPU time of graph replays)."""
import importlib, json, os, sys
import torch
from triton.testing import do_bench
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C

OUT = os.environ.get("OUT", ".")
rec = open(os.path.join(OUT, "probe-odd2.jsonl"), "w")
PAD = G.PAD_ODD_FROM_WORK

def med(fn):
    fn()
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return do_bench(g.replay, warmup=10, rep=40, quantiles=[0.2, 0.5, 0.8])[1] * 1e3

CFGS = [C(64, 64, 32, 8, 4, 3, split_k=3), C(128, 128, 32, 8, 8, 3, split_k=2), C(128, 128, 32, 8, 8, 3, split_k=3),
        C(128, 128, 32, 8, 8, 3, split_k=4), C(128, 64, 32, 8, 4, 3, split_k=2), C(128, 64, 32, 8, 4, 3, split_k=3),
        C(64, 128, 32, 8, 4, 3, split_k=2), C(64, 128, 32, 8, 4, 3, split_k=3), C(128, 128, 16, 8, 8, 4, split_k=3),
        C(128, 64, 16, 8, 4, 4, split_k=2), C(64, 64, 16, 8, 4, 4, split_k=3), C(64, 64, 32, 8, 2, 3, split_k=3)]
for n in [int(x) for x in sys.argv[1:]]:
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda")
    out = torch.empty(n, n, device="cuda")
    ref = a.double() @ b.double()
    row = {"n": n, "cublas": med(lambda: torch.matmul(a, b))}
    G.PAD_ODD_FROM_WORK = PAD
    row["densela"] = med(lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee"))
    G.PAD_ODD_FROM_WORK = 1 << 62
    for i, cfg in enumerate(CFGS):
        try:
            out.fill_(float("nan"))
            G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg); torch.cuda.synchronize()
            err = float((out.double() - ref).norm() / ref.norm())
            row[f"c{i}"] = med(lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg))
            row[f"err{i}"] = err
        except Exception as e:
            row[f"fail{i}"] = str(e)[:200]
    rec.write(json.dumps(row) + "\n"); rec.flush()
    best = min((v, k) for k, v in row.items() if k.startswith("c") and k != "cublas")
    print(n, f"cublas={row['cublas']:.1f} densela={row['densela']:.1f} ({row['cublas']/row['densela']:.2f})",
          " ".join(f"{k}={row[k]:.1f}" for k in row if k.startswith("c") and k != "cublas"),
          f"best {best[1]} {row['cublas']/best[0]:.2f}", "maxerr", max(v for k, v in row.items() if k.startswith("err")),
          [k for k in row if k.startswith("fail")], flush=True)
