"""Host time per call of dl.transpose (bfloat16, 64 MiB, row- and column-major), packed and item by item, against
the kernel's GPU time and torch's x.t().contiguous(); then cProfile of the column-major call."""

import cProfile
import importlib
import pstats
import time

import torch
import triton.testing

import densela as dl

T = importlib.import_module("densela.transpose")


def per_call_us(fn, n=2000):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    best = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        best.append((time.perf_counter() - t0) / n * 1e6)
    return min(best)


shape = (8192, 4096)
for layout in ("row", "col"):
    x = torch.randn(shape if layout == "row" else shape[::-1], device="cuda").to(torch.bfloat16)
    x = x if layout == "row" else x.T
    out = torch.empty(shape[::-1], device="cuda", dtype=x.dtype)
    out = out if layout == "row" else torch.empty(shape, device="cuda", dtype=x.dtype).T
    for pack in (True, False):
        T.PACK_ITEMS = pack
        gpu = triton.testing.do_bench(lambda: T.launch_transpose(x, out, 1.0), rep=100) * 1e3
        host_launch = per_call_us(lambda: T.launch_transpose(x, out, 1.0), 200)
        wall = per_call_us(lambda: dl.transpose(x), 200)
        flushed = triton.testing.do_bench(lambda: dl.transpose(x), rep=200) * 1e3
        print(f"{layout} pack={pack}: gpu(flushed, launch only) {gpu:.1f} us; dl.transpose flushed {flushed:.1f} us; "
              f"launch_transpose loop {host_launch:.1f} us/call; dl.transpose loop {wall:.1f} us/call", flush=True)
T.PACK_ITEMS = True
x = torch.randn(shape[::-1], device="cuda").to(torch.bfloat16).T
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(2000):
    y = torch.empty(shape, device="cuda", dtype=x.dtype)
torch.cuda.synchronize()
print(f"torch.empty {((time.perf_counter() - t0) / 2000 * 1e6):.1f} us/call")
for _ in range(10):
    dl.transpose(x)
torch.cuda.synchronize()
pr = cProfile.Profile()
pr.enable()
for _ in range(500):
    dl.transpose(x)
torch.cuda.synchronize()
pr.disable()
pstats.Stats(pr).sort_stats("tottime").print_stats(18)
