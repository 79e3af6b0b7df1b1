"""The tables' float64 configuration, 30 launches each at 4096^3 and 8192^3 on randn operands: the kernel's sums run in
cuBLAS's order (DMMA along K), so each result is compared bit for bit with torch's (cuBLAS) product."""
import torch
from densela.gemm import launch_gemm
torch.manual_seed(2)
for n in (4096, 8192):
    a = torch.randn(n, n, device="cuda", dtype=torch.float64); b = torch.randn(n, n, device="cuda", dtype=torch.float64)
    ref = a @ b
    diff = []
    for rep in range(30):
        out = torch.full((n, n), float("nan"), device="cuda", dtype=torch.float64)
        launch_gemm(a, b, None, out, 1.0, 0.0, "ieee")
        diff.append(int((out != ref).sum()))
    print("stress", n, "elements unlike cuBLAS per launch:", diff, flush=True)
