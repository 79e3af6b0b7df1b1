"""LU with partial pivoting and the solves built on it: ``lu_factor``, ``lu_factor_ex``, ``lu_solve``, ``solve``.

The factorization is LAPACK's right-looking blocked algorithm, recursive over block widths: a block of
columns is factored (by the same routine with a narrower width, or at the narrowest by the panel kernel,
which keeps the panel in registers and picks each pivot with a reduction across programs), its row
interchanges are applied to the other columns, the block row right of it is solved with the unit lower
triangle, and the trailing matrix takes the update ``A22 -= L21 @ U12`` through densela's GEMM.
"""

from __future__ import annotations

import functools
import math
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch

from densela import _errors
from densela._arrays import INTERPRET, Call, prepare, written
from densela._launch import (
    GRAPHS,
    WORKSPACE_TENSORS,
    Launcher,
    cdiv,
    dependent_launches,
    kept_counters,
    replayed,
    scratch,
)
from densela.gemm import launch_gemm
from densela.kernels.lu import (
    any_nonzero_kernel,
    interchange_rows_kernel,
    lu_batched_kernel,
    lu_panel_kernel,
    matvec_kernel,
    nonfinite_flag_kernel,
    permute_solve_kernel,
    sweep_factors_kernel,
    sweep_solve_kernel,
    triangular_solve_kernel,
)
from densela.kernels.lu_warp import lu_warp_kernel
from densela.transpose import launch_transpose
from densela.tuning import multiprocessors

_PANEL = Launcher(lu_panel_kernel, dependent=True)
_BATCHED = Launcher(lu_batched_kernel)
_WARP = Launcher(lu_warp_kernel)
_INTERCHANGE = Launcher(interchange_rows_kernel, dependent=True)
_PERMUTE = Launcher(permute_solve_kernel, dependent=True)
_SOLVE = Launcher(triangular_solve_kernel, dependent=True)
_SWEEP = Launcher(sweep_solve_kernel)
_SWEEP_FACTORS = Launcher(sweep_factors_kernel)
_MATVEC = Launcher(matvec_kernel)
_ANY = Launcher(any_nonzero_kernel)
_NONFINITE = Launcher(nonfinite_flag_kernel)

DEPENDENT_LAUNCHES = True
"""Whether the factorization's kernels launch as programmatic dependent launches (``_launch.dependent_launches``),
except in factorizations with look-ahead (``LOOKAHEAD_FROM``). With look-ahead the early-placed programs of the
main stream's kernels compete for SMs with the side stream's panel, whose programs must all be resident: H100,
2026-11-26 (bench-results/nvidia-h100/2026-11-26-warp-dealt/), n = 16384 float32 174.1 ms with dependent launches
against 149.2 without (the sum of its kernels' durations 342 ms, against 157 at e8efa4c before dependent launches:
programs waiting), float64 147.3 against 146.5."""

LU_DTYPES = (torch.float32, torch.float64)
REFINE_MODES = {"fp32": "ieee", "tf32": "tf32", "bf16": "bf16"}
"""Refinement modes of ``solve``: the arithmetic of its float32 factorization's block updates (FP32 FMA, TF32
tensor cores, or operands rounded to bfloat16 multiplied on TF32 tensor cores, float32 accumulation)."""

BLOCKS = (128, 16)
"""Column-block widths of the recursive blocked factorization of one matrix, widest first; the last is the panel
kernel's. Panels of 16 columns rather than 32 (H100, 2026-11-25, bench-results/nvidia-h100/2026-11-25-lookahead/,
GPU time of replays): n = 1000 float64 3.15 ms against 4.09, float32 2.73 against 2.90; 2048 6.64 against 7.12 and
5.27 against 5.76; 4096 16.3 against 17.1 and 12.7 against 13.4; 8192 (look-ahead) 44.6 against 47.3 and 36.7
against 37.6: the panel kernel's time per column falls with its width (fewer registers and updates per row), more
than the narrower updates cost."""
LARGE_BLOCKS = (256, 128, 16)
LARGE_FROM = 16384
"""Matrices whose smaller side is at least LARGE_FROM take LARGE_BLOCKS: a trailing update of inner dimension 256
reads and writes A22 half as often per flop. H100, 2026-11-25 (bench-results/nvidia-h100/2026-11-25-lookahead/), with
look-ahead: n = 16384 float64 151.6 ms against 168.0 with BLOCKS (163.2 with (256, 128, 32)), float32 151.1 against
152.6; at 8192 no faster (float64 44.6 against 44.6 ms, float32 39.0 against 36.7)."""
SMALL_BLOCKS = (128, 8)
SMALL_ROWS = 1024
"""Matrices of at most SMALL_ROWS rows take SMALL_BLOCKS: a panel of 8 columns then fits one program
(ONE_PROGRAM_ELEMENTS), which needs no grid-wide exchange per column. H100, 2026-11-25 (run8 in
bench-results/nvidia-h100/2026-11-25-lookahead/): n = 1000 float32 2.10 ms against 2.68 with BLOCKS, float64 3.03
against 3.12; at 2048 and above 8 columns lost to 16 (2048 float64 6.88 against 6.58 ms)."""
BATCH_BLOCKS = (128, 32)
"""The block widths for a batch factored through the blocked algorithm (each launch over the whole batch): there
16-column panels halved the panel kernel's time but their updates of inner dimension 16 cost more than that (10000
matrices of 128 x 128 float64, H100, 2026-11-24: panels 4.04 -> 2.55 ms, updates 1.21 -> 2.84)."""
INTERPRET_BLOCKS = (16, 8)
"""The same under Triton's interpreter, narrow so that small test matrices take every path."""
SOLVE_BLOCK = 32
"""Rows of the diagonal blocks that the triangular-solve kernel takes; GEMM updates the rest."""
PERMUTE_PROGRAMS = {8: (8, True), 4: (16, False)}
"""Columns per one-warp program of ``permute_solve_kernel`` and whether its substitution gathers each step's row
from the lane that holds it (else a masked sum across the lanes), by item size. H100, 2026-11-24
(``bench-results/nvidia-h100/2026-11-24-lu-gather/``): the kernel's time over a factorization of 10000 x 128 x 128
float64 2.67 ms against 3.33 at 32 columns without, 10000 x 100 x 100 1.59 against 4.72; float32 1.23 against 1.41
and 1.39 against 6.24 (the gather slower there at 128, 1.96)."""
SOLVE_COLUMNS = 16
"""Columns per one-warp program of ``triangular_solve_kernel`` (H100, 2026-11-24: the inverses' solves of a
factorization of n = 4096 1.56 ms in float64 against 2.52 at 64 columns over two warps, 0.64 against 1.54 in
float32)."""
ONE_PROGRAM_ELEMENTS = 8192
"""A panel of at most this many register elements is factored by one program; larger panels spread their rows
over up to one program per SM, which agree on each pivot through global memory."""
PANEL_ROWS = 32
"""Fewest rows per program when a panel is spread over several."""
BATCH_PANEL_WARP_ROWS = {4: 64}
"""Rows per warp of a panel kernel program factoring a panel of one matrix of a batch (the blocked path), by item
size (else 32; at most 8 warps).
H100, 2026-11-24, panels of 10000 matrices of 128 x 128 (4 launches): float32 3.3 ms at 64 rows a warp against 4.2
at 32, 9.3 at 16; float64 7.4 at 32 and at 64, 11.6 at 16, 79 at 128
(bench-results/nvidia-h100/2026-11-24-lu-batch-eager/)."""
PANEL_PROGRAMS_PER_SM = 1
"""Most programs per SM when a panel is spread over several (their grid-wide wait needs every program resident:
programs of PANEL_ROWS rows are one warp each, so a few fit on an SM). With one per SM a panel taller than
132 x 32 rows gets programs of 64 or 128 rows (2 or 4 warps), whose cross-warp steps cost more per column
(m = 16384 float64: 5.9 us per column against 3.0 at m = 4096 with 32 rows per program, H100, 2026-11-23)."""

ROW_MAJOR_FROM: dict[torch.dtype, int] = {torch.float32: 2048, torch.float64: 2048}
"""Square matrices (one at a time) of at least this order for their type are factored in a row-major working array,
copied into a column-major ``lu`` at the end; a type not named: never. Why: ``interchange_rows_kernel`` applies a
block's row interchanges to every other column, and in a column-major array each moved item of a row is alone in its
32-byte sector: at n = 16384 its 126 launches took 21.8 ms (float32) and 24.6 ms (float64); in a row-major array a
row moves whole, 3.5 and 6.3 ms. GPU time, column-major -> row-major array (H100, 2026-11-26,
bench-results/nvidia-h100/2026-11-26-row-layout/; float64 with ``ROWS_IN_THREADS``): float32 1.59 -> 3.44 ms at
1000, 4.87 -> 4.71 at 2048, 12.29 -> 11.62 at 4096, 35.98 -> 31.98 at 8192, 149.5 -> 122.5 at 16384; float64 2.30 ->
2.65-2.80 at 1000, 6.00 -> 5.83 at 2048, 15.80 -> 15.01 at 4096, 43.19 -> 39.88 at 8192, 147.0 -> 129.4 at 16384.
Below 2048 a single matrix's panels are one program each, slower on rows in either type."""

ROWS_IN_THREADS = {8: True, 4: False}
"""By item size: whether ``lu_panel_kernel`` and ``permute_solve_kernel`` hide a row-major array's unit column stride
from Triton's layout analysis, so that each thread holds whole rows as on a column-major array (and the
substitution gathers its rows, ``PERMUTE_PROGRAMS``). A factorization in a row-major working array, without -> with
(H100, 2026-11-26, bench-results/nvidia-h100/2026-11-26-row-layout/): float64 7.42 -> 2.80 ms at n = 1000, 7.90 ->
5.83 at 2048, 17.98 -> 15.01 at 4096, 45.41 -> 39.88 at 8192, 142.2 -> 129.4 at 16384; float32 (16 lanes along the
columns without) 3.44 -> 2.03 at 1000 but 4.71 -> 5.27 at 2048, 11.62 -> 12.68 at 4096, 31.98 -> 35.10 at 8192,
122.5 -> 131.0 at 16384."""

