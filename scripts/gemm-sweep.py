"""Sweeps GEMM tile configurations at n^3 for every arithmetic, with B N-major and K-major.

Run on a GPU (a precursor of `densela tune`): python3 scripts/gemm-sweep.py [n]. Prints one JSON record
per (arithmetic, configuration, B layout) with densela's and cuBLAS's medians and the normwise error, then
the best configuration of each; writes all records to $OUT/gemm_explore.json (or ./gemm_explore.json).

Each candidate replaces the configuration the launcher asks for (`gemm_config` in densela.gemm, whatever
the size bucket and B layout), and the K-major copy of an N-major B (`tuning.K_MAJOR_COPY_FROM_M`) is off
during the sweep, so that B=row measures the product on B as stored.

Recorded: bench-results/nvidia-h200/2026-11-21-gemm-sweep/, taken at commit 6defd39 by an earlier version
of this script, which replaced `tuning._GEMM_BY_ITEMSIZE`: then the only configuration table (one
configuration per item size), with no large-tile table and no K-major copy.
"""

import importlib
import json
import os
import sys
from unittest import mock

import torch
from triton.testing import do_bench

import densela as dl
from densela import tuning
from densela.tuning import GemmConfig as C

GEMM_MODULE = importlib.import_module("densela.gemm")  # the module: densela.gemm is the function

MODES = [("float16", None, 2), ("bfloat16", None, 2), ("float32", "tf32", 4), ("float32", "tf32x3", 4),
         ("float32", "ieee", 4), ("float64", None, 8)]  # fmt: skip
CANDIDATES = {
    2: [C(128, 128, 64, 8, 8, 3), C(128, 256, 64, 8, 8, 3), C(256, 128, 64, 8, 8, 3), C(128, 128, 64, 8, 4, 4),
        C(128, 256, 64, 8, 8, 4), C(128, 128, 128, 8, 8, 3)],
    4: [C(128, 128, 32, 8, 8, 3), C(128, 128, 32, 8, 4, 4), C(128, 256, 32, 8, 8, 3), C(64, 128, 32, 8, 4, 4),
        C(128, 64, 32, 8, 4, 4), C(128, 128, 64, 8, 8, 2), C(256, 128, 32, 8, 8, 3)],
    8: [C(64, 64, 32, 8, 4, 3), C(128, 64, 16, 8, 4, 3), C(64, 128, 16, 8, 4, 3), C(128, 128, 16, 8, 8, 3),
        C(64, 64, 16, 8, 4, 4), C(128, 128, 32, 8, 8, 2), C(32, 64, 32, 8, 4, 3)],
}  # fmt: skip


def median_ms(fn):
    return do_bench(fn, warmup=10, rep=80, return_mode="median")


def main(n: int) -> None:
    torch.manual_seed(0)
    records = []
    with mock.patch.object(tuning, "K_MAJOR_COPY_FROM_M", {}):
        sweep(n, records)
    with open(os.path.join(os.environ.get("OUT", "."), "gemm_explore.json"), "w") as f:
        json.dump(records, f, indent=1)
    for dname, precision, _ in MODES:
        for layout in ("row", "kmaj"):
            done = [r for r in records if (r["dtype"], r["prec"], r["b"]) == (dname, precision, layout) and "ms" in r]
            best = max(done, key=lambda r: r["ratio"])
            print(f"{dname:9} {precision!s:7} B={layout:5} best {best['cfg']} {best['tflops']:.0f} TFLOP/s "
                  f"ratio {best['ratio']:.2f} err {best['err']:.1e}")  # fmt: skip


def sweep(n: int, records: list) -> None:
    """Appends a record per (arithmetic, candidate, B layout) to ``records``, printing each."""
    for dname, precision, itemsize in MODES:
        dtype = getattr(torch, dname)
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        b = torch.randn(n, n, device="cuda", dtype=dtype)
        b_k_major = b.T.contiguous().T  # the same values, K-major memory
        ref = a.double() @ b.double()
        torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
        cublas = median_ms(lambda a=a, b=b: torch.matmul(a, b))
        torch.backends.cuda.matmul.allow_tf32 = False
        for cfg in CANDIDATES[itemsize]:
            for layout, operand in (("row", b), ("kmaj", b_k_major)):
                rec = dict(dtype=dname, prec=precision, cfg=list(cfg), b=layout)
                try:
                    with mock.patch.object(GEMM_MODULE, "gemm_config", lambda *args, cfg=cfg, **kwargs: cfg):
                        err = float((dl.matmul(a, operand, precision=precision).double() - ref).norm() / ref.norm())
                        ms = median_ms(lambda a=a, o=operand, p=precision: dl.matmul(a, o, precision=p))
                    rec.update(ms=ms, cublas_ms=cublas, ratio=cublas / ms, tflops=2 * n**3 / ms / 1e9, err=err)
                except Exception as e:  # a configuration that does not compile (shared memory) is recorded
                    rec.update(error=repr(e)[:200])
                records.append(rec)
                print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4096)
