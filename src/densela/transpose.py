"""Transposition: ``transpose`` (out of place, optionally scaled) and ``transpose_`` (in place).

Validation -> plan -> launch. Items move as integers of their own size (bit-exact for every dtype, NaN
payloads included); only a scaled transpose (``alpha != 1``) reads them as numbers.
"""

from __future__ import annotations

from typing import Any

import torch

from densela import _errors
from densela._arrays import Call, as_tensor, needs_int64, prepare
from densela._launch import Launcher, cdiv
from densela.kernels.transpose import transpose_square_inplace_kernel, transpose_tiles_kernel
from densela.tuning import tile_config

_WORDS = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
"""The integer type each item size moves as; 16-byte (complex128) items move as two 8-byte words."""

_TILES = Launcher(transpose_tiles_kernel)
_SQUARE = Launcher(transpose_square_inplace_kernel)

_SCALABLE_DTYPES = (*_errors.FLOAT_DTYPES, torch.complex64, torch.complex128)


def transpose(a: Any, /, *, out: Any = None, alpha: float = 1.0) -> Any:
    """Materialized transpose ``alpha * a.T`` of a 2-D array.

    The result has ``a``'s memory order (row-major in, row-major out; column-major in, column-major out).
    Any dtype with 1-, 2-, 4-, 8- or 16-byte items moves; ``alpha != 1`` needs a float or complex dtype
    and multiplies both parts of complex items.

    Example:
        >>> import numpy as np, densela as dl
        >>> dl.transpose(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int8))
        array([[1, 4],
               [2, 5],
               [3, 6]], dtype=int8)
        >>> dl.transpose(np.array([[1.0, 2.0]]), alpha=-2.0)
        array([[-2.],
               [-4.]])
    """
    op = "transpose"
    alpha = _errors.check_scalar(op, "alpha", alpha)
    call = prepare(op, {"a": a}, out)
    ta = call.tensors["a"]
    _errors.check_ndim(op, "a", ta, (2,))
    _check_item_size(op, ta.dtype)
    if alpha != 1.0 and ta.dtype not in _SCALABLE_DTYPES:
        names = ", ".join(_errors.dtype_name(d) for d in _SCALABLE_DTYPES)
        raise TypeError(
            f"{op}: alpha={alpha} scales arrays of {names}; a is {_errors.dtype_name(ta.dtype)} (use alpha=1.0)"
        )
    shape = (ta.shape[1], ta.shape[0])
    if call.out is not None:
        _errors.check_out(op, call.out, shape, ta.dtype)
    return call.finish(_run(call, alpha, shape))


def transpose_(a: Any, /) -> Any:
    """Transposes the square array ``a`` in place and returns it (the caller's own object).

    ``a`` must be contiguous, row-major or column-major, and keeps its memory order. No extra device
    memory is used. A vector (1 x n, n x 1) or an empty matrix needs no data movement: the result is its
    transposed view of the same memory. In-place transposition of other rectangular matrices is a
    planned feature (issue 5) and raises ``NotImplementedError``; ``transpose(a)`` transposes them out of
    place.

    Example:
        >>> import numpy as np, densela as dl
        >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> dl.transpose_(a) is a
        True
        >>> a
        array([[1., 3.],
               [2., 4.]])
    """
    op = "transpose_"
    as_tensor(op, "a", a, writable=True)  # an array densela cannot write through fails here, under its own name
    call = prepare(op, {"a": a}, a, out_may_alias=("a",))
    ta = call.out
    _errors.check_ndim(op, "a", ta, (2,))
    _check_item_size(op, ta.dtype)
    if not (ta.is_contiguous() or ta.T.is_contiguous()):
        raise ValueError(
            f"{op}: a is non-contiguous (shape {tuple(ta.shape)}, strides {ta.stride()}); transpose_ needs a "
            "contiguous row-major or column-major array; use transpose(a) for views"
        )
    if ta.shape[0] != ta.shape[1]:
        if min(ta.shape) <= 1:
            return call.finish_view(ta.T)  # a vector or an empty matrix: its transposed view is contiguous
        raise _rectangular_error(op, tuple(ta.shape))
    work = call.on_run_device(ta)
    if work.numel() > 0:
        if call.backend == "torch":
            work.copy_(work.T.clone())
        else:
            with call.guard():
                launch_transpose_square(work)
    return call.finish(work)


