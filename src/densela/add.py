"""Matrix addition ``alpha * a + beta * b``. Validation -> plan -> launch."""

from __future__ import annotations

from typing import Any

import torch

from densela import _errors
from densela._arrays import Call, needs_int64, prepare
from densela._launch import Launcher, cdiv, replayed
from densela.kernels.elementwise import add_tiles_kernel
from densela.tuning import FLAT_TILE, tile_config

_ADD = Launcher(add_tiles_kernel)


def add(a: Any, b: Any, /, *, alpha: float = 1.0, beta: float = 1.0, out: Any = None) -> Any:
    """Scaled sum ``alpha * a + beta * b`` of two 2-D arrays of the same shape and dtype.

    The operands may have different layouts (``add(x, y.T)``) and any strides; the result takes ``a``'s
    memory order. float16 and bfloat16 are computed in float32 and rounded once. Scaling follows IEEE
    arithmetic: ``alpha = 0`` still turns an infinity or NaN in ``a`` into NaN.

    Example:
        >>> import numpy as np, densela as dl
        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> dl.add(x, x.T, beta=-1.0)
        array([[ 0., -1.],
               [ 1.,  0.]])
    """
    return replayed("add", (alpha, beta), (), (a, b), out, lambda: _add(a, b, alpha, beta, out))


def _add(a: Any, b: Any, alpha: float, beta: float, out: Any) -> Any:
    """``add``, checked and launched (its first call of a signature, or any call that cannot replay)."""
    op = "add"
    alpha = _errors.check_scalar(op, "alpha", alpha)
    beta = _errors.check_scalar(op, "beta", beta)
    call = prepare(op, {"a": a, "b": b}, out)
    ta, tb = call.tensors["a"], call.tensors["b"]
    dtype = _errors.check_same_dtype(op, {"a": ta, "b": tb}, _errors.FLOAT_DTYPES)
    _errors.check_ndim(op, "a", ta, (2,))
    _errors.check_ndim(op, "b", tb, (2,))
    if ta.shape != tb.shape:
        raise ValueError(f"{op}: shapes differ: a has shape {tuple(ta.shape)} and b {tuple(tb.shape)}")
    shape = tuple(ta.shape)
    if call.out is not None:
        _errors.check_out(op, call.out, shape, dtype)
    return call.finish(_run(call, alpha, beta, shape))


def _run(call: Call, alpha: float, beta: float, shape: tuple[int, ...]) -> torch.Tensor:
    """Computes the sum on the run device into ``out`` (or a new array in a's order) and returns it."""
    a, b = call.inputs("a", "b")
    target = call.out_target(shape, a.dtype, like=call.tensors["a"])
    if target.numel() == 0:
        return target
    if call.backend == "torch":
        wide = torch.float64 if a.dtype == torch.float64 else torch.float32
        return target.copy_(alpha * a.to(wide) + beta * b.to(wide))
    with call.guard():
        launch_add(a, b, target, alpha, beta)
    return target


def launch_add(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, alpha: float, beta: float) -> None:
    """Launches ``out = alpha * a + beta * b`` (2-D, one shape and dtype, any strides) on checked tensors."""
    m, n = a.shape
    flat = _dense_alike(a, b, out)
    cfg = FLAT_TILE if flat else tile_config(a.element_size())
    if flat:  # one run of m * n items in the same order: runs of consecutive items, no masked lanes per row
        m, n = m * n, 1
    tiles = cdiv(m, cfg.block_m) * cdiv(n, cfg.block_n) if not flat else cdiv(m, cfg.block_m * cfg.block_n)
    _ADD((tiles,),
        a, b, out,
        m, n,
        a.stride(0), a.stride(1),
        b.stride(0), b.stride(1),
        out.stride(0), out.stride(1),
        alpha, beta,
        INDEX_64=needs_int64(a, b, out),
        FLAT=flat,
        BLOCK_M=cfg.block_m, BLOCK_N=cfg.block_n,
        num_warps=cfg.num_warps,
    )  # fmt: skip


def _dense_alike(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> bool:
    """Whether ``a``, ``b`` and ``out`` have the same strides and are each one dense run of items (contiguous
    row-major or column-major): then the sum is elementwise over that run, whatever the shape. Rows of 100
    bfloat16 items otherwise leave 28 of each 128-wide tile's lanes idle and start off 16-byte boundaries (H100,
    ``bench-results/nvidia-h100/2026-11-24-packed``: 100000 x 100 at 50% of the copy bandwidth, 0.65x torch).

    Example:
        >>> x, y = torch.empty(3, 5), torch.empty(5, 3).T
        >>> _dense_alike(x, x, x), _dense_alike(y, y, y), _dense_alike(x, y, x), _dense_alike(*[x[:, :4]] * 3)
        (True, True, False, False)
    """
    strides = a.stride()
    return b.stride() == strides and out.stride() == strides and (a.is_contiguous() or a.T.is_contiguous())
