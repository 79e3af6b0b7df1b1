"""One TF32 4096^3 product, several times, for Nsight Compute: densela nn / nt, cuBLAS nn."""
import sys
import torch
import densela as dl
v = sys.argv[1]
torch.manual_seed(0)
n = 4096
a = torch.randn(n, n, device="cuda")
b = torch.randn(n, n, device="cuda")
if v.endswith("nt"):
    b = torch.randn(n, n, device="cuda").T
out = torch.empty(n, n, device="cuda")
torch.backends.cuda.matmul.allow_tf32 = True
for _ in range(4):
    if v.startswith("cublas"):
        torch.matmul(a, b, out=out)
    else:
        dl.matmul(a, b, out=out, precision="tf32")
torch.cuda.synchronize()
