"""Matrix products: ``matmul`` and ``gemm``. Validation -> plan -> launch."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from densela import _errors
from densela._arrays import INTERPRET, Call, needs_int64, prepare
from densela._launch import (
    MAX_GRID_Y,
    WORKSPACE_TENSORS,
    Launcher,
    cdiv,
    kept_counters,
    multiple_hint,
    planned,
    replay_key,
    replayed,
    scratch,
)
from densela.kernels.elementwise import copy_rows_kernel
from densela.kernels.gemm import gemm_tiles_kernel, gemm_tma_kernel, split_sum_kernel
from densela.kernels.gemm_ws import (
    WS_CONSUMER_REGS,
    WS_MAXNREG,
    epilogue_block,
    gemm_ws_kernel,
    ws_descriptor,
    ws_num_warps,
)
from densela.transpose import launch_transpose
from densela.tuning import (
    SPLIT_K_MIN_K,
    TF32_MMA2_SIDE,
    THIN_K,
    TMA_MIN_WORK,
    WS_MIN_WORK,
    GemmConfig,
    TileConfig,
    arithmetic,
    gemm_config,
    multiprocessors,
    tf32_mma2_config,
    tile_config,
    warp_specialized,
    wave_fill,
    without_warp_specialization,
)

_TILES = Launcher(gemm_tiles_kernel, dependent=True)
_TMA = Launcher(gemm_tma_kernel, dependent=True)
_WS = Launcher(gemm_ws_kernel)
_SUM = Launcher(split_sum_kernel)
_COPY_ROWS = Launcher(copy_rows_kernel)


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

    def call() -> Any:
        return _gemm("matmul", a, b, None, 1.0, 0.0, False, False, out, precision)

    return replayed("matmul", (), (precision,), (a, b), out, call)


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

    def call() -> Any:
        return _gemm("gemm", a, b, c, alpha, beta, trans_a, trans_b, out, precision)

    tensors = (a, b) if c is None else (a, b, c)
    in_place = out is not None and out is c
    settings = (trans_a, trans_b, precision, c is None, in_place)  # c and an out of one signature: different keys
    key = replay_key("gemm", (alpha, beta), settings, tensors, None if in_place else out)
    if key is None:
        return call()
    return planned(key, tensors if out is None or in_place else (*tensors, out), out, call)


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
    tensors = call.tensors
    ta, tb, tc = tensors["a"], tensors["b"], tensors["c"]
    dtype = _errors.check_same_dtype(op, tensors if tc is not None else {"a": ta, "b": tb}, _errors.FLOAT_DTYPES)
    precision = _errors.check_precision(op, precision, dtype)
    _errors.check_ndim(op, "a", ta, (2, 3))
    _errors.check_ndim(op, "b", tb, (2, 3))
    opa = ta.mT if trans_a else ta
    opb = tb.mT if trans_b else tb
    shape = _result_shape(op, opa.shape, opb.shape, trans_a, trans_b)
    if tc is not None and tc.shape != shape:
        raise ValueError(f"{op}: c has shape {tuple(tc.shape)}, the product has shape {shape}")
    if tc is None and beta != 0.0:
        raise ValueError(f"{op}: beta={beta} needs c")
    if call.out is not None:
        _errors.check_out(op, call.out, shape, dtype)
    return call.finish(_run(call, opa, opb, beta, alpha, shape, precision))


def _result_shape(op: str, a: torch.Size, b: torch.Size, trans_a: bool, trans_b: bool) -> tuple[int, ...]:
    """The product's shape from the shapes of op(a) and op(b), or a ValueError naming both."""
    if len(a) == 2 and len(b) == 3:
        raise ValueError(f"{op}: a 2-D a with a 3-D b is not supported (shapes {tuple(a)} and {tuple(b)})")
    if a[-1] != b[-2]:
        flags = f" (trans_a={trans_a}, trans_b={trans_b})" if trans_a or trans_b else ""
        raise ValueError(f"{op}: inner dimensions differ: op(a) has shape {tuple(a)} and op(b) {tuple(b)}{flags}")
    if len(a) == 3 and len(b) == 3 and a[0] != b[0]:
        raise ValueError(f"{op}: batch sizes differ: a has shape {tuple(a)} and b {tuple(b)}")
    return (*a[:-1], b[-1])


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
    cfg: GemmConfig | None = None,
    tma: bool = True,
) -> None:
    """Launches ``out = alpha * a @ b + beta * c`` (c None: not read) on tensors already checked.

    ``cfg`` replaces the configuration the tuning tables give for this shape (the sweep scripts use it);
    ``tma=False`` asks the tables for the tiles kernel, whose programs leave their SMs tile by tile (LU's update
    beside a panel on another stream), not a persistent one.
    """
    m, k = a.shape[-2:]
    n = b.shape[-1]
    batch = out.shape[0] if out.ndim == 3 else 1
    device = out.device.index if out.is_cuda else None
    chosen = cfg is None
    if chosen:
        cfg = gemm_config(m, n, k, a.dtype, precision, batch=batch, device=device, tma=tma)
        if cfg.kernel == "tma" and m * n * k < TMA_MIN_WORK and not _tma_in_place(a, b, precision):
            # a smaller product gains less from TMA than copying an operand for it would cost (the warp-
            # specialized kernel's copies are no more than the tiles kernel's: TF32 B, 3xTF32 parts, rows)
            cfg = gemm_config(m, n, k, a.dtype, precision, batch=batch, device=device, tma=False)
        elif (
            cfg.kernel == "ws"
            and m * n * k < WS_MIN_WORK
            and not (k <= THIN_K and arithmetic(a.dtype, precision) == "ieee")
            and not _ws_in_place(a, b, c, out, precision, device)
        ):
            # the mid-sized products the tables send there (tuning.MID_WS_FROM_WORK), unless TMA cannot read their
            # operands or write their output where they are; thin-K ones (float32 FMA products of large outputs,
            # tuning.THIN_WS_FROM) keep it and copy their operands, a sliver of their output (H100, 2026-11-27,
            # bench-results/nvidia-h100/2026-11-27-fma-order, rows of 50 elements: 5000 x 50 x 5000 106.7 -> 91.6 us)
            cfg = gemm_config(m, n, k, a.dtype, precision, batch=batch, device=device, tma=False)
    mma2 = tma and _tf32_mma2(a, b, c, out, precision, device)  # a persistent kernel: not with tma=False
    if chosen and mma2:
        cfg = tf32_mma2_config(m, n, k, device)
    if cfg.kernel == "tiles" and _fma_b_k_major(a, b, out, precision):
        if a.stride(0) != 1 and not _padded(a, b, precision):
            # both K-major: the smaller operand copied into the other order (the padded copies make B N-major)
            if a.numel() < b.numel():
                a = _aligned_copy(a.T).T
            else:
                b = _aligned_copy(b)
        if a.stride(0) == 1:  # an M-major A: out^T = B^T A^T has a K-major A and an N-major B
            a, b, out, c = b.T, a.T, out.T, (None if c is None else c.T)
            if chosen:
                cfg = gemm_config(n, m, k, a.dtype, precision, device=device, tma=tma)
            launch_gemm(a, b, c, out, alpha, beta, precision, cfg, tma)
            return
    if cfg.kernel == "tiles" or out.ndim != 2 or k == 0:
        _launch_tiles(a, b, c, out, alpha, beta, precision, cfg)
    elif cfg.kernel == "ws" and _ws_takes(a, c, out, precision, device, cfg.split_k):
        _launch_ws(a, b, c, out, alpha, beta, precision, cfg, device, mma2=mma2)
    elif cfg.kernel == "ws" and (arithmetic(a.dtype, precision) in ("ieee", "float64") or cfg.split_k > 1):
        # FMA and float64 products whose output TMA cannot write: the tiles kernel (the TMA kernel's FMA dot on
        # the warp-specialized tiles ran at 0.11-0.16 of cuBLAS, H100, 2026-11-23); so too products split along K
        # (the TMA kernel does not split)
        tiles = gemm_config(m, n, k, a.dtype, precision, batch=batch, device=device, tma=False)
        _launch_tiles(a, b, c, out, alpha, beta, precision, tiles)
    else:
        _launch_tma(a, b, c, out, alpha, beta, precision, without_warp_specialization(cfg), device)


