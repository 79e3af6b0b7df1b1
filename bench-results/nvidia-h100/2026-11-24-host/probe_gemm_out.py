"""Wall time per call of densela.gemm(a, b, c, beta=1, out=c) (an in-place update) at 128^3, 256^3 and 512^3
against torch.addmm(c, a, b, out=c), and of densela.matmul against torch.matmul: 2000 calls per loop, the calls
taking turns over seven loops, the best loop of each."""

import time

import torch

import densela as dl


def loop_us(fn, n=2000):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n * 1e6


for dtype in (torch.float32, torch.bfloat16, torch.float64):
    for size in (128, 256, 512):
        a, b = torch.randn(size, size, device="cuda").to(dtype), torch.randn(size, size, device="cuda").to(dtype)
        c = torch.randn(size, size, device="cuda").to(dtype)
        calls = {
            "dl.gemm out=c": lambda: dl.gemm(a, b, c, beta=1.0, out=c),
            "torch.addmm out=c": lambda: torch.addmm(c, a, b, out=c),
            "dl.matmul": lambda: dl.matmul(a, b),
            "torch.matmul": lambda: torch.matmul(a, b),
        }
        for fn in calls.values():
            for _ in range(50):
                fn()
        best = {k: float("inf") for k in calls}
        for _ in range(7):
            for k, fn in calls.items():
                best[k] = min(best[k], loop_us(fn))
        print(f"{str(dtype)[6:]:8} {size:4}  " + "  ".join(f"{k} {v:6.1f}" for k, v in best.items())
              + f"  gemm/addmm {best['dl.gemm out=c'] / best['torch.addmm out=c']:.2f}"
              + f"  matmul/matmul {best['dl.matmul'] / best['torch.matmul']:.2f}", flush=True)
