"""Matrix products: ``matmul`` and ``gemm``. Validation -> plan -> launch."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

from densela import _errors
from densela._arrays import INTERPRET, Call, needs_int64, prepare
from densela.kernels.gemm import gemm_tiles_kernel
from densela.transpose import launch_transpose
from densela.tuning import gemm_config, k_major_copy_from, shared_memory

MAX_GRID_Y = 65535  # CUDA's limit on the second grid dimension, which carries the batch

_ACC_DTYPE = {
    torch.float16: tl.float32,
    torch.bfloat16: tl.float32,
    torch.float32: tl.float32,
    torch.float64: tl.float64,
}


def matmul(a: Any, b: Any, /, *, out: Any = None, precision: str | None = None) -> Any:
    """Matrix product ``a @ b``.

    Shapes: 2-D x 2-D, 3-D x 3-D with the same batch size, or 3-D x 2-D (``b`` shared by the batch).
    ``precision`` applies to float32: ``"ieee"`` (default), ``"tf32x3"`` or ``"tf32"``.

    Example:
        >>> import numpy as np, densela as dl
        >>> dl.matmul(np.array([[1.0, 2.0], [3.0, 4.0]]), np.eye(2))
        array([[1., 2.],
               [3., 4.]])
    """
    return _gemm("matmul", a, b, None, 1.0, 0.0, False, False, out, precision)


def gemm(
    a: Any,
    b: Any,
    c: Any = None,
    *,
    alpha: float = 1.0,
    beta: float = 0.0,
    trans_a: bool = False,
    trans_b: bool = False,
    out: Any = None,
    precision: str | None = None,
) -> Any:
    """General matrix product ``alpha * op(a) @ op(b) + beta * c``.

    ``op(x)`` is ``x.T`` (the last two axes swapped) when its ``trans_*`` flag is set. ``out`` may be
    ``c`` itself for an in-place update. When ``beta == 0``, ``c`` is never read, so NaN in it does not
    propagate. Batched shapes follow ``matmul``.

    Example:
        >>> import torch, densela as dl
        >>> a, b, c = torch.ones(2, 3), torch.ones(2, 4), torch.ones(3, 4)
        >>> dl.gemm(a, b, c, alpha=2.0, beta=-1.0, trans_a=True)
        tensor([[3., 3., 3., 3.],
                [3., 3., 3., 3.],
                [3., 3., 3., 3.]])
    """
    return _gemm("gemm", a, b, c, alpha, beta, trans_a, trans_b, out, precision)


def _gemm(
    op: str,
    a: Any,
    b: Any,
    c: Any,
    alpha: float,
    beta: float,
    trans_a: bool,
    trans_b: bool,
    out: Any,
    precision: str | None,
) -> Any:
    """``gemm`` under the name ``op`` that its messages use (``matmul`` shares it)."""
    alpha = _errors.check_scalar(op, "alpha", alpha)
    beta = _errors.check_scalar(op, "beta", beta)
    call = prepare(op, {"a": a, "b": b, "c": c}, out, optional=("c",), out_may_alias=("c",))
    ta, tb, tc = (call.tensors[n] for n in ("a", "b", "c"))
    named = {"a": ta, "b": tb} if tc is None else {"a": ta, "b": tb, "c": tc}
    dtype = _errors.check_same_dtype(op, named, _errors.FLOAT_DTYPES)
    precision = _errors.check_precision(op, precision, dtype)
    _errors.check_ndim(op, "a", ta, (2, 3))
    _errors.check_ndim(op, "b", tb, (2, 3))
    opa = ta.mT if trans_a else ta
    opb = tb.mT if trans_b else tb
    shape = _result_shape(op, opa, opb, trans_a, trans_b)
    if tc is not None and tuple(tc.shape) != shape:
        raise ValueError(f"{op}: c has shape {tuple(tc.shape)}, the product has shape {shape}")
    if tc is None and beta != 0.0:
        raise ValueError(f"{op}: beta={beta} needs c")
    if call.out is not None:
        _errors.check_out(op, call.out, shape, dtype)
    return call.finish(_run(call, opa, opb, beta, alpha, shape, precision))


def _result_shape(op: str, a: torch.Tensor, b: torch.Tensor, trans_a: bool, trans_b: bool) -> tuple[int, ...]:
    flags = f" (trans_a={trans_a}, trans_b={trans_b})" if trans_a or trans_b else ""
    if a.ndim == 2 and b.ndim == 3:
        raise ValueError(f"{op}: a 2-D a with a 3-D b is not supported (shapes {tuple(a.shape)} and {tuple(b.shape)})")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"{op}: inner dimensions differ: op(a) has shape {tuple(a.shape)} and op(b) {tuple(b.shape)}{flags}"
        )
    if a.ndim == 3 and b.ndim == 3 and a.shape[0] != b.shape[0]:
        raise ValueError(f"{op}: batch sizes differ: a has shape {tuple(a.shape)} and b {tuple(b.shape)}")
    return (*a.shape[:-1], b.shape[-1])


def _run(
    call: Call,
    a: torch.Tensor,
    b: torch.Tensor,
    beta: float,
    alpha: float,
    shape: tuple[int, ...],
    precision: str,
) -> torch.Tensor:
    """Computes the product on the run device into ``out`` (or a new array) and returns it."""
    a, b = call.on_run_device(a), call.on_run_device(b)
    c = call.on_run_device(call.tensors["c"]) if beta != 0.0 else None
    target = call.out_target(shape, a.dtype)
    if target.numel() == 0:
        return target
    if call.backend == "torch":
        # 16-bit operands are multiplied and scaled in float32 and rounded once, as the kernel does
        wide = torch.float32 if a.dtype.itemsize == 2 else a.dtype
        product = alpha * torch.matmul(a.to(wide), b.to(wide))
        if c is not None:
            product += beta * c.to(wide)
        return target.copy_(product)
    with call.guard():
        launch_gemm(a, b, c, target, alpha, beta, precision)
    return target


def _batched(t: torch.Tensor) -> tuple[int, int, int]:
    """Strides (batch, row, column); batch stride 0 for a 2-D operand shared by the batch."""
    if t.ndim == 2:
        return (0, *t.stride())
    return t.stride()


def _k_major_copy(b: torch.Tensor) -> torch.Tensor:
    """``b`` (k x n) with the same values in K-major memory, copied by densela's transpose kernel."""
    bt = torch.empty((b.shape[1], b.shape[0]), dtype=b.dtype, device=b.device)
    launch_transpose(b, bt, 1.0)
    return bt.T


