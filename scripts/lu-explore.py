"""LU on the GPU: correctness at sizes the interpreter cannot reach, then timings against torch's cuSOLVER
and MAGMA paths, for block-width variants. Writes $OUT/lu-explore.jsonl and prints a table.

Usage: python scripts/lu-explore.py [check] [time] [panel] [tournament] [profile] [batched] [warp] [batch-profile]
       [whole] [refine] [solve] [batch-blocks] [eager-bytes] [small-host] [interchange-groups] [--sizes 1000,4096]
       [--blocks 128,32 256,32] [--inverse-blocks 128,256,512] [--groups 32,64,128,256]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import time
from collections.abc import Callable
from functools import partial

import numpy as np
import torch

import densela as dl
import densela.lu as lu_module
from densela.bench.providers import conditioned_matrix
from densela.bench.timing import gpu_samples, host_us, kernel_times, time_gpu

DEV = "cuda"
OUT = os.environ.get("OUT", ".")
PANEL_ROWS = [32]
PANEL_PER_SM = [1]
LOOKAHEAD: list[bool | None] = [None]
PRIORITY = [-1]
PANEL_CAP = [0]
DEPENDENT = [True]
ROW_MAJOR: list[bool | None] = [None]


def record(**row: object) -> None:
    row["gpu"] = torch.cuda.get_device_name()
    row["commit"] = os.environ.get("DENSELA_GIT_COMMIT", "")
    with open(os.path.join(OUT, "lu-explore.jsonl"), "a") as f:
        f.write(json.dumps(row) + "\n")


def lu_ratio(a: torch.Tensor, lu: torch.Tensor, piv: torch.Tensor) -> float:
    """LAPACK's ||P A - L U||_1 / (n ||A||_1 eps) in float64."""
    m, n = a.shape
    perm = torch.arange(m, device=a.device)
    for i, p in enumerate(piv.tolist()):
        perm[[i, p]] = perm[[p, i]]
    a64, lu64 = a.double(), lu.double()
    k = min(m, n)
    lower = torch.tril(lu64[:, :k], -1) + torch.eye(m, k, dtype=torch.float64, device=a.device)
    upper = torch.triu(lu64[:k, :])
    diff = a64[perm] - lower @ upper
    eps = torch.finfo(a.dtype).eps
    norm = torch.linalg.matrix_norm(a64, 1)
    return float(torch.linalg.matrix_norm(diff, 1) / (max(m, n) * norm * eps))


def check(sizes: list[int]) -> None:
    for n in sizes:
        for dtype in (torch.float64, torch.float32):
            a = torch.randn(n, n, dtype=dtype, device=DEV)
            runs = [dl.lu_factor(a) for _ in range(3)]  # eager, then captured and replayed as a CUDA graph
            lu, piv = runs[0]
            replays_equal = all(torch.equal(lu, x) and torch.equal(piv, p) for x, p in runs[1:])
            ref_piv = torch.linalg.lu_factor(a)[1]
            same = bool(torch.equal(piv, (ref_piv - 1).to(torch.int32)))
            ratio = lu_ratio(a, lu, piv)
            b = torch.randn(n, 3, dtype=dtype, device=DEV)
            x = dl.lu_solve((lu, piv), b)
            xt = dl.lu_solve((lu, piv), b, trans=1)
            eps = torch.finfo(dtype).eps
            norm = float(torch.linalg.matrix_norm(a.double(), 1))
            solve_ratio = max(
                float((b.double() - a.double() @ x.double()).abs().sum(0).max())
                / (norm * float(x.double().abs().sum(0).max()) * n * eps),
                float((b.double() - a.double().T @ xt.double()).abs().sum(0).max())
                / (norm * float(xt.double().abs().sum(0).max()) * n * eps),
            )
            print(f"check n={n} {dtype}: pivots equal cuSOLVER {same}, replays identical {replays_equal}, "
                  f"lu ratio {ratio:.3g}, solve ratio {solve_ratio:.3g}")  # fmt: skip
            record(kind="check", n=n, dtype=str(dtype), pivots_equal=same, replays_equal=replays_equal,
                   lu_ratio=ratio, solve_ratio=solve_ratio)  # fmt: skip


def bench(fn, budget: float = 2.0) -> tuple[float, float, float]:
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    once = time.perf_counter() - start
    reps = max(3, min(50, int(budget / max(once, 1e-6))))
    q = np.quantile(gpu_samples(fn, warmup_ms=0.0, rep_ms=max(1, int(once * reps * 1000))), [0.5, 0.2, 0.8])
    return tuple(float(x) for x in q)


def vendor(name: str, a: torch.Tensor, check: bool = True):
    """torch's lu_factor with the ``name`` backend preferred; ``check`` False: lu_factor_ex, which, like densela's
    lu_factor_ex, does not synchronize to check the pivots."""

    def run():
        torch.backends.cuda.preferred_linalg_library(name)
        return torch.linalg.lu_factor(a) if check else torch.linalg.lu_factor_ex(a)

    return run


