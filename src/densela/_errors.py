"""Error types and the checks every operation shares.

Each check raises before any kernel launches, so a rejected call writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

LinAlgError = np.linalg.LinAlgError
"""Raised for a singular matrix in ``solve``; NumPy's own class (a ``ValueError``)."""


class LinAlgWarning(RuntimeWarning):
    """An exactly zero pivot in ``lu_factor`` (the factorization completes), as SciPy warns."""


class RefinementWarning(LinAlgWarning):
    """``solve(..., refine=...)`` did not converge in the lower precision and fell back to a full factorization."""


FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
PRECISIONS = ("ieee", "tf32", "tf32x3")


def dtype_name(dtype: torch.dtype) -> str:
    """'float32' for torch.float32: the name users know from NumPy."""
    return str(dtype).removeprefix("torch.")


def check_ndim(op: str, name: str, t: torch.Tensor, allowed: Sequence[int]) -> None:
    if t.ndim not in allowed:
        want = " or ".join(f"{n}-D" for n in allowed)
        raise ValueError(f"{op}: {name} must be {want}, got {t.ndim}-D with shape {tuple(t.shape)}")


def check_same_dtype(op: str, named: dict[str, torch.Tensor], allowed: Sequence[torch.dtype]) -> torch.dtype:
    """All tensors share one dtype from ``allowed``; returns it."""
    items = iter(named.items())
    first_name, first_t = next(items)
    first = first_t.dtype
    for name, t in items:
        if t.dtype != first:
            raise TypeError(
                f"{op}: mixed dtypes, {first_name} is {dtype_name(first)} and {name} is {dtype_name(t.dtype)}; "
                "convert them to one dtype first"
            )
    if first not in allowed:
        names = ", ".join(dtype_name(d) for d in allowed)
        raise TypeError(f"{op}: unsupported dtype {dtype_name(first)} (supported: {names})")
    return first


def check_out(op: str, out: torch.Tensor, shape: tuple[int, ...], dtype: torch.dtype) -> None:
    """``out`` has the result's dtype and shape and no element aliases another."""
    if out.dtype != dtype:
        raise TypeError(f"{op}: out has dtype {dtype_name(out.dtype)}, the result is {dtype_name(dtype)}")
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"{op}: out has shape {tuple(out.shape)}, the result has shape {tuple(shape)}")
    if out.numel() > 0 and _self_overlapping(out):
        raise ValueError(f"{op}: out has strides {out.stride()} for shape {tuple(out.shape)}, so elements would alias")


def _self_overlapping(t: torch.Tensor) -> bool:
    """Whether two elements of ``t`` may share memory: each stride, taken in increasing order, must pass
    the extent of the axes before it (sufficient for distinct elements; views from slicing satisfy it)."""
    extent = 1
    for stride, n in sorted((abs(s), n) for s, n in zip(t.stride(), t.shape) if n > 1):
        if stride < extent:
            return True
        extent += stride * (n - 1)
    return False


def check_precision(op: str, precision: str | None, dtype: torch.dtype) -> str:
    """The float32 arithmetic mode; ``"ieee"`` when not given. Other dtypes take no precision."""
    if precision is None:
        return "ieee"
    if precision not in PRECISIONS:
        raise ValueError(f"{op}: precision must be one of {', '.join(map(repr, PRECISIONS))}, got {precision!r}")
    if dtype != torch.float32:
        raise ValueError(
            f"{op}: precision={precision!r} applies to float32 only; {dtype_name(dtype)} uses its own arithmetic"
        )
    return precision


def check_scalar(op: str, name: str, value: object) -> float:
    if type(value) is float:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TypeError(f"{op}: {name} must be a real number, got {type(value).__name__}")
    return float(value)