LOOKAHEAD_FROM = 8192
"""Square matrices of at least this order are factored with look-ahead (``_factor_ahead``: the next column block on
a second stream of higher priority during the trailing update). The panel kernel's grid-wide wait then shares the
GPU with a GEMM, whose CTAs hold SMs until they finish (no deadlock: they wait on nothing). H100, 2026-11-25
(bench-results/nvidia-h100/2026-11-25-lookahead/): n = 8192 float64 44.6 ms against 48.1 without, float32 36.7
against 38.4 (blocks of 128, 16; with 128, 32: 47.3 against 52.8 and 37.5 against 40.2); n = 4096 1-2% slower (16.5
against 16.3 ms, 13.0 against 12.7), so not below 8192. At the default stream priority it had gained at most 2%
(51.8 ms against 52.8 at 8192 float64, blocks of 128, 32)."""
AHEAD_UPDATE_TILES_FROM = {torch.float64: LOOKAHEAD_FROM, torch.float32: 16384}
"""Orders from which the trailing update beside the look-ahead panel (``_factor_ahead``; in IEEE arithmetic: not the
TF32 or bfloat16 factorizations of a refinement) runs on the tiles kernel, whose programs each take an output tile
and leave its SM when done, not on the persistent warp-specialized kernel of large float32 and float64 products,
whose programs hold every SM until the whole update is done, so that the panel's programs on the side stream wait
for its end. H100, 2026-11-26 (bench-results/nvidia-h100/2026-11-26-ws-dmma/): float64 n = 8192 39.7 ms against
42.2 with the warp-specialized update (16384: 129 against 142); float32 16384 114.5 against 122.7, 8192 32.6 against
31.9 (hence 16384)."""
EAGER_BATCH_BYTES = 192 << 20
"""Batches that do not replay their first call's launches (``_replays``: a checked call, for instance) of at least this
many bytes are factored launch by launch in their result rather than by a graph replay in static buffers, whose copies
in and out cost more than the launches' host time: H100, 2026-11-24
(bench-results/nvidia-h100/2026-11-24-lu-batch-eager/): 10000 matrices of 128 x 128 float64 14.9 -> 14.0 ms, float32
8.7 -> 8.7 (7.8 with BATCH_PANEL_WARP_ROWS); with the column-major copy by densela's transpose kernel too, 13.6 and
6.8 ms. The limit was 16 MiB until 2026-11-24 late (``bench-results/nvidia-h100/2026-11-24-short-k/run9``, lu_factor
as the lab times it, both ways in one process, the graph's input copied and checked by the transpose kernel): 1000 x
128 x 128 float64 (125 MiB) replayed in 1.27 ms against 1.44 eager, float32 0.76 against 1.27, 1000 x 100 x 100
float64 0.90 against 1.39; 2000 x 128 x 128 float64 (250 MiB) 2.49 against 2.28, 10000 10.1 against 9.5."""
INTERCHANGE_GROUP = 32
"""Row interchanges that ``interchange_rows_kernel`` applies per step, as one permutation of the rows they touch."""
INTERCHANGE_GROUP_NARROW = 64
"""The same for arrays of at most 16 columns (the sweeps' permutation vector, the right-hand sides of ``lu_solve``):
each step's cost is its latency (a load of the rows after the previous step's store), not the rows' bytes. H100,
2026-11-26 (bench-results/nvidia-h100/2026-11-26-ws-dmma/call1-groups.txt), interchanges of a factorization's pivots
on one int32 column and eight float64 columns, groups of 32 / 64 / 128 / 256: n = 8192 596 / 209 / 224 / 312 us
and 646 / 256 / 263 / 354 us; 4096 and 16384 alike (half and twice the times)."""
BATCHED_BYTES = 16384
"""Batched matrices whose padded size is at most this many bytes are factored whole by one program each (H100,
2026-11-22: 64 x 64 float32 at 1.35x torch's faster batched path, while 64 x 64 float64 held whole was 0.67x
and 128 x 128 float64 spilled registers, 0.03x); larger ones go through the blocked algorithm, the whole
batch per launch while a column panel of each fits one program, else one matrix after another."""
BATCHED_SMALL = 256
"""Batched matrices of at most this many padded elements (16 x 16) are factored by ``lu_batched_kernel``, several
per program (BATCHED_SMALL_BYTES of them), 8 elements per thread up to 8 x 8, else one warp. H100, 2026-11-23,
lu_factor_ex's GPU time against ``lu_panel_kernel`` one matrix per program: 8 x 8 1.3-4.9x, 16 x 16 1.1-2.5x;
from 32 x 32 on it was the slower one (10000 of 32 x 32 float64: 0.81 ms at best against 0.61, two runs)."""
BATCHED_SMALL_BYTES = 4096
WARP_COLUMNS = 32
"""On CUDA devices, batched matrices are factored by ``lu_warp_kernel`` (Gluon, not interpretable) with each
thread holding at most this many columns of a row (rows of up to 32 columns one thread each, of 64 two, of 128
four): those of at most 32 threads' rows one warp per matrix, larger ones (up to WARP_SPLIT_THREADS threads)
over several warps, which pass the pivot row through shared memory, where the registers allow
(``_warp_launch``). H100, 2026-11-24 (bench-results/nvidia-h100/2026-11-24-lu-warp/): an earlier version for 64-row
matrices, the pivot row passed through the matrix's own (column-major) memory, ran at 0.5-0.9x the panel kernel
and was dropped."""
WARP_SPLIT_THREADS = 256
"""Most threads per matrix of ``lu_warp_kernel`` across warps (one program per matrix). H100, 2026-11-24: 10000
matrices of 128 x 128 float32 over 16 warps (512 threads, four to a row) took 15.1 ms, against 8.7 for the
blocked path; 128 x 64 over 8 warps 2.4 against 4.8."""
WARP_FLOAT64_BATCH = 600
"""Batches of at least this many float64 matrices, square or tall, that ``lu_warp_kernel`` would take whole across
warps go through the blocked path instead, whose panels the same kernel factors (``_launch_panel``); wide ones (32 x
64 and the like, not measured) stay whole, since on the blocked path they would not replay (``_replays``). H100,
2026-11-27, ``lu_factor`` unchecked as the lab times it, whole -> blocked
(bench-results/nvidia-h100/2026-11-27-check-kernel/, calls 2-3): 64 x 64 at 20, 100, 300 matrices 104 -> 170, 105 ->
161, 116 -> 160 us, at 600 186 -> 138, 1000 259 -> 186, 1200 305 -> 183, 1500 333 -> 210; 48 x 48 at 20-100 82-84 ->
77-83, 300 92 -> 77, 600 154 -> 90, 1000 212 -> 134; 40 x 40 at 20-300 78-84 -> 150-173, 600 140 -> 135 (the blocked
path's time nearly flat up to 600 matrices: its launches' latency). Session 55 had put the line at 1200 from a
blocked tree that took 282 us at 1000 x 64 x 64 (its panels, presumably, not on the warp kernel). float32 stays
whole: blocked, it lost in checked calls (call 1: 48 x 48 at 2000 matrices 258 -> 634 us, at 10000 1010 -> 1553; 64
x 64 at 2000 385 -> 723), where the whole path paid the larger check."""
WARP_WARPS = 2
"""Warps per program of ``lu_warp_kernel`` for matrices of 17 to 32 rows (a warp each); smaller ones (two or
four to a warp) take one warp per program. H100, 2026-11-24, 10000 matrices of 32 x 32: 1, 2 or 4 warps within
2% (float64 145-148 us, float32 72-74 us), 8 slower for float64 (171 us); of 16 x 16, one warp fastest in the
GPU-time sweep (bench-results/nvidia-h100/2026-11-24-lu-warp/)."""


@dataclass(frozen=True)
class SolveInfo:
    """What ``solve_ex`` did: the refinement mode, its steps, whether it converged or fell back.

    ``iterations``: refinement steps (residuals computed in float64), 0 without ``refine``.
    ``backward_error``: the final ``||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf)``.
    """

    refine: str | None
    iterations: int
    converged: bool
    fell_back: bool
    backward_error: float


def lu_factor(a: Any, /, *, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Any, Any]:
    """LU factorization with partial pivoting, ``P A = L U``, in SciPy's packed form.

    Returns ``(lu, piv)``: ``lu`` holds U and the unit lower L below the diagonal; ``piv`` (int32, 0-based,
    length min(m, n)) says row i was interchanged with row ``piv[i]``. A 3-D ``a`` factors each matrix. An
    exactly zero pivot gives a ``LinAlgWarning`` naming it, and the factorization completes.

    Example:
        >>> import numpy as np, densela as dl
        >>> lu, piv = dl.lu_factor(np.array([[1.0, 2.0], [4.0, 3.0]]))
        >>> lu, piv
        (array([[4.  , 3.  ],
               [0.25, 1.25]]), array([1, 1], dtype=int32))
    """
    call, lu, piv, info, flag = _factor_call("lu_factor", a, overwrite_a, check_finite, flagged=True)
    zero = _first_singular(info, flag)
    if zero is not None:
        where = f" (matrix {zero[0]})" if lu.ndim == 3 else ""
        warnings.warn(
            f"Diagonal number {zero[1]} is exactly zero{where}. Singular matrix.", _errors.LinAlgWarning, stacklevel=2
        )
    return call.finish(lu), call.finish(piv)


def lu_factor_ex(a: Any, /, *, overwrite_a: bool = False) -> tuple[Any, Any, Any]:
    """``lu_factor`` without checks or host synchronization: ``(lu, piv, info)``.

    ``info`` (int32 on the device; one per matrix for a 3-D ``a``) is 0, or the 1-based index of the first
    exactly zero pivot, as LAPACK reports it.

    Example:
        >>> import numpy as np, densela as dl
        >>> lu, piv, info = dl.lu_factor_ex(np.array([[0.0, 1.0], [0.0, 2.0]]))
        >>> int(info)
        1
    """
    call, lu, piv, info, _ = _factor_call("lu_factor_ex", a, overwrite_a, False)
    return call.finish(lu), call.finish(piv), call.finish(info[0] if lu.ndim == 2 else info)


def lu_solve(
    lu_and_piv: tuple[Any, Any], b: Any, /, *, trans: int = 0, overwrite_b: bool = False, check_finite: bool = True
) -> Any:
    """Solves ``A x = b`` (``trans=0``) or ``A^T x = b`` (``trans=1``) from ``lu_factor``'s ``(lu, piv)``.

    ``b``: (n,) or (n, k) for one matrix; (batch, n) or (batch, n, k) for a batch.

    Example:
        >>> import numpy as np, densela as dl
        >>> a = np.array([[1.0, 2.0], [4.0, 3.0]])
        >>> dl.lu_solve(dl.lu_factor(a), np.array([5.0, 10.0]))
        array([1., 2.])
    """
    op = "lu_solve"
    if not isinstance(lu_and_piv, tuple) or len(lu_and_piv) != 2:
        raise TypeError(f"{op}: lu_and_piv must be the (lu, piv) pair that lu_factor returns")
    if trans not in (0, 1):
        raise ValueError(f"{op}: trans must be 0 (A x = b) or 1 (A^T x = b), got {trans!r}")
    call = prepare(op, {"lu": lu_and_piv[0], "piv": lu_and_piv[1], "b": b})
    lu, piv, tb = (call.tensors[n] for n in ("lu", "piv", "b"))
    _check_dtype(op, {"lu": lu, "b": tb})
    _errors.check_ndim(op, "lu", lu, (2, 3))
    n = lu.shape[-1]
    if lu.shape[-2] != n:
        raise ValueError(f"{op}: lu must be square, got shape {tuple(lu.shape)}")
    if piv.dtype.is_floating_point or piv.is_complex() or tuple(piv.shape) != (*lu.shape[:-2], n):
        raise ValueError(f"{op}: piv must hold {n} integers per matrix, got {piv.dtype} of shape {tuple(piv.shape)}")
    if tb.ndim not in (lu.ndim - 1, lu.ndim) or tb.shape[: lu.ndim - 1] != (*lu.shape[:-2], n):
        raise ValueError(f"{op}: b of shape {tuple(tb.shape)} does not fit lu of shape {tuple(lu.shape)}")
    if piv.numel() and not _passes(piv, "in range", (n,), lambda: bool(((piv >= 0) & (piv < n)).all())):
        raise ValueError(f"{op}: piv holds row numbers outside [0, {n}) (0-based, as lu_factor returns them)")
    with call.guard():  # every launch of the call on its run device
        if check_finite:
            if lu.numel() and not _passes(lu, "finite", (), lambda: _finite(lu)):
                raise ValueError(_not_finite(op, "lu"))
            _check_finite(op, b=tb)
        x = _rhs_copy(call, tb, lu.ndim)
        if x.numel():
            run_lu, run_piv = call.on_run_device(lu), call.on_run_device(piv).to(torch.int32)
            _solve_factored(call, _batched(run_lu), _batched(run_piv), x, trans)
    return call.finish(x.reshape(tb.shape))


_PASSED: dict[tuple[int, str], tuple[weakref.ref, int, tuple]] = {}
"""Checks that torch tensors passed (``_passes``), by (id, check): (a weak reference, torch's version counter then,
the tensor's address and what else the check depended on)."""


