"""Elementwise kernels on 2-D tiles (``out = alpha * A + beta * B``, copies into padded rows) and the tile helpers
they share."""

from __future__ import annotations

import os

import triton
import triton.language as tl
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait
from triton.language.target_info import cuda_capability_geq

# Read here rather than from densela._arrays.INTERPRET: the kernel modules import nothing of the array layer. Needed
# beside cuda_capability_geq: under the interpreter on a machine with a Hopper GPU that alone would say yes.
_GDC: tl.constexpr = tl.constexpr(os.environ.get("TRITON_INTERPRET", "0") != "1")


@triton.jit
def wait_for_previous():
    """The first step of a kernel that ``_launch.Launcher(dependent=True)`` may launch as a programmatic dependent
    launch (``_launch.dependent_launches``): wait until the kernel before it in the stream has finished and its
    writes are visible, then let the kernel after it start its programs, which wait here in turn. Launched
    without that attribute, both instructions return at once; the interpreter and GPUs before Hopper (no
    ``griddepcontrol``) skip them. Nothing may read or write global memory before this call."""
    if _GDC and cuda_capability_geq(9):
        gdc_wait()
        gdc_launch_dependents()


@triton.jit
def tile_pointers(
    base, row0, col0, M, N, stride_row, stride_col,
    INDEX_64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, VEC: tl.constexpr,
):  # fmt: skip
    """Pointers to the BLOCK_M x BLOCK_N tile at (row0, col0) of an M x N matrix, and its in-bounds mask.

    Each item is VEC consecutive words (VEC = 2: the real and imaginary parts of a complex item), so the
    tile holds BLOCK_M x (BLOCK_N * VEC) words, its column index flattened as ``j * VEC + v``. Strides
    count items. ``INDEX_64`` widens offsets when the matrix spans more than 2**31 words.
    """
    rows = row0 + tl.arange(0, BLOCK_M)
    flat = tl.arange(0, BLOCK_N * VEC)
    if INDEX_64:
        rows = rows.to(tl.int64)
        flat = flat.to(tl.int64)
        col0 = col0.to(tl.int64)
    cols = col0 + flat // VEC
    if VEC == 1:
        col_offsets = cols * stride_col
    else:
        # Word v of item column col lies at col * stride_col * VEC + v. Written this way, a unit stride_col
        # (which Triton specializes to the constant 1) folds to col0 * VEC + flat, so the compiler sees the
        # words of neighbouring items as one contiguous run and coalesces across items.
        col_offsets = col0 * stride_col * VEC + flat + (flat // VEC) * (stride_col - 1) * VEC
    ptrs = base + rows[:, None] * stride_row * VEC + col_offsets[None, :]
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    return ptrs, mask


@triton.jit
def multiple(x, MULTIPLE: tl.constexpr):
    """``x``, declared a multiple of MULTIPLE (written so that Triton's divisibility analysis sees it): the launcher
    passes the largest power of two up to 16 bytes that divides it (``_launch.multiple_hint``), so that rows whose
    starts Triton cannot prove aligned still load and store in vectors."""
    if MULTIPLE > 1:
        x = x // MULTIPLE * MULTIPLE
    return x


@triton.jit
def upcast(x):
    """``x`` in the type densela computes it in: float32 for 16-bit floats, float32 and float64 unchanged."""
    if x.dtype != tl.float64:
        x = x.to(tl.float32)
    return x


@triton.jit
def add_tiles_kernel(
    a_ptr, b_ptr, out_ptr,
    M, N,
    stride_am, stride_an,
    stride_bm, stride_bn,
    stride_om, stride_on,
    alpha: tl.float64, beta: tl.float64,
    INDEX_64: tl.constexpr,
    FLAT: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    """One program computes one BLOCK_M x BLOCK_N tile of ``out = alpha * A + beta * B``, any strides.

    Each load and the store is coalesced along its own unit-stride axis, so operands of different
    layouts (``A`` and ``B.T``) are read at full width. 16-bit floats are computed in float32 and
    rounded once; ``alpha`` and ``beta`` arrive as float64 and are rounded to the compute type here.
    ``FLAT``: the three arrays are one dense run of M items in the same order (the strides unused), and a
    program takes BLOCK_M * BLOCK_N consecutive items of it.
    """
    pid = tl.program_id(0)
    if FLAT:
        offsets = tl.arange(0, BLOCK_M * BLOCK_N)
        start = pid.to(tl.int64) * (BLOCK_M * BLOCK_N) if INDEX_64 else pid * (BLOCK_M * BLOCK_N)
        mask = offsets < M - start
        a_ptrs, b_ptrs, out_ptrs = a_ptr + start + offsets, b_ptr + start + offsets, out_ptr + start + offsets
    else:
        tiles_n = tl.cdiv(N, BLOCK_N)
        row0 = (pid // tiles_n) * BLOCK_M
        col0 = (pid % tiles_n) * BLOCK_N
        a_ptrs, mask = tile_pointers(a_ptr, row0, col0, M, N, stride_am, stride_an, INDEX_64, BLOCK_M, BLOCK_N, 1)
        b_ptrs, _ = tile_pointers(b_ptr, row0, col0, M, N, stride_bm, stride_bn, INDEX_64, BLOCK_M, BLOCK_N, 1)
        out_ptrs, _ = tile_pointers(out_ptr, row0, col0, M, N, stride_om, stride_on, INDEX_64, BLOCK_M, BLOCK_N, 1)
    a = upcast(tl.load(a_ptrs, mask=mask))
    b = upcast(tl.load(b_ptrs, mask=mask))
    result = a * tl.full((), alpha, a.dtype) + b * tl.full((), beta, b.dtype)
    tl.store(out_ptrs, result.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def copy_rows_kernel(
    a_ptr, b_ptr, out_a_ptr, out_b_ptr,
    M_A, N_A, stride_a, stride_out_a,
    M_B, N_B, stride_b, stride_out_b,
    TILES_A,
    INDEX_64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    """Copies the M_A x N_A matrix ``A`` into ``out_a`` and the M_B x N_B ``B`` into ``out_b`` in one launch: matrices
    of unit column stride, rows ``stride`` items apart, the outputs' row strides multiples of 16 items (the padded
    rows that GEMM's tiles kernel loads in whole vectors), each output row written whole, zeros after its N items
    (whole-vector stores). Programs below TILES_A copy BLOCK_M x BLOCK_N tiles of ``A``, the others tiles of ``B`` (a
    launch of TILES_A programs copies ``A`` alone)."""
    pid = tl.program_id(0)
    if pid < TILES_A:
        src, dst, m, n, stride, stride_out, tile = a_ptr, out_a_ptr, M_A, N_A, stride_a, stride_out_a, pid
    else:
        src, dst, m, n, stride, stride_out, tile = b_ptr, out_b_ptr, M_B, N_B, stride_b, stride_out_b, pid - TILES_A
    tiles_n = tl.cdiv(n, BLOCK_N)
    row0 = (tile // tiles_n) * BLOCK_M
    col0 = (tile % tiles_n) * BLOCK_N
    stride_out = multiple(stride_out, 16)
    src_ptrs, mask = tile_pointers(src, row0, col0, m, n, stride, 1, INDEX_64, BLOCK_M, BLOCK_N, 1)
    dst_ptrs, out_mask = tile_pointers(dst, row0, col0, m, stride_out, stride_out, 1, INDEX_64, BLOCK_M, BLOCK_N, 1)
    tl.store(dst_ptrs, tl.load(src_ptrs, mask=mask, other=0), mask=out_mask)
