"""Variants of the substitution in permute_solve_kernel and triangular_solve_kernel for column-major blocks (a row
in each lane), in one process: lu_factor_ex's GPU time on batches and single matrices and those kernels' own time
(torch.profiler). A variant: columns per one-warp program, the loop (dynamic, T's columns loaded four steps ahead)
or unrolled (LANES: T loaded whole first), and each step's row broadcast by a gather (GATHER) or a masked sum.
Usage: python ab.py [head | strides] (head: a tree without these knobs, its defaults only; strides: other orders,
the kernels' times only)"""

import sys

import torch
from triton.testing import do_bench

import densela as dl
import densela.lu as lu_module
from densela._launch import GRAPHS
from densela.bench.timing import kernel_times

HEAD = sys.argv[1:] == ["head"]
STRIDES = sys.argv[1:] == ["strides"]
FORCE = {"permute": None, "solve": None}


class Forced:
    """Overrides a launch's GATHER and LANES (and for the triangular solve its columns per program and warps)."""

    def __init__(self, launcher, name):
        self.launcher, self.name = launcher, name

    def __call__(self, grid, *args, **kwargs):
        force = FORCE[self.name]
        if force is not None:
            cols, lanes, gather, warps = force
            kwargs.update(GATHER=gather, LANES=lanes)
            if self.name == "solve":
                kwargs.update(BLOCK_K=cols, num_warps=warps)
                grid = (-(-args[3] // cols), grid[1])
        self.launcher(grid, *args, **kwargs)


if not HEAD:
    lu_module._PERMUTE = Forced(lu_module._PERMUTE, "permute")
    lu_module._SOLVE = Forced(lu_module._SOLVE, "solve")
HEAD_SOLVE = (64, False, False, 2)
PERMUTE = [
    (16, False, False),
    (32, False, False),
    (8, False, True),
    (8, True, True),
    (16, True, True),
    (16, True, False),
]
SOLVE = [(32, False, False, 1), (32, True, True, 1), (16, True, True, 1), (64, True, True, 2), (16, True, False, 1)]


def time(label, a):
    GRAPHS.clear()  # a captured graph keeps the launches it was captured with
    for _ in range(3):  # eager, captured, replayed
        dl.lu_factor_ex(a)
    lu = dl.lu_factor_ex(a)[0]
    bits = int(lu.view(torch.int32 if lu.element_size() == 4 else torch.int64).sum())
    ms = 0.0 if STRIDES else do_bench(lambda: dl.lu_factor_ex(a), rep=300, return_mode="median")
    k = kernel_times(lambda: dl.lu_factor_ex(a))
    ps = sum(k.get("permute_solve_kernel", [0.0])) / 1000
    ts = sum(k.get("triangular_solve_kernel", [0.0])) / 1000
    print(f"{label}: {ms:.3f} ms (permute {ps:.3f}, trsm {ts:.3f}) checksum {bits}", flush=True)


CASES = [(10000, 128), (1000, 128), (10000, 100), (1, 4096)]
if STRIDES:
    PERMUTE = [(16, False, False), (8, False, True), (8, True, True), (16, True, False)]
    SOLVE = [HEAD_SOLVE, (16, True, False, 1), (16, True, True, 1)]
    CASES = [(10000, 96), (10000, 112), (10000, 120), (10000, 136), (1, 4000), (1, 4096)]
for count, n in CASES:
    for dtype in (torch.float64, torch.float32) if count == 1 or n in (96, 120) or not STRIDES else (torch.float64,):
        a = torch.randn(count, n, n, dtype=dtype, device="cuda")
        if count == 1:
            a = a[0]
        case = f"{count} x {n} {str(dtype)[6:]}"
        if HEAD:
            time(f"{case} head", a)
            continue
        FORCE["solve"] = HEAD_SOLVE
        for cols, lanes, gather in PERMUTE:
            lu_module.LANE_ROWS_COLUMNS = cols
            FORCE["permute"] = (cols, lanes, gather, 1)
            time(f"{case} permute columns {cols} unrolled {lanes} gather {gather}", a)
        if count == 1:
            for cols, lanes, gather, warps in SOLVE:
                FORCE["solve"] = (cols, lanes, gather, warps)
                time(f"{case} solve columns {cols} warps {warps} unrolled {lanes} gather {gather}", a)