def timing(sizes: list[int], blocks: list[tuple[int, ...] | None]) -> None:
    """GPU time of lu_factor_ex replays against cuSOLVER and MAGMA for every combination of the block widths (None:
    the library's choice by size), panel rows, programs per SM, look-ahead, the side stream's priority and a cap on
    the panel's programs (0: none); each variant's pivots are compared with the first variant's."""
    sms, row_major_from = lu_module.multiprocessors, lu_module.ROW_MAJOR_FROM
    defaults = (lu_module.BLOCKS, lu_module.LARGE_BLOCKS, lu_module.SMALL_BLOCKS, lu_module.LOOKAHEAD_FROM)
    for n in sizes:
        for dtype in (torch.float64, torch.float32):
            a = torch.randn(n, n, dtype=dtype, device=DEV)
            base = {}
            for name in ("cusolver", "magma"):
                if name == "magma" and n > 8192:
                    continue
                base[name] = bench(vendor(name, a))[0]
            torch.backends.cuda.preferred_linalg_library("default")
            reference = None
            variants = itertools.product(
                blocks, PANEL_ROWS, PANEL_PER_SM, LOOKAHEAD, PRIORITY, PANEL_CAP, DEPENDENT, ROW_MAJOR
            )
            for blk, rows, per_sm, ahead, priority, cap, dependent, row_major in variants:
                lu_module.DEPENDENT_LAUNCHES = dependent
                lu_module.ROW_MAJOR_FROM = row_major_from if row_major is None else {dtype: 1} if row_major else {}
                widths = defaults[:3] if blk is None else [blk] * 3
                lu_module.BLOCKS, lu_module.LARGE_BLOCKS, lu_module.SMALL_BLOCKS = widths
                lu_module.PANEL_ROWS, lu_module.PANEL_PROGRAMS_PER_SM = rows, per_sm
                lu_module.LOOKAHEAD_FROM = defaults[3] if ahead is None else 1 if ahead else n + 1
                lu_module._SIDE_STREAMS[a.device] = torch.cuda.Stream(a.device, priority=priority)
                lu_module.multiprocessors = lambda device, cap=cap: min(cap or sms(device), sms(device))
                dl.tuning.clear_cache()  # the graphs recorded for the variant before
                lu, piv, _ = dl.lu_factor_ex(a)
                ratio_ok = lu_ratio(a, lu, piv) < 30  # the variant factors correctly before it is timed
                reference = piv if reference is None else reference
                same = bool(torch.equal(piv, reference))
                ms = bench(partial(dl.lu_factor_ex, a))[0]
                ratio = base["cusolver"] / ms
                print(
                    f"time n={n} {str(dtype)[6:]} blocks={blk or 'default'} rows={rows} per SM={per_sm} "
                    f"look-ahead={ahead} priority={priority} panel cap={cap} dependent={dependent} "
                    f"row-major={row_major}: "
                    f"densela {ms:.2f} ms, cusolver "
                    f"{base['cusolver']:.2f} ({ratio:.2f}x), magma {base.get('magma', math.nan):.2f}, lu ratio < 30 "
                    f"{ratio_ok}, pivots as the first variant's {same}"
                )
                vendors = {f"{k}_ms": v for k, v in base.items()}
                record(kind="time", n=n, dtype=str(dtype), blocks=blk, panel_rows=rows, panel_per_sm=per_sm,
                       lookahead=ahead, priority=priority, panel_cap=cap, dependent=dependent, row_major=row_major,
                       densela_ms=ms,
                       lu_ratio_ok=ratio_ok, same_pivots=same, **vendors)  # fmt: skip
    lu_module.BLOCKS, lu_module.LARGE_BLOCKS, lu_module.SMALL_BLOCKS, lu_module.LOOKAHEAD_FROM = defaults
    lu_module.multiprocessors = sms
    lu_module.DEPENDENT_LAUNCHES, lu_module.ROW_MAJOR_FROM = True, row_major_from
    lu_module._SIDE_STREAMS.clear()
    dl.tuning.clear_cache()


def panel_runner(src: torch.Tensor) -> tuple[lu_module._Work, Callable[[], None], Callable[[], None]]:
    """A work buffer for the (m, 32) column-major ``src``, a function that restores it, and one that restores and
    factors it with the panel kernel."""
    a = torch.empty_like(src)
    work = lu_module._Work(a[None], torch.empty((1, 32), dtype=torch.int32, device=DEV),
                           torch.zeros(1, dtype=torch.int32, device=DEV), "ieee")  # fmt: skip
    work.counters = torch.zeros(32, dtype=torch.int32, device=DEV)

    def reset() -> None:
        a.copy_(src)
        work.counters.zero_()

    def run() -> None:
        reset()
        lu_module._launch_panel(work.a, work.piv, work.info, 0, work)

    return work, reset, run


