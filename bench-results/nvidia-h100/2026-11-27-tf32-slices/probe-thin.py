"""Probe (session 61): thin products' configurations timed as the lab times them (CUDA events, L2 flushed by reading
before each call: B's 32 MiB come from DRAM), against cuBLAS in the same rounds; the sweeps that chose the tables'
configurations timed CUDA-graph replays, in which B stays in the 50 MiB L2. The tables' choice is printed."""
import json
import os
import statistics

import torch

from densela.bench.timing import time_gpu
from densela.gemm import launch_gemm
from densela.tuning import GemmConfig as C, gemm_config

torch.backends.cuda.matmul.allow_tf32 = False


def splits(base, counts):
    return [base._replace(split_k=s) for s in counts]


CANDIDATES = {
    ("bfloat16", 128, 4096, 4096): [None] + splits(C(64, 64, 128, 8, 4, 3), (1, 2, 4, 8)) + splits(C(128, 64, 128, 8, 4, 3), (1, 2, 4))
    + splits(C(128, 128, 64, 8, 8, 3), (1, 2, 4)) + splits(C(64, 128, 128, 8, 4, 3), (1, 2, 4)) + splits(C(128, 64, 64, 8, 4, 4), (2, 4))
    + splits(C(64, 64, 64, 8, 4, 4), (2, 4)) + [C(128, 128, 64, 8, 4, 4, "ws", epilogue_split=2, split_k=s) for s in (2, 4)]
    + [C(128, 64, 64, 8, 4, 5, "ws", split_k=s) for s in (2, 4, 8)],
    ("bfloat16", 256, 256, 8192): [None] + splits(C(64, 64, 128, 8, 4, 3), (2, 4, 8)) + splits(C(32, 32, 128, 8, 4, 3), (1, 2, 4))
    + splits(C(64, 64, 128, 8, 4, 4), (4, 8)) + splits(C(128, 128, 64, 8, 8, 3), (4, 8, 16)) + splits(C(64, 128, 128, 8, 4, 3), (4, 8)),
    ("float32", 128, 4096, 4096): [None] + splits(C(64, 64, 32, 8, 4, 3), (1, 2, 4)) + splits(C(128, 64, 32, 8, 4, 3), (1, 2))
    + splits(C(64, 128, 32, 8, 4, 3), (1, 2)) + [C(128, 128, 32, 8, 8, 4, "ws", epilogue_split=1, split_k=s) for s in (2, 4, 8)]
    + [C(128, 128, 16, 8, 8, 5, "ws", epilogue_split=1, split_k=s) for s in (2, 4)],
}  # fmt: skip
ROUNDS = 3
out_rows = []
for (dt, m, n, k), cfgs in CANDIDATES.items():
    dtype = getattr(torch, dt)
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=torch.float32).to(dtype)
    b = torch.randn(k, n, device="cuda", dtype=torch.float32).to(dtype)
    ref = a.double() @ b.double()
    out = torch.empty(m, n, device="cuda", dtype=dtype)
    print(f"{dt} {m}x{n}x{k} tables: {gemm_config(m, n, k, dtype, 'ieee', device=0)}", flush=True)
    calls = {"cublas": lambda: torch.matmul(a, b)}
    for cfg in cfgs:
        name = "tables" if cfg is None else f"{cfg.kernel} {cfg.block_m}x{cfg.block_n}x{cfg.block_k} w{cfg.num_warps} s{cfg.num_stages} k{cfg.split_k}"
        calls[name] = lambda cfg=cfg: launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg)
    times = {name: [] for name in calls}
    for name, fn in list(calls.items()):
        try:
            fn()
            if name != "cublas":
                err = float((out.double() - ref).norm() / ref.norm())
                assert err < (1e-2 if dtype == torch.bfloat16 else 1e-5), err
        except Exception as e:  # a configuration that does not compile or fit
            print(f"  {name}: {type(e).__name__} {str(e)[:120]}", flush=True)
            del calls[name], times[name]
    for r in range(ROUNDS):
        names = list(calls)
        names = names[r % len(names):] + names[: r % len(names)]
        for name in names:
            times[name].append(time_gpu(calls[name], max_seconds=0.3).median_ms * 1e3)
    base = statistics.median(times["cublas"])
    for name, ts in sorted(times.items(), key=lambda e: statistics.median(e[1]))[:12]:
        us = statistics.median(ts)
        print(f"{dt:9s} {m}x{n}x{k} {name:34s} {us:7.2f} us  {base / us:5.3f}  {' '.join(f'{t:.2f}' for t in ts)}", flush=True)
    for name, ts in times.items():
        out_rows.append({"dtype": dt, "shape": [m, n, k], "config": name, "us": statistics.median(ts), "rounds": ts,
                         "vs_cublas": base / statistics.median(ts)})
with open(os.path.join(os.environ.get("OUT", "."), "probe-thin.jsonl"), "w") as f:
    for row in out_rows:
        f.write(json.dumps(row) + "\n")
