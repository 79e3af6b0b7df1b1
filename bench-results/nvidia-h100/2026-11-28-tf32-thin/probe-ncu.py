"""Probe (session 64): one thin bfloat16 product (128 x 4096 x 4096) by VARIANT (argv[1]: tables, ws4, cublas), run
four times after creating its operands, for Nsight Compute to profile (call5.sh)."""
import sys
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C

variant = sys.argv[1]
m, n, k = 128, 4096, 4096
torch.manual_seed(0)
a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
for _ in range(4):
    if variant == "cublas":
        torch.matmul(a, b, out=out)
    elif variant == "ws4":
        G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg=C(128, 128, 64, 8, 4, 4, "ws", split_k=4))
    else:
        G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee")
torch.cuda.synchronize()