def panel(sizes: list[int]) -> None:
    """The panel kernel alone on an m x 32 column-major panel (GPU time less that of restoring its input), per
    rows per program; results compared bit for bit with the first setting's."""
    for m in sizes:
        for dtype in (torch.float64, torch.float32):
            src = torch.randn(32, m, dtype=dtype, device=DEV).mT
            reference = None
            for rows, per_sm in ((r, p) for r in PANEL_ROWS for p in PANEL_PER_SM):
                lu_module.PANEL_ROWS, lu_module.PANEL_PROGRAMS_PER_SM = rows, per_sm
                work, reset, run = panel_runner(src)
                run()
                result = (work.a.clone(), work.piv.clone())
                reference = reference or result
                same = torch.equal(result[0], reference[0]) and torch.equal(result[1], reference[1])
                ms = bench(run, 0.5)[0] - bench(reset, 0.3)[0]
                print(f"panel m={m} {str(dtype)[6:]} rows={rows} per SM={per_sm}: {ms * 1000:.1f} us "
                      f"({ms * 1000 / 32:.2f} us per column), identical {same}")  # fmt: skip
                record(kind="panel", m=m, dtype=str(dtype), panel_rows=rows, panel_per_sm=per_sm, us=ms * 1000,
                       identical=same)  # fmt: skip


def tournament_rows(src: torch.Tensor) -> torch.Tensor:
    """The pivot rows (positions in the m x w ``src``, in pivot order) that tournament pivoting picks on densela's
    panel kernel: partial pivoting's first w pivots within each group of ``ONE_PROGRAM_ELEMENTS / w`` rows (one
    launch, a program per group), then within groups of those candidates of the same size, level by level, until one
    group is left (docs/lu.md, bench-results/cpu-emulation/2026-11-26-tournament). m must be a multiple of the group."""
    m, w = src.shape
    size = lu_module.ONE_PROGRAM_ELEMENTS // w
    rows = torch.arange(m, device=src.device)
    while True:
        group = min(size, rows.numel())
        count = rows.numel() // group
        mats = torch.empty((count, w, group), dtype=src.dtype, device=src.device).mT
        mats.copy_(src[rows].reshape(count, group, w))
        work = lu_module._Work(mats, torch.empty((count, w), dtype=torch.int32, device=src.device),
                               torch.zeros(count, dtype=torch.int32, device=src.device), "ieee")  # fmt: skip
        lu_module._launch_panel(mats, work.piv, work.info, 0, work)
        rows = rows.reshape(count, group).gather(1, work.perm[:, :w].long()).reshape(-1)
        if count == 1:
            return rows


def tournament(sizes: list[int]) -> None:
    """The pivot search of one m x 32 panel: the panel kernel (its rows over up to one program per SM, agreeing on
    each pivot through global memory) against tournament pivoting's levels of one-program searches
    (``tournament_rows``: the search only, without the panel's L21 = A21 U11^-1), GPU times (the panel kernel's less
    that of restoring its input); and how many of the tournament's rows are partial pivoting's on the same panel."""
    for m in sizes:
        for dtype in (torch.float64, torch.float32):
            src = torch.randn(32, m, dtype=dtype, device=DEV).mT
            work, reset, run = panel_runner(src)
            run()
            pivots = work.perm[0, :32].long().clone()
            ms = bench(run, 0.5)[0] - bench(reset, 0.3)[0]
            chosen = tournament_rows(src)
            ms_t = bench(partial(tournament_rows, src), 0.5)[0]
            same = int((chosen == pivots).sum())
            print(f"pivot search m={m} {str(dtype)[6:]}: panel kernel {ms * 1000:.1f} us, tournament "
                  f"{ms_t * 1000:.1f} us; {same} of 32 pivot rows as partial pivoting's")  # fmt: skip
            record(kind="tournament", m=m, dtype=str(dtype), panel_us=ms * 1000, tournament_us=ms_t * 1000,
                   same_rows=same)  # fmt: skip


def print_kernels(kernels: dict[str, list[float]], top: int = 8) -> None:
    for name, times in sorted(kernels.items(), key=lambda kv: -sum(kv[1]))[:top]:
        print(f"    {sum(times) / 1000:8.2f} ms  {len(times):6d} x {sum(times) / len(times):8.1f} us  {name}")


def profile(sizes: list[int], blocks: tuple[int, ...] | None) -> None:
    """GPU time per kernel of one replayed factorization (torch.profiler), the host time of one call (until it
    returns, before the GPU finishes) and the wall time per call; ``blocks`` None: the library's by size."""
    if blocks is not None:
        lu_module.BLOCKS = lu_module.LARGE_BLOCKS = lu_module.SMALL_BLOCKS = blocks
    for n in sizes:
        for dtype in (torch.float64, torch.float32):
            a = torch.randn(n, n, dtype=dtype, device=DEV)
            for _ in range(3):  # eager, captured, replayed
                dl.lu_factor_ex(a)
            torch.cuda.synchronize()
            start = time.perf_counter()
            dl.lu_factor_ex(a)
            host = (time.perf_counter() - start) * 1000
            kernels = kernel_times(partial(dl.lu_factor_ex, a))
            wall = bench(partial(dl.lu_factor_ex, a), 1.0)[0]
            busy = sum(sum(v) for v in kernels.values()) / 1000
            print(f"profile n={n} {str(dtype)[6:]} blocks={blocks}: wall {wall:.2f} ms, host {host:.2f} ms, "
                  f"kernels {busy:.2f} ms")  # fmt: skip
            print_kernels(kernels)
            record(kind="profile", n=n, dtype=str(dtype), blocks=blocks, wall_ms=wall, host_ms=host, kernel_ms=busy,
                   kernels={k: [len(v), sum(v) / 1000] for k, v in kernels.items()})  # fmt: skip


