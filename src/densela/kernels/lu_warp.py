"""Batched LU of small matrices, each held in the registers of one warp or of a few, written in Gluon (explicit
layouts).

The rows of a matrix lie across the lanes of one warp: one row to a lane (matrices of 16 rows share a warp two at
a time, of 8 rows four at a time), or several (``SLOTS``) for matrices of more than 32 rows. A row's columns lie
in the registers of its thread, or across ``LANES`` lanes and ``SPLIT`` warps for long rows and large matrices.
With the loop over the columns unrolled, the column of a step is a register of every thread that holds it (summed
across the warps that hold parts of the rows) and the pivot search is one reduction over the rows, within the
warp. The pivot row then reaches the other lanes by one ``shfl.sync.idx`` per register (the lane that holds it is
known after the search), where a masked reduction over the rows costs five shuffle rounds and as many additions
per register: each warp holds its own columns of the pivot row, so no row passes between warps. Until
2026-11-25 matrices of more than 32 rows spread their rows over warps, and the pivot row went from the warp that
held it to the others through a scratch row in global memory, behind a barrier (about 40% of the time of 10000
matrices of 64 x 64 float64, H100).

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


@gluon.constexpr_function
def _axis_layout(layout, dim, rank):
    """The 1-D layout of dimension ``dim`` of the first ``rank`` dimensions of the 5-D ``layout`` (the last
    dimensions sliced away first, then every other one)."""
    parent = layout
    for d in range(4, rank - 1, -1):
        parent = gl.SliceLayout(d, parent)
    for d in range(rank - 1, -1, -1):
        if d != dim:
            parent = gl.SliceLayout(d, parent)
    return parent


@gluon.jit
def _index(size: gl.constexpr, dim: gl.constexpr, layout: gl.constexpr, rank: gl.constexpr):
    """``arange(size)`` along dimension ``dim`` of a ``rank``-D tensor over the first ``rank`` dimensions of the
    5-D ``layout``, of size 1 along the others."""
    x = gl.arange(0, size, layout=_axis_layout(layout, dim, rank))
    for d in gl.static_range(rank):
        if d != dim:
            x = gl.expand_dims(x, d)
    return x


@gluon.jit
def lu_warp_kernel(
    src_ptr, lu_ptr, piv_ptr, info_ptr,
    BATCH, M, N,
    stride_sb, stride_sm, stride_sn,
    stride_lb, stride_lm, stride_ln,
    stride_pb, stride_ib,
    ROWS: gl.constexpr, COLS: gl.constexpr, SLOTS: gl.constexpr, LANES: gl.constexpr, SPLIT: gl.constexpr,
    WARPS: gl.constexpr,
):  # fmt: skip
    """Factors the M x N matrices of the batch ``src`` (any strides; ROWS and COLS powers of two >= M and N):
    ``lu[b] = L U`` of ``P src[b]``, ``piv`` (0-based) and ``info`` (0 or the 1-based first zero pivot), as
    ``lu_batched_kernel`` computes them (the same pivot, the first largest magnitude, NaN counting as infinite;
    rows keep their place in the registers and carry their current position, and are stored at their final
    positions). ``lu`` may be ``src``: a matrix is read whole before any of it is written.

    A matrix's rows lie across the lanes of one warp, SLOTS to a thread (row ``slot * ROWS / SLOTS + lane``), its
    columns across LANES lanes of a row and SPLIT warps, COLS / (LANES SPLIT) consecutive ones to a thread. A warp
    holds 32 SLOTS / (ROWS LANES) matrices side by side, a program WARPS / SPLIT such warps (or warp groups). The
    pivot row reaches the other lanes of each warp by ``shfl.sync.idx`` (each warp holds its own columns of it),
    and with SPLIT > 1 the column of each step reaches the other warps by a sum across them (shared memory).
    """
    RL: gl.constexpr = ROWS // SLOTS  # lanes across a matrix's rows (LANES threads each)
    GROUPS: gl.constexpr = 32 // (RL * LANES)  # matrices per warp
    MATS: gl.constexpr = WARPS // SPLIT * GROUPS
    PARTS: gl.constexpr = LANES * SPLIT  # threads across a row
    PART: gl.constexpr = COLS // PARTS  # columns per thread: column p * PART + k is register k of part p
    L: gl.constexpr = gl.BlockedLayout(
        [1, SLOTS, 1, 1, PART], [GROUPS, 1, RL, LANES, 1], [WARPS // SPLIT, 1, 1, SPLIT, 1], [4, 3, 2, 1, 0]
    )
    # [MATS, SLOTS, RL] tensors: a value per row (``row``: its register row, ``pos``: its current position)
    local = _index(MATS, 0, L, 3)
    mat = gl.program_id(0).to(gl.int64) * MATS + local
    row = _index(SLOTS, 1, L, 3) * RL + _index(RL, 2, L, 3) + gl.zeros_like(local)
    pos = row
    # [MATS, SLOTS, RL, PARTS, PART] tensors: the matrix, its rows and columns
    s5 = _index(SLOTS, 1, L, 5)
    p5 = _index(PARTS, 3, L, 5)
    k5 = _index(PART, 4, L, 5)
    p4 = _index(PARTS, 3, L, 4)
    m5 = gl.expand_dims(gl.expand_dims(mat, 3), 4)
    r5 = gl.expand_dims(gl.expand_dims(row, 3), 4).to(gl.int64)
    c5 = p5 * PART + k5
    inside = (m5 < BATCH) & (r5 < M) & (c5 < N)
    blk = gl.load(src_ptr + m5 * stride_sb + r5 * stride_sm + c5.to(gl.int64) * stride_sn, mask=inside, other=0.0)
    # [MATS, 1, RL, PARTS, PART]: the lane of each thread's part of its matrix's first lane row (row r of a slot
    # lies LANES r lanes further)
    group = gl.expand_dims(gl.expand_dims(local % GROUPS, 3), 4) * (RL * LANES)
    lane0 = group + p5 % LANES + 0 * (c5 + _index(RL, 2, L, 5))
    first_zero = gl.zeros_like(row)
    steps = gl.minimum(M, N)
    for j in gl.static_range(COLS):
        if j < steps:
            # column j: register j % PART (picked statically) of part j // PART, summed across the parts
            part = gl.sum(gl.where(k5 == j % PART, blk, -0.0), axis=4)
            col = gl.sum(gl.where(p4 == j // PART, part, -0.0), axis=3)
            mag = gl.abs(col)
            mag = gl.where(mag != mag, float("inf"), mag)
            mag = gl.where((pos >= j) & (row < M), mag, -1.0)
            # the first largest magnitude, its row (position and register row in one key) and signed value
            _, key, pivot = gl.reduce(gl.reduce((mag, pos * ROWS + row, col), 2, _first_max), 1, _first_max)
            at = gl.expand_dims(gl.expand_dims(key // ROWS, 1), 2)
            holder = gl.expand_dims(gl.expand_dims(key % ROWS, 1), 2)
            pivot = gl.expand_dims(gl.expand_dims(pivot, 1), 2)
            # the holder's slot picked in every thread, then its lane's registers read by every lane of the warp
            slot = gl.expand_dims(gl.expand_dims(holder // RL, 3), 4)
            mine = gl.expand_dims(gl.sum(gl.where(s5 == slot, blk, -0.0), axis=1), 1)
            lane = gl.expand_dims(gl.expand_dims(holder % RL, 3), 4) * LANES
            prow = _from_lane(mine, lane0 + lane)
            gl.store(piv_ptr + mat * stride_pb + j + 0 * row, at + 0 * row, mask=(mat < BATCH) & (row == 0))
            first_zero = gl.where((first_zero == 0) & (pivot == 0), j + 1, first_zero)
            pos = gl.where(pos == at, j, gl.where(pos == j, at, pos))
            below = gl.expand_dims(gl.expand_dims((pos > j) & (row < M), 3), 4)
            lower = gl.expand_dims(gl.expand_dims(col / gl.where(pivot == 0, 1.0, pivot), 3), 4)
            # column j and the columns from j on, by part and register (the register's test is static)
            at_j = (p5 == j // PART) & (k5 == j % PART)
            from_j = gl.where(k5 >= j % PART, p5 >= j // PART, p5 > j // PART)
            blk = gl.where(below & from_j, gl.where(at_j, lower, blk - lower * prow), blk)
    target = gl.expand_dims(gl.expand_dims(pos, 3), 4).to(gl.int64) * stride_lm
    gl.store(lu_ptr + m5 * stride_lb + target + c5.to(gl.int64) * stride_ln, blk, mask=inside)
    gl.store(info_ptr + mat * stride_ib + 0 * row, first_zero, mask=(row == 0) & (mat < BATCH))
