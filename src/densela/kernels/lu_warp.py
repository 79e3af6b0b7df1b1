"""Batched LU of small matrices, each held in the registers of one warp or of a few, written in Gluon (explicit
layouts).

Each thread holds one row of its matrix in registers, or a part of one for rows of more than 32 columns
(``LANES`` threads to a row); matrices of 16 rows share a warp two at a time, of 8 rows four at a time, and a
matrix of more than 32 threads' rows spans ``SPLIT`` warps. With the loop over the columns unrolled, the column of
a step is a register of every thread and the pivot search is a reduction over the rows (two or three integer
reductions, ``_first_largest``). Within one warp the pivot row reaches the other lanes by one ``shfl.sync.idx`` per
register (the lane that holds it is known after the search; the pivot is its register of the step's column), where
a masked reduction over the rows costs five shuffle rounds and as many additions per register, and nothing goes
through shared or global memory between the load and the store. Across warps each warp finds its own candidate (the
same integer reductions over its lanes, ``redux.sync``), whose threads write its row and a record (magnitude words
and key) to the program's own shared memory (a static array declared in the kernel's PTX: Gluon 3.6 refused the
sub-views a padded shared layout would need); after the step's one barrier every thread picks the first largest of
its matrix's records and reads that warp's row. Until 2026-11-26 the pivot row went through a scratch row in global
memory, about 40% of 10000 x 64 x 64 float64 (H100); until 2026-11-27 the search across warps was a reduction of
(magnitude, key, value) triples, two barriers and the row's exchange a third: H100
(bench-results/nvidia-h100/2026-11-27-batch-plans/ call 6), ``lu_factor_ex`` of 1000 x 64 x 64 float64 261.3 -> 251.0
us, float32 111.2 -> 104.6, 1000 x 48 x 48 194.1 -> 191.6, but 1000 x 33 x 33 133.2 -> 135.2 and 10000 x 64 x 64
1700.5 -> 1726.5 (float64) and 834.0 -> 857.4 (float32): batches of 10000 lose 1.5-3%.

Triton's interpreter cannot run Gluon: this kernel serves CUDA devices, ``lu_batched_kernel`` and the panel
kernel (densela.kernels.lu) the interpreter, with the same pivots and results.
"""

from __future__ import annotations

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.runtime.jit import constexpr_function

from densela.kernels.lu import _load_shared_asm, _shared_asm, _store_asm


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


@constexpr_function
def _redux_asm(op):
    return f"redux.sync.{op}.s32 $0, $1, 0xffffffff;"


@gluon.jit
def _warp_max(x):
    """The largest int32 ``x`` of the lanes of each thread's warp, in every lane (one ``redux.sync``)."""
    return gl.inline_asm_elementwise(_redux_asm("max"), "=r,r", [x], dtype=gl.int32, is_pure=True, pack=1)


@gluon.jit
def _warp_min(x):
    """The smallest int32 ``x`` of the lanes of each thread's warp, in every lane (one ``redux.sync``)."""
    return gl.inline_asm_elementwise(_redux_asm("min"), "=r,r", [x], dtype=gl.int32, is_pure=True, pack=1)


@gluon.jit
def _row_max(x):
    """The largest int32 ``x`` along axis 1 (the rows of each matrix), kept as an axis of one."""
    return gl.max(x, axis=1)[:, None]


@gluon.jit
def _row_min(x):
    """The smallest int32 ``x`` along axis 1, kept as an axis of one."""
    return gl.min(x, axis=1)[:, None]