def batched() -> None:
    """lu_factor_ex on batches, densela's default path and (small matrices) lu_panel_kernel one matrix per program,
    against torch's lu_factor_ex (none of them synchronizes)."""
    for count in (1000, 10000):
        for n in (8, 16, 32, 64, 128):
            for dtype in (torch.float64, torch.float32):
                a = torch.randn(count, n, n, dtype=dtype, device=DEV)
                lu, piv, _ = dl.lu_factor_ex(a)
                ref_lu, ref_piv = torch.linalg.lu_factor(a[:50])
                same = bool(torch.equal(piv[:50], (ref_piv - 1).to(torch.int32)))
                err = float((lu[:50] - ref_lu).abs().max())
                base = {name: bench(vendor(name, a, check=False), 1.0)[0] for name in ("cusolver", "magma")}
                torch.backends.cuda.preferred_linalg_library("default")
                ms = bench(partial(dl.lu_factor_ex, a), 1.0)[0]
                small, warp = lu_module.BATCHED_SMALL, lu_module._warp_launch
                lu_module.BATCHED_SMALL, lu_module._warp_launch = 0, lambda m, n, size: None
                panel_ms = bench(partial(dl.lu_factor_ex, a), 1.0)[0]
                lu_module.BATCHED_SMALL, lu_module._warp_launch = small, warp
                best = min(base.values())
                print(f"batched {count} x {n} {str(dtype)[6:]}: densela {ms:.3f} ms (panel kernel {panel_ms:.3f}), "
                      f"cusolver {base['cusolver']:.3f}, magma {base['magma']:.3f} -> {best / ms:.2f}x; "
                      f"pivots {same}, diff {err:.2g}")  # fmt: skip
                record(kind="batched", count=count, n=n, dtype=str(dtype), densela_ms=ms, panel_ms=panel_ms,
                       pivots_equal=same, **{f"{k}_ex_ms": v for k, v in base.items()})  # fmt: skip


WARP_SHAPES = ((64, 64), (128, 128), (48, 48), (100, 100), (64, 40), (40, 64), (128, 64), (32, 32))


def warp() -> None:
    """lu_warp_kernel (at each WARP_WARPS where a matrix takes one warp of 17 to 32 rows) against the path it
    replaces (lu_batched_kernel up to 16 x 16, else the panel kernel or the blocked algorithm) and torch's
    lu_factor_ex, on WARP_SHAPES: pivots against torch's on 200 matrices, GPU time (none synchronizes)."""
    default = lu_module.WARP_WARPS, lu_module._warp_launch
    for count in (1000, 10000):
        for m, n in WARP_SHAPES:
            for dtype in (torch.float64, torch.float32):
                a = torch.randn(count, m, n, dtype=dtype, device=DEV)
                ref_lu, ref_piv = torch.linalg.lu_factor(a[:200])
                base = {name: bench(vendor(name, a, check=False), 0.5)[0] for name in ("cusolver", "magma")}
                torch.backends.cuda.preferred_linalg_library("default")
                lu_module._warp_launch = lambda m, n, size: None
                before = bench(partial(dl.lu_factor_ex, a), 0.5)[0]
                lu_module._warp_launch = default[1]
                one_warp = lu_module._pow2(m) > 16 and lu_module._pow2(m) * lu_module._pow2(n) <= 32 * 32
                for warps in (1, 2, 4, 8) if one_warp else (default[0],):
                    lu_module.WARP_WARPS = warps
                    lu, piv, _ = dl.lu_factor_ex(a)
                    same = bool(torch.equal(piv[:200], (ref_piv - 1).to(torch.int32)))
                    err = float((lu[:200] - ref_lu).abs().max())
                    ms = bench(partial(dl.lu_factor_ex, a), 0.5)[0]
                    best = min(base.values())
                    print(f"warp {count} x {m}x{n} {str(dtype)[6:]} warps {warps}: {ms:.4f} ms (before {before:.4f}), "
                          f"best torch {best:.4f} -> {best / ms:.2f}x (before {best / before:.2f}x); pivots {same}, "
                          f"diff {err:.2g}")  # fmt: skip
                    record(kind="warp", count=count, m=m, n=n, dtype=str(dtype), warps=warps, densela_ms=ms,
                           before_ms=before, pivots_equal=same, max_diff=err,
                           **{f"{k}_ex_ms": v for k, v in base.items()})  # fmt: skip
    lu_module.WARP_WARPS, lu_module._warp_launch = default


