"""GPU time (CUDA-graph replays, do_bench, L2 flushed) of densela's launch_gemm with the tables' choice against
cuBLAS (torch) on the same inputs, in this process's source tree (PYTHONPATH). argv: TAG"""
import json, os, sys
import torch
from triton.testing import do_bench
from densela.gemm import launch_gemm

tag = sys.argv[1]
torch.backends.cuda.matmul.allow_tf32 = False

def graph_ms(fn):
    fn(); torch.cuda.synchronize()
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s); torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return do_bench(g.replay, warmup=25, rep=300)

cases = [(8192, torch.bfloat16, "ieee", "nn"), (4096, torch.float16, "ieee", "nn"), (8192, torch.float32, "tf32", "nn"),
         (4096, torch.float32, "tf32", "nn"), (4096, torch.float32, "tf32", "nt"),
         (4096, torch.float64, "ieee", "nn"), (4096, torch.float64, "ieee", "tt"), (8192, torch.float64, "ieee", "nn")]
for n, dtype, prec, lay in cases:
    g = torch.Generator(device="cuda").manual_seed(n)
    wide = torch.float64 if dtype == torch.float64 else torch.float32
    a = torch.randn(n, n, generator=g, device="cuda", dtype=wide).to(dtype)
    b = torch.randn(n, n, generator=g, device="cuda", dtype=wide).to(dtype)
    a = a.T if lay[0] == "t" else a
    b = b.T if lay[1] == "t" else b
    out = torch.empty(n, n, device="cuda", dtype=dtype)
    torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
    cub = graph_ms(lambda: torch.matmul(a, b, out=out))
    ref = out.clone()
    ours = graph_ms(lambda: launch_gemm(a, b, None, out, 1.0, 0.0, prec))
    err = float((out.double() - ref.double()).norm() / ref.double().norm())
    row = dict(tag=tag, n=n, dtype=str(dtype), precision=prec, layout=lay, ms=ours, cublas_ms=cub, ratio=cub / ours, err_vs_cublas=err)
    print(json.dumps(row), flush=True)
    with open(os.environ.get("OUT", ".") + "/abws.jsonl", "a") as f:
        f.write(json.dumps(row) + "\n")
