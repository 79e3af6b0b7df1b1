"""Probe (session 61): configurations of small products (n <= 512) timed as the lab times them (CUDA events, L2
flushed by reading before each call: cold operands), against cuBLAS in the same rounds; the sweeps that chose the
tables' configurations timed CUDA-graph replays on a warm L2."""
import json
import os
import statistics

import torch

from densela.bench.timing import time_gpu
from densela.gemm import launch_gemm
from densela.tuning import GemmConfig as C

torch.backends.cuda.matmul.allow_tf32 = False
CANDIDATES = {
    ("bfloat16", 512): [None, C(64, 128, 128, 8, 4, 3), C(32, 32, 128, 8, 4, 3), C(32, 64, 128, 8, 4, 3),
                        C(64, 64, 128, 8, 4, 3), C(64, 64, 64, 8, 4, 3), C(64, 64, 64, 8, 4, 4), C(32, 64, 64, 8, 4, 4),
                        C(64, 64, 128, 8, 4, 2, split_k=2), C(64, 128, 64, 8, 4, 4), C(32, 32, 64, 8, 4, 4),
                        C(64, 64, 64, 8, 4, 3, split_k=2), C(32, 64, 128, 8, 4, 2, split_k=2)],
    ("bfloat16", 256): [None, C(32, 32, 64, 8, 4, 3), C(32, 64, 128, 8, 4, 2), C(16, 32, 128, 8, 2, 2),
                        C(32, 32, 128, 8, 4, 2, split_k=2), C(16, 16, 128, 1, 1, 2), C(32, 32, 64, 8, 2, 4)],
    ("float64", 512): [None, C(32, 32, 64, 8, 4, 3), C(32, 32, 32, 8, 2, 3), C(16, 32, 64, 8, 2, 3),
                       C(32, 32, 64, 8, 4, 4), C(32, 64, 32, 8, 4, 3), C(64, 32, 32, 8, 4, 3),
                       C(64, 64, 32, 8, 4, 3, split_k=2), C(32, 32, 64, 8, 4, 3, split_k=2), C(32, 32, 32, 8, 4, 4),
                       C(32, 32, 128, 8, 4, 2), C(16, 32, 64, 8, 2, 4), C(32, 32, 32, 8, 2, 5)],
    ("float64", 256): [None, C(16, 16, 64, 1, 2, 3), C(16, 16, 32, 1, 2, 3), C(16, 32, 64, 8, 2, 3),
                       C(32, 32, 64, 8, 4, 3), C(16, 16, 128, 1, 2, 2), C(16, 16, 64, 1, 2, 4), C(16, 16, 64, 1, 1, 3)],
}  # fmt: skip
ROUNDS = 3
out_rows = []
for (dt, n), cfgs in CANDIDATES.items():
    dtype = getattr(torch, dt)
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda", dtype=torch.float64).to(dtype)
    b = torch.randn(n, n, device="cuda", dtype=torch.float64).to(dtype)
    ref = a.double() @ b.double()
    out = torch.empty(n, n, device="cuda", dtype=dtype)
    calls = {"cublas": lambda: torch.matmul(a, b)}
    for cfg in cfgs:
        name = "tables" if cfg is None else f"{cfg.block_m}x{cfg.block_n}x{cfg.block_k} g{cfg.group_m} w{cfg.num_warps} s{cfg.num_stages} k{cfg.split_k}"
        calls[name] = lambda cfg=cfg: launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg)
    times = {name: [] for name in calls}
    for name, fn in list(calls.items()):
        try:
            fn()
            if name != "cublas":
                err = float((out.double() - ref).norm() / ref.norm())
                assert err < (1e-2 if dtype == torch.bfloat16 else 1e-12), err
        except Exception as e:  # a configuration that does not compile or fit
            print(f"{dt} {n} {name}: {type(e).__name__} {str(e)[:100]}", flush=True)
            del calls[name], times[name]
    for r in range(ROUNDS):
        names = list(calls)
        names = names[r % len(names):] + names[: r % len(names)]
        for name in names:
            times[name].append(time_gpu(calls[name], max_seconds=0.3).median_ms * 1e3)
    base = statistics.median(times["cublas"])
    for name, ts in sorted(times.items(), key=lambda e: statistics.median(e[1])):
        us = statistics.median(ts)
        row = {"dtype": dt, "n": n, "config": name, "us": us, "rounds": ts, "vs_cublas": base / us}
        out_rows.append(row)
        print(f"{dt:9s} {n:4d} {name:34s} {us:7.2f} us  {base / us:5.3f}  {' '.join(f'{t:.2f}' for t in ts)}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-small.jsonl"), "w") as f:
    for row in out_rows:
        f.write(json.dumps(row) + "\n")