def batch_profile() -> None:
    """Batches: GPU time per kernel of lu_factor_ex on 10000 matrices of 128 x 128 (and 64 x 64), and where the host
    time of lu_factor (which synchronizes) goes on 1000 matrices of 8 x 8 and 16 x 16: time per call against torch's,
    and a cProfile by the functions' own time ($OUT/lu-host-profile.txt). ``lu.BATCH_PANEL_WARP_ROWS`` as it is
    (None below) and at 16, 64 and 128 rows a warp for either item size."""
    default = lu_module.BATCH_PANEL_WARP_ROWS
    for n, warp_rows in [(128, None), (100, None), (64, None), (128, 16), (128, 64), (128, 128)]:
        lu_module.BATCH_PANEL_WARP_ROWS = default if warp_rows is None else {4: warp_rows, 8: warp_rows}
        for dtype in (torch.float64, torch.float32):
            a = torch.randn(10000, n, n, dtype=dtype, device=DEV)
            lu, piv, _ = dl.lu_factor_ex(a)
            ref_lu, ref_piv = torch.linalg.lu_factor(a[:200])
            same = bool(torch.equal(piv[:200], (ref_piv - 1).to(torch.int32)))
            err = float((lu[:200] - ref_lu).abs().max())
            kernels = kernel_times(partial(dl.lu_factor_ex, a))
            ms = bench(partial(dl.lu_factor_ex, a), 0.5)[0]
            print(f"batch-profile 10000 x {n} {str(dtype)[6:]} warp rows {warp_rows}: {ms:.3f} ms, pivots {same}, "
                  f"diff {err:.2g}")  # fmt: skip
            print_kernels(kernels)
            times = {k: [len(v), sum(v) / 1000] for k, v in kernels.items()}
            record(kind="batch-profile", count=10000, n=n, dtype=str(dtype), warp_rows=warp_rows, ms=ms,
                   pivots_equal=same, max_diff=err, kernels=times)  # fmt: skip
    lu_module.BATCH_PANEL_WARP_ROWS = default
    profile = os.path.join(OUT, "lu-host-profile.txt")
    for n in (8, 16):
        a = torch.randn(1000, n, n, device=DEV, dtype=torch.float64)
        calls = {"densela": partial(dl.lu_factor, a, check_finite=False), "torch": partial(torch.linalg.lu_factor, a)}
        for name, fn in calls.items():
            if name == "densela":
                with open(profile, "a") as f:
                    f.write(f"=== 1000 x {n}\n")
            per_call = host_us(fn, 200, warmup=20, profile=profile if name == "densela" else None)
            record(kind="batch-host", count=1000, n=n, who=name, us_per_call=per_call)
            print(f"batch-host 1000 x {n} {name}: {per_call:.1f} us per call")


def batch_blocks(blocks: list[tuple[int, ...] | None]) -> None:
    """Batches on the blocked path: lu_factor_ex's GPU time at each of ``blocks`` (``lu.BATCH_BLOCKS``: the
    recursion's column-block widths, the last the panel's; None: as it is), GPU time per kernel, pivots against
    torch's on 200 matrices and the LU test ratio."""
    default = lu_module.BATCH_BLOCKS
    for count, n in ((10000, 128), (10000, 100), (1000, 128)):
        for dtype in (torch.float64, torch.float32):
            a = torch.randn(count, n, n, dtype=dtype, device=DEV)
            ref_piv = (torch.linalg.lu_factor(a[:200])[1] - 1).to(torch.int32)
            for widths in blocks:
                lu_module.BATCH_BLOCKS = widths or default
                dl.tuning.clear_cache()
                try:
                    lu, piv, _ = dl.lu_factor_ex(a)
                    same = bool(torch.equal(piv[:200], ref_piv))
                    ratio = max(lu_ratio(a[i], lu[i], piv[i]) for i in range(3))
                    kernels = kernel_times(partial(dl.lu_factor_ex, a))
                    ms = bench(partial(dl.lu_factor_ex, a), 0.5)[0]
                except Exception as e:  # a panel too wide to compile or fit
                    print(f"batch-blocks {count} x {n} {dtype} {widths}: {type(e).__name__} {e}"[:300])
                    continue
                finally:
                    lu_module.BATCH_BLOCKS = default
                times = {k: [len(v), sum(v) / 1000] for k, v in kernels.items()}
                parts = ", ".join(f"{k.split('_kernel')[0]} {v[1]:.3f}" for k, v in times.items() if v[1] > 0.01)
                print(f"batch-blocks {count} x {n} {str(dtype)[6:]} {widths}: {ms:.3f} ms ({parts}), pivots {same}, "
                      f"lu ratio {ratio:.2g}")  # fmt: skip
                record(kind="batch-blocks", count=count, n=n, dtype=str(dtype), blocks=list(widths or default), ms=ms,
                       pivots_equal=same, lu_ratio=ratio, kernels=times)  # fmt: skip


