"""Batched LU of matrices of at most 32 rows, one warp per matrix, written in Gluon (explicit layouts).

Each thread of a warp holds one row of its matrix in registers, or a part of one for rows of more than 32
columns (``LANES`` threads to a row); matrices of 16 rows share a warp two at a time, of 8 rows four at a time.
With the loop over the columns unrolled, the column of a step is a register of every thread and the pivot
search is one reduction across the lanes; the pivot row reaches the other lanes by one ``shfl.sync.idx`` per
register (the lane that holds it is known after the search), where a masked reduction over the rows costs five
shuffle rounds and as many additions per register. Nothing goes through shared or global memory between the
load and the store.

Triton's interpreter cannot run Gluon: this kernel serves CUDA devices, ``lu_batched_kernel`` and the panel
kernel (densela.kernels.lu) the interpreter, with the same pivots and results.
"""

from __future__ import annotations

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from densela.kernels.lu import _first_max  # a combine function: Gluon's reduce takes it as it is


@gluon.jit
def _from_lane(x, lane):
    """Every element of ``x`` replaced by the same register of lane ``lane`` (per element) of its warp."""
    if x.dtype.primitive_bitwidth == 64:
        bits = gl.inline_asm_elementwise(
            "{ .reg .b32 lo, hi; mov.b64 {lo, hi}, $1; shfl.sync.idx.b32 lo, lo, $2, 0x1f, 0xffffffff; "
            "shfl.sync.idx.b32 hi, hi, $2, 0x1f, 0xffffffff; mov.b64 $0, {lo, hi}; }",
            "=l,l,r", [x.to(gl.int64, bitcast=True), lane], dtype=gl.int64, is_pure=True, pack=1,
        )  # fmt: skip
    else:
        bits = gl.inline_asm_elementwise(
            "shfl.sync.idx.b32 $0, $1, $2, 0x1f, 0xffffffff;",
            "=r,r,r", [x.to(gl.int32, bitcast=True), lane], dtype=gl.int32, is_pure=True, pack=1,
        )  # fmt: skip
    return bits.to(x.dtype, bitcast=True)


@gluon.jit
def lu_warp_kernel(
    src_ptr, lu_ptr, piv_ptr, info_ptr,
    BATCH, M, N,
    stride_sb, stride_sm, stride_sn,
    stride_lb, stride_lm, stride_ln,
    stride_pb, stride_ib,
    ROWS: gl.constexpr, COLS: gl.constexpr, LANES: gl.constexpr, WARPS: gl.constexpr,
):  # fmt: skip
    """Factors the M x N matrices of the batch ``src`` (any strides; ROWS and COLS powers of two >= M and N,
    ROWS * LANES <= 32), each within one warp, LANES threads per row (a row per thread when LANES is 1; matrices
    of fewer than 32 / LANES rows share a warp), WARPS warps per program: ``lu[b] = L U`` of ``P src[b]``, ``piv``
    (0-based) and ``info`` (0 or the 1-based first zero pivot), as ``lu_batched_kernel`` computes them (the same
    pivot, the first largest magnitude, NaN counting as infinite; rows keep their place in the registers and
    carry their current position, and are stored at their final positions). ``lu`` may be ``src``: a matrix is
    read whole by its warp before the warp writes it.
    """
    GROUPS: gl.constexpr = 32 // (ROWS * LANES)  # matrices per warp
    MATS: gl.constexpr = WARPS * GROUPS
    PART: gl.constexpr = COLS // LANES  # columns per thread
    L: gl.constexpr = gl.BlockedLayout([1, 1, PART], [GROUPS, ROWS, LANES], [WARPS, 1, 1], [2, 1, 0])
    ROW: gl.constexpr = gl.SliceLayout(2, L)
    index = gl.arange(0, MATS, layout=gl.SliceLayout(1, ROW))
    mat = gl.program_id(0).to(gl.int64) * MATS + index
    r = gl.arange(0, ROWS, layout=gl.SliceLayout(0, ROW))
    c = gl.arange(0, COLS, layout=gl.SliceLayout(0, gl.SliceLayout(1, L)))
    m3 = mat[:, None, None]
    r3 = r[None, :, None].to(gl.int64)
    c3 = c[None, None, :]
    inside = (m3 < BATCH) & (r3 < M) & (c3 < N)
    blk = gl.load(src_ptr + m3 * stride_sb + r3 * stride_sm + c3.to(gl.int64) * stride_sn, mask=inside, other=0.0)
    row = r[None, :] + gl.zeros([MATS, ROWS], gl.int32, ROW)  # the register row of each thread
    pos = row  # its current position
    # the lane holding row 0 of the matrix, plus which part of a row each register belongs to
    lane0 = ((index % GROUPS) * (ROWS * LANES))[:, None, None] + c3 // PART + gl.zeros_like(c3 + r3).to(gl.int32)
    first_zero = gl.zeros([MATS, ROWS], gl.int32, ROW)
    steps = gl.minimum(M, N)
    for j in gl.static_range(COLS):
        if j < steps:
            col = gl.sum(gl.where(c3 == j, blk, 0.0), axis=2)  # within each thread (and its row's other lanes)
            mag = gl.abs(col)
            mag = gl.where(mag != mag, float("inf"), mag)
            mag = gl.where((pos >= j) & (row < M), mag, -1.0)
            _, at, holder = gl.reduce((mag, pos, row), 1, _first_max)
            prow = _from_lane(blk, lane0 + (holder * LANES)[:, None, None])
            pivot = gl.sum(gl.where(c3 == j, prow, 0.0), axis=2)
            gl.store(piv_ptr + mat * stride_pb + j, at, mask=mat < BATCH)
            first_zero = gl.where((first_zero == 0) & (pivot == 0), j + 1, first_zero)
            pos = gl.where(pos == at[:, None], j, gl.where(pos == j, at[:, None], pos))
            below = (pos > j) & (row < M)
            lower = col / gl.where(pivot == 0, 1.0, pivot)
            updated = gl.where(c3 == j, lower[:, :, None], blk - lower[:, :, None] * prow)
            blk = gl.where(below[:, :, None] & (c3 >= j), updated, blk)
    target = lu_ptr + m3 * stride_lb + pos[:, :, None].to(gl.int64) * stride_lm + c3.to(gl.int64) * stride_ln
    gl.store(target, blk, mask=inside)
    gl.store(info_ptr + mat[:, None] * stride_ib + 0 * row, first_zero, mask=(row == 0) & (mat[:, None] < BATCH))