def _workspace_bytes(shape: tuple[int, int], dtype: Any) -> int:
    """Extra device memory, in bytes, that ``transpose_`` needs for a ``shape`` array of ``dtype``.

    Square matrices, vectors and empty matrices need none. Other rectangular ones raise
    ``NotImplementedError`` until in-place rectangular transposition lands (issue 5); ``dtype`` will size
    its workspace.

    Example:
        >>> import densela as dl, torch
        >>> dl.transpose_.workspace_bytes((1000, 1000), torch.float32)
        0
    """
    if len(shape) != 2 or any(int(n) < 0 for n in shape):
        raise ValueError(f"transpose_.workspace_bytes: shape must be two sizes >= 0, got {tuple(shape)}")
    if shape[0] != shape[1] and min(shape) > 1:
        raise _rectangular_error("transpose_.workspace_bytes", tuple(shape))
    return 0


transpose_.workspace_bytes = _workspace_bytes  # type: ignore[attr-defined]


def _rectangular_error(op: str, shape: tuple[int, ...]) -> NotImplementedError:
    return NotImplementedError(
        f"{op}: in-place transposition of a rectangular {shape[0]} x {shape[1]} matrix is a planned feature "
        "(issue 5); use densela.transpose(a) for an out-of-place transpose"
    )


def _check_item_size(op: str, dtype: torch.dtype) -> None:
    if dtype.itemsize not in (*_WORDS, 16):
        raise TypeError(
            f"{op}: unsupported dtype {_errors.dtype_name(dtype)} ({dtype.itemsize}-byte items; "
            "transposition moves items of 1, 2, 4, 8 or 16 bytes)"
        )


def _run(call: Call, alpha: float, shape: tuple[int, int]) -> torch.Tensor:
    """Computes ``alpha * a.T`` on the run device into ``out`` (or a new array in a's order) and returns it."""
    (a,) = call.inputs("a")
    target = call.out_target(shape, a.dtype, like=call.tensors["a"])
    if target.numel() == 0:
        return target
    if call.backend == "torch":
        return target.copy_(a.T if alpha == 1.0 else alpha * a.T)
    with call.guard():
        launch_transpose(a, target, alpha)
    return target


def _as_words(t: torch.Tensor, scaled: bool) -> tuple[torch.Tensor, int]:
    """The words the kernels move for ``t`` (m x n), and how many words make one item (VEC).

    Words are same-size integers, or the floats themselves when scaled; complex items that are scaled or
    16 bytes wide are two words (real, imaginary), an m x n x 2 view. The kernels address the words with
    ``t``'s own strides, counted in items.
    """
    if t.is_complex() and (scaled or t.element_size() == 16):
        t = torch.view_as_real(t)
    words = t if scaled else t.view(_WORDS[t.element_size()])
    return words, (words.shape[2] if words.ndim == 3 else 1)


def launch_transpose(a: torch.Tensor, out: torch.Tensor, alpha: float, lo: torch.Tensor | None = None) -> None:
    """Launches ``out = alpha * a.T`` (a m x n, out n x m, same dtype; alpha == 1 moves bits) on checked tensors.

    With ``lo`` (float32, alpha == 1, the same strides as ``out``) the transpose is split into TF32 parts
    for a 3xTF32 product: ``out`` gets the rounded high part and ``lo`` the rounded remainder.
    """
    scaled = alpha != 1.0
    split = lo is not None
    (src, vec), (dst, _) = _as_words(a, scaled or split), _as_words(out, scaled or split)
    m, n = a.shape
    cfg = tile_config(a.element_size())
    tiles = cdiv(m, cfg.block_m) * cdiv(n, cfg.block_n)
    _TILES((tiles,),
        src, dst, lo if split else dst,
        m, n,
        *a.stride(), *out.stride(),
        alpha,
        SCALE=scaled,
        SPLIT=split,
        INDEX_64=needs_int64(src, dst),
        VEC=vec,
        BLOCK_M=cfg.block_m, BLOCK_N=cfg.block_n,
        num_warps=cfg.num_warps,
    )  # fmt: skip


def launch_transpose_square(a: torch.Tensor) -> None:
    """Launches the in-place transpose of the square, contiguous ``a`` (any item size), on a checked tensor."""
    words, vec = _as_words(a, scaled=False)
    n = a.shape[0]
    cfg = tile_config(a.element_size())
    block = min(cfg.block_m, cfg.block_n)
    tiles = cdiv(n, block)
    _SQUARE((tiles * (tiles + 1) // 2,),
        words,
        n,
        *a.stride(),
        INDEX_64=needs_int64(words),
        VEC=vec,
        BLOCK=block,
        num_warps=cfg.num_warps,
    )  # fmt: skip