def eager_bytes() -> None:
    """lu_factor (checks and synchronizes, as the lab times it) of mid-sized batches launched eagerly in their result
    against replayed as a CUDA graph on static buffers (``lu.EAGER_BATCH_BYTES`` at 16 MiB and at 4 GiB), results
    compared bit for bit."""
    from densela._launch import GRAPHS

    default = lu_module.EAGER_BATCH_BYTES
    for count, n, dtype in [(1000, 128, torch.float64), (1000, 128, torch.float32), (1000, 100, torch.float64),
                            (2000, 128, torch.float64), (10000, 128, torch.float64)]:  # fmt: skip
        a = torch.randn(count, n, n, dtype=dtype, device=DEV)
        results = {}
        for limit in (16 << 20, 4 << 30):
            lu_module.EAGER_BATCH_BYTES = limit
            GRAPHS.clear()
            for _ in range(3):
                results[limit] = dl.lu_factor(a)
            ms, p20, p80 = bench(partial(dl.lu_factor, a), 1.0)
            name = f"{count} x {n} {str(dtype)[6:]}"
            print(f"eager-bytes {name} limit {limit >> 20} MiB: {ms:.3f} ({p20:.3f}-{p80:.3f}) ms")
            record(kind="eager-bytes", count=count, n=n, dtype=str(dtype), limit=limit, ms=ms, p20=p20, p80=p80)
        same = all(torch.equal(x, y) for x, y in zip(*results.values()))
        print(f"eager-bytes {count} x {n} {str(dtype)[6:]}: same results {same}")
    lu_module.EAGER_BATCH_BYTES = default


def whole_sweep(budget_s: float) -> None:
    """lu_batched_kernel's (matrices per program, warps) at 10000 matrices of each size, every matrix whole."""
    small, default = lu_module.BATCHED_SMALL, lu_module._small_launch
    lu_module.BATCHED_SMALL = 128 * 128
    start = time.perf_counter()
    for n in (8, 16, 32, 64, 128):
        for dtype in (torch.float64, torch.float32):
            a = torch.randn(10000, n, n, dtype=dtype, device=DEV)
            ref_piv = (torch.linalg.lu_factor(a[:50])[1] - 1).to(torch.int32)
            base = min(bench(vendor(name, a, check=False), 0.5)[0] for name in ("cusolver", "magma"))
            torch.backends.cuda.preferred_linalg_library("default")
            elements = n * n
            for mats in (1, 2, 4, 8, 16, 32):
                for per_thread in (8, 16, 32, 64):
                    warps = mats * elements // (32 * per_thread)
                    if not 1 <= warps <= 16 or mats * elements > 16384 or time.perf_counter() - start > budget_s:
                        continue
                    lu_module._small_launch = lambda m, k, size, c=(mats, warps): c
                    _, piv, _ = dl.lu_factor_ex(a)
                    same = bool(torch.equal(piv[:50], ref_piv))
                    ms = bench(partial(dl.lu_factor_ex, a), 0.5)[0]
                    print(f"whole 10000 x {n} {str(dtype)[6:]} mats {mats} warps {warps}: {ms:.3f} ms, "
                          f"best vendor {base:.3f} -> {base / ms:.2f}x; pivots {same}")  # fmt: skip
                    record(kind="whole", count=10000, n=n, dtype=str(dtype), mats=mats, warps=warps, densela_ms=ms,
                           vendor_ms=base, pivots_equal=same)  # fmt: skip
    lu_module.BATCHED_SMALL, lu_module._small_launch = small, default


