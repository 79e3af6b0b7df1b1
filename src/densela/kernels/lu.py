"""Kernels of the LU family: the pivoted panel factorization, row interchanges, small triangular solves."""

from __future__ import annotations

import triton
import triton.language as tl
from triton.runtime.jit import constexpr_function

from densela.kernels.elementwise import wait_for_previous


@triton.jit
def _first_max(value_a, index_a, part_a, value_b, index_b, part_b):
    """Combines (magnitude, row, program) candidates: the larger magnitude, on a tie the smaller row."""
    take_a = (value_a > value_b) | ((value_a == value_b) & (index_a < index_b))
    return tl.where(take_a, value_a, value_b), tl.where(take_a, index_a, index_b), tl.where(take_a, part_a, part_b)


@constexpr_function
def _store_asm(bits, shared, pack=1):
    """A predicated PTX store of ``pack`` ``bits``-wide floats (one vector when ``pack`` > 1: 16 bytes at most), to
    shared memory at a 32-bit address with ``shared``, else to global memory, and its operand constraints: outputs,
    addresses, values, masks, ``pack`` of each (the first address and mask serve the vector)."""
    space, address = ("shared", "r") if shared else ("global", "l")
    kind = "d" if bits == 64 else "f"
    items = ", ".join(f"${2 * pack + i}" for i in range(pack))
    vector = f".v{pack}" if pack > 1 else ""
    zeros = " ".join(f"mov.u32 ${i}, 0;" for i in range(pack))
    store = f"@p st.{space}{vector}.f{bits} [${pack}], {{{items}}};" if pack > 1 else f"@p st.{space}.f{bits} [$1], $2;"
    return (
        f"{{ .reg .pred p; setp.ne.b32 p, ${3 * pack}, 0; {store} {zeros} }}",
        ",".join(["=r"] * pack + [address] * pack + [kind] * pack + ["r"] * pack),
    )


@triton.jit
def _store_block(address, values, mask, SHARED: tl.constexpr):
    """``tl.store(address, values, mask=mask)`` (float32 or float64) from the registers ``values`` are in: Triton would
    first re-lay the block out through shared memory for coalesced stores, which for the panel kernel's candidate
    row (one row of a block that every column stores) costs a round trip of the whole block through shared memory
    per column. ``address``: global pointers, or with SHARED 32-bit shared-memory addresses (``_shared_buffer``)."""
    asm: tl.constexpr = _store_asm(values.dtype.primitive_bitwidth, SHARED)
    address = address if SHARED else address.to(tl.int64)
    operands = [address, values, mask.to(tl.int32)]
    tl.inline_asm_elementwise(asm[0], asm[1], operands, dtype=tl.int32, is_pure=False, pack=1)


@constexpr_function
def _shared_asm(size):
    return f"{{ .shared .align 16 .b8 densela_shared[{size}]; mov.u32 $0, densela_shared; }}"


@triton.jit
def _shared_buffer(SIZE: tl.constexpr):
    """The 32-bit shared-memory address of SIZE bytes of the program's own, outside what Triton allocates: a static
    ``.shared`` array declared in the kernel's PTX (ptxas adds it to the kernel's shared memory; Triton's own lives in
    its dynamic block). At most one call per kernel."""
    return tl.inline_asm_elementwise(_shared_asm(SIZE), "=r", [], dtype=tl.int32, is_pure=True, pack=1)


@constexpr_function
def _load_shared_asm(bits, pack=1):
    """A PTX load of ``pack`` ``bits``-wide floats from a 32-bit shared-memory address (one vector when ``pack`` > 1)
    and its operand constraints."""
    kind = "d" if bits == 64 else "f"
    if pack == 1:
        return f"ld.shared.f{bits} $0, [$1];", f"={kind},r"
    outputs = ", ".join(f"${i}" for i in range(pack))
    return f"ld.shared.v{pack}.f{bits} {{{outputs}}}, [${pack}];", ",".join([f"={kind}"] * pack + ["r"] * pack)


@triton.jit
def _load_shared(address, like):
    """Loads values of ``like``'s dtype (float32 or float64) from the 32-bit shared-memory ``address``es, in program
    order after the barriers before it (not hoisted: the asm is not pure). One item a load: the addresses' layout is
    Triton's choice, so consecutive items need not be in one thread."""
    asm: tl.constexpr = _load_shared_asm(like.dtype.primitive_bitwidth)
    return tl.inline_asm_elementwise(asm[0], asm[1], [address], dtype=like.dtype, is_pure=False, pack=1)