FMA_LAYOUT_FROM_WORK = 2**23
"""m * n * k from which ``launch_gemm`` moves a K-major B out of the way of float32 FMA products on the tiles kernel
(``_fma_b_k_major``). H100, 2026-11-26 (``bench-results/nvidia-h100/2026-11-26-fma-layouts``): 128^3 with B copied 10.3
us against 10.1, transposed (M-major A) 11.2 against 10.1; 256^3 12.4 against 15.7 and 9.1 against 16.2."""


TF32_COPY_FROM_WORK = 600**3
"""m * n * k from which a 2-D TF32 product on the tiles kernel copies an operand that is not K-major into K-major rows
first (``_tf32_copies``; ``_padded`` products are copied so anyway): Triton's tensor-core dot read 32-bit operands
from shared memory K-major only, and with an N-major B or an M-major A the product took up to 6 times as long (H100,
2026-11-26, ``bench-results/nvidia-h100/2026-11-26-fma-layouts``, lab ``gemm-layouts``: 2000^3 TF32 218.8 us with B
N-major, 374.2 with A M-major too, against 62.8 with both K-major, and 79.9 and 93.4 with the copies; 640^3 25.7
against 15.5; 512^3 within 10% without copies)."""
TF32X3_ODD_B_COPY_FROM_WORK = 512**3
"""m * n * k from which a 3xTF32 product below TF32_COPY_FROM_WORK copies B K-major where its rows have an odd stride
(``_odd_rows``). H200, 2026-11-28 (``bench-results/nvidia-h200/2026-11-28-odd-columns/call8-tf32x3.log``, the lab's
measure, us, as it is -> copied): 513^3 83.3 -> 32.9, 513 x 513 x 512 59.2 -> 20.6, 577^3 93.9 -> 35.8 (cuBLAS SGEMM
19.5-19.7 at 513); 385^3 20.6 -> 24.2, and products without odd rows lose by the copy (512^3 13.8 -> 17.5)."""
COPY_MIN_SIDE = 128
"""An operand is copied for its layout (``_tf32_copies``) or its odd strides (``_odd_copies``) only where the product's
other output side is at least this long (B: m, A: n), so that the copy's items are at most a 128th of the product's
multiply-adds: 64 x 4096 x 4096 TF32 with its 4096 x 4096 B copied took 88.1 us against 57.1 without (the odd-stride
copies follow it by that measure, not one of their own: a matrix-vector product reads its matrix once, and a copy
would read and write it once more)."""


def _tf32_copies(a: torch.Tensor, b: torch.Tensor, precision: str) -> tuple[bool, bool]:
    """Whether the tiles kernel's 2-D TF32 or 3xTF32 product ``a @ b`` first copies (A, B) K-major: an N-major B in
    both, an M-major A in TF32 only (3xTF32 on the tiles kernel ran as fast with it: 1000^3 43.3 us either way,
    49.4 with the copy), from ``TF32_COPY_FROM_WORK`` and ``COPY_MIN_SIDE``; for 3xTF32 an N-major B with rows of an
    odd stride (``_odd_rows``) from ``TF32X3_ODD_B_COPY_FROM_WORK`` already.

    Example:
        >>> x = torch.empty(1024, 1024)
        >>> _tf32_copies(x, x, "tf32"), _tf32_copies(x.T, x.T, "tf32"), _tf32_copies(x.T, x, "tf32x3")
        ((False, True), (True, False), (False, True))
        >>> y, z = torch.empty(513, 513), torch.empty(512, 512)  # rows of an odd stride, of an even one
        >>> _tf32_copies(y, y, "tf32x3"), _tf32_copies(y, y, "tf32"), _tf32_copies(z, z, "tf32x3")
        ((False, True), (False, False), (False, False))
    """
    if a.ndim != 2 or b.ndim != 2 or a.dtype != torch.float32 or precision not in ("tf32", "tf32x3"):
        return False, False
    (m, k), n = a.shape, b.shape[1]
    work = m * n * k
    odd_b = precision == "tf32x3" and _odd_rows(b, precision)
    copy_a = precision == "tf32" and a.stride(1) != 1 and n >= COPY_MIN_SIDE and work >= TF32_COPY_FROM_WORK
    b_from = min(TF32X3_ODD_B_COPY_FROM_WORK, TF32_COPY_FROM_WORK) if odd_b else TF32_COPY_FROM_WORK
    return copy_a, b.stride(0) != 1 and m >= COPY_MIN_SIDE and work >= b_from


