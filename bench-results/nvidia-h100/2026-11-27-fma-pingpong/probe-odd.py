"""Probe (session 63): odd float32 sizes N = 1001..1099 (pa2-sgemm): where the time goes (kernels by torch.profiler) and
the lab's measure of matmul with and without padded copies below 1025 (PAD_ODD_FROM_WORK), cuBLAS beside.
JSON lines to $OUT/probe-odd.jsonl."""
import functools, json, os
import torch
import densela as dl
import importlib
G = importlib.import_module("densela.gemm")
from densela.bench.timing import time_gpu
from torch.profiler import profile, ProfilerActivity

rows = []
default = G.PAD_ODD_FROM_WORK
for n in (1001, 1013, 1015, 1016, 1023, 1025, 1027, 1057, 1099):
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    out = torch.empty(n, n, device="cuda")
    cub = time_gpu(functools.partial(torch.matmul, a, b, out=out), max_seconds=0.4).median_ms * 1e3
    for pad_from in (default, 1000**3):
        G.PAD_ODD_FROM_WORK = pad_from
        call = functools.partial(dl.matmul, a, b, out=out, precision="ieee")
        call()
        us = time_gpu(call, max_seconds=0.4).median_ms * 1e3
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(10):
                call()
            torch.cuda.synchronize()
        kernels = {ev.key[:40]: round((getattr(ev, "device_time_total", 0) or ev.cuda_time_total) / ev.count, 1)
                   for ev in prof.key_averages() if (getattr(ev, "device_time_total", 0) or getattr(ev, "cuda_time_total", 0))}
        rows.append({"n": n, "pad_from": pad_from, "us": us, "cublas": cub, "kernels": kernels})
        print(f"{n} pad_from {round(pad_from ** (1 / 3))}^3: {us:6.1f} us (cuBLAS {cub:6.1f}, {cub / us:.3f})  {kernels}", flush=True)
    G.PAD_ODD_FROM_WORK = default
with open(os.path.join(os.environ.get("OUT", "."), "probe-odd.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
