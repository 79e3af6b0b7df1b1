"""Probe: bfloat16 1000^3 with A M-major and B K-major (tt), as it runs and as out^T = B^T A^T."""
import torch
import densela
from densela.bench.timing import time_gpu
for n in (1000, 1536):
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16).T
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16).T
    out = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    t1 = time_gpu(lambda: densela.matmul(a, b, out=out), max_seconds=0.5).median_ms * 1e3
    t2 = time_gpu(lambda: densela.matmul(b.T, a.T, out=out.T), max_seconds=0.5).median_ms * 1e3
    t3 = time_gpu(lambda: torch.matmul(a, b, out=out), max_seconds=0.5).median_ms * 1e3
    print(f"bf16 {n}^3 tt: as is {t1:.1f} us, swapped {t2:.1f} us, torch {t3:.1f} us", flush=True)