def _fma_b_k_major(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, precision: str) -> bool:
    """Whether the 2-D float32 FMA product ``a @ b`` has a K-major B (K > 1, N > 1), which Triton's FMA dot on the
    tiles kernel reads from shared memory element by element: 2.5-3 times slower than an N-major one (H100,
    2026-11-26, ``bench-results/nvidia-h100/2026-11-26-fma-layouts``: 1000^3 171.7 us against 61.5, 2000^3 1236
    against 400). ``launch_gemm`` then runs ``out^T = B^T A^T`` where A is M-major (a K-major A and an N-major B), and
    where A is K-major first copies the smaller operand into the other order, from ``FMA_LAYOUT_FROM_WORK``.

    Example:
        >>> x = torch.empty(256, 256)
        >>> _fma_b_k_major(x, x.T, x, "ieee"), _fma_b_k_major(x, x, x, "ieee"), _fma_b_k_major(x, x.T, x, "tf32")
        (True, False, False)
    """
    if a.ndim != 2 or b.ndim != 2 or out.ndim != 2 or arithmetic(a.dtype, precision) != "ieee":
        return False
    (m, k), n = a.shape, b.shape[1]
    return k > 1 and n > 1 and b.stride(0) == 1 and b.stride(1) != 1 and m * n * k >= FMA_LAYOUT_FROM_WORK


def _launch_tiles(
    a: torch.Tensor,
    b: torch.Tensor,
    c: torch.Tensor | None,
    out: torch.Tensor,
    alpha: float,
    beta: float,
    precision: str,
    cfg: GemmConfig,
) -> None:
    """``gemm_tiles_kernel`` over the batch in grid-sized chunks, split along K when ``cfg`` says so."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    batch = out.shape[0] if out.ndim == 3 else 1
    a, b, load_m, load_n = _tiles_operands(a, b, precision)
    split = max(1, min(cfg.split_k, cdiv(k, cfg.block_k)))
    tiles = cfg.tiles(m, n)
    acc_dtype = _ACC_DTYPE[a.dtype]
    index_64 = needs_int64(a, b, out) or (c is not None and needs_int64(c))
    parts = counts = out
    if split > 1:
        chunk = min(batch, MAX_GRID_Y) * tiles
        wide = torch.float64 if acc_dtype == tl.float64 else torch.float32
        parts, counts = _split_workspace(out.device, wide, chunk * split * cfg.block_m * cfg.block_n, chunk)
    most = 16 // a.element_size()  # elements in 16 bytes, the widest vector
    for start in range(0, batch, MAX_GRID_Y):
        count = min(MAX_GRID_Y, batch - start)
        pa, pb, po = (_batch_part(t, start, count) for t in (a, b, out))
        pc = po if c is None else _batch_part(c, start, count)
        ints = (m, n, k, load_m, load_n, *_batched(pa), *_batched(pb), *_batched(pc), *_batched(po))
        _TILES((tiles, count, split),
            pa, pb, pc, po, parts, counts,
            *ints,
            alpha, beta,
            HAS_C=c is not None,
            SPLIT=split > 1,
            SUM_CHUNK=_sum_chunk(split, cfg),
            PRECISION=precision,
            ACC_DTYPE=acc_dtype,
            UPCAST=INTERPRET and a.dtype == torch.bfloat16,
            INDEX_64=index_64,
            HINTS=tuple(multiple_hint(x, most) for x in ints),
            BLOCK_M=cfg.block_m, BLOCK_N=cfg.block_n, BLOCK_K=cfg.block_k, GROUP_M=cfg.group_m,
            num_warps=cfg.num_warps, num_stages=cfg.num_stages,
        )  # fmt: skip


def _sum_chunk(split: int, cfg: GemmConfig) -> int:
    """How many split-K partial tiles the finishing program loads at once: about 32 values per thread."""
    if split <= 1:
        return 1
    return max(1, min(triton.next_power_of_2(split), 1024 * cfg.num_warps // (cfg.block_m * cfg.block_n)))


PAD_FROM_WORK = 2048**3
"""m * n * k from which the tiles kernel reads unaligned 2-D operands (k > THIN_K) from padded copies: the
copies cost two passes over the operands and two more launches, and buy full-width vector loads. On an
H200 (runs of 2026-11-22): 2500^3 float32 went from 0.51 to 0.65 of cuBLAS with them, while at
N = 1025..1100 they made the product 20-50% slower than N = 1001..1016 without them."""

PAD_ODD_FROM_WORK = {"ieee": 1025**3, "16-bit": 256**3, "tf32": 1201**3, "tf32x3": 1401**3}
"""m * n * k from which products of these arithmetics also read from padded copies operands whose rows load element
by element (``_odd_rows``: row-major with an odd row stride; for 16-bit products column-major with an odd column
stride too).

float32 FMA: H100, 2026-11-23 (``bench-results/nvidia-h100/2026-11-23-odd-sizes``, GPU time, copies included): 1025^3,
1027^3, 1031^3, 1049^3, 1089^3 and 1099^3 at 0.80-0.94 of cuBLAS padded against 0.73-0.87 as they are (from 1025 the
tiles no longer fit two programs per SM, and element-by-element loads make each program issue-bound); 1001^3 and
1023^3 lose (0.82-0.84 against 0.89-0.90; again on 2026-11-28 with the copies in one launch: 1001^3 .. 1023^3 71.2-71.8
us padded against 70.3-70.8), as does 1050^3, whose rows load in 8-byte vectors (0.84 against 0.90).