def _passes(t: torch.Tensor, check: str, about: tuple, test: Callable[[], bool]) -> bool:
    """``test()``, the verdict of the check named ``check`` on ``t`` (which depended on ``about`` besides ``t``),
    remembered for a torch tensor that passed it, with its version counter, which every in-place write through torch
    advances: the same tensor, unwritten since, passes without ``test()``.

    ``lu_solve`` remembers this way that ``piv`` names rows in range and that ``lu`` is finite, checks whose answer
    comes from the device: the host waits for it, and for all the work queued before, before it launches anything. On
    the H100 (2026-11-27, session 60) the range check's wait took ``lu_solve`` of one right-hand side from 0.75 to
    1.44 ms at n = 4096 and from 1.46 to 2.61 ms at 8192 (float64, unchecked), the GPU idling while the host set the
    solve up. A write that torch does not see (through a DLPack or NumPy alias) can make a remembered tensor wrong;
    the interchange kernel clamps the rows it reads to the matrix, so such pivots give a wrong solution, never a read
    or write outside ``x``, and a non-finite ``lu`` a non-finite one.

    Example:
        >>> piv = torch.tensor([2, 1, 2], dtype=torch.int32)
        >>> in_range = lambda n: _passes(piv, "in range", (n,), lambda: bool((piv < n).all()))
        >>> in_range(3), in_range(2)
        (True, False)
        >>> piv[0] = 3                         # torch sees the write: checked again
        >>> in_range(3)
        False
    """
    key = (id(t), check)
    about = (t.data_ptr(), *about)
    try:
        version = t._version
    except RuntimeError:  # an inference tensor keeps no version counter: checked every time
        version = None
    seen = _PASSED.get(key)
    if version is not None and seen is not None and seen[0]() is t and seen[1:] == (version, about):
        return True
    if not test():
        return False
    if version is not None:
        _PASSED[key] = (weakref.ref(t, lambda _, key=key: _PASSED.pop(key, None)), version, about)
    return True


def solve(a: Any, b: Any, /, *, refine: str | None = None) -> Any:
    """Solves ``A x = b`` for square ``a``; raises ``LinAlgError`` when ``a`` is singular.

    ``refine`` (float64 ``a`` only): ``"fp32"``, ``"tf32"`` or ``"bf16"`` factors in float32 (its block
    updates on FP32 units, TF32 or BF16 tensor cores), then refines in float64 (GMRES preconditioned by
    the factors) to float64 accuracy; if that fails it falls back to a float64 factorization with a
    ``RefinementWarning`` (``solve_ex`` reports it).

    Example:
        >>> import numpy as np, densela as dl
        >>> dl.solve(np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([9.0, 8.0]), refine="fp32")
        array([2., 3.])
    """
    return _solve("solve", a, b, refine, report=False)[0]


def solve_ex(a: Any, b: Any, /, *, refine: str | None = None) -> tuple[Any, SolveInfo]:
    """``solve``, also returning a ``SolveInfo`` on the refinement (steps, convergence, fallback, error).

    Example:
        >>> import numpy as np, densela as dl
        >>> x, info = dl.solve_ex(np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([9.0, 8.0]), refine="fp32")
        >>> info.converged, info.fell_back
        (True, False)
    """
    return _solve("solve_ex", a, b, refine, report=True)


# --- checks and array handling -----------------------------------------------------------------------


def _check_dtype(op: str, named: dict[str, torch.Tensor]) -> torch.dtype:
    return _errors.check_same_dtype(op, named, LU_DTYPES)


def _check_finite(op: str, **named: torch.Tensor) -> None:
    """ValueError naming the first of ``named`` that holds a NaN or an infinity (``_finite``)."""
    for name, t in named.items():
        if t.numel() and not _finite(t):
            raise ValueError(_not_finite(op, name))


