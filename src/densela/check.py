"""``densela check``: every public operation against a float64 reference and against torch, side by side.

Each case runs one operation on random matrices, measures the normwise relative error
``||out - ref||_F / ||ref||_F`` of densela's result and of torch's (cuBLAS on a GPU) against a float64
reference computed with NumPy, and on a GPU times both (``bench.timing.gpu_median_ms``: median, ms, L2 flushed
before each call).
A case fails when densela's error exceeds its bound; torch's error is shown for comparison only.

Bounds are for random normal data: GEMM ``4 (sqrt(k) u_acc + 2 u_in) + 2 u_out`` (rounding errors of a
length-k dot product grow like sqrt(k) on such data; ``u_in`` is TF32's unit roundoff for
``precision="tf32"``), addition ``4 u``, transposition 0 (it moves bits).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch

import densela
from densela import _arrays
from densela._env import environment
from densela._errors import dtype_name
from densela.bench.providers import torch_tf32

SMALL = (64, 48, 40)
LARGE = (4096, 4096, 4096)

TF32_ROUNDOFF = 2.0**-11
"""Unit roundoff of TF32 inputs (10 explicit mantissa bits)."""


def unit_roundoff(dtype: torch.dtype) -> float:
    """Half the machine epsilon: the largest relative error of rounding to ``dtype``.

    Example:
        >>> import torch
        >>> from densela.check import unit_roundoff
        >>> unit_roundoff(torch.float32) == 2.0**-24
        True
    """
    return torch.finfo(dtype).eps / 2


@dataclass
class CheckRow:
    """One checked case: errors against the float64 reference, its bound, and times (None without a GPU)."""

    op: str
    computes: str
    shape: str
    dtype: str
    err_densela: float
    err_torch: float
    bound: float
    baseline: str
    ms_densela: float | None = None
    ms_torch: float | None = None

    @property
    def ok(self) -> bool:
        """Whether densela's error is within the bound (False for NaN)."""
        return self.err_densela <= self.bound


@dataclass
class _Case:
    """What one row runs. The callables return the result; in-place ones may be called again for timing."""

    op: str
    computes: str
    shape: str
    dtype: str
    bound: float
    baseline: str
    reference: np.ndarray
    densela: Callable[[], Any]
    torch: Callable[[], Any]
    tf32: bool = False


def gemm_bound(dtype: torch.dtype, k: int, precision: str | None = None) -> float:
    """Normwise relative error bound of a k-term matrix product in ``dtype`` on random normal data.

    Example:
        >>> import torch
        >>> from densela.check import gemm_bound
        >>> f"{gemm_bound(torch.float32, 4096):.1e}"
        '1.6e-05'
    """
    u_out = unit_roundoff(dtype)
    u_acc = unit_roundoff(torch.float64 if dtype == torch.float64 else torch.float32)
    u_in = TF32_ROUNDOFF if precision == "tf32" else u_acc
    return 4.0 * (math.sqrt(max(k, 1)) * u_acc + 2.0 * u_in) + 2.0 * u_out


def parse_size(size: str | int | None, gpu: bool) -> tuple[int, int, int]:
    """(m, n, k) for ``--size``: 'small', 'large', a number N (N x N x N), or None (large on a GPU).

    Example:
        >>> from densela.check import parse_size
        >>> parse_size("small", gpu=False), parse_size("100", gpu=True), parse_size(None, gpu=True)
        ((64, 48, 40), (100, 100, 100), (4096, 4096, 4096))
    """
    if size is None:
        return LARGE if gpu else SMALL
    if isinstance(size, str) and size in ("small", "large"):
        return SMALL if size == "small" else LARGE
    try:
        n = int(size)
    except ValueError:
        raise ValueError(f"size must be 'small', 'large' or a positive integer, got {size!r}") from None
    if n <= 0:
        raise ValueError(f"size must be positive, got {n}")
    return (n, n, n)


def _on_gpu() -> bool:
    """Whether densela's kernels run on a GPU in this process (so the check can time them)."""
    return _arrays.cuda_available() and not _arrays.INTERPRET


def _f64(x: Any) -> np.ndarray:
    """Any result (torch tensor or NumPy array) as a float64 NumPy array on the host."""
    if isinstance(x, torch.Tensor):
        return x.detach().to("cpu", torch.float64).numpy()
    return np.asarray(x, dtype=np.float64)