16-bit: rows (columns) of an odd stride start on 2-byte boundaries, which the asynchronous copies that pipeline the
K loop cannot read (4 bytes at least), so the tiles kernel loaded them element by element into registers between its
products; only the operands of odd strides are copied, each as it is laid out (``_tiles_operands``). H100,
2026-11-28 (``bench-results/nvidia-h100/2026-11-28-odd-16bit``, the lab's measure, bfloat16 row-major, us, as they
are -> padded, cuBLAS): 513^3 34.3 -> 14.7 (19.0), 1001^3 58.3 -> 19.6 (31.8), 1025^3 59.2 -> 20.1 (35.4),
1999^3 214.2 -> 52.1 (132.2), 1000 x 1000 x 1001 (A's rows odd) 32.6 -> 19.2 (32.0); 255^3 8.4 -> 9.2 (11.4). H200,
2026-11-28 (``bench-results/nvidia-h200/2026-11-28-odd-columns``, same measure): odd columns too, bfloat16 1001^3
nt 42.3 -> 21.6 (33.6), tn 44.3 -> 17.9 (29.3), tt 77.3 -> 19.2 (33.2), 513^3 tt 44.8 -> 14.8 (19.3); float16 from
any size (call 2) 257^3 nn 9.6 / 9.8 and tt 15.7 -> 12.1, 255^3 nn 8.7 -> 9.3, 201^3 8.5 -> 9.5, 129^3 7.9 -> 8.5
(the copy's launch costs more than it saves), hence 256^3; bfloat16 from 256^3 (call 1): 321^3 19.0 -> 10.5, 449^3
25.1 -> 12.4, 511^3 27.2 -> 11.9 (cuBLAS 12.8-15.6).

TF32 and 3xTF32: A copied into padded rows, B into padded K-major rows (as ``_tiles_operands`` copies them from
PAD_FROM_WORK). H200, 2026-11-28 (``bench-results/nvidia-h200/2026-11-28-odd-columns``, calls 3-4, the lab's measure,
row-major, us, as they are -> padded): TF32 1201^3 48.4 -> 41.6, 1401^3 54.5 -> 45.6, 1601^3 99.1 -> 84.5, 1801^3
114.1 -> 102.6, 1999^3 138.0 -> 108.7 (cuBLAS 150.7), 1999 x 1999 x 1001 74.6 -> 62.4, but 1001^3 40.8 -> 58.6,
1000 x 1001 x 1000 27.9 -> 54.7, 769^3 33.7 / 31.9, 513^3 28.6 -> 60.2; 3xTF32 1401^3 124.1 -> 117.1, 1601^3 257.7
-> 208.9, 1999^3 328.3 -> 267.5, but 1201^3 104.2 -> 114.5, 1001^3 68.8 / 68.1. float64 gains nothing from them
(1999^3 441.4 / 431.8, 1001^3 63.6 -> 66.8, 513^3 23.8 -> 28.4), and is not padded below PAD_FROM_WORK."""


def _padded(a: torch.Tensor, b: torch.Tensor, precision: str) -> bool:
    """Whether ``_launch_tiles`` reads the operands from padded copies (``_tiles_operands``): 2-D products with
    k > THIN_K from PAD_FROM_WORK, and those of an arithmetic in PAD_ODD_FROM_WORK from its work there where an
    operand loads element by element and is worth copying (``_odd_copies``)."""
    if a.ndim != 2 or b.ndim != 2:
        return False
    (m, k), n = a.shape, b.shape[1]
    work = m * n * k
    if k <= THIN_K:
        return False
    if work >= PAD_FROM_WORK:
        return True
    arith = arithmetic(a.dtype, precision)
    return work >= PAD_ODD_FROM_WORK.get(arith, PAD_FROM_WORK) and any(_odd_copies(a, b, arith))


def _odd_copies(a: torch.Tensor, b: torch.Tensor, arith: str) -> tuple[bool, bool]:
    """Whether the odd strides of A and of B (``_odd_rows``) are worth a copy: where the product's other output side
    (n for A, m for B) is at least COPY_MIN_SIDE.

    Example:
        >>> x, y, v = torch.empty(1000, 1001), torch.empty(1001, 1000), torch.empty(1001, 1)
        >>> _odd_copies(x, y, "ieee"), _odd_copies(x, v, "ieee"), _odd_copies(x, y[:, :100], "ieee")
        ((True, False), (False, False), (False, False))
    """
    m, n = a.shape[0], b.shape[1]
    return _odd_rows(a, arith) and n >= COPY_MIN_SIDE, _odd_rows(b, arith) and m >= COPY_MIN_SIDE


def _odd_rows(t: torch.Tensor, arith: str) -> bool:
    """Whether the 2-D ``t`` is row-major with an odd row stride and rows of more than one element (its rows start
    anywhere in a 16-byte word and load element by element), or for a 16-bit product (``arith``) column-major with an
    odd column stride too.

    Example:
        >>> x = torch.empty(5, 7)
        >>> _odd_rows(x, "ieee"), _odd_rows(x.T, "ieee"), _odd_rows(x.T, "16-bit"), _odd_rows(x[:, :1], "ieee")
        (True, False, True, False)
    """
    if arith == "16-bit" and t.stride(0) == 1:
        t = t.T
    return t.shape[1] > 1 and t.stride(1) == 1 and t.stride(0) % 2 == 1


_WORKSPACES: dict[tuple[torch.device, int, torch.dtype], torch.Tensor] = {}
WORKSPACE_KEEP_BYTES = 64 << 20
"""Split-K workspaces up to this size are kept per device, stream and dtype and reused (so that ``matmul`` can
replay the launches that use them); larger ones are allocated for one call."""


def _split_workspace(
    device: torch.device, dtype: torch.dtype, items: int, tiles: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """(partial sums of ``items`` elements, ``tiles`` zeroed int32 counters) for one split-K launch (or stream-K's
    slots and flags on the warp-specialized kernel).

    Kept per device and stream: launches on one stream run in order, and each leaves its counters zero.
    """
    counters = kept_counters("split-k", max(tiles, 1024), device)
    stream = torch._C._cuda_getCurrentRawStream(device.index) if device.type == "cuda" else 0
    key = (device, stream, dtype)
    parts = _WORKSPACES.get(key)
    if parts is None or parts.numel() < items:
        parts = torch.empty(items, dtype=dtype, device=device)
        if items * parts.element_size() <= WORKSPACE_KEEP_BYTES:
            _WORKSPACES[key] = parts
            WORKSPACE_TENSORS[id(parts)] = parts
    return parts, counters


def _tiles_operands(a: torch.Tensor, b: torch.Tensor, precision: str) -> tuple[torch.Tensor, torch.Tensor, int, int]:
    """(a, b, load_m, load_n) as the tiles kernel reads them fastest, copying an operand that is not.

    Products that ``_padded`` names: A in rows of K contiguous elements starting on multiples of 16 elements; B
    K-major for TF32 products (wgmma reads 32-bit operands only K-major), else rows of N contiguous elements on
    multiples of 16 elements; a copy of B pads its rows to a multiple of 16 and returns that as load_n, so that the
    load masks along N come in whole vectors (``_padded_rows``: both copies in one launch where it can). 16-bit
    products padded for their odd strides alone (below PAD_FROM_WORK) copy only the operands of odd strides, each
    into padded rows or, column-major, padded columns (the tensor cores read either order), in one launch; an M-major
    A's copy returns its padded columns as load_m. Other TF32 and 3xTF32 products copy what ``_tf32_copies`` says,
    K-major. load_m and load_n are m and n where nothing is padded along them.
    """
    m, n = a.shape[-2], b.shape[-1]
    if not _padded(a, b, precision):
        copy_a, copy_b = _tf32_copies(a, b, precision)
        return _aligned_copy(a) if copy_a else a, _aligned_copy(b.T).T if copy_b else b, m, n
    copy_a = not _rows_aligned(a, 16)
    if precision in ("tf32", "tf32x3"):
        a = _aligned_copy(a, 16) if copy_a else a
        if b.stride(0) != 1 and b.shape[0] > 1 and n > 1:
            b = _aligned_copy(b.T).T
        return a, b, m, n
    if a.element_size() == 2 and m * n * a.shape[1] < PAD_FROM_WORK:  # padded for its odd strides alone
        a_t, b_t = a.stride(1) != 1, b.stride(1) != 1  # copied as their transposes' rows, and stay as they are
        copy_a, copy_b = _odd_copies(a, b, "16-bit")
        a_rows, b_rows = _padded_rows(a.T if a_t else a, b.T if b_t else b, copy_a, copy_b)
        a, b = a_rows.T if a_t else a_rows, b_rows.T if b_t else b_rows
        return a, b, a.stride(1) if copy_a and a_t else m, b.stride(0) if copy_b and not b_t else n
    copy_b = not (_rows_aligned(b, 16) and n % 16 == 0)
    a, b = _padded_rows(a, b, copy_a, copy_b)
    return a, b, m, b.stride(0) if copy_b else n


PAD_COPY_TILE = TileConfig(32, 128, 4)
"""``copy_rows_kernel``'s tiles (``_padded_rows``). H100, 2026-11-27
(``bench-results/nvidia-h100/2026-11-27-thin-int8/call11-padded-copies.jsonl``, GPU time, L2 flushed): both operands of
1025^3 .. 1099^3 float32 copied into padded rows in one launch in 10.9-11.8 us, against 8.0-10.7 for one operand alone
(densela's transpose kernel, torch's copy or this kernel) and 13.2-14.2 for torch's two copies; of seven tilings
the fastest or within 0.1 us of it on each size."""


def _padded_rows(a: torch.Tensor, b: torch.Tensor, copy_a: bool, copy_b: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """(a, b), each copied into new rows of a multiple of 16 elements where ``copy_a`` / ``copy_b`` says: both by one
    launch of ``copy_rows_kernel`` where those copied have unit column stride (a copy's launch and its read after the
    L2 flush cost most of its time at these sizes), else one by one by ``_aligned_copy``."""
    copied = [x for x, flag in ((a, copy_a), (b, copy_b)) if flag]
    if not copied:
        return a, b
    if any(x.stride(1) != 1 for x in copied):
        return (_aligned_copy(a, 16) if copy_a else a), (_aligned_copy(b, 16) if copy_b else b)
    outs = [scratch((x.shape[0], cdiv(x.shape[1], 16) * 16), x.dtype, x.device)[:, : x.shape[1]] for x in copied]
    tile = PAD_COPY_TILE
    tiles = [cdiv(x.shape[0], tile.block_m) * cdiv(x.shape[1], tile.block_n) for x in copied]
    (first, second), (out_first, out_second) = (copied[0], copied[-1]), (outs[0], outs[-1])  # one copy: twice the same
    _COPY_ROWS((sum(tiles),),
        first, second, out_first, out_second,
        *first.shape, first.stride(0), out_first.stride(0),
        *second.shape, second.stride(0), out_second.stride(0),
        tiles[0],
        INDEX_64=needs_int64(*copied, *outs),
        BLOCK_M=tile.block_m, BLOCK_N=tile.block_n,
        num_warps=tile.num_warps,
    )  # fmt: skip
    return (outs[0] if copy_a else a), (outs[-1] if copy_b else b)


def _rows_aligned(t: torch.Tensor, multiple: int) -> bool:
    """Whether the 2-D ``t`` has unit column stride, a 16-byte aligned start and a row stride that is a multiple
    of ``multiple`` elements."""
    return t.stride(1) == 1 and t.data_ptr() % 16 == 0 and t.stride(0) % multiple == 0


def _aligned_copy(x: torch.Tensor, multiple: int = 0, split: bool = False) -> Any:
    """``x`` (2-D, any strides) copied by densela's transpose kernel into new rows whose stride is a multiple of
    ``multiple`` elements (default: 16 bytes, what TMA needs; 16 elements is what Triton's divisibility
    specialization sees). With ``split`` (float32), the (hi, lo) TF32 parts of ``x`` for 3xTF32 instead."""
    rows, cols = x.shape
    multiple = multiple or 16 // x.element_size()
    stride = cdiv(cols, multiple) * multiple

    def new() -> torch.Tensor:
        return scratch((rows, stride), x.dtype, x.device)[:, :cols]

    hi, lo = new(), (new() if split else None)
    launch_transpose(x.T, hi, 1.0, lo=lo)
    return (hi, lo) if split else hi


def _tma_in_place(a: torch.Tensor, b: torch.Tensor, precision: str) -> bool:
    """Whether ``_launch_tma`` reads both operands without copying them (never for 3xTF32: its parts are copies)."""
    if a.ndim != 2 or b.ndim != 2 or (a.dtype == torch.float32 and precision == "tf32x3"):
        return False
    k_major_only = a.dtype == torch.float32 and precision == "tf32"
    return _tma_view(a, k_major_only) is not None and _tma_view(b.T, k_major_only) is not None


def _tma_view(x: torch.Tensor, k_major_only: bool) -> tuple[torch.Tensor, bool] | None:
    """The 2-D operand ``x`` (rows x K, as the product uses it) as TMA reads it in place: (view, K-major?), or
    None when it must be copied first.

    K-major: ``x`` itself, rows of K contiguous elements. Otherwise ``x.T`` (K x rows), when the tensor
    cores may read it transposed (16-bit, float64 and FMA products).
    """
    tma_rows = 16 // x.element_size()
    if _rows_aligned(x, tma_rows):
        return x, True
    if not k_major_only and _rows_aligned(x.T, tma_rows):
        return x.T, False
    return None


def _tma_operand(x: torch.Tensor, k_major_only: bool) -> tuple[torch.Tensor, bool]:
    """``_tma_view`` of ``x``, or a K-major copy of it in 16-byte aligned rows (densela's transpose kernel)."""
    return _tma_view(x, k_major_only) or (_aligned_copy(x), True)


def _descriptor(view: torch.Tensor, k_major: bool, rows_block: int, k_block: int) -> TensorDescriptor:
    """A TMA descriptor over ``view`` (rows x K when ``k_major``, else K x rows) with tiles of the block shape."""
    block = [rows_block, k_block] if k_major else [k_block, rows_block]
    return TensorDescriptor(view, list(view.shape), [view.stride(0), 1], block)


def _tma_operands(
    a: torch.Tensor,
    b: torch.Tensor,
    precision: str,
    cfg: GemmConfig,
    descriptor: Any,
    a_registers: bool = False,
    mma2: bool = False,
) -> tuple:
    """(A, B, A_lo, B_lo descriptors, A K-major?, B K-major?) for the TMA kernels, built by ``descriptor`` (view,
    K-major?, rows block, K block) after the copies TMA and the tensor cores need: 3xTF32 splits both operands
    into K-major TF32 parts (the lo descriptors are None otherwise), TF32 needs both K-major (B only with
    ``a_registers``: the kernel reads an M-major A into registers; neither with ``mma2``), anything else is read
    in place where TMA can."""
    bm, bn, bk = cfg.block_m, cfg.block_n, cfg.block_k
    if a.dtype == torch.float32 and precision == "tf32x3":
        (a_op, a_lo), (b_op, b_lo) = _aligned_copy(a, split=True), _aligned_copy(b.T, split=True)
        return (descriptor(a_op, True, bm, bk), descriptor(b_op, True, bn, bk),
                descriptor(a_lo, True, bm, bk), descriptor(b_lo, True, bn, bk), True, True)  # fmt: skip
    tf32 = a.dtype == torch.float32 and precision == "tf32"
    (a_op, a_km), (b_op, b_km) = _tma_operand(a, tf32 and not a_registers), _tma_operand(b.T, tf32 and not mma2)
    return descriptor(a_op, a_km, bm, bk), descriptor(b_op, b_km, bn, bk), None, None, a_km, b_km


def _ws_takes(
    a: torch.Tensor, c: torch.Tensor | None, out: torch.Tensor, precision: str, device: int | None, split_k: int
) -> bool:
    """Whether ``gemm_ws_kernel`` computes this product: a Hopper GPU, an output (and C) of ``out``'s dtype in rows
    TMA can write, and no split along K for float64 (the kernel's partial sums are float32)."""
    if not warp_specialized(device) or (arithmetic(a.dtype, precision) == "float64" and split_k > 1):
        return False
    return all(t.dtype == out.dtype and _rows_aligned(t, 16 // t.element_size()) for t in (out, c) if t is not None)


def _ws_in_place(
    a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, out: torch.Tensor, precision: str, device: int | None
) -> bool:
    """Whether ``gemm_ws_kernel`` takes this product with operands TMA reads where they are, in either order (a TF32
    operand in the wrong one is still copied K-major, as on the tiles kernel), and an output it writes there."""
    if a.ndim != 2 or b.ndim != 2 or not _ws_takes(a, c, out, precision, device, 1):
        return False
    return _tma_view(a, False) is not None and _tma_view(b.T, False) is not None


def _tf32_mma2(
    a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, out: torch.Tensor, precision: str, device: int | None
) -> bool:
    """Whether a TF32 product runs on the warp-specialized kernel's ``mma_v2`` path (``tuning.TF32_MMA2_SIDE``): 2-D,
    thin (the shorter output side at most TF32_MMA2_SIDE, K at least SPLIT_K_MIN_K), operands TMA reads in place, one
    of them not K-major; none is copied."""
    if a.ndim != 2 or b.ndim != 2 or a.dtype != torch.float32 or precision != "tf32":
        return False
    (m, k), n = a.shape, b.shape[1]
    if min(m, n) > TF32_MMA2_SIDE or k < SPLIT_K_MIN_K or not _ws_in_place(a, b, c, out, precision, device):
        return False
    return not _tma_in_place(a, b, precision)  # TF32: both K-major, which wgmma reads


FMA_REORDER_FROM = 4096
"""The other output side's length from which a K-major operand of a float32 FMA product on the warp-specialized
kernel is copied into the order its FMA consumer reads fastest (A M-major, B N-major; ``_fma_copies``). H100,
2026-11-27 (``bench-results/nvidia-h100/2026-11-27-fma-order``, call 2, lab measure, us, as the operands came ->
copied): a K-major A beside an N-major B (row-major operands) 8192 x 48 x 8192 178.9 -> 168.6 (both M-major and
N-major in place: 165.7), 20480 x 32 x 20480 705.0 -> 690.1 (682.7), 20480 x 128 x 20480 2322 -> 2252 (2223), 4096^3
2865 -> 2799 (2756), 8192^3 22894 -> 22129 (22127); 2000^3 360.7 -> 359.1 and 4096 x 36 x 4096 51.2 -> 51.2: there
the copy costs what it saves. Both K-major, B copied too where m is long: 8192 x 48 x 8192 189.4 -> 175.8, 20480 x 32 x
20480 757.0 -> 701.0, 4096^3 2911 -> 2848, but 128 x 4096 x 4096 109.8 -> 148.5 (B, 4096 x 4096, costs more to copy
than the product saves). Products of fewer than FMA_REORDER_MIN_WORK multiply-adds keep their operands."""
FMA_REORDER_MIN_WORK = 2**31
"""m * n * k from which ``_fma_copies`` copies a K-major operand: the copy's launch costs about 3 us whatever its
size (H100, lab ``gemm-thin``, 4096 x 32 x 4096 with A copied: 39.9 and 40.0 us in two runs against 36.2-37.2 in nine
runs without; 4096 x 36 x 4096 51.2 against 51.2, 128 x 4096 x 4096 104.4 against 105.3 in the A/B of call 2, 8192
x 48 x 8192, 3.2e9 multiply-adds, 178.9 -> 168.6). Not run on a GPU: the line was drawn from these runs after the
device time was spent."""


def _fma_copies(a: torch.Tensor, b: torch.Tensor) -> tuple[bool, bool]:
    """Whether the 2-D float32 FMA product ``a @ b`` on the warp-specialized kernel first copies (A M-major, B
    N-major): an operand TMA cannot read in place always (into that order rather than K-major); a K-major one where
    the product's other output side is at least FMA_REORDER_FROM long and its work at least FMA_REORDER_MIN_WORK,
    and where both are K-major, the smaller of them in any case (0.86 of cuBLAS at 4096^3 and 8192^3 without, H100,
    2026-11-23).

    Example:
        >>> x, y = torch.empty(8192, 64), torch.empty(64, 8192)
        >>> _fma_copies(x, y), _fma_copies(x, y.T.contiguous().T), _fma_copies(y.T, y)
        ((True, False), (True, True), (False, False))
        >>> _fma_copies(x[:4096], y[:, :4096])  # 2^30 multiply-adds
        (False, False)
        >>> odd = torch.empty(100, 50)  # rows of 200 bytes, which TMA cannot read
        >>> _fma_copies(odd, odd.T.contiguous())
        (True, False)
    """
    (m, k), n = a.shape, b.shape[1]
    rows = 16 // a.element_size()
    a_m, b_n = _rows_aligned(a.T, rows), _rows_aligned(b, rows)  # the FMA consumer's faster orders
    a_k, b_k = not a_m and _rows_aligned(a, rows), not b_n and _rows_aligned(b.T, rows)
    large = m * n * k >= FMA_REORDER_MIN_WORK
    copy_a = not a_m and (not a_k or (large and n >= FMA_REORDER_FROM) or (b_k and a.numel() <= b.numel()))
    copy_b = not b_n and (not b_k or (large and m >= FMA_REORDER_FROM) or (a_k and not copy_a))
    return copy_a, copy_b


STREAM_K_FROM_IDLE = 0.01
"""The share of the SMs' time that whole tiles would leave idle in their last wave (``streams_k``) from which
``gemm_ws_kernel`` shares out the last tiles of a float32 FMA product by K steps (stream-K). H100, 2026-11-27
(``bench-results/nvidia-h100/2026-11-27-stream-k``, lab measure against the kernel without it): FMA 4096^3 2703
against 2820 us, 8192^3 21880 against 22226, 3000^3 1173 against 1330. Not the tensor-core products: TF32 4096^3
took 437 against 368 us (3000^3 182 against 199, 8192^3 within 4%), 3xTF32 4096^3 1227 against 1119; the streamed
programs start their tiles at scattered K steps, where whole tiles in grouped order read the same operand tiles
at about the same time (not measured further). The kernel streams float32 accumulators written as float32 only
(its partial sums go through the epilogue's buffer)."""
STREAM_K_MIN_K = 512
"""The shortest K whose float32 FMA products ``gemm_ws_kernel`` streams: products of a shorter K are bound by
writing their output rather than by their tiles' sums, and streamed they lost (H100, 2026-11-27, lab ``gemm-thin``:
4096 x 4096 x 32 46.8 us against 36.3 unstreamed, whose 1024 tiles of two K steps each fell into whole-tile shares
anyway; not investigated further)."""
STREAM_K_FROM_WAVES = 2
"""The fewest waves of whole tiles (tiles per SM) that ``gemm_ws_kernel`` streams: each cut tile costs its two
programs an epilogue and a round trip of the partial sum, which two waves of tiles did not pay back (H100,
2026-11-27, float32 FMA 2000^3 in 256 tiles of 128 x 128, all streamed: 370.8 us against 360.4 unstreamed; 4096^3
in 1024 tiles, 232 streamed: 2719 against 2799)."""


def streams_k(tiles: int, sms: int, k: int) -> bool:
    """Whether a float32 FMA product of ``tiles`` output tiles on ``sms`` SMs, ``k`` long, shares out its last tiles
    by K steps (stream-K): K at least ``STREAM_K_MIN_K``, at least ``STREAM_K_FROM_WAVES`` tiles per SM, and whole
    tiles would leave at least ``STREAM_K_FROM_IDLE`` of the SMs' time idle.

    Example:
        >>> streams_k(512, 132, 4096), streams_k(528, 132, 4096), streams_k(256, 132, 4096)  # 3.88 waves, 4, 1.94
        (True, False, False)
        >>> streams_k(1024, 132, 32)  # bound by writing its output
        False
    """
    if k < STREAM_K_MIN_K or tiles < STREAM_K_FROM_WAVES * sms:
        return False
    return 1 - wave_fill(tiles, sms) >= STREAM_K_FROM_IDLE


def _launch_ws(
    a: torch.Tensor,
    b: torch.Tensor,
    c: torch.Tensor | None,
    out: torch.Tensor,
    alpha: float,
    beta: float,
    precision: str,
    cfg: GemmConfig,
    device: int | None,
    mma2: bool = False,
) -> None:
    """``gemm_ws_kernel`` on 2-D operands; ``out`` and ``c`` have rows TMA can write and read.

    TF32 reads an M-major A through registers but B only K-major: an N-major B with a K-major A (row-major
    operands) swaps the operands, ``out^T = B^T A^T``, and the kernel stores the transposed tiles, instead of
    copying B K-major first. float64 swaps them too: its DMMA fragments read an N-major B more slowly (H100,
    2026-11-26, 4096^3: row-major operands 2.61 ms, an M-major A with a K-major B 2.34). FMA products copy K-major
    operands into the other order where that pays (``_fma_copies``).

    ``mma2`` (``_tf32_mma2``): TF32 on ``mma_v2``, which the kernel takes for an N-major B; both operands are read
    where they are, and a K-major B (with an M-major A) swaps them, the configuration's tiles turned around.
    """
    tf32 = a.dtype == torch.float32 and precision == "tf32"
    if mma2:
        swap = _tma_view(b.T, True) is not None
        if swap:
            cfg = cfg._replace(block_m=cfg.block_n, block_n=cfg.block_m)
    else:
        swap = (tf32 or a.dtype == torch.float64) and _tma_view(b.T, True) is None and _tma_view(a, True) is not None
    if swap:
        a, b = b.T, a.T
    fma = arithmetic(a.dtype, precision) == "ieee"
    if fma:
        copy_a, copy_b = _fma_copies(a, b)
        a = _aligned_copy(a.T).T if copy_a else a  # M-major
        b = _aligned_copy(b) if copy_b else b  # N-major
    m, k = a.shape
    n = b.shape[1]
    bm, bn = cfg.block_m, cfg.block_n
    a_desc, b_desc, a_lo_desc, b_lo_desc, a_km, b_km = _tma_operands(a, b, precision, cfg, ws_descriptor, True, mma2)
    split3 = a_lo_desc is not None
    rows, cols = epilogue_block(bm, bn, cfg.epilogue_split, fma, cfg.pingpong)  # swapped: blocks [cols, rows]
    splits = min(cfg.split_k, cdiv(k, cfg.block_k))
    sms = multiprocessors(device)
    tiles = cfg.tiles(m, n)
    stream_k = fma and splits == 1 and not cfg.pingpong and out.dtype == torch.float32 and streams_k(tiles, sms, k)
    if stream_k:  # a slot of the FMA consumer's accumulator (the tile) and a flag per program
        parts, flags = _split_workspace(out.device, torch.float32, sms * bm * bn, sms)
    else:  # not read
        parts = flags = out
    if splits > 1:  # float32 partial sums of the K slices, stacked, untransposed; split_sum_kernel adds them up
        part_rows = cdiv(m, bm) * bm
        parts = scratch((splits * part_rows, cdiv(n, 4) * 4), torch.float32, out.device)[:, :n]
        out_desc = c_desc = ws_descriptor(parts, True, rows, cols)
        kernel_scalars, kernel_c, out_t = (1.0, 0.0), None, False
    else:
        out_desc = ws_descriptor(out, not swap, rows, cols)
        c_desc = out_desc if c is None else ws_descriptor(c, not swap, rows, cols)
        kernel_scalars, kernel_c, out_t = (alpha, beta), c, swap
    _WS((min(sms, tiles * splits),),
        a_desc, b_desc, a_lo_desc or a_desc, b_lo_desc or b_desc, c_desc, out_desc,  # lo: read with SPLIT3 only
        parts, flags, m, n, k, *kernel_scalars,
        HAS_C=kernel_c is not None, A_K_MAJOR=a_km, B_K_MAJOR=b_km, SPLIT3=split3,
        FMA=fma, OUT_T=out_t,
        STAGES=cfg.num_stages, GROUP_M=cfg.group_m, NUM_SMS=sms, SPLITS=splits, STREAM_K=stream_k,
        CONSUMER_REGS=WS_CONSUMER_REGS,
        num_warps=ws_num_warps(fma), maxnreg=WS_MAXNREG,
    )  # fmt: skip
    if splits > 1:
        if swap:  # the kernel's product is out^T
            out, c = out.T, (None if c is None else c.T)
        _split_sum(parts, part_rows, splits, c, out, alpha, beta)


SUM_TILE = TileConfig(32, 128, 4)
"""``split_sum_kernel``'s tiles: 128 float32 columns, 16 bytes per thread and load."""


def _split_sum(
    parts: torch.Tensor,
    part_rows: int,
    splits: int,
    c: torch.Tensor | None,
    out: torch.Tensor,
    alpha: float,
    beta: float,
) -> None:
    """``out = alpha * (sum of the ``splits`` partial sums stacked in ``parts``, each ``part_rows`` rows) + beta * c``
    (c None: not read), any strides of ``out`` and ``c``.
    """
    m, n = out.shape
    tile = tile_config(4) if INTERPRET else SUM_TILE
    pc = out if c is None else c
    index_64 = needs_int64(parts, out) or (c is not None and needs_int64(c))
    _SUM((cdiv(m, tile.block_m) * cdiv(n, tile.block_n),),
         parts, pc, out, m, n, part_rows, parts.stride(0), *pc.stride(), *out.stride(), alpha, beta,
         SPLITS=splits, HAS_C=c is not None, INDEX_64=index_64,
         BLOCK_M=tile.block_m, BLOCK_N=tile.block_n, num_warps=tile.num_warps)  # fmt: skip


def _launch_tma(
    a: torch.Tensor,
    b: torch.Tensor,
    c: torch.Tensor | None,
    out: torch.Tensor,
    alpha: float,
    beta: float,
    precision: str,
    cfg: GemmConfig,
    device: int | None,
) -> None:
    """``gemm_tma_kernel`` on 2-D operands, after the copies TMA and the tensor cores need."""
    m, k = a.shape
    n = b.shape[1]
    bm, bn = cfg.block_m, cfg.block_n
    # without SPLIT3 the lo descriptors are None: not read, and then not encoded at each launch
    a_desc, b_desc, a_lo_desc, b_lo_desc, a_km, b_km = _tma_operands(a, b, precision, cfg, _descriptor)
    split3 = a_lo_desc is not None
    tiles = cfg.tiles(m, n)
    sms = multiprocessors(device)
    pc = out if c is None else c
    _TMA((min(sms, tiles),),
        a_desc, b_desc, a_lo_desc, b_lo_desc,
        pc, out,
        m, n, k,
        *pc.stride(), *out.stride(),
        alpha, beta,
        HAS_C=c is not None,
        A_K_MAJOR=a_km,
        B_K_MAJOR=b_km,
        SPLIT3=split3,
        PRECISION="tf32" if split3 else precision,
        ACC_DTYPE=_ACC_DTYPE[a.dtype],
        UPCAST=INTERPRET and a.dtype == torch.bfloat16,
        INDEX_64=needs_int64(pc, out),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=cfg.block_k, GROUP_M=cfg.group_m,
        NUM_SMS=sms,
        FLATTEN=cfg.flatten,
        EPILOGUE_SPLIT=cfg.epilogue_split,
        num_warps=cfg.num_warps, num_stages=cfg.num_stages,
    )  # fmt: skip
