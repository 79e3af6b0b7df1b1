"""Probe: where the time of an odd-size float32 FMA product goes (GPU time of graph replays)."""
import importlib, json, os, sys
import torch
from triton.testing import do_bench
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C

OUT = os.environ.get("OUT", ".")
rec = open(os.path.join(OUT, "probe-odd.jsonl"), "w")

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

def padded(x, mult=16):
    r, c = x.shape
    p = torch.empty(r, (c + mult - 1) // mult * mult, device=x.device, dtype=x.dtype)[:, :c]
    p.copy_(x)
    return p

CFGS = [None, C(64, 64, 32, 8, 4, 3), C(64, 64, 32, 8, 4, 4), C(64, 64, 16, 8, 4, 4), C(32, 64, 32, 8, 4, 3),
        C(64, 32, 32, 8, 4, 3), C(64, 128, 32, 8, 4, 3), C(128, 64, 32, 8, 4, 3), C(128, 128, 32, 8, 8, 3),
        C(64, 64, 32, 8, 4, 3, split_k=2)]
for n in [int(x) for x in sys.argv[1:]]:
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda")
    out = torch.empty(n, n, device="cuda")
    ap, bp = padded(a), padded(b)
    outp = torch.empty(n, (n + 15) // 16 * 16, device="cuda")[:, :n]
    row = {"n": n}
    row["cublas"] = med(lambda: torch.matmul(a, b))
    row["densela"] = med(lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee"))
    row["copy_densela_a"] = med(lambda: G._aligned_copy(a, 16))
    pa = torch.empty_like(ap)
    row["copy_torch_a"] = med(lambda: pa.copy_(a))
    row["clone_a"] = med(lambda: a.clone())
    for i, cfg in enumerate(CFGS):
        try:
            row[f"pre_padded_{i}"] = med(lambda: G.launch_gemm(ap, bp, None, out, 1.0, 0.0, "ieee", cfg))
            row[f"pre_padded_outp_{i}"] = med(lambda: G.launch_gemm(ap, bp, None, outp, 1.0, 0.0, "ieee", cfg))
        except Exception as e:
            row[f"err_{i}"] = str(e)[:200]
    ref = (a.double() @ b.double())
    G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee"); torch.cuda.synchronize()
    row["err"] = float((out.double() - ref).norm() / ref.norm())
    rec.write(json.dumps(row) + "\n"); rec.flush()
    print(n, " ".join(f"{k}={v:.1f}" if isinstance(v, float) and k != "err" else f"{k}={v}" for k, v in row.items()), flush=True)
print("CFGS", CFGS)