def relative_error(out: Any, ref: np.ndarray) -> float:
    """Normwise relative error ``||out - ref||_F / ||ref||_F`` (NaN when ``out`` holds NaN or infinity).

    Example:
        >>> import numpy as np
        >>> from densela.check import relative_error
        >>> relative_error(np.array([[1.0, 2.0]]), np.array([[1.0, 2.0]]))
        0.0
    """
    got = _f64(out)
    if got.shape != ref.shape:
        raise ValueError(f"result has shape {got.shape}, the reference {ref.shape}")
    if not np.isfinite(got).all():
        return math.nan
    return float(np.linalg.norm(got - ref) / max(float(np.linalg.norm(ref)), np.finfo(np.float64).tiny))


def _matmul_baseline(dtype: torch.dtype, precision: str | None, device: str) -> str:
    """What torch runs for a matmul case: on a GPU cuBLAS in FP32 or, for precision="tf32", in TF32."""
    if device != "cuda" or dtype != torch.float32:
        return "torch.matmul"
    return "torch.matmul (TF32)" if precision == "tf32" else "torch.matmul (FP32)"


def _cases(m: int, n: int, k: int, device: str, seed: int = 0) -> Iterator[_Case]:
    """The checked cases, each built just before it runs so that only one case's arrays are alive."""
    gen = torch.Generator().manual_seed(seed)

    def rand(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        return torch.randn(shape, generator=gen, dtype=torch.float64).to(device=device, dtype=dtype)

    gemm_shape = f"{m}x{n}x{k}"
    for dtype, precision in (
        (torch.float32, "ieee"),
        (torch.float32, "tf32"),
        (torch.float32, "tf32x3"),
        (torch.float16, None),
        (torch.bfloat16, None),
        (torch.float64, None),
    ):
        a, b = rand(m, k, dtype=dtype), rand(k, n, dtype=dtype)
        label = dtype_name(dtype) + (f"/{precision}" if precision else "")
        yield _Case(
            "matmul",
            "a @ b",
            gemm_shape,
            label,
            gemm_bound(dtype, k, precision),
            _matmul_baseline(dtype, precision, device),
            _f64(a) @ _f64(b),
            lambda a=a, b=b, p=precision: densela.matmul(a, b, precision=p),
            lambda a=a, b=b: torch.matmul(a, b),
            tf32=precision == "tf32",
        )

    a, b, c = rand(k, m), rand(n, k), rand(m, n)
    yield _Case(
        "gemm",
        "1.5 a.T @ b.T - 0.5 c",
        gemm_shape,
        "float32",
        gemm_bound(torch.float32, k),
        "torch.addmm",
        1.5 * (_f64(a).T @ _f64(b).T) - 0.5 * _f64(c),
        lambda a=a, b=b, c=c: densela.gemm(a, b, c, alpha=1.5, beta=-0.5, trans_a=True, trans_b=True),
        lambda a=a, b=b, c=c: torch.addmm(c, a.T, b.T, beta=-0.5, alpha=1.5),
    )

    a, b, c = rand(m, k), rand(k, n), rand(m, n)
    c_dl, c_torch = c.clone(), c.clone()
    yield _Case(
        "gemm",
        "c -= a @ b (out=c)",
        gemm_shape,
        "float32",
        gemm_bound(torch.float32, k),
        "Tensor.addmm_",
        _f64(c) - _f64(a) @ _f64(b),
        lambda a=a, b=b, c=c_dl: densela.gemm(a, b, c, alpha=-1.0, beta=1.0, out=c),
        lambda a=a, b=b, c=c_torch: c.addmm_(a, b, alpha=-1.0),
    )

    for dtype in (torch.float32, torch.float16):
        a = rand(m, n, dtype=dtype)
        yield _Case(
            "transpose",
            "a.T",
            f"{m}x{n}",
            dtype_name(dtype),
            0.0,
            "Tensor.T.contiguous",
            _f64(a).T,
            lambda a=a: densela.transpose(a),
            lambda a=a: a.T.contiguous(),
        )

    a = rand(m, m)
    a_dl = a.clone()
    yield _Case(
        "transpose_",
        "a.T in place",
        f"{m}x{m}",
        "float32",
        0.0,
        "Tensor.T.contiguous (out of place)",
        _f64(a).T,
        lambda a=a_dl: densela.transpose_(a),
        lambda a=a: a.T.contiguous(),
    )

    a, b = rand(m, n), rand(m, n)
    yield _Case(
        "add",
        "a + b",
        f"{m}x{n}",
        "float32",
        4.0 * unit_roundoff(torch.float32),
        "torch.add",
        _f64(a) + _f64(b),
        lambda a=a, b=b: densela.add(a, b),
        lambda a=a, b=b: torch.add(a, b),
    )
    a, bt = rand(m, n), rand(n, m)
    yield _Case(
        "add",
        "a - 0.5 b.T",
        f"{m}x{n}",
        "float32",
        4.0 * unit_roundoff(torch.float32),
        "torch.add(alpha=-0.5)",
        _f64(a) - 0.5 * _f64(bt).T,
        lambda a=a, b=bt: densela.add(a, b.T, beta=-0.5),
        lambda a=a, b=bt: torch.add(a, b.T, alpha=-0.5),
    )


def run_checks(size: str | int | None = "small", *, only: Sequence[str] | None = None) -> list[CheckRow]:
    """Runs the cases (those of the operations in ``only``, if given) and returns one row per case.

    Arrays live on the GPU when densela runs its kernels there, and both sides are then timed; else
    they live on the CPU (Triton's interpreter or PyTorch, per ``TRITON_INTERPRET``) and are not timed.

    Example:
        >>> from densela.check import run_checks
        >>> rows = run_checks("small", only=["gemm"])
        >>> [(r.op, r.ok) for r in rows]
        [('gemm', True), ('gemm', True)]
    """
    gpu = _on_gpu()
    m, n, k = parse_size(size, gpu)
    rows = []
    for case in _cases(m, n, k, "cuda" if gpu else "cpu"):
        if only is not None and case.op not in only:
            continue
        row = CheckRow(
            case.op,
            case.computes,
            case.shape,
            case.dtype,
            relative_error(case.densela(), case.reference),
            math.nan,
            case.bound,
            case.baseline,
        )
        with torch_tf32(case.tf32):
            row.err_torch = relative_error(case.torch(), case.reference)
            if gpu:
                from densela.bench.timing import gpu_median_ms

                row.ms_densela = gpu_median_ms(case.densela, warmup_ms=25.0, rep_ms=100.0)
                row.ms_torch = gpu_median_ms(case.torch, warmup_ms=25.0, rep_ms=100.0)
        rows.append(row)
        if gpu:
            torch.cuda.empty_cache()
    return rows


def format_table(rows: Sequence[CheckRow]) -> str:
    """The rows as an aligned text table, one line per case.

    Example:
        >>> from densela.check import CheckRow, format_table
        >>> print(format_table([CheckRow("add", "a + b", "4x3", "float32", 0.0, 0.0, 2.4e-7, "torch.add")]))
        ... # doctest: +NORMALIZE_WHITESPACE
        operation computes shape dtype error densela error torch bound ms densela ms torch torch baseline result
        add       a + b    4x3   float32 0.0e+00    0.0e+00     2.4e-07 -  -  torch.add  ok
    """
    head = (
        "operation",
        "computes",
        "shape",
        "dtype",
        "error densela",
        "error torch",
        "bound",
        "ms densela",
        "ms torch",
        "torch baseline",
        "result",
    )

    def ms(t: float | None) -> str:
        return "-" if t is None else f"{t:.3f}"

    body = [
        (
            r.op,
            r.computes,
            r.shape,
            r.dtype,
            f"{r.err_densela:.1e}",
            f"{r.err_torch:.1e}",
            f"{r.bound:.1e}",
            ms(r.ms_densela),
            ms(r.ms_torch),
            r.baseline,
            "ok" if r.ok else "FAIL",
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in (head, *body)) for i in range(len(head))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in (head, *body))


def run_check(size: str | int | None = None, json_path: str | None = None) -> int:
    """What ``densela check`` does: runs every case, prints the table, writes JSON; returns the exit status.

    Returns 1 when any densela error exceeds its bound, else 0.

    Example:
        >>> from densela.check import run_check
        >>> run_check("small")  # doctest: +ELLIPSIS
        densela check: ...
        0
    """
    env = environment()
    gpu = _on_gpu()
    m, n, k = parse_size(size, gpu)
    print(f"densela check: {env['backend']}; GEMM m x n x k = {m} x {n} x {k}, transpose and add {m} x {n}")
    if gpu:
        print("errors: normwise relative to a float64 NumPy reference; times: CUDA-event medians after L2 flushes, ms")
    else:
        print("errors: normwise relative to a float64 NumPy reference; times: need a GPU, not measured here")
        if m * n * k > 256**3:
            print("note: Triton's interpreter takes very long at this size; --size small is the one meant for it")
    rows = run_checks(size)
    print(format_table(rows))
    failed = [r for r in rows if not r.ok]
    print(f"{len(rows) - len(failed)} passed, {len(failed)} failed" if failed else f"all {len(rows)} cases passed")
    if json_path is not None:
        record = {
            "environment": env,
            "size": {"m": m, "n": n, "k": k},
            "timing": "median of CUDA-event times after L2 flushes (read), ms" if gpu else None,
            "rows": [dict(asdict(r), ok=r.ok) for r in rows],
            "passed": not failed,
        }
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=2)
            f.write("\n")
    return 1 if failed else 0
