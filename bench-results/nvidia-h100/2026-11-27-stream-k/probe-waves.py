"""Probe (session 62): is the large products' time quantized by waves of output tiles over the SMs?
M = 4096 (512 tiles of 128 x 256 on 132 SMs: 3.88 waves), 3968 (3.76), 4224 (528 tiles: exactly 4 waves), and
8192 (15.5 waves) against 8448 (exactly 16). Lab's measure (cold L2), densela and cuBLAS in rotated rounds."""
import json
import os
import statistics

import torch

import densela
from densela.bench.timing import time_gpu
from densela.tuning import gemm_config

ROUNDS = 3
rows = []
for dt, prec in (("float16", None), ("float32", "tf32"), ("float32", "ieee")):
    dtype = getattr(torch, dt)
    for n, ms in ((4096, (3968, 4096, 4224)), (8192, (8192, 8448))):
        for m in ms:
            torch.manual_seed(0)
            a = torch.randn(m, n, device="cuda", dtype=dtype)
            b = torch.randn(n, n, device="cuda", dtype=dtype)
            torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
            calls = {"cublas": lambda: torch.matmul(a, b), "densela": lambda: densela.matmul(a, b, precision=prec)}
            for f in calls.values():
                f()
            times = {k: [] for k in calls}
            for r in range(ROUNDS):
                for name in (list(calls) if r % 2 == 0 else list(calls)[::-1]):
                    times[name].append(time_gpu(calls[name], max_seconds=0.4).median_ms * 1e3)
            cfg = gemm_config(m, n, n, dtype, prec or "ieee", device=0).describe()
            med = {k: statistics.median(v) for k, v in times.items()}
            tf = {k: 2 * m * n * n / v / 1e6 for k, v in med.items()}
            row = {"dtype": dt, "precision": prec, "m": m, "n": n, "k": n, "us": med, "tflops": tf, "rounds": times,
                   "config": cfg}
            rows.append(row)
            print(f"{dt:8s} {str(prec):5s} {m:5d}x{n} cublas {med['cublas']:8.1f} us {tf['cublas']:6.1f} TF  densela "
                  f"{med['densela']:8.1f} us {tf['densela']:6.1f} TF  ratio {med['cublas'] / med['densela']:.3f}  {cfg}",
                  flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-waves.jsonl"), "w") as f:
    for row in rows:
        f.write(json.dumps(row) + "\n")
