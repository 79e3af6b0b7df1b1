"""One float32 FMA product n^3 (row-major), several times, for Nsight Compute: densela's tiles kernel."""
import sys

import torch

import densela as dl

n = int(sys.argv[1])
torch.manual_seed(0)
a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
out = torch.empty(n, n, device="cuda")
for _ in range(4):
    dl.matmul(a, b, out=out, precision="ieee")
torch.cuda.synchronize()