def refine(sizes: list[int]) -> None:
    for n in sizes:
        for cond in (1e2, 1e6):
            g = torch.Generator(device=DEV).manual_seed(0)
            a = conditioned_matrix(n, cond, "float64", DEV)
            b = torch.randn(n, 1, dtype=torch.float64, device=DEV, generator=g)

            def cusolver(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
                torch.backends.cuda.preferred_linalg_library("cusolver")
                lu, piv = torch.linalg.lu_factor(a)
                return torch.linalg.lu_solve(lu, piv, b)

            base = bench(partial(cusolver, a, b))[0]
            torch.backends.cuda.preferred_linalg_library("default")
            for mode in ("fp32", "tf32"):
                _, info = dl.solve_ex(a, b, refine=mode)
                ms = bench(partial(dl.solve, a, b, refine=mode))[0]
                kernels = kernel_times(partial(dl.solve, a, b, refine=mode))
                busy = sum(sum(v) for v in kernels.values()) / 1000
                print(f"refine n={n} cond={cond:.0e} {mode}: densela {ms:.2f} ms (kernels {busy:.2f} ms), "
                      f"cusolver {base:.2f} ({base / ms:.2f}x); {info}")  # fmt: skip
                print_kernels(kernels)
                record(kind="refine", n=n, cond=cond, mode=mode, densela_ms=ms, cusolver_ms=base,
                       iterations=info.iterations, converged=info.converged, fell_back=info.fell_back,
                       backward_error=info.backward_error, kernel_ms=busy,
                       kernels={k: [len(v), sum(v) / 1000] for k, v in kernels.items()})  # fmt: skip


SOLVE_COLUMNS = (1, 8, 32, 64, 128, 512, 2048)
SWEEP_MOST = 2048
"""The sweeps are timed up to this many right-hand sides (SWEEP_TILE_COLUMNS of them per program)."""


def solves(sizes: list[int], inverse_blocks: list[int]) -> None:
    """lu_solve from the same factors, k right-hand sides, through each path whatever SWEEP_COLUMNS says:
    densela's sweeps (k <= SWEEP_MOST) and blocked solves (by the inverses of diagonal blocks of each of
    ``inverse_blocks`` rows) against cuSOLVER's getrs (torch.linalg.lu_solve), wall time per call with a host
    synchronization each, and the residual ||b - A x|| / (||A|| ||x|| n eps). ``default`` marks the path and
    block that lu_solve takes as configured."""
    columns, block = lu_module.SWEEP_COLUMNS, lu_module.INVERSE_BLOCK
    try:
        for n in sizes:
            for dtype in (torch.float64, torch.float32):
                a = torch.randn(n, n, dtype=dtype, device=DEV)
                lu, piv = dl.lu_factor(a)
                torch.backends.cuda.preferred_linalg_library("cusolver")
                t_lu, t_piv = torch.linalg.lu_factor(a)
                for k in SOLVE_COLUMNS:
                    b = torch.randn(n, k, dtype=dtype, device=DEV)
                    theirs = bench(partial(torch.linalg.lu_solve, t_lu, t_piv, b))[0]
                    paths: list[tuple[str, int | None]] = [("sweeps", None)] if k <= SWEEP_MOST else []
                    paths += [("blocked", nb) for nb in inverse_blocks]
                    for path, nb in paths:
                        lu_module.SWEEP_COLUMNS = k if path == "sweeps" else 0
                        lu_module.INVERSE_BLOCK = block if nb is None else nb
                        default = k <= columns if path == "sweeps" else k > columns and nb == block
                        x = dl.lu_solve((lu, piv), b)
                        eps = torch.finfo(dtype).eps
                        residual = float((b.double() - a.double() @ x.double()).abs().max()) / (
                            float(a.double().abs().sum(1).max()) * float(x.double().abs().max()) * n * eps
                        )
                        ours = bench(partial(dl.lu_solve, (lu, piv), b))[0]
                        name = path if path == "sweeps" else f"blocked {nb}"
                        print(f"lu_solve n={n} {dtype} k={k} ({name}{', default' if default else ''}): densela "
                              f"{ours:.3f} ms, cusolver {theirs:.3f} ms ({theirs / ours:.2f}x), residual ratio "
                              f"{residual:.3g}")  # fmt: skip
                        record(kind="lu_solve", n=n, dtype=str(dtype), k=k, path=path, inverse_block=nb,
                               default=default, densela_ms=ours, cusolver_ms=theirs,
                               residual_ratio=residual)  # fmt: skip
                torch.backends.cuda.preferred_linalg_library("default")
    finally:
        lu_module.SWEEP_COLUMNS, lu_module.INVERSE_BLOCK = columns, block


def _phases(pre: Callable[[], object], post: Callable[[object], object], reps: int = 200) -> tuple[float, float]:
    """Median wall time (us) of ``pre()`` and of ``post(pre())`` after it, the GPU idle before each call."""
    times: list[tuple[float, float]] = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        result = pre()
        t1 = time.perf_counter()
        post(result)
        times.append((t1 - t0, time.perf_counter() - t1))
    return tuple(sorted(t[i] for t in times)[reps // 2] * 1e6 for i in (0, 1))  # type: ignore[return-value]


def small_host() -> None:
    """Batches of small matrices, whose calls the host decides: the lab's measure (L2 flush, CUDA events) of densela's
    lu_factor and lu_factor_ex and of torch's (cuSOLVER preferred), host time per call of each, densela's GPU time,
    and the wall time of lu_factor_ex (the launch) and of reading the pivots' info back after it (the sync)."""
    for count in (1000, 10000):
        for n in (8, 16, 32, 64):
            for dtype in (torch.float64, torch.float32):
                a = torch.randn(count, n, n, dtype=dtype, device=DEV)
                row: dict[str, object] = {"kind": "small-host", "count": count, "n": n, "dtype": str(dtype)[6:]}
                torch.backends.cuda.preferred_linalg_library("cusolver")
                row["torch_lab"] = time_gpu(partial(torch.linalg.lu_factor, a), max_seconds=1).median_ms * 1e3
                row["torch_host"] = host_us(partial(torch.linalg.lu_factor, a), 200)
                torch.backends.cuda.preferred_linalg_library("default")
                call = partial(dl.lu_factor, a, check_finite=False)
                row["dl_lab"] = time_gpu(call, max_seconds=1).median_ms * 1e3
                row["dl_ex_lab"] = time_gpu(partial(dl.lu_factor_ex, a), max_seconds=1).median_ms * 1e3
                row["dl_host"] = host_us(call, 200)
                row["dl_ex_host"] = host_us(partial(dl.lu_factor_ex, a), 200)
                row["dl_gpu"] = sum(sum(v) for v in kernel_times(call).values())
                row["launch_us"], row["sync_us"] = _phases(
                    partial(dl.lu_factor_ex, a), lambda result: lu_module._first_singular(result[2])
                )
                row["ratio"] = row["torch_lab"] / row["dl_lab"]
                record(**row)
                print(" ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))


def interchange_groups(sizes: list[int], groups: list[int]) -> None:
    """``_launch_interchanges`` on narrow arrays (the sweeps' permutation vector, one and 8 right-hand sides) with
    each of ``groups`` interchanges per step (``lu.INTERCHANGE_GROUP_NARROW``): GPU time (mean of gpu_samples) and
    whether the result equals the first group's, on the pivots of a real factorization."""
    narrow = lu_module.INTERCHANGE_GROUP_NARROW
    try:
        for n in sizes:
            piv = dl.lu_factor(torch.randn(n, n, dtype=torch.float64, device=DEV))[1].to(torch.int32).unsqueeze(0)
            for cols, dtype in ((1, torch.int32), (8, torch.float64)):
                start = torch.arange(n * cols, device=DEV).reshape(1, n, cols).to(dtype)
                first = None
                for group in groups:
                    lu_module.INTERCHANGE_GROUP_NARROW = group
                    out = start.clone()
                    lu_module._launch_interchanges(out, piv)
                    first = out.clone() if first is None else first
                    same = bool(torch.equal(out, first))
                    # applied again and again to ``out`` (the same work each time: its values only move)
                    apply = partial(lu_module._launch_interchanges, out, piv)
                    ms = float(np.mean(gpu_samples(apply, warmup_ms=20.0, rep_ms=200.0)))
                    print(f"interchanges n={n} cols={cols} {dtype} group={group}: {ms * 1e3:.1f} us, "
                          f"as the first {same}")  # fmt: skip
                    record(kind="interchange-groups", n=n, cols=cols, dtype=str(dtype), group=group, us=ms * 1e3,
                           same=same)  # fmt: skip
    finally:
        lu_module.INTERCHANGE_GROUP_NARROW = narrow


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("what", nargs="*", default=["check", "time"])
    p.add_argument("--sizes", default="1000,2048,4096")
    p.add_argument("--blocks", nargs="*", default=[], help="block widths, e.g. 128,16 256,128,16 (default: lu's)")
    p.add_argument("--panel-rows", default="32")
    p.add_argument("--panel-per-sm", default="1", help="most panel programs per SM (lu.PANEL_PROGRAMS_PER_SM)")
    p.add_argument("--lookahead", default="auto", help="look-ahead off and on to time, e.g. 0,1 (auto: lu's by size)")
    p.add_argument("--priority", default="-1", help="priorities of look-ahead's side stream to time, e.g. 0,-1")
    p.add_argument("--panel-cap", default="0", help="caps on the panel's programs to time (0: one per SM), e.g. 0,32")
    p.add_argument("--dependent", default="1", help="dependent launches off and on to time, e.g. 0,1")
    p.add_argument(
        "--row-major",
        default="default",
        help="row-major working arrays off and on, e.g. 0,1 (default: lu.ROW_MAJOR_FROM's choice)",
    )
    p.add_argument("--inverse-blocks", default=str(lu_module.INVERSE_BLOCK),
                   help="lu.INVERSE_BLOCK values to time the blocked lu_solve with, e.g. 128,256,512")  # fmt: skip
    p.add_argument("--groups", default="32,64,128,256", help="interchanges per step to time on narrow arrays")
    args = p.parse_args()
    PANEL_ROWS[:] = [int(r) for r in args.panel_rows.split(",")]
    PANEL_PER_SM[:] = [int(p) for p in args.panel_per_sm.split(",")]
    LOOKAHEAD[:] = [None if x == "auto" else bool(int(x)) for x in args.lookahead.split(",")]
    PRIORITY[:] = [int(x) for x in args.priority.split(",")]
    PANEL_CAP[:] = [int(x) for x in args.panel_cap.split(",")]
    DEPENDENT[:] = [bool(int(x)) for x in args.dependent.split(",")]
    ROW_MAJOR[:] = [None if x == "default" else bool(int(x)) for x in args.row_major.split(",")]
    sizes = [int(s) for s in args.sizes.split(",")]
    blocks = [tuple(int(x) for x in b.split(",")) for b in args.blocks] or [None]
    if "check" in args.what:
        check(sizes)
    if "time" in args.what:
        timing(sizes, blocks)
    if "panel" in args.what:
        panel(sizes)
    if "tournament" in args.what:
        tournament(sizes)
    if "profile" in args.what:
        lu_module.DEPENDENT_LAUNCHES = DEPENDENT[0]
        if ROW_MAJOR[0] is not None:
            lu_module.ROW_MAJOR_FROM = dict.fromkeys(lu_module.LU_DTYPES, 1) if ROW_MAJOR[0] else {}
        profile(sizes, blocks[0])
    if "batched" in args.what:
        batched()
    if "warp" in args.what:
        warp()
    if "batch-profile" in args.what:
        batch_profile()
    if "small-host" in args.what:
        small_host()
    if "batch-blocks" in args.what:
        batch_blocks(blocks)
    if "eager-bytes" in args.what:
        eager_bytes()
    if "whole" in args.what:
        whole_sweep(360.0)
    if "refine" in args.what:
        refine(sizes)
    if "solve" in args.what:
        solves(sizes, [int(x) for x in args.inverse_blocks.split(",")])
    if "interchange-groups" in args.what:
        interchange_groups(sizes, [int(x) for x in args.groups.split(",")])


if __name__ == "__main__":
    main()