def _finite(t: torch.Tensor) -> bool:
    """Whether every item of ``t`` is finite. On the current CUDA device (and in the interpreter) one launch of
    ``nonfinite_flag_kernel`` answers into the thread's flag for it (``_flag``), which the host polls: no copy, no
    stream synchronization and no boolean array, where torch.isfinite(t).all() takes three launches and a copy back.
    H100, 2026-11-27 (bench-results/nvidia-h100/2026-11-27-check-kernel/, calls 2 and 6), the lab's measure of
    ``lu_factor`` checked less unchecked, torch's check -> this one: float64 10000 x 32 x 32 258 -> 63 us, 10000 x 8 x
    8 62 -> 36, float32 1000 x 16 x 16 60 -> 57 (most of what is left: the host waits for the verdict, then launches the
    factorization onto an idle GPU); ``solve`` at n = 1000 and 4096 within its noise. Elsewhere, where the device
    cannot reach the flag, or where ``t``'s items are not rows of one stride, torch.isfinite."""
    here = INTERPRET or (t.is_cuda and t.get_device() == torch._C._cuda_getDevice() and _flag_reachable(t.get_device()))
    rows = _as_rows(t) if here else None
    if rows is not None:
        r, c = rows.shape
        block_c = min(_pow2(c), 256)
        block_r = max(1, FINITE_BLOCK // block_c)
        flag = _flag(t.is_cuda, finite=True)
        word = kept_counters("lu-finite", 2, t.device)[:2].view(torch.int64)  # the kernel's last program zeroes it
        _NONFINITE((cdiv(r, block_r) * cdiv(c, block_c),), rows, r, c, *rows.stride(), word, flag[0],
                   BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4)  # fmt: skip
        verdict = _await_flag(flag[1], t.device)
        if verdict is not None:
            return not verdict
    return bool(torch.isfinite(t).all())


FINITE_BLOCK = 4096
"""Items of ``t`` per program of ``nonfinite_flag_kernel`` (``_finite``)."""


def _as_rows(t: torch.Tensor) -> torch.Tensor | None:
    """A 2-D view of the items of ``t``: a dense ``t`` (either order of its matrices) as rows of the largest power of
    two up to 256 that divides its size (loads of whole vectors), else rows of its last dimension or of its
    matrices' columns, the order of unit stride first; None where neither merges."""
    views = sorted((t, t.mT) if t.ndim >= 2 else (t,), key=lambda v: v.stride(-1) != 1)
    for view in views:
        if view.is_contiguous():
            return view.view(-1, math.gcd(view.numel(), 256))
    for view in views:
        try:
            return view.view(-1, view.shape[-1])
        except RuntimeError:  # its leading dimensions do not merge
            continue
    return None


def _not_finite(op: str, name: str) -> str:
    return f"{op}: {name} must not contain infs or NaNs (pass check_finite=False to skip this check)"


def _batched(t: torch.Tensor) -> torch.Tensor:
    """A 3-D view (batch of one for a single matrix), or 2-D for pivots of one matrix."""
    return t if t.ndim == 3 or (t.ndim == 2 and not t.dtype.is_floating_point) else t.unsqueeze(0)


def _rhs_copy(call: Call, b: torch.Tensor, lu_ndim: int) -> torch.Tensor:
    """A contiguous (batch, n, k) copy of ``b`` on the run device, which the solve overwrites."""
    shape = b.shape if b.ndim == lu_ndim else (*b.shape, 1)
    x = torch.empty(shape, dtype=b.dtype, device=call.run_device)
    x.copy_(b.reshape(shape))
    return x if x.ndim == 3 else x.unsqueeze(0)


def _first_singular(info: torch.Tensor, flag: tuple[torch.Tensor, Any] | None = None) -> tuple[int, int] | None:
    """(matrix, 1-based pivot) of the first matrix with an exactly zero pivot, or None (waits for the GPU).

    A GPU's ``info`` is first summed up on the device into a flag in mapped pinned memory: ``flag``, when the
    factorization that wrote ``info`` set it (``factor(flag=)``), else ``_any_singular``'s. Only a singular
    factorization then copies ``info`` itself into pinned host memory of the thread's own (12-17 us on the H100
    against 29-40 us for torch.nonzero on the device, 2026-11-24) and reads it as a NumPy array."""
    if flag is not None:
        singular = _await_flag(flag[1], info.device)
    else:  # (the flag's kernel launches on the current device)
        here = info.is_cuda and info.numel() and info.get_device() == torch._C._cuda_getDevice()
        singular = _any_singular(info) if here else None
    if singular is False:
        return None
    host = _to_host(info).numpy()
    zeros = host.nonzero()[0]
    return None if not len(zeros) else (int(zeros[0]), int(host[zeros[0]]))


SPIN_SECONDS = 0.002
"""How long ``_await_flag`` polls its flag before it waits for the stream instead (work queued before the
factorization: the host need not spin through it)."""


def _flag(pinned: bool = True, finite: bool = False) -> tuple[torch.Tensor, Any]:
    """The calling thread's flag: an int32 word in pinned host memory (which the device reaches through its mapping
    of it; ``pinned=False``: an ordinary host tensor, for the interpreter) and its NumPy view, set to 0. A
    workspace that plans keep (``_launch.WORKSPACE_TENSORS``): the thread's replays write their flag. ``finite``:
    the finite check's own flag (``_finite``): a checked ``lu_factor`` runs the check after it has taken the other
    flag for its factorization's kernels, which set it later."""
    flags = _PINNED.__dict__.setdefault("flags", {})
    if (entry := flags.get((pinned, finite))) is None:
        flag = torch.zeros(1, dtype=torch.int32, pin_memory=pinned)
        WORKSPACE_TENSORS[id(flag)] = flag
        entry = flags[(pinned, finite)] = (flag, flag.numpy())
    entry[1][0] = 0
    return entry


def _await_flag(view: Any, device: torch.device) -> bool | None:
    """Whether the flag that ``view`` shows says "singular" (2; 1: not), polled until the device has set it: no copy
    and no stream synchronization (H100, 2026-11-26, bench-results/nvidia-h100/2026-11-26-mapped-flag/: the lab's
    measure of lu_factor on 1000 and 10000 matrices of 8 x 8 and 1000 of 16 x 16 26.5-39.9 us against 39.4-64.2
    with the copy and synchronization). None if the stream's work ended without setting it (the caller copies)."""
    deadline = time.perf_counter() + SPIN_SECONDS
    while view[0] == 0 and time.perf_counter() < deadline:
        pass
    if view[0] == 0 and device.type == "cuda":
        torch.cuda.current_stream(device).synchronize()
    return None if view[0] == 0 else int(view[0]) == 2


def _launch_flag(info: torch.Tensor, flag: torch.Tensor) -> None:
    """``any_nonzero_kernel`` (one program): ``flag`` set from the int32 vector ``info`` after the stream's work."""
    _ANY((1,), info, info.numel(), flag, BLOCK=1024)


def _ask_flag(info: torch.Tensor, flag: tuple[torch.Tensor, Any]) -> bool | None:
    """``_launch_flag`` into ``flag`` (``_flag``'s), then ``_await_flag``; None where the device cannot reach the flag
    (Triton refuses the pointer) or the flag was never set."""
    try:
        _launch_flag(info, flag[0])
    except ValueError:  # "cannot be accessed from Triton": no mapped pinned memory on this device
        return None
    return _await_flag(flag[1], info.device)


def _any_singular(info: torch.Tensor) -> bool:
    """Whether the int32 vector ``info`` has a nonzero item, after the current stream's work: through the thread's
    flag (``_ask_flag``), else by the copy."""
    singular = _ask_flag(info, _flag(info.is_cuda))
    return bool(_to_host(info).numpy().any()) if singular is None else singular


@functools.cache
def _flag_reachable(device: int) -> bool:
    """Whether kernels on CUDA device ``device`` (the current one) can set a pinned flag: asked about a zero word,
    the flag must say 1."""
    return _ask_flag(torch.zeros(1, dtype=torch.int32, device=device), _flag()) is False


_PINNED = threading.local()


def _to_host(t: torch.Tensor) -> torch.Tensor:
    """The int32 vector ``t`` on the host: a GPU's copied into a pinned buffer that the calling thread reuses (valid
    until its next call), after the current stream's work; a host tensor as it is."""
    if not t.is_cuda:
        return t
    buffer = getattr(_PINNED, "buffer", None)
    if buffer is None or buffer.numel() < t.numel():
        buffer = _PINNED.buffer = torch.empty(max(t.numel(), 1024), dtype=torch.int32, pin_memory=True)
    host = buffer[: t.numel()]
    host.copy_(t, non_blocking=True)
    torch.cuda.current_stream(t.device).synchronize()
    return host


# --- factorization --------------------------------------------------------------------------------------


def _factor_call(
    op: str, a: Any, overwrite_a: bool, check_finite: bool, flagged: bool = False
) -> tuple[Call, torch.Tensor, torch.Tensor, torch.Tensor, tuple[torch.Tensor, Any] | None]:
    """Checks ``a`` and factors it on the run device: (call, lu, piv, info, flag), lu shaped like ``a``. ``flagged``
    (a caller that checks ``info``): on the current CUDA device, with densela's kernels, the factorization also sets
    the thread's flag (``_flag``), returned for ``_first_singular``; else the flag is None."""
    call = prepare(op, {"a": a})
    ta = call.tensors["a"]
    _check_dtype(op, {"a": ta})
    _errors.check_ndim(op, "a", ta, (2, 3))
    in_place = (
        overwrite_a and isinstance(call.first, torch.Tensor) and ta.device == call.run_device and ta.mT.is_contiguous()
    )
    device = call.run_device
    flag = None
    with call.guard():  # every launch of the call on its run device
        if flagged and device.type == "cuda" and call.backend != "torch":
            flag = _flag() if _flag_reachable(device.index) else None
        lu, piv, info = factor(
            call,
            _batched(ta),
            in_place=in_place,
            check=op if check_finite else None,
            flag=None if flag is None else flag[0],
        )
    if in_place:
        written(ta)
    return call, lu if ta.ndim == 3 else lu[0], piv if ta.ndim == 3 else piv[0], info, flag


def column_major(
    t: torch.Tensor, device: torch.device, check: str | None = None, out: torch.Tensor | None = None
) -> torch.Tensor:
    """A copy of ``t`` on ``device`` with each matrix column-major (LAPACK's order, which the kernels want); a
    (batch, m, n) ``t`` already on a device the kernels run on is copied by densela's transpose kernel (H100,
    2026-11-24: 10000 x 128 x 128 float64 in 0.87 ms, float32 0.44, where torch's copy took 1.42 and 1.17).

    ``check`` (the operation's name): an infinity or NaN in ``t`` raises ValueError, found by the transpose kernel
    as it copies (a pass over the input saved: torch.isfinite took about 0.5 ms of the 9.3 that 10000 x 128 x 128
    float64 took in the lab on the H100, 2026-11-24), else by torch.isfinite before the copy. ``out``: the array to
    copy into (a graph's static buffer; column-major, or row-major for ``ROW_MAJOR_FROM``'s working arrays), else a
    new column-major one."""
    work = (
        torch.empty((*t.shape[:-2], t.shape[-1], t.shape[-2]), dtype=t.dtype, device=device).mT if out is None else out
    )
    if t.device == device and (device.type == "cuda" or INTERPRET) and t.ndim == 3 and t.numel():
        flag = None if check is None else torch.zeros(1, dtype=torch.int32, device=device)
        launch_transpose(t, work.mT, 1.0, flag=flag)
        if flag is not None and flag.item():
            raise ValueError(_not_finite(check, "a"))
        return work
    if check is not None:
        _check_finite(check, a=t)
    return work.copy_(t)


def factor(
    call: Call,
    src: torch.Tensor,
    precision: str = "ieee",
    *,
    in_place: bool = False,
    check: str | None = None,
    flag: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Factors the (batch, m, n) ``src``: (lu, piv (batch, min(m, n)), info (batch,)) on the run device.

    ``in_place``: ``src`` (column-major matrices on the run device) becomes ``lu``. Otherwise ``lu`` is a
    new column-major array; on a GPU the launches of a shape seen before replay as one CUDA graph (the
    Python between a factorization's hundreds of launches costs more than their GPU time below n ~ 8192),
    except for batches, which replay their first call's launches into new arrays (``_replays``), or else, from
    EAGER_BATCH_BYTES on, run launch by launch. ``check`` (the operation's name): an infinity or NaN in
    ``src`` raises ValueError before the factorization's first launch (``column_major``). ``flag`` (a GPU
    factorization's, from ``_flag``): the device sets it once ``info`` is written (``_await_flag``), from the small
    batches' own kernel or else by ``any_nonzero_kernel`` after the factorization. The caller has made the run
    device current (``call.guard()``), as the public functions do around all their launches.
    """
    batch, m, n = src.shape
    warp, small = None, False
    if batch > 1 and call.backend != "torch" and min(m, n):
        warp = _warp_launch(m, n, src.element_size()) if call.run_device.type == "cuda" and not INTERPRET else None
        if warp and warp.split > 1 and src.element_size() == 8 and m >= n and batch >= WARP_FLOAT64_BATCH:
            warp = None
        small = bool(warp) or _pow2(m) * _pow2(n) <= BATCHED_SMALL
    if check is not None and (small or in_place):  # otherwise the copy into the working array checks
        _check_finite(check, a=src)
    if small:
        if in_place:
            return _factor_small(call, src, True, warp, flag)
        # one launch into new arrays: later calls of the same signature replay it (host time decides these calls);
        # a flagged plan writes the flag it recorded (the calling thread's), which it keeps alive: keyed on its id
        settings = (warp, None if flag is None else id(flag))
        return replayed("lu_factor", (), settings, (src,), None, lambda: _factor_small(call, src, False, warp, flag))
    lu, piv, info = _factor_large(call, src, precision, in_place, check)
    if flag is not None:
        _launch_flag(info, flag)
    return lu, piv, info


def _factor_large(
    call: Call, src: torch.Tensor, precision: str, in_place: bool, check: str | None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``factor`` of what the small batches' one launch does not take: launch by launch, a replay of the first
    call's launches (``_replays``), or a captured graph."""
    batch, m, n = src.shape
    # a batch whose GPU time outlasts its launches' host time runs launch by launch in its result: a graph's
    # replay works in static buffers, copied into and out of (10000 x 128 x 128 float64: 0.9 of 15 ms to copy out)
    large = batch > 1 and (_whole(m, n, src.element_size()) or src.numel() * src.element_size() >= EAGER_BATCH_BYTES)
    eager = in_place or large or call.backend == "torch" or call.run_device.type != "cuda" or min(m, n) == 0
    # Large square matrices may be factored by densela's kernels in a row-major working array (ROW_MAJOR_FROM), lu
    # returned column-major (torch's LU, the backend without Triton, copies into LAPACK's order itself)
    rows = call.backend != "torch" and not in_place and batch == 1 and m == n >= ROW_MAJOR_FROM.get(src.dtype, m + 1)

    def working(out: torch.Tensor | None = None) -> torch.Tensor:
        if out is None and rows:
            out = torch.empty((batch, m, n), dtype=src.dtype, device=call.run_device)
        return column_major(src, call.run_device, check, out)  # a copy into ``out``, whatever its layout

    def finished(lu: torch.Tensor, piv: torch.Tensor, info: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return column_major(lu, call.run_device) if rows else lu, piv, info

    tuning = (
        _blocks(m, n),
        BATCH_BLOCKS,
        BATCHED_BYTES,
        PANEL_ROWS,
        PANEL_PROGRAMS_PER_SM,
        LOOKAHEAD_FROM,
        rows,
    )
    if _replays(call, src, in_place, check):
        # the launches of the first call of this signature, replayed on later calls' arrays: no graph's copies
        # in and out, and less host time before the first launch than the eager path's
        return replayed("lu_factor", (), ("blocked", precision, *tuning), (src,), None,
                        lambda: _factor_eager(call, working(), precision))  # fmt: skip
    if eager:
        return finished(*_factor_eager(call, src if in_place else working(), precision))
    key = ("lu_factor", src.shape, src.dtype, call.run_device, precision, *tuning)

    def make() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        shape = (batch, m, n) if rows else (batch, n, m)
        work = torch.empty(shape, dtype=src.dtype, device=call.run_device)
        work = work if rows else work.mT
        piv = torch.empty((batch, min(m, n)), dtype=torch.int32, device=call.run_device)
        return work, piv, torch.empty(batch, dtype=torch.int32, device=call.run_device)

    def body(buffers: tuple[torch.Tensor, torch.Tensor, torch.Tensor]) -> None:
        _run_factor(*buffers, precision)

    entry = GRAPHS.get(key, make, body)
    if entry is None:
        return finished(*_factor_eager(call, working(), precision))
    (work, piv, info), replay = entry
    working(work)
    replay()
    return finished(work if rows else work.clone(), piv.clone(), info.clone())


def _factor_eager(call: Call, a: torch.Tensor, precision: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Factors the (batch, m, n) ``a`` (column-major, or row-major: ``ROW_MAJOR_FROM``) in place, launch by
    launch."""
    batch, m, n = a.shape
    if call.backend == "torch":
        lu, piv, info = torch.linalg.lu_factor_ex(a)
        a.copy_(lu)
        return a, (piv - 1).to(torch.int32), info.to(torch.int32)
    piv = torch.empty((batch, min(m, n)), dtype=torch.int32, device=a.device)  # the panels write it whole
    info = (torch.empty if min(m, n) else torch.zeros)((batch,), dtype=torch.int32, device=a.device)  # the first panel
    if min(m, n):
        _run_factor(a, piv, info, precision)
    return a, piv, info


def _factor_small(
    call: Call, src: torch.Tensor, in_place: bool, warp: _WarpLaunch | None, flag: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Factors the batch ``src`` of small matrices in one launch, by ``lu_warp_kernel`` as ``warp`` says
    (``_warp_launch``) or, without one, by ``lu_batched_kernel``: reads ``src`` as it is laid out and writes a
    column-major ``lu`` (``src`` itself when ``in_place``). ``flag`` (``factor``'s): ``lu_warp_kernel``'s last
    program sets it (saving the 9-11 us of host time that launching ``any_nonzero_kernel`` took, H100,
    2026-11-26), else ``any_nonzero_kernel`` after ``lu_batched_kernel``."""
    batch, m, n = src.shape
    src = src.to(call.run_device)
    lu = src if in_place else torch.empty((batch, n, m), dtype=src.dtype, device=src.device).mT
    piv = torch.empty((batch, min(m, n)), dtype=torch.int32, device=src.device)
    info = torch.empty((batch,), dtype=torch.int32, device=src.device)
    sizes = (batch, m, n, *src.stride(), *lu.stride(), piv.stride(0), info.stride(0))
    rows, cols = _pow2(m), _pow2(n)
    if warp:
        _launch_warp(warp, src, lu, piv, info, flag=flag)
    else:
        mats, warps = _small_launch(m, n, src.element_size())
        _BATCHED((cdiv(batch, mats),), src, lu, piv, info, *sizes, MATS=mats, ROWS=rows, COLS=cols,
                 num_warps=warps)  # fmt: skip
        if flag is not None:
            _launch_flag(info, flag)
    return lu, piv, info


def _launch_warp(
    warp: _WarpLaunch,
    src: torch.Tensor,
    lu: torch.Tensor,
    piv: torch.Tensor,
    info: torch.Tensor,
    *,
    flag: torch.Tensor | None = None,
    perm: torch.Tensor | None = None,
    row_base: int = 0,
) -> None:
    """``lu_warp_kernel`` as ``warp`` says on the batch ``src`` into ``lu`` (``src`` itself in place): a whole
    factorization (``flag``, the thread's: set by the launch's last program), or a panel of the blocked path
    (``perm``: its interchanges for ``permute_solve_kernel``; ``piv`` and ``info`` counted from ``row_base``)."""
    batch, m, n = src.shape
    cap = {"maxnreg": warp.registers} if warp.split > 1 else {}
    counts = info if flag is None else kept_counters("lu-flag", 2, src.device)  # unused pointers: info stands in
    q = info if perm is None else perm
    _WARP((cdiv(batch, warp.mats),), src, lu, piv, info, info if flag is None else flag, counts, q,
          batch, m, n, row_base, *src.stride(), *lu.stride(), piv.stride(0), info.stride(0), q.stride(0),
          ROWS=_pow2(m), COLS=_pow2(n), LANES=warp.lanes, WARPS=warp.warps, SPLIT=warp.split, FLAG=flag is not None,
          WRITE_PERM=perm is not None, num_warps=warp.warps, **cap)  # fmt: skip


class _WarpLaunch(NamedTuple):
    """How ``lu_warp_kernel`` takes a batch of m x n matrices (``_warp_launch``)."""

    lanes: int
    """threads per row"""
    split: int
    """warps per matrix (1: a matrix within one warp)"""
    warps: int
    """warps per program"""
    mats: int
    """matrices per program"""
    registers: int
    """registers per thread when a matrix spans warps: as many as the most programs that fit an SM leave each"""


def _warp_launch(m: int, n: int, itemsize: int) -> _WarpLaunch | None:
    """``lu_warp_kernel``'s launch for m x n matrices of ``itemsize`` bytes, or None where it does not take them.

    A thread holds at most WARP_COLUMNS columns of a row. Up to 32 threads' rows a matrix takes one warp (several
    matrices share it); up to WARP_SPLIT_THREADS it spans warps, where a thread needs about 40 registers besides
    its part of its row and of the pivot row, and at least one program must fit an SM (128 x 128 float64 would not:
    it spilled 8-11 KB per thread). H100, 2026-11-24: 64 x 64 float64 compiles to 198 registers uncapped (two
    programs per SM), to 160 without spilling, and took 2.33 ms for 10000 matrices capped at 168 (three per SM)
    against 2.68 uncapped."""
    rows = _pow2(m)
    lanes = max(1, -(-_pow2(n) // WARP_COLUMNS))
    threads = rows * lanes
    if threads <= 32:
        warps = WARP_WARPS if rows > 16 else 1
        return _WarpLaunch(lanes, 1, warps, warps * 32 // threads, 255)
    need = 2 * (_pow2(n) // lanes * itemsize // 4) + 40
    programs = 65536 // (threads * need)
    if threads > WARP_SPLIT_THREADS or not programs:
        return None
    split = threads // 32
    return _WarpLaunch(lanes, split, split, 1, min(255, 65536 // (threads * programs) // 8 * 8))


def _small_launch(m: int, n: int, itemsize: int) -> tuple[int, int]:
    """(matrices per program, warps) of ``lu_batched_kernel`` for m x n matrices (see BATCHED_SMALL)."""
    elements = _pow2(m) * _pow2(n)
    mats = max(1, BATCHED_SMALL_BYTES // itemsize // elements)
    return mats, max(1, mats * elements // 256) if elements <= 64 else 1


def _whole(m: int, n: int, itemsize: int) -> bool:
    """Whether each m x n matrix of a batch is factored whole by one program (one launch for the batch)."""
    return _pow2(m) * _pow2(n) * itemsize <= BATCHED_BYTES


def _run_factor(a: torch.Tensor, piv: torch.Tensor, info: torch.Tensor, precision: str) -> None:
    """The launches that factor the column-major (batch, m, n) ``a`` (info zero on entry), as dependent launches
    (``DEPENDENT_LAUNCHES``) on GPUs that have them (Hopper and later), except with look-ahead."""
    hopper = a.is_cuda and torch.cuda.get_device_capability(a.device) >= (9, 0)
    with dependent_launches(DEPENDENT_LAUNCHES and hopper and not _ahead(*a.shape[1:])):
        _run_factor_launches(a, piv, info, precision)


def _run_factor_launches(a: torch.Tensor, piv: torch.Tensor, info: torch.Tensor, precision: str) -> None:
    batch, m, n = a.shape
    blocks = _blocks(m, n)
    if batch > 1 and _whole(m, n, a.element_size()):
        _launch_panel(a, piv, info, 0, None)
    elif _together(batch, m):
        _factor_columns(_Work(a, piv, info, precision), 0, n, _blocks(m, n, batched=True), n)
    else:
        for i in range(batch):
            work = _Work(a[i : i + 1], piv[i : i + 1], info[i : i + 1], precision)
            if _ahead(m, n):
                _factor_ahead(work, blocks)
            else:
                _factor_columns(work, 0, n, blocks, n)


def _together(batch: int, m: int) -> bool:
    """Whether a batch of matrices of m rows is factored by the blocked algorithm with each launch over the whole
    batch (a panel of one matrix fits one program, ``ONE_PROGRAM_ELEMENTS``), not one matrix at a time."""
    return batch > 1 and _pow2(m) * _blocks(m, m, batched=True)[-1] <= ONE_PROGRAM_ELEMENTS


def _replays(call: Call, src: torch.Tensor, in_place: bool, check: str | None) -> bool:
    """Whether ``_factor_large`` replays the launches of the first call of the batch's signature (``replayed``): it
    must launch densela's kernels alone, which a replay repeats (torch's operations it would skip), so ``src`` is a
    batch already on the run device (no torch copy there), unchecked (``column_major``'s check waits for its flag on
    the host), not factored in place, and factored whole in one launch (``_whole``) or together with all its columns
    in one outer block and at least as many rows as columns, so that no block row is solved outside the panels
    (``_solve_block_row`` copies through torch)."""
    batch, m, n = src.shape
    together = _together(batch, m) and n <= _blocks(m, n, batched=True)[0] and m >= n
    plain = check is None and not in_place and call.backend != "torch" and src.device == call.run_device
    return plain and batch > 1 and min(m, n) > 0 and (_whole(m, n, src.element_size()) or together)


def _ahead(m: int, n: int) -> bool:
    """Whether an m x n matrix is factored with look-ahead (``_factor_ahead``), one matrix at a time."""
    return m == n >= LOOKAHEAD_FROM and len(_blocks(m, n)) > 1


@dataclass
class _Work:
    """One matrix being factored (views of batch size 1), and the panel kernel's exchange buffers."""

    a: torch.Tensor
    piv: torch.Tensor
    info: torch.Tensor
    precision: str
    counters: torch.Tensor | None = None
    """The panel kernel's arrival counters, one per column, zero until that column is factored."""
    perm: torch.Tensor | None = None
    """The last panel's interchanges as a permutation (``lu_panel_kernel``), for ``permute_solve_kernel``."""
    window: tuple[int, int] | None = None
    """Columns [lo, hi) that the panels' interchanges reach (``_factor_ahead``); None: every column."""


def _factor_ahead(work: _Work, blocks: tuple[int, ...]) -> None:
    """The blocked factorization of one square matrix with look-ahead: block j + 1 is factored on a second
    stream while the trailing update of the columns right of it runs.

    Each block of ``blocks[0]`` columns is factored with its interchanges confined to its own columns (the
    other columns may be in use on the other stream), then ``_finish_block`` applies them to the rest and
    solves the block row; the next block's columns take their update first, then fork off. On the CPU
    (interpreter) the same launches run in order.
    """
    a = work.a
    n = a.shape[2]
    width = blocks[0]
    main = torch.cuda.current_stream(a.device) if a.is_cuda else None
    tiles = work.precision == "ieee" and n >= AHEAD_UPDATE_TILES_FROM.get(a.dtype, n + 1)
    _factor_window(work, 0, min(width, n), blocks[1:])
    for k in range(0, n, width):
        end = min(k + width, n)
        _finish_block(work, k, end)
        if end == n:
            break
        ahead = min(end + width, n)
        l21, u12 = a[:, end:, k:end], a[:, k:end, end:]
        _update(l21, u12[:, :, : ahead - end], a[:, end:, end:ahead], work.precision)
        if main is None:
            _factor_window(work, end, ahead - end, blocks[1:])
        else:
            side = _side_stream(a.device)
            side.wait_stream(main)
            with torch.cuda.stream(side):
                _factor_window(work, end, ahead - end, blocks[1:])
        _update(l21, u12[:, :, ahead - end :], a[:, end:, ahead:], work.precision, tiles)
        if main is not None:
            main.wait_stream(side)


def _factor_window(work: _Work, k: int, width: int, blocks: tuple[int, ...]) -> None:
    """Factors columns [k, k + width) from row k down, their interchanges applied to those columns only."""
    work.window = (k, k + width)
    _factor_columns(work, k, width, blocks, k + width)
    work.window = None


def _finish_block(work: _Work, k: int, end: int) -> None:
    """After ``_factor_window`` on columns [k, end): their interchanges on every other column, and the block
    row right of them solved, ``U12 = L11^-1 A12``."""
    a = work.a
    n = a.shape[2]
    moves = work.piv[:, k:end] - k  # row numbers within the rows from k down
    if k:
        _launch_interchanges(a[:, k:, :k], moves)
    if end < n:
        _launch_interchanges(a[:, k:, end:], moves)
        _solve_block_row(a[:, k:end, k:end], a[:, k:end, end:], "ieee")


_SIDE_STREAMS: dict[torch.device, torch.cuda.Stream] = {}


def _side_stream(device: torch.device) -> torch.cuda.Stream:
    """The second stream of ``_factor_ahead`` on ``device``, created once, at a higher priority than the default
    stream: the block scheduler then places the panel's programs as soon as SMs free up, ahead of the trailing
    update's remaining tiles (H100, 2026-11-25: n = 8192 float64 47.4 ms against 51.8 at the default priority,
    16384 180.6 against 205.0)."""
    if device not in _SIDE_STREAMS:
        _SIDE_STREAMS[device] = torch.cuda.Stream(device, priority=-1)
    return _SIDE_STREAMS[device]


def _blocks(m: int, n: int, batched: bool = False) -> tuple[int, ...]:
    """The block widths for an m x n matrix, or (``batched``) for a batch of them factored together."""
    if INTERPRET:
        return INTERPRET_BLOCKS
    if batched:
        return BATCH_BLOCKS
    return LARGE_BLOCKS if min(m, n) >= LARGE_FROM else SMALL_BLOCKS if m <= SMALL_ROWS else BLOCKS


def _factor_columns(work: _Work, col0: int, width: int, blocks: tuple[int, ...], solve_end: int) -> None:
    """Factors columns [col0, col0 + width) of ``work.a`` from row col0 down, blocks of ``blocks[0]`` columns.

    On return every column has taken the block's interchanges (each panel's kernel applies them to the whole
    matrix), and the block's rows of columns [col0 + width, solve_end) are solved (U12 = L11^-1 A12): a
    panel's kernel solves its own rows up to its innermost block's end, and each level solves its block's
    rows up to the enclosing block's end once the block is factored; the caller's update does the rest.
    """
    a = work.a
    cend = col0 + width
    rend = min(a.shape[1], cend)
    for k in range(col0, rend, blocks[0]):
        w = min(blocks[0], rend - k)
        if len(blocks) == 1:
            _launch_panel(a[:, k:, k : k + w], work.piv[:, k:], work.info, k, work)
            _launch_permute_solve(work, k, w, cend)
        else:
            _factor_columns(work, k, w, blocks[1:], cend)
        _update(a[:, k + w :, k : k + w], a[:, k : k + w, k + w : cend], a[:, k + w :, k + w : cend], work.precision)
    if cend < solve_end:
        # in full float32 whatever the update precision: L11^-1 may be large, and TF32 rounding of it and of A12
        # cost the TF32 factorization most of its accuracy (refinement at cond 1e6 stalled)
        _solve_block_row(a[:, col0:rend, col0:rend], a[:, col0:rend, cend:solve_end], "ieee")


def _pow2(x: int) -> int:
    return 1 << max(0, x - 1).bit_length()


def _launch_panel(
    panel: torch.Tensor, piv: torch.Tensor, info: torch.Tensor, row_base: int, work: _Work | None
) -> None:
    """The panel kernel on the (batch, rows, width) column-major ``panel``: one program per matrix, or for a
    single tall panel its rows over up to one program per SM, which exchange pivot candidates.

    A batch's panels on the GPU go to ``lu_warp_kernel`` where it takes them (one barrier a column across warps,
    pivots by ``redux.sync``) rather than ``lu_panel_kernel``: H100, 2026-11-27, ``lu_factor_ex`` of 10000 x 128 x
    128 float64 8827 -> 6657 us, 1000 x 96 x 96 579 -> 431, float32 1.20-1.24x."""
    batch, rows, width = panel.shape
    nb = max(2, _pow2(width))
    if work is not None and (work.perm is None or work.perm.shape[1] < 2 * nb):
        work.perm = scratch((batch, 2 * nb), torch.int32, panel.device)
    warp = None
    if batch > 1 and work is not None and width > 1 and panel.is_cuda and not INTERPRET:
        warp = _warp_launch(rows, width, panel.element_size())
    if warp is not None:
        _launch_warp(warp, panel, panel, piv, info, perm=work.perm, row_base=row_base)
        return
    rows_per = max(2, _pow2(rows))
    programs = 1
    sync = work is not None and batch == 1 and rows_per * nb > ONE_PROGRAM_ELEMENTS
    if sync and not INTERPRET:
        slots = PANEL_PROGRAMS_PER_SM * multiprocessors(panel.device.index)
        rows_per = max(PANEL_ROWS, _pow2(cdiv(rows, slots)))
        programs = cdiv(rows, rows_per)
    parts = max(2, _pow2(programs))
    warp_rows = BATCH_PANEL_WARP_ROWS.get(panel.element_size(), 32) if batch > 1 and work is not None else 32
    rows_buffer = scratch((batch, 2 * parts, nb), panel.dtype, panel.device)
    perm = piv if work is None else work.perm  # a whole batch in one launch has no other columns to permute
    best = rows_buffer
    at = counters = piv
    if sync:
        assert work is not None
        if work.counters is None:
            work.counters = torch.zeros(min(work.a.shape[1:]), dtype=torch.int32, device=panel.device)
        best = torch.empty(2 * parts, dtype=panel.dtype, device=panel.device)
        at = torch.empty(2 * parts, dtype=torch.int32, device=panel.device)
        counters = work.counters[row_base:]
    _PANEL((programs, batch),
        panel, piv, info, perm,
        rows_buffer, best, at, counters,
        rows, width, row_base,
        *panel.stride(),
        piv.stride(0), info.stride(0), perm.stride(0), rows_buffer.stride(0),
        ROWS=rows_per, NB=nb, PARTS=parts, GRID_SYNC=sync, WRITE_PERM=work is not None, ASM=not INTERPRET,
        SHARED=not INTERPRET and not sync and batch == 1,  # batches: 0-3% slower with it (docs/lu.md)
        ROWS_IN_THREADS=ROWS_IN_THREADS[panel.element_size()], num_warps=max(1, min(8, rows_per // warp_rows)),
    )  # fmt: skip


def _launch_permute_solve(work: _Work, k: int, w: int, solve_end: int) -> None:
    """Applies the interchanges of the panel at column k (width w) to every other column of ``work.a`` (of
    ``work.window`` when set) and solves its rows of columns [k + w, solve_end) (``permute_solve_kernel``,
    ``PERMUTE_PROGRAMS``)."""
    lo, hi = work.window or (0, work.a.shape[2])
    a = work.a[:, :, lo:hi]  # columns numbered from lo
    batch, m, n = a.shape
    block, gather = PERMUTE_PROGRAMS[a.element_size()]
    rows_in_threads = ROWS_IN_THREADS[a.element_size()]
    left = cdiv(k - lo, block)
    programs = left + cdiv(n - (k - lo) - w, block)
    if programs == 0:
        return
    assert work.perm is not None
    _PERMUTE((programs, batch),
        a, work.perm,
        n, k, min(m - k, w), k - lo, k - lo + w, solve_end - lo, left,
        *a.stride(), work.perm.stride(0),
        GATHER=gather and (rows_in_threads or a.stride(1) == 1), NB=max(2, _pow2(w)), BLOCK=block,
        ROWS_IN_THREADS=rows_in_threads, num_warps=1,
    )  # fmt: skip


def _launch_interchanges(a: torch.Tensor, piv: torch.Tensor, reverse: bool = False) -> None:
    """Interchanges rows i and piv[i] of the (batch, m, n) ``a`` for every i of ``piv`` in order (reverse: undone,
    last first), ``INTERCHANGE_GROUP`` interchanges per step (``INTERCHANGE_GROUP_NARROW`` for at most 16 columns;
    ``interchange_rows_kernel``)."""
    batch, m, n = a.shape
    count = piv.shape[-1]
    if count == 0 or n == 0:
        return
    block = min(64, max(16, _pow2(n)))
    _INTERCHANGE((cdiv(n, block), batch),
        a, piv,
        count, m, n,
        *a.stride(), piv.stride(0),
        REVERSE=reverse, GROUP=INTERCHANGE_GROUP_NARROW if n <= 16 else INTERCHANGE_GROUP, BLOCK=block,
        num_warps=4,
    )  # fmt: skip


def _update(l21: torch.Tensor, u12: torch.Tensor, a22: torch.Tensor, precision: str, tiles: bool = False) -> None:
    """``a22 -= l21 @ u12`` through densela's GEMM (nothing when a22 is empty); ``tiles``: on the tiles kernel."""
    if a22.numel() == 0:
        return
    _product(l21, u12, a22, -1.0, 1.0, precision, tiles)


def _product(
    x: torch.Tensor, y: torch.Tensor, out: torch.Tensor, alpha: float, beta: float, precision: str, tiles: bool = False
) -> None:
    """``out = beta * out + alpha * x @ y`` (beta 0: out not read) on (batch, ., .) views: a batch of one as 2-D
    (which takes the TMA kernel), a column-major ``out`` through the transposed views ``out.T = y.T @ x.T``, which
    are row-major. ``tiles``: on the tiles kernel (``launch_gemm(tma=False)``)."""
    if out.shape[0] == 1:
        x, y, out = x[0], y[0], out[0]
    if out.stride(-2) == 1 and out.stride(-1) != 1:
        x, y, out = y.mT, x.mT, out.mT
    if precision == "bf16":
        # operands rounded to bfloat16, multiplied exactly on TF32 tensor cores with float32 accumulation (a
        # bfloat16-input GEMM writing float32 exceeded the TMA kernel's shared memory at n = 16384)
        x, y = x.to(torch.bfloat16).to(x.dtype), y.to(torch.bfloat16).to(y.dtype)
        precision = "tf32"
    precision = precision if x.dtype == torch.float32 else "ieee"
    launch_gemm(x, y, out if beta else None, out, alpha, beta, precision, tma=not tiles)


def _solve_block_row(l11: torch.Tensor, u12: torch.Tensor, precision: str) -> None:
    """``u12 <- L11^-1 u12`` for the unit lower triangle of ``l11``: its inverse (``_triangle_inverse``), then one
    GEMM from a copy of ``u12``."""
    batch, w, rest = u12.shape
    inverse = _triangle_inverse(l11, lower=True, unit=True, precision=precision)
    copy = torch.empty((batch, w, rest), dtype=u12.dtype, device=u12.device)
    copy.copy_(u12)
    _product(inverse, copy, u12, 1.0, 0.0, precision)


def _triangle_inverse(t: torch.Tensor, *, lower: bool, unit: bool, precision: str) -> torch.Tensor:
    """The inverse of the lower or upper triangle of each matrix of the (batch, n, n) ``t`` (its diagonal taken as
    ones where ``unit``), a new row-major (batch, n, n) array: the diagonal blocks of SOLVE_BLOCK rows solved from
    the identity in one launch of the triangular-solve kernel, then, as LAPACK's trtri, inverses of twice the size
    from pairs of inverted ones, [A 0; C B]^-1 = [A^-1 0; -B^-1 C A^-1 B^-1] (for an upper triangle
    [A C; 0 B]^-1 = [A^-1 -A^-1 C B^-1; 0 B^-1]), two GEMMs per pair. The block solves had run one after the
    other, each behind the GEMM of the one before: n = 1000 float64 lost 0.76 of its 2.85 ms there (H200,
    2026-11-26, bench-results/nvidia-h200/2026-11-26-pdl/)."""
    batch, n, _ = t.shape
    inverse = torch.eye(n, dtype=t.dtype, device=t.device).expand(batch, n, n).contiguous()
    _launch_block_solve(t, inverse, lower, unit, diagonal=SOLVE_BLOCK)
    s = SOLVE_BLOCK
    while s < n:
        for p in range(0, n - s, 2 * s):
            a, b = slice(p, p + s), slice(p + s, min(p + 2 * s, n))
            # the off-diagonal block (rows, cols), and which diagonal block multiplies it first: lower X21 = -X22
            # (L21 X11), upper X12 = -X11 (U12 X22)
            rows, cols, first, then = (b, a, a, b) if lower else (a, b, b, a)
            off = t[:, rows, cols]
            part = torch.empty(off.shape, dtype=t.dtype, device=t.device)
            _product(off, inverse[:, first, first], part, 1.0, 0.0, precision)
            _product(inverse[:, then, then], part, inverse[:, rows, cols], -1.0, 0.0, precision)
        s *= 2
    return inverse


def _triangular_solve(t: torch.Tensor, b: torch.Tensor, *, lower: bool, unit: bool, precision: str) -> None:
    """Overwrites the (batch, n, k) ``b`` with T^-1 b for the triangle of the (batch, n, n) ``t``: the kernel
    solves diagonal blocks of SOLVE_BLOCK rows, GEMM carries each solved block into the rows still to come."""
    n = t.shape[-1]
    starts = range(0, n, SOLVE_BLOCK)
    for s in starts if lower else reversed(starts):
        e = min(s + SOLVE_BLOCK, n)
        _launch_block_solve(t[:, s:e, s:e], b[:, s:e], lower, unit)
        if lower and e < n:
            _update(t[:, e:, s:e], b[:, s:e], b[:, e:], precision)
        elif not lower and s > 0:
            _update(t[:, :s, s:e], b[:, s:e], b[:, :s], precision)


def _launch_block_solve(t: torch.Tensor, b: torch.Tensor, lower: bool, unit: bool, diagonal: int = 0) -> None:
    """The triangular-solve kernel, ``SOLVE_COLUMNS`` columns a program; fastest for row-major ``b``, where each
    thread holds whole columns. ``diagonal``: every diagonal block of that many rows and columns of ``t`` and
    ``b`` (square), all in one launch, instead of the whole of them."""
    batch, n, k = b.shape
    rows, columns, blocks = (min(n, diagonal), min(k, diagonal), cdiv(n, diagonal)) if diagonal else (n, k, 1)
    _SOLVE((cdiv(columns, SOLVE_COLUMNS), batch, blocks),
        t, b,
        rows, columns, max(n, k), diagonal,
        *t.stride(), *b.stride(),
        LOWER=lower, UNIT=unit, NB=max(2, _pow2(rows)), BLOCK_K=SOLVE_COLUMNS,
        num_warps=1,
    )  # fmt: skip


def _solve_factored(call: Call, lu: torch.Tensor, piv: torch.Tensor, x: torch.Tensor, trans: int) -> None:
    """Overwrites the (batch, n, k) ``x`` with A^-1 x (trans=0) or A^-T x from packed factors on the run device."""
    if call.backend == "torch":
        x.copy_(torch.linalg.lu_solve(lu, (piv + 1).to(torch.int32), x, adjoint=bool(trans)))
        return
    if x.shape[0] == 1 and x.shape[2] <= SWEEP_COLUMNS:
        sweeps = _Sweeps(lu[0], piv[0], trans)
        source = x[0].clone() if trans == 0 else x[0]
        sweeps(source, x[0])
        return
    if trans == 0:
        _launch_interchanges(x, piv)
    # A^T = U^T L^T P: U^T (not unit) is the lower triangle of lu.mT, L^T (unit) its upper one
    _solve_triangles(lu if trans == 0 else lu.mT, x, unit_lower=trans == 0)
    if trans:
        _launch_interchanges(x, piv, reverse=True)


def _solve_triangles(t: torch.Tensor, x: torch.Tensor, *, unit_lower: bool) -> None:
    """Overwrites the (batch, n, k) ``x`` with U^-1 L^-1 x for the lower triangle L and the upper triangle U of
    each matrix of the (batch, n, n) ``t`` (L's diagonal taken as ones when ``unit_lower``, else U's).

    Up to ``_inverse_block()`` rows: ``_triangular_solve`` in place. More: by the inverses of the diagonal
    blocks of that many rows (``_diagonal_inverses``, float64, rounded to ``x``'s dtype), two GEMMs per block
    and triangle (``_inverse_solve``), from ``x`` into a scratch and back.
    """
    n = t.shape[-1]
    block = _inverse_block()
    if n <= block:
        _triangular_solve(t, x, lower=True, unit=unit_lower, precision="ieee")
        _triangular_solve(t, x, lower=False, unit=not unit_lower, precision="ieee")
        return
    lower, upper = (inverse.to(x.dtype) for inverse in _diagonal_inverses(t, block, unit_lower=unit_lower))
    y = torch.empty_like(x)
    _inverse_solve(t, lower, x, y, lower=True)
    _inverse_solve(t, upper, y, x, lower=False)


def _inverse_solve(
    t: torch.Tensor, inverses: torch.Tensor, src: torch.Tensor, dst: torch.Tensor, *, lower: bool
) -> None:
    """Writes ``dst = T^-1 src`` (both (batch, n, k)) for the lower or upper triangle T of each matrix of the
    (batch, n, n) ``t``, from the (batch, blocks, block, block) inverses of its diagonal blocks: block by
    block, from the first (lower) or the last, one GEMM multiplies the block's rows of ``src`` by the block's
    inverse into ``dst``, another subtracts their product with T's column block from the rows of ``src`` still
    to come (``src`` is overwritten)."""
    n = t.shape[-1]
    block = inverses.shape[-1]
    count = cdiv(n, block)
    for j in range(count) if lower else reversed(range(count)):
        s, e = j * block, min((j + 1) * block, n)
        _product(inverses[:, j, : e - s, : e - s], src[:, s:e], dst[:, s:e], 1.0, 0.0, "ieee")
        if lower:
            _update(t[:, e:, s:e], dst[:, s:e], src[:, e:], "ieee")
        else:
            _update(t[:, :s, s:e], dst[:, s:e], src[:, :s], "ieee")


# --- solve and refinement ---------------------------------------------------------------------------------

SWEEP_BLOCK = 64
"""Rows per program of refinement's one-launch triangular solves (``sweep_solve_kernel``)."""
SWEEP_TILE_COLUMNS = 32
"""Most right-hand sides one program of the sweeps solves at once, by tile products through ``tl.dot`` (float64
DMMA, float32 FMA). With 32 per program the sweeps take 3.0-3.7 ms (float64) and 2.7-3.1 ms (float32) for 8 to
32 right-hand sides at n = 8192, where one program per column took 3.9-8.9 ms (H100, 2026-11-23)."""
INTERPRET_SWEEP_BLOCK = 4
"""The same under Triton's interpreter, so that small test matrices take several blocks."""
SWEEP_COLUMNS = 512
"""``lu_solve`` of one matrix with at most this many right-hand sides solves by two one-launch sweeps
(``_Sweeps``: 2 launches per solve plus set-up); more, and batches, go through the blocked solves
(``_solve_triangles``: two GEMMs per INVERSE_BLOCK rows and triangle). Where the two cross at n = 8192 (H100,
2026-11-23 evening, ``lu-explore.py solve``; ``bench-results/nvidia-h100/2026-11-23-sweep-tiles``): float64
sweeps 3.5-4.0, 3.0, 3.7, 3.3, 4.0, 6.6, 18.7 ms at k = 1, 8, 32, 64, 128, 512, 2048 against the blocked solves'
10.3-11.5, 11.5, 7.2, 10.8, 10.6, 7.3, 11.8; float32 2.7, 2.7, 3.1, 3.2, 3.6, 7.1, 20.7 against 6.8-8.1, 7.5,
6.7, 6.7, 6.7, 7.9-9.1, 12.0."""
INVERSE_BLOCK = 512
"""Rows of the diagonal blocks whose inverses the blocked solves multiply by (``_solve_triangles``; a matrix of
at most this many rows is solved by ``_triangular_solve`` instead): fewer, larger launches against more work in
the inverses (``batch n INVERSE_BLOCK^2`` flops per triangle) and in their products (``2 n INVERSE_BLOCK k``).
At n = 8192 (H100, 2026-11-23, scripts/lu-explore.py solve) 512 beat 256 and 128 for every k >= 64 in float64
and float32 (k = 64: 12.1 ms against 15.9 and 17.7 in float64; k = 512: 12.0 against 15.7 and 25.1); the time
barely grows with k, so launches and the inverses, not the products, set it."""
INTERPRET_INVERSE_BLOCK = 8
"""The same under Triton's interpreter, so that small test matrices take several blocks."""
MATVEC_BLOCKS = (64, 128)
"""(rows per program, columns per step) of ``matvec_kernel``: refinement's residuals and GMRES's products."""
MAX_REFINEMENTS = 12
"""Outer refinement steps (float64 residuals) before ``solve`` falls back to a float64 factorization."""
KRYLOV = 100
"""GMRES iterations per refinement step at most."""
GMRES_PREDICT_FROM = 10
"""GMRES iterations after which a refinement whose GMRES converges too slowly to finish within MAX_APPLICATIONS gives
up (``_gmres``'s ``stalled``) and ``solve`` factors in float64 at once, instead of spending the rest of the budget.
CPU emulation of TF32 and bfloat16 factors (``scripts/refine-emulate.py``, n = 1024 to 4096; bench-results/
cpu-emulation/2026-11-27-stall/): the refinements that fell back after 80 applications fall back after 12 to 56 (12-13
for most); those that converge (up to 78 applications; float32 factors up to cond 1e6) take the same applications as
before. Not run on a GPU."""
MAX_APPLICATIONS = 80
"""Applications of the preconditioner (the low-precision factors' two triangular solves) that the refinement of one
right-hand side may spend before ``solve`` gives up and factors in float64. Once the applications cost more than that
factorization, going on risks more than it can save; 80 is about twice its time at n = 8192 on the H100 (an application
about 1 ms, session 50; the float64 factorization 44 ms, lab lu-refine at be43b12 in
bench-results/nvidia-h100/2026-11-27-host-launch/) and above the 68 that the lab's converging bfloat16 solve takes
there at cond 1e2 (TF32: 19). Without it, GMRES's 100 iterations a step let a stagnating refinement run about 200
applications before falling back (TF32 and bfloat16 at cond 1e6: 241-248 ms at n = 8192 against 44 for float64's
solve), and a slowly converging one far more (a CPU emulation of TF32 factors, n = 1024, cond 1e5: 708 applications;
bench-results/cpu-emulation/2026-11-27-budget/)."""


def _solve(op: str, a: Any, b: Any, refine: str | None, report: bool) -> tuple[Any, SolveInfo]:
    if refine is not None and refine not in REFINE_MODES:
        raise ValueError(f"{op}: refine must be None or one of {', '.join(map(repr, REFINE_MODES))}, got {refine!r}")
    call = prepare(op, {"a": a, "b": b})
    ta, tb = call.tensors["a"], call.tensors["b"]
    dtype = _check_dtype(op, {"a": ta, "b": tb})
    _errors.check_ndim(op, "a", ta, (2, 3))
    n = ta.shape[-1]
    if ta.shape[-2] != n:
        raise ValueError(f"{op}: a must be square, got shape {tuple(ta.shape)}")
    if tb.ndim not in (ta.ndim - 1, ta.ndim) or tb.shape[: ta.ndim - 1] != (*ta.shape[:-2], n):
        raise ValueError(f"{op}: b of shape {tuple(tb.shape)} does not fit a of shape {tuple(ta.shape)}")
    if refine is not None and (dtype != torch.float64 or ta.ndim != 2):
        raise ValueError(f"{op}: refine={refine!r} needs one float64 matrix, got {_errors.dtype_name(dtype)} a of "
                         f"shape {tuple(ta.shape)}")  # fmt: skip
    with call.guard():  # every launch of the call on its run device
        _check_finite(op, a=ta, b=tb)
        x = _rhs_copy(call, tb, ta.ndim)
        a3 = _batched(call.on_run_device(ta))
        info = SolveInfo(None, 0, True, False, math.nan)
        if x.numel():
            if refine is not None:
                info = _refined(call, a3[0], x[0], refine)
            else:
                _solve_full(op, call, a3, x)
                if report:
                    b3 = tb.reshape(x.shape).to(x)
                    info = SolveInfo(None, 0, True, False, _backward_error(a3, x, b3))
    return call.finish(x.reshape(tb.shape)), info


def _solve_full(op: str, call: Call, a: torch.Tensor, x: torch.Tensor) -> None:
    """Overwrites ``x`` with a^-1 x by a factorization in a's own precision, or raises LinAlgError."""
    lu, piv, info = factor(call, a)
    zero = _first_singular(info)
    if zero is not None:
        raise _errors.LinAlgError(f"{op}: singular matrix (diagonal number {zero[1]} of U is exactly zero)")
    _solve_factored(call, lu, piv, x, 0)


def _backward_error(a: torch.Tensor, x: torch.Tensor, b: torch.Tensor) -> float:
    """``||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf)`` in float64, the largest over a batch and the
    columns of ``x``."""
    a, x, b = (t.to(torch.float64) for t in (a, x, b))
    r = (b - a @ x).abs().amax(-2)
    scale = a.abs().sum(-1).amax(-1, keepdim=True) * x.abs().amax(-2) + b.abs().amax(-2)
    ratio = torch.where(scale > 0, r / scale, torch.zeros_like(r))
    return float(ratio.max())


def _refined(call: Call, a: torch.Tensor, x: torch.Tensor, refine: str) -> SolveInfo:
    """Overwrites ``x`` (n x k, holding b) with A^-1 b: float32 factors, then GMRES-IR in float64.

    Each step solves the correction equation A d = r with GMRES preconditioned by the float32 factors
    (``_Preconditioner``), applied in float64 (to a relative residual of 1e-8 or KRYLOV iterations). Steps go
    on while the residual at least halves, until ``||r||_inf <= eps ||A||_inf ||x||_inf`` or the column has applied
    the preconditioner MAX_APPLICATIONS times; the solution is accepted when its residual passes LAPACK dsgesv's
    test, ``||r||_inf <= sqrt(n) eps ||A||_inf ||x||_inf``, else ``solve`` falls back to a float64 factorization.
    """
    b = x.clone()
    n = a.shape[0]
    eps = torch.finfo(torch.float64).eps
    norm_a = float(a.abs().sum(1).max())
    steps, converged = 0, False
    precondition = _Preconditioner(call, a, REFINE_MODES[refine])
    if precondition.usable:
        for col in range(x.shape[1]):
            budget = precondition.applications + MAX_APPLICATIONS
            xc = precondition(b[:, col])
            best, best_x = math.inf, xc
            for step in range(1, MAX_REFINEMENTS + 1):
                steps = max(steps, step)
                r = b[:, col] - _matvec(a, xc)
                size = float(r.abs().max()) / (norm_a * float(xc.abs().max()))
                if not size < best / 2:
                    break
                best, best_x = size, xc
                left = budget - precondition.applications  # GMRES applies it once, then once per iteration
                if size <= eps or left < 2:
                    break
                d, stalled = _gmres(a, r, precondition, min(KRYLOV, left - 1), math.sqrt(n) * eps / size, left - 1)
                if stalled:  # the budget cannot bring the residual down to float64's: fall back now
                    break
                xc = xc + d
            converged = best <= math.sqrt(n) * eps
            if not converged:
                break
            x[:, col] = best_x
    if converged:
        return SolveInfo(refine, steps, True, False, _backward_error(a, x, b))
    warnings.warn(
        f"solve: refinement from {refine} did not reach float64 accuracy in {steps} steps; "
        "solved with a float64 factorization instead",
        _errors.RefinementWarning,
        stacklevel=4,
    )
    x.copy_(b)
    _solve_full("solve", call, _batched(a), _batched(x))
    return SolveInfo(refine, steps, False, True, _backward_error(a, x, b))


class _Preconditioner:
    """``M^-1 v = A^-1 v`` approximately, from the float32 factors ``P (s A) = L U`` of the float64 n x n ``a``
    (s: a power of two that brings A into float32's range), applied in float64 (Carson and Higham: the
    factors' entries converted exactly, every operation in float64).

    On densela's kernels an application is two launches of ``sweep_solve_kernel`` (``_Sweeps``, set up once
    here), with no host synchronization. On the PyTorch path (no GPU, no interpreter): ``torch.linalg.lu_solve``.
    ``usable``: False when the factorization met an exactly zero pivot (refinement cannot start).
    """

    def __init__(self, call: Call, a: torch.Tensor, precision: str) -> None:
        peak = float(a.abs().max())
        self.scale = 2.0 ** -math.floor(math.log2(peak)) if peak > 0 else 1.0
        self.call = call
        self.applications = 0
        lu, self.piv, info = factor(call, _batched((a * self.scale).to(torch.float32)), precision)
        self.factors = lu[0]
        self.usable = _first_singular(info) is None
        if self.usable and call.backend == "torch":
            self.factors, self.piv = self.factors.double(), (self.piv[0] + 1).to(torch.int32)  # once, not per call
        elif self.usable:
            self.sweeps = _Sweeps(self.factors, self.piv[0], 0)

    def __call__(self, v: torch.Tensor) -> torch.Tensor:
        self.applications += 1
        if self.call.backend == "torch":
            return torch.linalg.lu_solve(self.factors, self.piv, v.unsqueeze(-1))[:, 0] * self.scale
        out = torch.empty((v.shape[0], 1), dtype=v.dtype, device=v.device)
        self.sweeps(v.unsqueeze(1), out, self.scale)
        return out[:, 0]


class _Sweeps:
    """Solves with the packed factors ``P A = L U`` of one n x n matrix (``trans`` 1: with A^T), each right-hand
    side by two one-launch triangular solves (``sweep_solve_kernel``): ``sweeps(src, dst, alpha)`` writes
    ``op(A)^-1 (alpha src)`` into ``dst`` (n x k; ``dst`` must not be ``src`` when ``trans`` is 0, whose first
    solve reads ``src`` through the interchanges' permutation). Set up once per factorization: the float64
    inverses of the diagonal blocks of both triangles and, for ``trans`` 0, the permutation."""

    def __init__(self, lu: torch.Tensor, piv: torch.Tensor, trans: int) -> None:
        n = lu.shape[0]
        self.trans, self.piv = trans, piv.unsqueeze(0)
        self.t = lu if trans == 0 else lu.mT  # A^T = U^T L^T P: U^T is the lower triangle of lu.mT
        self.perm = None
        if trans == 0:  # first: the GPU walks the interchanges (n steps) while the host launches the rest
            rows = torch.arange(n, dtype=torch.int32, device=lu.device).reshape(1, n, 1)
            _launch_interchanges(rows, self.piv)  # row i of P A is row perm[i] of A
            self.perm = rows.reshape(n)
        self.factors = _sweep_factors(self.t, _sweep_block(), unit_lower=trans == 0)

    def __call__(self, src: torch.Tensor, dst: torch.Tensor, alpha: float = 1.0) -> None:
        groups = cdiv(src.shape[1], _sweep_columns(src.shape[1]))
        state = torch.zeros(4 * groups, dtype=torch.int32, device=src.device)
        _launch_sweep(self.t, self.factors[0], src, dst, self.perm, state[: 2 * groups], alpha, lower=True)
        _launch_sweep(self.t, self.factors[1], dst, dst, None, state[2 * groups :], 1.0, lower=False)
        if self.trans:
            _launch_interchanges(dst.unsqueeze(0), self.piv, reverse=True)


def _diagonal_blocks(t: torch.Tensor, block: int) -> torch.Tensor:
    """float64 (batch, blocks, block, block) copy of the diagonal blocks of the block x block grid of each matrix of
    the (batch, n, n) ``t``, block j in entry j, the last cut at n and padded by the identity's entries."""
    batch, n = t.shape[0], t.shape[-1]
    count, whole = cdiv(n, block), n // block
    tiles = torch.zeros((batch, count, block, block), dtype=torch.float64, device=t.device)
    tiles += torch.eye(block, dtype=torch.float64, device=t.device)
    sb, sm, sn = t.stride()
    if whole:
        tiles[:, :whole] = t.as_strided((batch, whole, block, block), (sb, block * (sm + sn), sm, sn))
    if whole < count:  # the short last block
        tiles[:, whole, : n - whole * block, : n - whole * block] = t[:, whole * block :, whole * block :]
    return tiles


def _diagonal_inverses(t: torch.Tensor, block: int, *, unit_lower: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """float64 inverses of the block x block diagonal blocks of the lower and of the upper triangle of each
    matrix of the (batch, n, n) ``t`` (the lower one's diagonal taken as ones when ``unit_lower``, else the
    upper one's), each (batch, blocks, block, block) row-major, the last block padded by the identity: every
    block of the batch at once (``_triangle_inverse``)."""
    diagonal = _diagonal_blocks(t, block)
    shape = diagonal.shape
    diagonal = diagonal.reshape(-1, block, block)
    lower = _triangle_inverse(diagonal, lower=True, unit=unit_lower, precision="ieee")
    upper = _triangle_inverse(diagonal, lower=False, unit=not unit_lower, precision="ieee")
    return lower.reshape(shape), upper.reshape(shape)


def _sweep_factors(
    t: torch.Tensor, block: int, *, unit_lower: bool
) -> tuple[tuple[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]:
    """What ``sweep_solve_kernel`` reads besides the n x n ``t``, for its lower and for its upper triangle: the
    float64 inverses of the block x block diagonal blocks and ``beside``, each inverse times the tile of the
    triangle beside its diagonal block that the sweep solves just before it (for block row j: columns of block j -
    1 in the lower triangle, of block j + 1 in the upper one; zeros where there is none or past n), each (blocks,
    block, block) row-major float64: one launch of ``sweep_factors_kernel``. Since 2026-11-27 (session 60); before,
    the inverses of 32-row blocks by the triangular-solve kernel, pair products by densela's GEMM and torch's
    copies and products (about 20 launches) took the host of the H100 about 0.5 ms a set-up, more than the GPU's
    work in ``lu_solve`` of one right-hand side at n = 4096."""
    n = t.shape[0]
    count = cdiv(n, block)
    inverses = torch.empty((2, count, block, block), dtype=torch.float64, device=t.device)
    beside = torch.empty_like(inverses)
    _SWEEP_FACTORS((count, 2), t, inverses, beside, n, *t.stride(), UNIT_LOWER=unit_lower, BLOCK=block,
                   DOT=block >= 16, num_warps=4)  # fmt: skip
    return (inverses[0], beside[0]), (inverses[1], beside[1])


def _sweep_block() -> int:
    return INTERPRET_SWEEP_BLOCK if INTERPRET else SWEEP_BLOCK


def _inverse_block() -> int:
    return INTERPRET_INVERSE_BLOCK if INTERPRET else INVERSE_BLOCK


def _launch_sweep(
    t: torch.Tensor, factors: tuple[torch.Tensor, torch.Tensor], src: torch.Tensor, dst: torch.Tensor,
    perm: torch.Tensor | None, state: torch.Tensor, alpha: float, *, lower: bool
) -> None:  # fmt: skip
    """``dst = T^-1 (alpha P src)`` (P: ``src[perm]``, or none) for the lower or upper triangle of ``t`` and
    that triangle's ``_sweep_factors``, every column of the n x k ``src`` (``sweep_solve_kernel``; ``state``:
    2 zeros per group of ``_sweep_columns(k)`` columns)."""
    n, k = src.shape
    block = _sweep_block()
    cols = _sweep_columns(k)
    _SWEEP((cdiv(n, block), cdiv(k, cols)),
        t, *factors, src, dst, src if perm is None else perm, state,
        n, k, alpha,
        *t.stride(), *src.stride(), *dst.stride(),
        LOWER=lower, PERMUTE=perm is not None, BLOCK=block, COLS=cols, DOT=min(block, cols) >= 16,
        num_warps=4,
    )  # fmt: skip


def _sweep_columns(k: int) -> int:
    """Right-hand sides per program of the sweeps: 1, or for more a power of two up to SWEEP_TILE_COLUMNS, at least
    16 (``tl.dot``'s least) unless the interpreter's small blocks make that pointless."""
    if k == 1:
        return 1
    least = 2 if INTERPRET else 16
    return min(SWEEP_TILE_COLUMNS, max(least, _pow2(k)))


def _matvec(a: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """``a @ v`` in float64 (``matvec_kernel``; torch's on the PyTorch path)."""
    if a.device.type == "cpu" and not INTERPRET:
        return a @ v
    m = a.shape[0]
    out = torch.empty(m, dtype=a.dtype, device=a.device)
    block_m, block_n = MATVEC_BLOCKS
    _MATVEC((cdiv(m, block_m),),
        a, v, out,
        m, a.shape[1],
        *a.stride(),
        BLOCK_M=block_m, BLOCK_N=block_n,
        num_warps=4,
    )  # fmt: skip
    return out


def _gmres(
    a: torch.Tensor, r: torch.Tensor, precondition: Any, iterations: int, reach: float, budget: int
) -> tuple[torch.Tensor, bool]:
    """(d, stalled): an approximate solution d of A d = r by GMRES on M^-1 A d = M^-1 r in float64 (M: the float32
    factors), and whether it gave up.

    Arnoldi with classical Gram-Schmidt applied twice; the small least-squares problem is solved on the
    host after each iteration to test the residual (relative 1e-8) or stop after ``iterations`` iterations.
    ``reach``: the factor by which the refinement still needs its residual to shrink; ``budget``: the iterations
    it may still spend, this call's and later steps'. When they cannot be met, GMRES gives up
    (``stalled``, ``_hopeless``) and returns no correction.
    """
    z = precondition(r)
    beta = float(z.norm())
    if beta == 0 or not math.isfinite(beta):
        return torch.zeros_like(r), False
    basis = torch.empty((iterations + 1, r.shape[0]), dtype=r.dtype, device=r.device)
    basis[0] = z / beta
    hess = torch.zeros((iterations + 1, iterations), dtype=torch.float64)
    y = torch.zeros(1, dtype=torch.float64)
    for j in range(iterations):
        w = precondition(_matvec(a, basis[j]))
        done = basis[: j + 1]
        h = done @ w
        w = w - h @ done
        h2 = done @ w
        w = w - h2 @ done
        column = (h + h2).cpu()
        norm_w = float(w.norm())
        hess[: j + 1, j] = column
        hess[j + 1, j] = norm_w
        rhs = torch.zeros(j + 2, dtype=torch.float64)
        rhs[0] = beta
        y = torch.linalg.lstsq(hess[: j + 2, : j + 1], rhs.unsqueeze(1)).solution[:, 0]
        residual = float((rhs - hess[: j + 2, : j + 1] @ y).norm())
        if norm_w == 0 or residual <= 1e-8 * beta:
            break
        if _hopeless(residual / beta, j + 1, budget, reach, r.shape[0]):
            return torch.zeros_like(r), True
        basis[j + 1] = w / norm_w
    return y.to(r.device) @ basis[: y.shape[0]], False


def _hopeless(relative: float, iterations: int, budget: int, reach: float, n: int) -> bool:
    """Whether GMRES, ``iterations`` in with its residual at ``relative`` of where it began, cannot shrink it by
    ``reach`` within ``budget`` iterations at the average rate of those so far: from GMRES_PREDICT_FROM iterations
    on, and only while the budget is shorter than the n iterations within which GMRES ends in exact arithmetic.

    Example:
        >>> _hopeless(0.5, 10, 60, 1e-12, 1000), _hopeless(1e-3, 10, 60, 1e-12, 1000), _hopeless(0.5, 10, 60, 1e-12, 50)
        (True, False, False)
    """
    return iterations >= GMRES_PREDICT_FROM and budget < n - iterations and relative ** (budget / iterations) > reach
