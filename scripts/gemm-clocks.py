"""SM clock and board power while densela and cuBLAS each run the same product back to back for a few seconds.

    python3 scripts/gemm-clocks.py [SECONDS [WORD]]   # on a GPU; records to $OUT/clocks.jsonl, a table last

WORD picks the cases whose description contains it (e.g. ``tf32``).

Under the board's power limit the clock follows the power a kernel draws; two kernels at parity at a locked
clock (Nsight Compute) can differ in a timed run when one of them draws more power. Each product (densela's
tables, cuBLAS, and the ``VARIANTS``: other configurations of densela's) replays a CUDA graph of 20 calls for
SECONDS (default 3) while ``nvidia-smi`` samples the clock and power every 50 ms; the first half second of
samples is dropped.
"""

import datetime
import functools
import json
import os
import subprocess
import sys
import time

import torch

import densela
from densela._env import environment, git_commit
from densela.gemm import launch_gemm
from densela.tuning import GemmConfig

OUT = os.environ.get("OUT", ".")
SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
CASES = [  # dtype, precision, n, layout (two letters, n row-major, t a transposed view, for A and B)
    ("bfloat16", None, 8192, "nn"), ("float32", "tf32", 8192, "nn"), ("float32", "tf32", 8192, "nt"),
    ("float32", "tf32", 4096, "nn"), ("float32", "ieee", 4096, "nn"), ("float64", None, 4096, "nn"),
    ("float64", None, 8192, "nn"),
]  # fmt: skip
PICK = sys.argv[2] if len(sys.argv) > 2 else ""
VARIANTS = {  # (dtype, precision): {name: GemmConfig} run through launch_gemm beside the tables' choice
    ("float32", "tf32"): {"densela-g16": GemmConfig(128, 256, 32, 16, 4, 4, "ws", epilogue_split=4)},
}


def graph_of(fn, calls=20):
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    return g, calls


def sampled(g, calls, flops):
    """Replays ``g`` for SECONDS under nvidia-smi; (TFLOP/s, mean SM MHz, mean W)."""
    smi = subprocess.Popen(
        ["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits", "-lms", "50"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    start = time.perf_counter()
    replays = 0
    while time.perf_counter() - start < SECONDS:
        g.replay()
        replays += 1
        if replays % 4 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    smi.terminate()
    lines = smi.communicate()[0].strip().splitlines()
    samples = [tuple(float(x) for x in line.split(",")) for line in lines[10:] if line.count(",") == 1]
    mhz = sum(s[0] for s in samples) / max(len(samples), 1)
    watts = sum(s[1] for s in samples) / max(len(samples), 1)
    return replays * calls * flops / elapsed / 1e12, mhz, watts


def main() -> None:
    run = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "git_commit": git_commit(), "versions": environment()["versions"]}  # fmt: skip
    rows = []
    for dtype_name, precision, n, layout in CASES:
        if PICK not in f"{dtype_name} {precision} {n} {layout}":
            continue
        dtype = getattr(torch, dtype_name)
        torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        b = torch.randn(n, n, device="cuda", dtype=dtype)
        a = a.T.contiguous().T if layout[0] == "t" else a
        b = b.T.contiguous().T if layout[1] == "t" else b
        kw = {"precision": precision} if precision else {}
        out = torch.empty(n, n, device="cuda", dtype=dtype)
        products = [("densela", functools.partial(densela.matmul, a, b, **kw)),
                    ("cublas", functools.partial(torch.matmul, a, b))]  # fmt: skip
        for name, cfg in VARIANTS.get((dtype_name, precision), {}).items():
            products.append((name, functools.partial(launch_gemm, a, b, None, out, 1.0, 0.0, precision or "", cfg)))
        for name, fn in products:
            tflops, mhz, watts = sampled(*graph_of(fn), 2 * n**3)
            row = {"dtype": dtype_name, "precision": precision, "n": n, "layout": layout, "provider": name,
                   "tflops": tflops, "sm_mhz": mhz, "watts": watts, "gpu": torch.cuda.get_device_name(0),
                   **run}  # fmt: skip
            rows.append(row)
            with open(os.path.join(OUT, "clocks.jsonl"), "a") as f:
                f.write(json.dumps(row) + "\n")
    print(f"{'case':24} {'provider':12} {'TFLOP/s':>8} {'MHz':>6} {'W':>6} {'TFLOP/s per GHz':>15}")
    for r in rows:
        case = f"{r['dtype']} {r['precision'] or ''} {r['n']} {r['layout']}"
        print(f"{case:24} {r['provider']:12} {r['tflops']:8.1f} {r['sm_mhz']:6.0f} {r['watts']:6.0f} "
              f"{r['tflops'] / r['sm_mhz'] * 1000:15.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