@gluon.jit
def _first_largest(mag, key, MAX: gl.constexpr, MIN: gl.constexpr):
    """(high, low, key) of the first largest ``mag`` (non-negative, or -1 where excluded) over the rows that the
    reductions ``MAX`` and ``MIN`` span (``_row_max``: a matrix's rows within one warp; ``_warp_max``: the rows each
    warp holds of a matrix across warps), the smallest key on a tie (``_first_max``'s order), by integer reductions
    of one operation each, which Triton emits as one ``redux.sync`` where they span the whole warp: the magnitudes'
    bits plus 1 (0 where excluded) order as the magnitudes do; a float64's high word is compared first, then its low
    word (its unsigned order mapped onto int32's by flipping the sign bit; float32: 0), then the keys of the rows
    that hold the largest. A reduction of (magnitude, key, value) triples within a warp took five shuffle rounds of
    each part: H100, 2026-11-27 (bench-results/nvidia-h100/2026-11-27-redux/), ``lu_factor_ex`` of 10000 matrices
    of 32 x 32 in 124.5 us against 157.0 (float64) and 50.7 against 72.8 (float32), the same factors and pivots."""
    if mag.dtype.primitive_bitwidth == 64:
        bits = mag.to(gl.int64, bitcast=True) + 1
        bits = gl.where(mag < 0, 0, bits)
        high = (bits >> 32).to(gl.int32)
        low = (bits & 0xFFFFFFFF).to(gl.int32) ^ -0x80000000
        top = MAX(high)
        top_low = MAX(gl.where(high == top, low, -0x80000000))
        best = (high == top) & (low == top_low)
    else:
        bits = mag.to(gl.int32, bitcast=True) + 1
        top = MAX(gl.where(mag < 0, 0, bits))
        top_low = gl.zeros_like(top)
        best = bits == top
    return top, top_low, MIN(gl.where(best, key, 0x7FFFFFFF))


@constexpr_function
def _record_store_asm():
    return (
        "{ .reg .pred p; setp.ne.b32 p, $5, 0; @p st.shared.v4.b32 [$1], {$2, $3, $4, $4}; mov.u32 $0, 0; }",
        "=r,r,r,r,r,r",
    )


@gluon.jit
def _store_record(address, high, low, key, mask):
    """The record (high, low, key) of a warp's candidate stored at byte ``address`` of shared memory where ``mask``
    holds (16 bytes, the key twice)."""
    store: gl.constexpr = _record_store_asm()
    gl.inline_asm_elementwise(store[0], store[1], [address, high, low, key, mask.to(gl.int32)], dtype=gl.int32,
                              is_pure=False, pack=1)  # fmt: skip


@gluon.jit
def _best_record(records, like, SPLIT: gl.constexpr):
    """(key, warp) of the first largest of the SPLIT records (``_store_record``) from byte ``records`` on, read by
    every thread: the largest (high, low), then the smallest key."""
    best_high = gl.zeros_like(like) - 1
    best_low = gl.zeros_like(like)
    best_key = gl.zeros_like(like)
    best_warp = gl.zeros_like(like)
    for w in gl.static_range(SPLIT):
        high, low, key, _ = gl.inline_asm_elementwise(
            "ld.shared.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r", [records + w * 16 + 0 * like],
            dtype=(gl.int32, gl.int32, gl.int32, gl.int32), is_pure=False, pack=1,
        )  # fmt: skip
        better = (high > best_high) | (
            (high == best_high) & ((low > best_low) | ((low == best_low) & (key < best_key)))
        )
        best_high = gl.where(better, high, best_high)
        best_low = gl.where(better, low, best_low)
        best_key = gl.where(better, key, best_key)
        best_warp = gl.where(better, w, best_warp)
    return best_key, best_warp


@gluon.jit
def _store_row(address, values, mask, PACK: gl.constexpr):
    """``values`` stored at the shared-memory byte ``address`` where ``mask`` holds, PACK consecutive registers to a
    vector (one branch per vector)."""
    store: gl.constexpr = _store_asm(values.dtype.primitive_bitwidth, True, PACK)
    gl.inline_asm_elementwise(store[0], store[1], [address, values, mask.to(gl.int32)], dtype=gl.int32,
                              is_pure=False, pack=PACK)  # fmt: skip