def _batch_part(t: torch.Tensor, start: int, count: int) -> torch.Tensor:
    """Batch entries [start, start + count) of a 3-D operand; a 2-D operand serves every entry."""
    return t if t.ndim == 2 or count == t.shape[0] else t[start : start + count]


def launch_gemm(
    a: torch.Tensor,
    b: torch.Tensor,
    c: torch.Tensor | None,
    out: torch.Tensor,
    alpha: float,
    beta: float,
    precision: str,
) -> None:
    """Launches ``out = alpha * a @ b + beta * c`` (c None: not read) on tensors already checked."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    batch = out.shape[0] if out.ndim == 3 else 1
    b_k_major = b.stride(-2) == 1 and n > 1
    copy_from = k_major_copy_from(a.dtype, precision)
    if not b_k_major and b.ndim == 2 and copy_from is not None and m >= copy_from and k > 1:
        b = _k_major_copy(b)
        b_k_major = True
    shared_bytes = shared_memory(out.device.index) if out.is_cuda else None
    cfg = gemm_config(m, n, k, a.dtype, precision, b_k_major, shared_bytes)
    tiles = triton.cdiv(m, cfg.block_m) * triton.cdiv(n, cfg.block_n)
    operands = (a, b, out) if c is None else (a, b, c, out)
    index_64 = needs_int64(*operands)
    for start in range(0, batch, MAX_GRID_Y):
        count = min(MAX_GRID_Y, batch - start)
        pa, pb, po = (_batch_part(t, start, count) for t in (a, b, out))
        pc = po if c is None else _batch_part(c, start, count)
        gemm_tiles_kernel[(tiles, count)](
            pa, pb, pc, po,
            m, n, k,
            *_batched(pa), *_batched(pb), *_batched(pc), *_batched(po),
            alpha, beta,
            HAS_C=c is not None,
            PRECISION=precision,
            ACC_DTYPE=_ACC_DTYPE[a.dtype],
            UPCAST=INTERPRET and a.dtype == torch.bfloat16,
            INDEX_64=index_64,
            BLOCK_M=cfg.block_m, BLOCK_N=cfg.block_n, BLOCK_K=cfg.block_k, GROUP_M=cfg.group_m,
            num_warps=cfg.num_warps, num_stages=cfg.num_stages,
        )  # fmt: skip