@triton.jit
def _panel_column(
    j, blk, pos, first_zero, r, c, pid, M, row_base, rows_ptr, best_ptr, at_ptr, sync_ptr, piv_ptr, shared_rows,
    NB: tl.constexpr, PARTS: tl.constexpr, GRID_SYNC: tl.constexpr, ASM: tl.constexpr, SHARED: tl.constexpr,
):  # fmt: skip
    """Column j of ``lu_panel_kernel``: the pivot search (with the other programs' candidates under GRID_SYNC),
    the pivot row's exchange, the interchange of positions and the update of the rows below; returns the
    program's new (blk, pos, first_zero)."""
    col = tl.sum(tl.where(c[None, :] == j, blk, 0.0), axis=1)
    mag = tl.abs(col)
    mag = tl.where(mag != mag, float("inf"), mag)
    mag = tl.where((pos >= j) & (r < M), mag, -1.0)
    best, at, _ = tl.reduce((mag, pos, pos), 0, _first_max)
    slot = (j % 2) * PARTS + pid if GRID_SYNC else j % 2
    candidate = (pos[:, None] == at) & (c[None, :] < NB)
    if SHARED:
        shared = shared_rows + (slot * NB + c) * (blk.dtype.primitive_bitwidth // 8)
        _store_block(shared[None, :] + 0 * r[:, None], blk, candidate, True)
    elif ASM:
        _store_block(rows_ptr + slot * NB + c[None, :] + 0 * r[:, None], blk, candidate, False)
    else:
        tl.store(rows_ptr + slot * NB + c[None, :] + 0 * r[:, None], blk, mask=candidate)
    if GRID_SYNC:
        programs = tl.num_programs(0)
        tl.store(best_ptr + slot, best)
        tl.store(at_ptr + slot, at)
        tl.debug_barrier()
        tl.atomic_add(sync_ptr + j, 1, sem="release")
        arrived = tl.atomic_add(sync_ptr + j, 0, sem="acquire")
        while arrived < programs:
            arrived = tl.atomic_add(sync_ptr + j, 0, sem="acquire")
        tl.debug_barrier()
        parts = tl.arange(0, PARTS)
        base = (j % 2) * PARTS
        bests = tl.load(best_ptr + base + parts, mask=parts < programs, other=-1.0, cache_modifier=".cg")
        ats = tl.load(at_ptr + base + parts, mask=parts < programs, other=M, cache_modifier=".cg")
        best, at, win = tl.reduce((bests, ats, parts), 0, _first_max)
        prow = tl.load(rows_ptr + (base + win) * NB + c, cache_modifier=".cg")
    else:
        tl.debug_barrier()
        prow = _load_shared(shared, blk) if SHARED else tl.load(rows_ptr + slot * NB + c)
    pivot = tl.sum(tl.where(c == j, prow, 0.0), axis=0)
    tl.store(piv_ptr + j, row_base + at, mask=pid == 0)
    first_zero = tl.where((first_zero == 0) & (pivot == 0), row_base + j + 1, first_zero)
    # the row at position j takes the pivot row's old position; below the diagonal, scale and update
    pos = tl.where(pos == at, j, tl.where(pos == j, at, pos))
    below = (pos > j) & (r < M)
    lower = col / tl.where(pivot == 0, 1.0, pivot)
    # blk + (-lower) * prow: the product then negates lower once, where -prow would negate every item of the row
    updated = tl.where(c[None, :] == j, lower[:, None], blk + (-lower)[:, None] * prow[None, :])
    blk = tl.where(below[:, None] & (c[None, :] >= j), updated, blk)
    return blk, pos, first_zero


@triton.jit
def lu_panel_kernel(
    a_ptr, piv_ptr, info_ptr, perm_ptr,
    rows_ptr, best_ptr, at_ptr, sync_ptr,
    M, N, row_base,
    stride_ab, stride_am, stride_an,
    stride_pb, stride_ib, stride_qb, stride_rb,
    ROWS: tl.constexpr, NB: tl.constexpr, PARTS: tl.constexpr, GRID_SYNC: tl.constexpr, WRITE_PERM: tl.constexpr,
    ASM: tl.constexpr, SHARED: tl.constexpr, ROWS_IN_THREADS: tl.constexpr,
):  # fmt: skip
    """Factors the M x N panel at ``a_ptr`` (N <= NB) in place, P A = L U with partial pivoting, column by column.

    Program (p, b) holds rows [p * ROWS, (p + 1) * ROWS) of matrix b of a batch in registers for the whole
    factorization; in column-major storage each thread holds whole rows, so a column is read without
    talking to other threads. Rows never move in registers: each carries its current position, and the
    interchanges only swap positions; the rows are stored at their final positions at the end. For each
    column j the pivot is the row of largest |a[., j]| among positions >= j, the first (lowest position)
    on a tie, as LAPACK's idamax (NaN counts as infinite so that it surfaces). ``piv[j]`` gets
    ``row_base`` + that position; ``info`` the 1-based ``row_base + j + 1`` of the first exactly zero pivot,
    whose column is left unscaled, as LAPACK does, or 0: the first panel (``row_base`` 0) writes it whatever it
    held, a later one only where it is still 0. With WRITE_PERM, ``perm`` (2 NB per matrix) gets the
    interchanges as a permutation for ``permute_solve_kernel``: ``perm[i]`` the row
    (``row_base`` + original position) that ends at position i < min(M, N), ``perm[NB + i]`` the final
    position of the row that started at position i.

    The pivot row reaches every thread through two slots of NB, alternating by column: with SHARED (ASM, one
    program per matrix) in shared memory (``_shared_buffer``), otherwise in ``rows`` (global scratch, ``stride_rb``
    per batch matrix, the slots of program p at 2 p). With GRID_SYNC several programs (at
    most one per SM, so that all are resident) share one matrix: each publishes its best candidate (row values in
    ``rows``, magnitude in ``best``, position in ``at``), counts itself in ``sync[j]`` (zero on entry) and
    waits for all the others, then all pick the same winner. ``PARTS``: a power of two >= the programs.
    ``ASM`` (not in the interpreter): the candidate row is stored from the registers that hold it
    (``_store_block``). Each column is one ``_panel_column``. With ROWS_IN_THREADS row-major panels (unit
    ``stride_an``) get the same layout as column-major ones, each thread holding whole rows: the kernel hides a unit
    ``stride_an`` from Triton's layout analysis, which would otherwise lay 16 threads along the columns, so that every
    column's pick and pivot search crossed lanes (float64, programs of 32 rows by 16 columns: 2048 SASS instructions
    against 1128, SHFL 159 against 43).
    """
    wait_for_previous()
    pid = tl.program_id(0)
    mat = tl.program_id(1).to(tl.int64)
    a_ptr += mat * stride_ab
    piv_ptr += mat * stride_pb
    info_ptr += mat * stride_ib
    rows_ptr += mat * stride_rb
    r = pid * ROWS + tl.arange(0, ROWS)
    c = tl.arange(0, NB)
    inside = (r[:, None] < M) & (c[None, :] < N)
    if ROWS_IN_THREADS:
        stride_an = tl.where(M > 0, stride_an, 0)  # a unit stride, not known as such: rows stay in threads (above)
    blk = tl.load(a_ptr + r[:, None].to(tl.int64) * stride_am + c[None, :] * stride_an, mask=inside, other=0.0)
    pos = r
    first_zero = row_base * 0
    top = tl.minimum(M, N)
    shared_rows = _shared_buffer(16 * NB) if SHARED else 0  # room for two slots of NB items of up to 8 bytes
    if GRID_SYNC:
        # a loop: unrolled, panels spread over many programs ran 10-20% slower (H100, 2026-11-24)
        for j in range(0, top):
            blk, pos, first_zero = _panel_column(
                j, blk, pos, first_zero, r, c, pid, M, row_base,
                rows_ptr, best_ptr, at_ptr, sync_ptr, piv_ptr, shared_rows, NB, PARTS, GRID_SYNC, ASM, SHARED,
            )  # fmt: skip
    else:
        # unrolled, so that each column's number is a constant: picking the column out of the registers and
        # updating the columns right of it then take no comparisons, which were most of a column's instructions
        for j in tl.static_range(NB):
            if j < top:
                blk, pos, first_zero = _panel_column(
                    j, blk, pos, first_zero, r, c, pid, M, row_base,
                    rows_ptr, best_ptr, at_ptr, sync_ptr, piv_ptr, shared_rows, NB, PARTS, GRID_SYNC, ASM, SHARED,
                )  # fmt: skip
    tl.store(a_ptr + pos[:, None].to(tl.int64) * stride_am + c[None, :] * stride_an, blk, mask=inside)
    if WRITE_PERM:
        perm_ptr += mat * stride_qb
        tl.store(perm_ptr + pos, row_base + r, mask=(pos < top) & (r < M))
        tl.store(perm_ptr + NB + r, row_base + pos, mask=r < top)
    old = tl.load(info_ptr, mask=row_base > 0, other=0)  # the first panel writes info whatever it held
    tl.store(info_ptr, tl.where(old == 0, first_zero, old), mask=pid == 0)


@triton.jit
def _clamped(row, M):
    """``row`` within [0, M)."""
    return tl.minimum(tl.maximum(row, 0), M - 1)


@triton.jit
def interchange_rows_kernel(
    a_ptr, piv_ptr,
    count, M, N,
    stride_ab, stride_am, stride_an, stride_pb,
    REVERSE: tl.constexpr, GROUP: tl.constexpr, BLOCK: tl.constexpr,
):  # fmt: skip
    """Applies the interchanges row i <-> row piv[i], i = 0 .. count - 1 in order (REVERSE: in reverse order,
    which undoes them), to columns [0, N) of the M-row matrix ``program_id(1)``; a piv[i] outside [0, M) names
    the nearest row (``_clamped``: nothing outside the matrix is read or written).

    Each program owns BLOCK columns and takes the interchanges GROUP at a time. The rows a group touches are
    its own GROUP rows and the rows piv[i] it names; each carries its position through the group's
    interchanges in registers (as the panel kernel's rows do), then the program gathers them all and writes
    each where it ends: one permutation per group instead of LAPACK's laswp, which moves rows interchange
    after interchange. A row named twice is carried twice and written twice, to the same place.
    """
    wait_for_previous()
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mat = tl.program_id(1).to(tl.int64)
    base = a_ptr + mat * stride_ab + cols[None, :].to(tl.int64) * stride_an
    piv_ptr += mat * stride_pb
    s = tl.arange(0, 2 * GROUP)
    groups = tl.cdiv(count, GROUP)
    for step in range(0, groups):
        i0 = (groups - 1 - step) * GROUP if REVERSE else step * GROUP
        named = (s >= GROUP) & (i0 + s - GROUP < count)
        # the rows piv names, clamped to the matrix (lu_solve trusts a piv it checked before: lu._passes)
        start = tl.where(s < GROUP, i0 + s, _clamped(tl.load(piv_ptr + i0 + s - GROUP, mask=named, other=0), M))
        live = tl.where(s < GROUP, i0 + s < M, named)
        position = start
        for t in tl.static_range(GROUP):
            i = i0 + (GROUP - 1 - t if REVERSE else t)
            p = _clamped(tl.load(piv_ptr + i, mask=i < count, other=0), M)
            p = tl.where(i < count, p, i)  # past the last interchange: none
            position = tl.where(position == i, p, tl.where(position == p, i, position))
        mask = live[:, None] & (cols[None, :] < N)
        rows = tl.load(base + start[:, None].to(tl.int64) * stride_am, mask=mask)
        tl.debug_barrier()  # every row of the group read before any is written
        tl.store(base + position[:, None].to(tl.int64) * stride_am, rows, mask=mask)
        tl.debug_barrier()  # written before the next group reads


@triton.jit
def triangular_solve_kernel(
    t_ptr, b_ptr,
    N, K, total, diagonal,
    stride_tb, stride_tm, stride_tn,
    stride_bb, stride_bm, stride_bn,
    LOWER: tl.constexpr, UNIT: tl.constexpr, NB: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    """Overwrites the N x K matrix B with T^-1 B for the triangle T (N <= NB; lower or upper, unit diagonal or not).

    Program (q, b, d) solves columns [q * BLOCK_K, (q + 1) * BLOCK_K) of matrix b of a batch, holding them in
    registers (for row-major B each thread holds whole columns, so no step talks to other threads), by
    ``_substitute`` with T loaded whole and the steps unrolled. T and B start ``d * diagonal`` rows and columns
    into the arrays given, and their sides end at ``total`` (N, K: at most): with ``diagonal`` = N = K, the
    programs of each d solve the d-th diagonal block of every matrix, so one launch solves them all (``diagonal``
    0 and ``total`` >= N, K: one block).
    """
    wait_for_previous()
    mat = tl.program_id(1).to(tl.int64)
    first = tl.program_id(2) * diagonal
    t_ptr += mat * stride_tb + first.to(tl.int64) * (stride_tm + stride_tn)
    b_ptr += mat * stride_bb + first.to(tl.int64) * (stride_bm + stride_bn)
    N = tl.minimum(N, total - first)
    K = tl.minimum(K, total - first)
    r = tl.arange(0, NB)
    k = tl.program_id(0) * BLOCK_K + tl.arange(0, BLOCK_K)
    ptrs = b_ptr + r[:, None] * stride_bm + k[None, :].to(tl.int64) * stride_bn
    inside = (r[:, None] < N) & (k[None, :] < K)
    x = tl.load(ptrs, mask=inside, other=0.0)
    tl.store(ptrs, _substitute(x, t_ptr, N, stride_tm, stride_tn, LOWER, UNIT, False, True), mask=inside)


@triton.jit
def _pick(x, i, GATHER: tl.constexpr):
    """Entry i along axis 0 of the 1-D or 2-D register block ``x`` (a row of a 2-D one). GATHER (2-D only): a
    gather, for an axis that Triton lays across the lanes of one warp (a broadcast from the lane that holds it, one
    shuffle per register); else a masked sum, with -0.0 as the neutral element (exact, and folded away where i is
    static and the axis lies in each thread's registers)."""
    if GATHER:
        return tl.reshape(tl.gather(x, tl.full((1, x.shape[1]), i, tl.int32), 0), (x.shape[1],))
    r = tl.arange(0, x.shape[0])
    return tl.sum(tl.where((r[:, None] if len(x.shape) > 1 else r) == i, x, -0.0), axis=0)


@triton.jit
def _column(t_ptr, r, step, N, stride_tm, stride_tn, LOWER: tl.constexpr):
    """Column of the N x N triangle at ``t_ptr`` that substitution step ``step`` uses (zeros past the last step)."""
    j = step if LOWER else N - 1 - step
    return tl.load(t_ptr + r * stride_tm + j * stride_tn, mask=(step < N) & (r < N), other=0.0)


@triton.jit
def _step(x, column, i, N, LOWER: tl.constexpr, UNIT: tl.constexpr, GATHER: tl.constexpr):
    """One substitution step: row i of ``x`` divided by T[i, i] (unless UNIT), then taken from the rows after it
    (before it for an upper triangle) times ``column``, T's column i. With UNIT, a step with i >= N changes
    nothing."""
    r = tl.arange(0, x.shape[0])
    xi = _pick(x, i, GATHER)
    if not UNIT:
        xi = xi / _pick(column, i, False)
    rest = ((r > i) & (r < N)) if LOWER else (r < i)
    return tl.where(r[:, None] == i, xi[None, :], tl.where(rest[:, None], x - column[:, None] * xi[None, :], x))


@triton.jit
def _substitute(
    x, t_ptr, N, stride_tm, stride_tn,
    LOWER: tl.constexpr, UNIT: tl.constexpr, GATHER: tl.constexpr, UNROLL: tl.constexpr,
):  # fmt: skip
    """T^-1 x for the (NB, K) register block ``x`` whose first N rows hold the right-hand sides, and the N x N
    triangle T at ``t_ptr``, one ``_step`` per row. UNROLL: T is loaded whole first and the NB steps are unrolled,
    so that each step's column is a register of each thread (where T's columns lie in the threads' registers);
    else (UNIT only) a loop over the N steps, each step's column loaded four steps before it (a step's arithmetic is
    shorter than a load's latency). GATHER: each step's row is broadcast from the lane that holds it (``_pick``).
    Entries of T outside the triangle (and its diagonal when UNIT) are loaded but never used."""
    r = tl.arange(0, x.shape[0])
    if UNROLL:
        inside = (r[:, None] < N) & (r[None, :] < N)
        t = tl.load(t_ptr + r[:, None] * stride_tm + r[None, :] * stride_tn, mask=inside, other=0.0)
        for s in tl.static_range(x.shape[0]):
            i = s if LOWER else x.shape[0] - 1 - s
            if i < N:
                x = _step(x, tl.sum(tl.where(r[None, :] == i, t, -0.0), axis=1), i, N, LOWER, UNIT, GATHER)
    else:
        # the last turn's steps past N must change nothing: a non-unit step there would divide by a zero diagonal
        tl.static_assert(UNIT, "the loop form solves unit triangles only")
        c0 = _column(t_ptr, r, 0, N, stride_tm, stride_tn, LOWER)
        c1 = _column(t_ptr, r, 1, N, stride_tm, stride_tn, LOWER)
        c2 = _column(t_ptr, r, 2, N, stride_tm, stride_tn, LOWER)
        c3 = _column(t_ptr, r, 3, N, stride_tm, stride_tn, LOWER)
        # four steps a turn, so that the columns in flight keep their registers (one step a turn rotated them, and
        # the compiler moved every register of x and of the columns each step); steps past N change nothing
        for step in range(0, N, 4):
            n0 = _column(t_ptr, r, step + 4, N, stride_tm, stride_tn, LOWER)
            x = _step(x, c0, step if LOWER else N - 1 - step, N, LOWER, UNIT, GATHER)
            n1 = _column(t_ptr, r, step + 5, N, stride_tm, stride_tn, LOWER)
            x = _step(x, c1, step + 1 if LOWER else N - 2 - step, N, LOWER, UNIT, GATHER)
            n2 = _column(t_ptr, r, step + 6, N, stride_tm, stride_tn, LOWER)
            x = _step(x, c2, step + 2 if LOWER else N - 3 - step, N, LOWER, UNIT, GATHER)
            n3 = _column(t_ptr, r, step + 7, N, stride_tm, stride_tn, LOWER)
            x = _step(x, c3, step + 3 if LOWER else N - 4 - step, N, LOWER, UNIT, GATHER)
            c0, c1, c2, c3 = n0, n1, n2, n3
    return x


@triton.jit
def permute_solve_kernel(
    a_ptr, perm_ptr,
    N, first, K, skip_lo, skip_hi, solve_end, left_programs,
    stride_ab, stride_am, stride_an, stride_qb,
    GATHER: tl.constexpr, NB: tl.constexpr, BLOCK: tl.constexpr, ROWS_IN_THREADS: tl.constexpr,
):  # fmt: skip
    """Applies a factored panel's interchanges to the other columns of matrix ``program_id(1)``, and solves its
    rows right of it up to ``solve_end``: ``A[first:first + K, skip_hi:solve_end] <- L11^-1 (the same)``.

    The panel occupies rows [first, ...) of columns [skip_lo, skip_hi); its unit lower triangle L11 is
    ``A[first:first + K, skip_lo:skip_lo + K]``; ``perm`` is what ``lu_panel_kernel`` wrote (the rows that
    end at positions first .. first + K - 1, and where the rows that started there end). Programs
    [0, left_programs) own BLOCK columns each of [0, skip_lo), the others BLOCK columns of [skip_hi, N).
    Each gathers the at most 2 K rows that move, in its columns, before any is written (the interchanges
    as one permutation rather than K swaps in turn), and right of the panel solves the top K in registers
    (``_substitute``'s loop; GATHER: each step's row broadcast from its lane). With ROWS_IN_THREADS a unit
    ``stride_an`` (row-major ``A``) is hidden from Triton's layout analysis, so that the block's rows lie across the
    lanes in either order.
    """
    wait_for_previous()
    if ROWS_IN_THREADS:
        stride_an = tl.where(N > 0, stride_an, 0)  # a unit stride, not known as such: a block row a lane (above)
    pid = tl.program_id(0)
    mat = tl.program_id(1).to(tl.int64)
    a_ptr += mat * stride_ab
    perm_ptr += mat * stride_qb
    right = pid >= left_programs
    start = tl.where(right, skip_hi + (pid - left_programs) * BLOCK, pid * BLOCK)
    limit = tl.where(right, N, skip_lo)
    cols = start + tl.arange(0, BLOCK)
    e = tl.arange(0, NB)
    source = tl.load(perm_ptr + e, mask=e < K, other=0).to(tl.int64)
    target = tl.load(perm_ptr + NB + e, mask=e < K, other=0).to(tl.int64)
    top = first + e.to(tl.int64)
    offsets = cols[None, :].to(tl.int64) * stride_an
    inside = (e[:, None] < K) & (cols[None, :] < limit)
    down = inside & (target[:, None] >= first + K)
    x = tl.load(a_ptr + source[:, None] * stride_am + offsets, mask=inside, other=0.0)
    y = tl.load(a_ptr + top[:, None] * stride_am + offsets, mask=down)
    tl.debug_barrier()  # every row read before any is written
    tl.store(a_ptr + target[:, None] * stride_am + offsets, y, mask=down)  # before the solve: fewer live registers
    if right & (start < solve_end):
        corner = (first + 0 * mat) * stride_am + (skip_lo + 0 * mat) * stride_an  # int64 whatever Triton specialized
        solved = _substitute(x, a_ptr + corner, K, stride_am, stride_an, True, True, GATHER, False)
        x = tl.where(cols[None, :] < solve_end, solved, x)
    tl.store(a_ptr + top[:, None] * stride_am + offsets, x, mask=inside)


@triton.jit
def lu_batched_kernel(
    src_ptr, lu_ptr, piv_ptr, info_ptr,
    BATCH, M, N,
    stride_sb, stride_sm, stride_sn,
    stride_lb, stride_lm, stride_ln,
    stride_pb, stride_ib,
    MATS: tl.constexpr, ROWS: tl.constexpr, COLS: tl.constexpr,
):  # fmt: skip
    """Factors MATS matrices of a batch per program, each whole in registers: ``lu[b] = L U`` of ``P src[b]``.

    Program p reads matrices [p * MATS, (p + 1) * MATS) of the M x N batch ``src`` (any strides; ROWS and
    COLS are powers of two >= M and N), factors them column by column as ``lu_panel_kernel`` does (the same
    pivot, the first largest magnitude, NaN counting as infinite; rows carry their current position and are
    stored at their final positions at the end), and writes ``lu`` (which may be ``src``: every matrix is
    read whole before it is written), ``piv`` (0-based) and ``info`` (0 or the 1-based first zero pivot).
    The pivot row is picked out of the registers by a masked reduction over the rows, so no step goes
    through memory.
    """
    mat = tl.program_id(0).to(tl.int64) * MATS + tl.arange(0, MATS)
    r = tl.arange(0, ROWS)
    c = tl.arange(0, COLS)
    m3 = mat[:, None, None]
    r3 = r[None, :, None].to(tl.int64)
    c3 = c[None, None, :].to(tl.int64)
    inside = (m3 < BATCH) & (r3 < M) & (c3 < N)
    blk = tl.load(src_ptr + m3 * stride_sb + r3 * stride_sm + c3 * stride_sn, mask=inside, other=0.0)
    pos = r[None, :] + 0 * mat[:, None].to(tl.int32)
    first_zero = tl.zeros((MATS,), dtype=tl.int32)
    for j in range(0, tl.minimum(M, N)):
        col = tl.sum(tl.where(c3 == j, blk, 0.0), axis=2)
        mag = tl.abs(col)
        mag = tl.where(mag != mag, float("inf"), mag)
        mag = tl.where((pos >= j) & (r[None, :] < M), mag, -1.0)
        _, at, _ = tl.reduce((mag, pos, pos), 1, _first_max)
        prow = tl.sum(tl.where(pos[:, :, None] == at[:, None, None], blk, 0.0), axis=1)
        pivot = tl.sum(tl.where(c[None, :] == j, prow, 0.0), axis=1)
        tl.store(piv_ptr + mat * stride_pb + j, at, mask=mat < BATCH)
        first_zero = tl.where((first_zero == 0) & (pivot == 0), j + 1, first_zero)
        pos = tl.where(pos == at[:, None], j, tl.where(pos == j, at[:, None], pos))
        below = (pos > j) & (r[None, :] < M)
        lower = col / tl.where(pivot == 0, 1.0, pivot)[:, None]
        updated = tl.where(c3 == j, lower[:, :, None], blk - lower[:, :, None] * prow[:, None, :])
        blk = tl.where(below[:, :, None] & (c3 >= j), updated, blk)
    tl.store(lu_ptr + m3 * stride_lb + pos[:, :, None].to(tl.int64) * stride_lm + c3 * stride_ln, blk, mask=inside)
    tl.store(info_ptr + mat * stride_ib, first_zero, mask=mat < BATCH)


# --- refinement: one-launch triangular solves of one vector, matrix-vector products ---------------------------


@triton.jit
def _block_product(a, b, DOT: tl.constexpr):
    """``a @ b`` for a (BLOCK, BLOCK) tile and a (BLOCK, COLS) block of right-hand sides: ``tl.dot`` (IEEE
    arithmetic: float64 DMMA, float32 FMA) when DOT, else a broadcast product summed (one column, or shapes below
    ``tl.dot``'s 16)."""
    if DOT:
        return tl.dot(a, b, input_precision="ieee")
    return tl.sum(a[:, :, None] * b[None, :, :], axis=1)


@triton.jit
def _wait_solved(count_ptr, known, s):
    """``known``, the count of solved blocks last seen, once it covers block ``s`` (acquire loads of
    ``count_ptr`` while it does not)."""
    if known <= s:
        known = tl.atomic_add(count_ptr, 0, sem="acquire")
        while known <= s:
            known = tl.atomic_add(count_ptr, 0, sem="acquire")
        tl.debug_barrier()
    return known


@triton.jit
def _solved_block(dst_k, cols, N, in_k, stride_dm):
    """The solved right-hand sides of rows ``cols`` (through L2: another program stored them)."""
    return tl.load(dst_k + cols[:, None].to(tl.int64) * stride_dm, mask=(cols < N)[:, None] & in_k, other=0.0,
                   cache_modifier=".cg")  # fmt: skip


@triton.jit
def sweep_solve_kernel(
    t_ptr, inv_ptr, beside_ptr, src_ptr, dst_ptr, perm_ptr, state_ptr,
    N, K, alpha,
    stride_tm, stride_tn, stride_sm, stride_sk, stride_dm, stride_dk,
    LOWER: tl.constexpr, PERMUTE: tl.constexpr, BLOCK: tl.constexpr, COLS: tl.constexpr, DOT: tl.constexpr,
):  # fmt: skip
    """``dst = T^-1 (alpha * src)`` for the lower (LOWER) or upper triangle T of the N x N ``t``, columns
    [g COLS, (g + 1) COLS) of the N x K ``src`` and ``dst`` for g = ``program_id(1)``, in one launch; T's
    diagonal enters only through ``inv``, the inverses of its BLOCK x BLOCK diagonal blocks (float64, row-major,
    one per block: unit or not, as the caller computed them), and ``beside``, each such inverse times the tile
    of T beside its block that is solved just before it (left of it for LOWER, else right; the same layout).
    With PERMUTE the right-hand side is ``src[perm[i]]`` (P src, for the interchanges of P A = L U). The
    arithmetic is in float64 for float64 ``dst``, else float32, T's entries converted; tile products by
    ``tl.dot`` when DOT (COLS >= 16).

    The programs of a column group take block rows in the order they start (``state[2 g]``, zero on entry,
    hands out tickets): the first from the top (LOWER) or the bottom, and so on. Each subtracts from its
    right-hand sides the products of T's tiles beside its diagonal block with the blocks already solved, as
    they become available, multiplies by its diagonal block's inverse, stores its block and sets
    ``state[2 g + 1]``, the number of solved blocks, to its ticket + 1 (release): blocks finish in ticket
    order, since each needs the one before. The block just before comes last, through ``beside``:
    ``x = inv (b - sum T_s x_s) - beside x_prev``, the first product formed before its wait, so that one
    product a block stays on the chain of dependent blocks (two and a load of ``inv`` before 2026-11-26). A
    program waits only on programs that took their tickets earlier, so all are already running, whatever the
    grid's size against the GPU. Reading a tile does not wait; its block of right-hand sides does, and only
    while the count last seen does not cover it. Without PERMUTE, ``dst`` may be ``src``: each block is read by
    the program that writes it, before it does.
    """
    group = tl.program_id(1)
    k = group * COLS + tl.arange(0, COLS)
    in_k = (k < K)[None, :]
    src_k = src_ptr + k[None, :].to(tl.int64) * stride_sk
    dst_k = dst_ptr + k[None, :].to(tl.int64) * stride_dk
    state_ptr += 2 * group
    ticket = tl.atomic_add(state_ptr, 1)
    blocks = tl.cdiv(N, BLOCK)
    blk = ticket if LOWER else blocks - 1 - ticket
    c = tl.arange(0, BLOCK)
    r = blk * BLOCK + c
    live = r < N
    source = tl.load(perm_ptr + r, mask=live, other=0) if PERMUTE else r
    acc = tl.load(src_k + source[:, None].to(tl.int64) * stride_sm, mask=live[:, None] & in_k, other=0.0)
    acc = (acc * alpha).to(dst_ptr.dtype.element_ty)
    t_rows = t_ptr + r[:, None].to(tl.int64) * stride_tm
    known = ticket * 0
    for s in range(0, ticket - 1):
        q = s if LOWER else blocks - 1 - s
        cols = q * BLOCK + c
        tile = tl.load(
            t_rows + cols[None, :].to(tl.int64) * stride_tn, mask=live[:, None] & (cols[None, :] < N), other=0.0
        )
        known = _wait_solved(state_ptr + 1, known, s)
        acc -= _block_product(tile.to(acc.dtype), _solved_block(dst_k, cols, N, in_k, stride_dm), DOT)
    square = blk.to(tl.int64) * BLOCK * BLOCK + c[:, None] * BLOCK + c[None, :]  # block blk's of ``inv``, ``beside``
    out = _block_product(tl.load(inv_ptr + square).to(acc.dtype), acc, DOT)
    if ticket > 0:  # the block just before, through ``beside``
        s = ticket - 1
        cols = (s if LOWER else blocks - 1 - s) * BLOCK + c
        tile = tl.load(beside_ptr + square)
        known = _wait_solved(state_ptr + 1, known, s)
        out -= _block_product(tile.to(acc.dtype), _solved_block(dst_k, cols, N, in_k, stride_dm), DOT)
    tl.store(dst_k + r[:, None].to(tl.int64) * stride_dm, out, mask=live[:, None] & in_k)
    tl.debug_barrier()  # every thread's part of the block stored before the release
    tl.atomic_xchg(state_ptr + 1, ticket + 1, sem="release")


@triton.jit
def _sweep_factors_row(t_ptr, g, r64, N, stride_tm, stride_tn, wanted):
    """Row ``g`` of T at the columns ``r64`` and its diagonal entry (zeros past N or unless ``wanted``)."""
    inside = wanted & (g < N)
    g64 = g.to(tl.int64)
    row = tl.load(t_ptr + g64 * stride_tm + r64 * stride_tn, mask=inside & (r64 < N), other=0.0)
    return row, tl.load(t_ptr + g64 * (stride_tm + stride_tn), mask=inside, other=0.0)


@triton.jit
def sweep_factors_kernel(
    t_ptr, inv_ptr, beside_ptr,
    N, stride_tm, stride_tn,
    UNIT_LOWER: tl.constexpr, BLOCK: tl.constexpr, DOT: tl.constexpr,
):  # fmt: skip
    """What ``sweep_solve_kernel`` reads besides T, for both triangles of the N x N ``t`` in one launch. Program
    (j, u) inverts the BLOCK x BLOCK diagonal block j of the lower (u = 0) or upper (u = 1) triangle in float64
    (the lower one's diagonal taken as ones when UNIT_LOWER, else the upper one's; past N padded by the identity)
    into ``inv[u, j]``, and writes that inverse times the tile of the triangle beside the block that the sweep
    solves just before it (block j - 1's columns for the lower triangle, j + 1's for the upper; zeros where there
    is none or past N) into ``beside[u, j]``; both (2, blocks, BLOCK, BLOCK) row-major float64.

    The inverse X by substitution, one row a step from the block's first row (lower) or last (upper): row i of X is
    (e_i - T[i, :] X) / T[i, i] over the rows of X already found (the others are still zero); T's row i and T[i, i]
    are loaded one step ahead. Rows of T load coalesced and a step takes one reduction across the warps, where
    ``_substitute``'s loop form (T's columns, two reductions a step) took 582 us against this loop's 74 at n = 4096
    (H100, 2026-11-27). A dynamic loop: unrolled over 64 rows, the solve took minutes to compile (2026-11-27)."""
    j = tl.program_id(0)
    lower = tl.program_id(1) == 0
    unit = lower == UNIT_LOWER
    c = tl.arange(0, BLOCK)
    r = j * BLOCK + c
    r64 = r.to(tl.int64)
    x = tl.zeros((BLOCK, BLOCK), dtype=tl.float64)
    i = tl.where(lower, 0, BLOCK - 1)
    row, d = _sweep_factors_row(t_ptr, j * BLOCK + i, r64, N, stride_tm, stride_tn, True)
    for step in range(BLOCK):
        i = tl.where(lower, step, BLOCK - 1 - step)
        # the next step's row and diagonal entry, loaded before this step's arithmetic
        following, d_following = _sweep_factors_row(
            t_ptr, j * BLOCK + tl.where(lower, i + 1, i - 1), r64, N, stride_tm, stride_tn, step + 1 < BLOCK
        )
        d = tl.where(unit | (j * BLOCK + i >= N), 1.0, d.to(tl.float64))
        known = tl.where(lower, c < i, c > i)  # the rows of X already found
        s = tl.sum(tl.where(known, row.to(tl.float64), 0.0)[:, None] * x, axis=0)
        x = tl.where(c[:, None] == i, ((tl.where(c == i, 1.0, 0.0) - s) / d)[None, :], x)
        row, d = following, d_following
    q = tl.where(lower, j - 1, j + 1)  # the block solved just before
    cols = q * BLOCK + c
    inside = (q >= 0) & (r[:, None] < N) & (cols[None, :] < N)
    tile = tl.load(t_ptr + r64[:, None] * stride_tm + cols[None, :].to(tl.int64) * stride_tn, mask=inside, other=0.0)
    beside = _block_product(x, tile.to(tl.float64), DOT)
    square = (tl.program_id(1) * tl.num_programs(0) + j).to(tl.int64) * BLOCK * BLOCK + c[:, None] * BLOCK + c[None, :]
    tl.store(inv_ptr + square, x)
    tl.store(beside_ptr + square, beside)


@triton.jit
def matvec_kernel(
    a_ptr, x_ptr, y_ptr,
    M, N,
    stride_am, stride_an,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    """``y = A x`` for the M x N ``a`` (any strides), accumulated in ``y``'s precision: program p takes rows
    [p BLOCK_M, (p + 1) BLOCK_M) and walks the columns BLOCK_N at a time."""
    r = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    c = tl.arange(0, BLOCK_N)
    rows = a_ptr + r[:, None].to(tl.int64) * stride_am
    acc = tl.zeros((BLOCK_M,), dtype=y_ptr.dtype.element_ty)
    for k in range(0, N, BLOCK_N):
        cols = k + c
        tile = tl.load(
            rows + cols[None, :].to(tl.int64) * stride_an, mask=(r[:, None] < M) & (cols[None, :] < N), other=0.0
        )
        x = tl.load(x_ptr + cols, mask=cols < N, other=0.0)
        acc += tl.sum(tile.to(acc.dtype) * x[None, :].to(acc.dtype), axis=1)
    tl.store(y_ptr + r, acc, mask=r < M)


@triton.jit
def nonfinite_flag_kernel(x_ptr, R, C, stride_r, stride_c, state_ptr, flag_ptr, BLOCK_R: tl.constexpr,
                          BLOCK_C: tl.constexpr):  # fmt: skip
    """Writes 1 to ``flag_ptr[0]`` when every item of the R x C strided array x is finite, else 2, from the last of
    its programs (one per BLOCK_R x BLOCK_C tile) to finish. Each program adds 1 + (2^32 if its tile holds a NaN or
    an infinity) to the int64 word ``state_ptr[0]`` (zero at the launch); the program whose addition finds every
    other one's there reads the verdict from the high word, writes the flag, and sets the word back to zero. The
    flag may lie in pinned host memory mapped into the device's address space, which the host polls
    (``lu._finite``)."""
    tiles_c = tl.cdiv(C, BLOCK_C)
    pid = tl.program_id(0)
    rows = (pid // tiles_c) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = (pid % tiles_c) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    offsets = rows[:, None].to(tl.int64) * stride_r + cols[None, :].to(tl.int64) * stride_c
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    bad = tl.max(((x != x) | (tl.abs(x) == float("inf"))).to(tl.int64))
    seen = tl.atomic_add(state_ptr, 1 + (bad << 32))
    if (seen & 0xFFFFFFFF) == tl.num_programs(0) - 1:
        found = ((seen >> 32) + bad) > 0
        tl.atomic_xchg(state_ptr, 0)
        tl.store(flag_ptr, 1 + found.to(tl.int32))


@triton.jit
def any_nonzero_kernel(x_ptr, n, flag_ptr, BLOCK: tl.constexpr):
    """Writes 1 to ``flag_ptr[0]`` when the n int32 items of x are all zero, else 2 (one program). The flag may lie in
    pinned host memory mapped into the device's address space, which the host polls (``lu._any_singular``)."""
    seen = tl.zeros([BLOCK], tl.int32)
    for start in range(0, n, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        seen = tl.maximum(seen, (tl.load(x_ptr + offsets, mask=offsets < n, other=0) != 0).to(tl.int32))
    tl.store(flag_ptr, 1 + tl.max(seen, axis=0))