@gluon.jit
def _load_row(address, like, PACK: gl.constexpr):
    """Items of ``like``'s type and layout loaded from the shared-memory byte ``address``, PACK to a vector."""
    load: gl.constexpr = _load_shared_asm(like.dtype.primitive_bitwidth, PACK)
    return gl.inline_asm_elementwise(load[0], load[1], [address], dtype=like.dtype, is_pure=False, pack=PACK)


@gluon.jit
def _column(x, l3, k4, PART_AT: gl.constexpr, REG_AT: gl.constexpr):
    """Register ``REG_AT`` of lane part ``PART_AT`` of the rows ``x`` ([.., LANES, PART]): the register
    is picked statically (the other registers give -0.0, which adds exactly), the lane part by a sum across the
    lanes of a row."""
    part = gl.sum(gl.where(k4 == REG_AT, x, -0.0), axis=3)
    return gl.sum(gl.where(l3 == PART_AT, part, -0.0), axis=2)


@gluon.jit
def lu_warp_kernel(
    src_ptr, lu_ptr, piv_ptr, info_ptr, flag_ptr, count_ptr, perm_ptr,
    BATCH, M, N, row_base,
    stride_sb, stride_sm, stride_sn,
    stride_lb, stride_lm, stride_ln,
    stride_pb, stride_ib, stride_qb,
    ROWS: gl.constexpr, COLS: gl.constexpr, LANES: gl.constexpr, WARPS: gl.constexpr, SPLIT: gl.constexpr,
    FLAG: gl.constexpr, WRITE_PERM: gl.constexpr,
):  # fmt: skip
    """Factors the M x N matrices of the batch ``src`` (any strides; ROWS and COLS powers of two >= M and N),
    LANES threads per row (a row per thread when LANES is 1), each matrix within one warp (SPLIT 1: ROWS * LANES
    <= 32, matrices of fewer than 32 / LANES rows share a warp) or across SPLIT warps (ROWS * LANES = 32 * SPLIT),
    WARPS warps per program (a multiple of SPLIT): ``lu[b] = L U`` of ``P src[b]``, ``piv`` (0-based) and ``info``
    (0 or the 1-based first zero pivot), as ``lu_batched_kernel`` computes them (the same pivot, the first largest
    magnitude, NaN counting as infinite; rows keep their place in the registers and carry their current position,
    and are stored at their final positions). With SPLIT > 1 each warp's candidate row and record pass between
    warps through shared memory (``_store_record``, ``_best_record``). ``lu`` may be ``src``: a matrix is read whole
    by its warps before any of them writes it.

    As a panel of the blocked factorization of a batch (``lu_panel_kernel``'s part there), the matrices being rows
    ``row_base`` on of the panel's columns: ``piv`` and ``info`` count rows from ``row_base`` (``row_base`` + the
    position; ``row_base + j + 1``), ``info`` kept where an earlier panel set it (``row_base`` > 0), and with
    WRITE_PERM ``perm`` (2 COLS per matrix, ``stride_qb`` apart) gets the interchanges as ``lu_panel_kernel`` writes
    them for ``permute_solve_kernel``. A whole factorization passes ``row_base`` 0.

    ``FLAG``: the launch's last program to finish writes ``flag_ptr[0]`` (a word the host polls, in pinned memory
    mapped into the device's address space): 1 when every ``info`` is zero, else 2. ``count_ptr`` holds two int32
    counters, zero on entry and left at zero: the programs that have finished and whether any met a zero pivot.
    """
    ROWS_W: gl.constexpr = ROWS // SPLIT  # rows of a matrix in each of its warps
    GROUPS: gl.constexpr = 32 // (ROWS_W * LANES)  # matrices per warp
    MATS: gl.constexpr = WARPS // SPLIT * GROUPS
    PART: gl.constexpr = COLS // LANES  # columns per thread
    # Across warps a row's columns are dealt round its lane parts (column k * LANES + l in register k of lane part l),
    # so that the registers below a step's column hold finished columns in every lane part, a static fact: their
    # updates are dropped at compile time (half of a 64-column matrix's). Within one warp, where the loads and
    # stores of the matrix weigh more, a lane part holds consecutive columns (l * PART + k), which load in vectors.
    DEAL: gl.constexpr = SPLIT > 1
    L: gl.constexpr = gl.BlockedLayout(
        [1, 1, 1, PART], [GROUPS, ROWS_W, LANES, 1], [WARPS // SPLIT, SPLIT, 1, 1], [3, 2, 1, 0]
    )
    ROW: gl.constexpr = gl.SliceLayout(2, gl.SliceLayout(3, L))
    index = gl.arange(0, MATS, layout=gl.SliceLayout(1, ROW))
    mat = gl.program_id(0).to(gl.int64) * MATS + index
    r = gl.arange(0, ROWS, layout=gl.SliceLayout(0, ROW))
    l3 = gl.arange(0, LANES, layout=gl.SliceLayout(0, gl.SliceLayout(1, gl.SliceLayout(3, L))))[None, None, :]
    k4 = gl.arange(0, PART, layout=gl.SliceLayout(0, gl.SliceLayout(1, gl.SliceLayout(2, L))))[None, None, None, :]
    l4 = l3[:, :, :, None]
    m4 = mat[:, None, None, None]
    r4 = r[None, :, None, None].to(gl.int64)
    c4 = k4 * LANES + l4 if DEAL else l4 * PART + k4
    slot4 = l4 * PART + k4  # where a register goes in the pivot row's exchange (a thread's registers side by side)
    inside = (m4 < BATCH) & (r4 < M) & (c4 < N)
    blk = gl.load(src_ptr + m4 * stride_sb + r4 * stride_sm + c4.to(gl.int64) * stride_sn, mask=inside, other=0.0)
    # across warps (SPLIT > 1): the program's shared array holds two slots (a step's parity) per warp of each matrix,
    # first the candidate rows (16-byte vectors of a thread's PACK consecutive registers), then the records
    BITS: gl.constexpr = blk.dtype.primitive_bitwidth
    PACK: gl.constexpr = min(128 // BITS, PART)
    ROW_BYTES: gl.constexpr = MATS * 2 * SPLIT * COLS * 8
    RECORD_BYTES: gl.constexpr = MATS * 2 * SPLIT * 16
    row = r[None, :] + gl.zeros([MATS, ROWS], gl.int32, ROW)  # the register row of each thread
    pos = row  # its current position
    # the lane holding row 0 of the matrix, plus which part of a row each register belongs to (SPLIT 1)
    lane0 = ((index % GROUPS) * (ROWS * LANES))[:, None, None, None] + l4 + gl.zeros_like(c4 + r4).to(gl.int32)
    first_zero = gl.zeros([MATS, ROWS], gl.int32, ROW)
    steps = gl.minimum(M, N)
    for j in gl.static_range(COLS):
        if j < steps:
            part_at: gl.constexpr = j % LANES if DEAL else j // PART  # column j: register reg_at of lane part part_at
            reg_at: gl.constexpr = j // LANES if DEAL else j % PART
            col = _column(blk, l3, k4, part_at, reg_at)
            mag = gl.abs(col)
            mag = gl.where(mag != mag, float("inf"), mag)
            mag = gl.where((pos >= j) & (row < M), mag, -1.0)
            # the first largest magnitude and its row (position and register row in one key)
            if SPLIT == 1:
                _, _, key = _first_largest(mag, pos * ROWS + row, _row_max, _row_min)
                prow = _from_lane(blk, lane0 + ((key % ROWS) * LANES)[:, :, None, None])
            else:  # each warp's candidate: its row and its record through shared memory, one barrier a step
                top, top_low, best = _first_largest(mag, pos * ROWS + row, _warp_max, _warp_min)
                slots = (index[:, None] * 2 + j % 2) * SPLIT  # the matrix's SPLIT slots of this step's parity
                warp = slots + row // ROWS_W  # the slot of the row's warp
                base = gl.inline_asm_elementwise(_shared_asm(ROW_BYTES + RECORD_BYTES), "=r", [], dtype=gl.int32,
                                                 is_pure=True, pack=1)  # fmt: skip
                _store_record(base + ROW_BYTES + warp * 16, top, top_low, best, row % ROWS_W == 0)
                holds = (row == best % ROWS)[:, :, None, None] & (c4 < COLS)
                _store_row(base + ((warp * COLS)[:, :, None, None] + slot4) * (BITS // 8), blk, holds, PACK)
                gl.thread_barrier()
                key, win = _best_record(base + ROW_BYTES + slots * 16, row, SPLIT)
                address = base + (((slots + win) * COLS)[:, :, None, None] + slot4) * (BITS // 8)
                prow = _load_row(address + 0 * holds.to(gl.int32), blk, PACK)
            pivot = _column(prow, l3, k4, part_at, reg_at)
            at = key // ROWS
            gl.store(piv_ptr + mat[:, None] * stride_pb + j + 0 * row, row_base + at + 0 * row,
                     mask=(row == 0) & (mat[:, None] < BATCH))  # fmt: skip
            first_zero = gl.where((first_zero == 0) & (pivot == 0), j + 1, first_zero)
            pos = gl.where(pos == at, j, gl.where(pos == j, at, pos))
            below = ((pos > j) & (row < M))[:, :, None, None]
            lower = (col / gl.where(pivot == 0, 1.0, pivot))[:, :, None, None]
            # column j and the columns from j on, by lane part and register (the register's test is static)
            at_j = (l4 == part_at) & (k4 == reg_at)
            if DEAL:
                from_j = gl.where(k4 == reg_at, l4 >= part_at, k4 > reg_at)
            else:
                from_j = gl.where(k4 >= reg_at, l4 >= part_at, l4 > part_at)
            # blk + (-lower) * prow: negating lower once, not every item of the row from the shared-memory load
            blk = gl.where(below & from_j, gl.where(at_j, lower, blk + (-lower) * prow), blk)
    target = lu_ptr + m4 * stride_lb + pos[:, :, None, None].to(gl.int64) * stride_lm + c4.to(gl.int64) * stride_ln
    gl.store(target, blk, mask=inside)
    if WRITE_PERM:
        steps = gl.minimum(M, N)
        perm = perm_ptr + mat[:, None] * stride_qb
        live = (mat[:, None] < BATCH) & (row < M)
        gl.store(perm + pos, row_base + row, mask=live & (pos < steps))  # the row that ends at position pos
        gl.store(perm + COLS + row, row_base + pos, mask=live & (row < steps))  # where the row at position row ends
    first = (row == 0) & (mat[:, None] < BATCH)
    info = info_ptr + mat[:, None] * stride_ib + 0 * row
    old = gl.load(info, mask=first & (row_base > 0), other=0)  # an earlier panel's zero pivot stays the first
    first_zero = gl.where(old != 0, old, gl.where(first_zero > 0, row_base + first_zero, 0))
    gl.store(info, first_zero, mask=first)
    if FLAG:
        zero = gl.max(gl.max(gl.where(mat[:, None] < BATCH, first_zero, 0), axis=1), axis=0)
        gl.atomic_max(count_ptr + 1, zero, sem="relaxed")
        if gl.atomic_add(count_ptr, 1, sem="acq_rel") == gl.num_programs(0) - 1:  # the last program in
            seen = gl.atomic_xchg(count_ptr + 1, 0, sem="relaxed")
            gl.atomic_xchg(count_ptr, 0, sem="relaxed")
            gl.store(flag_ptr, 1 + (seen > 0).to(gl.int32))
