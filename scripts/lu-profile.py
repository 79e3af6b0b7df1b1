"""Where an LU's time goes on the GPU: kernel time by kernel, and the host time of one call."""

from __future__ import annotations

import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

import densela as dl
import densela.lu as lu_module

for arg in sys.argv[1:]:
    n, _, blocks = arg.partition(":")
    if blocks:
        lu_module.BLOCKS = tuple(int(b) for b in blocks.split(","))
    a = torch.randn(int(n), int(n), dtype=torch.float64, device="cuda")
    dl.lu_factor_ex(a)
    torch.cuda.synchronize()
    t = time.perf_counter()
    dl.lu_factor_ex(a)
    host = time.perf_counter() - t
    torch.cuda.synchronize()
    wall = time.perf_counter() - t
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        dl.lu_factor_ex(a)
        torch.cuda.synchronize()
    totals: dict[str, list[float]] = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            entry = totals.setdefault(e.name[:60], [0.0, 0])
            entry[0] += e.device_time_total / 1000
            entry[1] += 1
    gpu = sum(v[0] for v in totals.values())
    print(f"n={n} blocks={lu_module.BLOCKS}: wall {wall * 1e3:.2f} ms, host {host * 1e3:.2f} ms, kernels {gpu:.2f} ms")
    for name, (ms, count) in sorted(totals.items(), key=lambda kv: -kv[1][0])[:8]:
        print(f"   {ms:8.2f} ms {count:6d}x  {name}")
