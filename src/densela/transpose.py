"""Transposition: ``transpose`` (out of place, optionally scaled) and ``transpose_`` (in place).

Validation -> plan -> launch. Items move as integers of their own size (bit-exact for every dtype, NaN
payloads included); only a scaled transpose (``alpha != 1``) reads them as numbers.
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np
import torch
import triton

from densela import _errors
from densela._arrays import INTERPRET, Call, as_tensor, needs_int64, prepare
from densela._launch import (
    MAX_GRID_Y,
    WORKSPACE_TENSORS,
    Launcher,
    cdiv,
    kept_counters,
    multiple_hint,
    planned,
    replayed,
    scratch,
    signature,
    stream_key,
)
from densela.kernels.transpose import (
    permute_chunks_kernel,
    restride_rows_kernel,
    shuffle_columns_kernel,
    shuffle_rows_kernel,
    transpose_blocks_inplace_kernel,
    transpose_tiles_kernel,
)
from densela.tuning import THIN_SIDE, square_tiles, transpose_tiles

_WORDS = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
"""The integer type each item size moves as; 16-byte (complex128) items move as two 8-byte words."""

_TILES = Launcher(transpose_tiles_kernel)
_BLOCKS = Launcher(transpose_blocks_inplace_kernel)
_CHUNKS = Launcher(permute_chunks_kernel)
_SHUFFLE_ROWS = Launcher(shuffle_rows_kernel)
_SHUFFLE_COLUMNS = Launcher(shuffle_columns_kernel)
_RESTRIDE = Launcher(restride_rows_kernel)

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
    return replayed("transpose", (alpha,), (), (a,), out, lambda: _transpose(a, out, alpha))


def _transpose(a: Any, out: Any, alpha: float) -> Any:
    """``transpose``, checked and launched (its first call of a signature, or any call that cannot replay)."""
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
    """Transposes the contiguous 2-D array ``a`` in place.

    ``a`` must be contiguous, row-major or column-major, and keeps its memory order. A square ``a`` is
    permuted and returned (the caller's own object). A rectangular m x n ``a`` has its memory permuted and
    a view of that memory with shape (n, m) in ``a``'s memory order is returned; ``a`` itself must no longer
    be read as m x n. Extra device memory: none for a square matrix, O(m + n) for a rectangular one,
    exactly ``transpose_.workspace_bytes(a.shape, a.dtype)`` (docs/transpose.md: the algorithm).

    Example:
        >>> import numpy as np, densela as dl
        >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> dl.transpose_(a) is a
        True
        >>> a
        array([[1., 3.],
               [2., 4.]])
        >>> b = np.arange(6.0).reshape(2, 3)
        >>> dl.transpose_(b)
        array([[0., 3.],
               [1., 4.],
               [2., 5.]])
    """
    op = "transpose_"
    as_tensor(op, "a", a, writable=True)  # an array densela cannot write through fails here, under its own name
    call = prepare(op, {"a": a}, a, out_may_alias=("a",))
    ta = call.out
    _errors.check_ndim(op, "a", ta, (2,))
    _check_item_size(op, ta.dtype)
    row_major = ta.is_contiguous()
    if not (row_major or ta.T.is_contiguous()):
        raise ValueError(
            f"{op}: a is non-contiguous (shape {tuple(ta.shape)}, strides {ta.stride()}); transpose_ needs a "
            "contiguous row-major or column-major array; use transpose(a) for views"
        )
    m, n = ta.shape
    if m == n:
        work = call.on_run_device(ta)
        if work.numel() > 0:
            if call.backend == "torch":
                work.copy_(work.T.clone())
            else:
                with call.guard():
                    launch_transpose_square(work)
        return call.finish(work)
    if min(m, n) <= 1:
        return call.finish_view(ta.T)  # a vector or an empty matrix: its transposed view is contiguous
    # The memory holds a row-major rows x cols matrix (a itself, or a.T for a column-major a); afterwards it
    # holds that matrix's transpose, row-major, which is a.T in a's memory order.
    rows, cols = (m, n) if row_major else (n, m)
    work = call.on_run_device(ta)
    if call.backend == "torch":
        _memory(work).copy_(_memory(work).view(rows, cols).T.flatten())
    else:
        with call.guard():  # before the key: its stream is the current one of work's device
            key = ("transpose_", rows, cols, *signature(work), *stream_key(work), *_settings())
            planned(key, (work,), work, lambda: (launch_transpose_rectangular(work, rows, cols), work)[1], graph=True)
    if work is not ta:
        _memory(ta).copy_(_memory(work))
    return call.finish_view(ta.as_strided((n, m), (m, 1) if row_major else (1, n)))


def _memory(t: torch.Tensor) -> torch.Tensor:
    """The contiguous memory of ``t`` (row- or column-major) as a 1-D view."""
    return t.as_strided((t.numel(),), (1,))


def _workspace_bytes(shape: tuple[int, int], dtype: Any) -> int:
    """Extra device memory, in bytes, that ``transpose_`` uses for a ``shape`` array of ``dtype``.

    None for square matrices, vectors and empty matrices. For rectangular ones whose sides share a divisor above
    ``C2R_MAX_GCD``, the copies of the first chunks of the segments that cut long cycles (at most
    ``WORKSPACE_ITEMS * (m + n)`` items) and the table of the segments (16 bytes each: start and moves). For the
    others split into a part with a large common divisor and a thin rest (``_split_plan``): the rest's copy (at
    most ``WORKSPACE_ITEMS * (m + n)`` items), the restride's flags (4 bytes per block of ``RESTRIDE_BYTES``) and the
    part's own chunk workspace; unsplit (the C2R steps), none while both sides are at most ``ONCHIP_ITEMS``, else the
    scratch of the steps that stage long rows or columns (at most ``WORKSPACE_ITEMS * (m + n)`` items, or one row or
    column block if that is more). The same for both memory orders.

    Example:
        >>> import densela as dl, torch
        >>> dl.transpose_.workspace_bytes((1000, 1000), torch.float32)
        0
        >>> dl.transpose_.workspace_bytes((9, 7), torch.complex128)
        0
        >>> dl.transpose_.workspace_bytes((4096, 4095), torch.float32)  # a row of 4095 aside, 8190 flags and 2 words
        49148
        >>> 0 < dl.transpose_.workspace_bytes((3000, 2000), torch.float32) < 4 * 64 * 5000 + 16 * 20000
        True
    """
    op = "transpose_.workspace_bytes"
    if len(shape) != 2 or any(int(n) < 0 for n in shape):
        raise ValueError(f"{op}: shape must be two sizes >= 0, got {tuple(shape)}")
    if not isinstance(dtype, torch.dtype):
        try:
            dtype = torch.from_numpy(np.empty(0, dtype=np.dtype(dtype))).dtype
        except TypeError as e:
            raise TypeError(f"{op}: {dtype!r} is not a dtype (a torch or NumPy dtype)") from e
    _check_item_size(op, dtype)
    m, n = (int(x) for x in shape)
    if m == n or min(m, n) <= 1:
        return 0
    if not _takes_c2r(m, n):
        return _chunk_workspace(m, n, dtype.itemsize)
    split = _split_plan(m, n)
    if split is None:
        return _c2r_plan(m, n, dtype.itemsize).scratch_items * dtype.itemsize
    inner = (split.kept, n) if split.rows else (m, split.kept)
    flags = 4 * (_split_restride(m, n, split, dtype.itemsize).blocks + 2)  # epoch, ticket counter, a flag per block
    return split.side_items * dtype.itemsize + flags + _chunk_workspace(*inner, dtype.itemsize)


def _chunk_workspace(rows: int, cols: int, itemsize: int) -> int:
    """Bytes of the chunk walk's copied segment starts and its segment table for a rows x cols transpose."""
    plan = _chunk_plan(rows, cols)
    return plan.copied * plan.t * itemsize + plan.table.nbytes


transpose_.workspace_bytes = _workspace_bytes  # type: ignore[attr-defined]


SQUARE_BLOCK = 64
"""Largest tile of the in-place kernels: a program holds two tiles; 128 x 128 ran at 72% of the copy bandwidth
in bfloat16 where 64 x 64 ran at 89% (H100, 2026-11-22, scripts/memory-explore.py)."""

WORKSPACE_ITEMS = 64
"""The chunk walk's copies of segment starts hold at most ``WORKSPACE_ITEMS * (m + n)`` items of an m x n in-place
transpose, and so does the C2R steps' scratch for long rows or columns (or one row or block of columns)."""

MAX_SEGMENTS = 16384
"""Copies of segment starts beyond this many add no parallelism worth their memory."""

CHUNK_PIECE_BYTES = 4096
"""Bytes of each chunk that one program of the chunk walk moves (a chunk of more takes several programs), for
every item size: the walk alone on the H100 (2026-11-24, ``bench-results/nvidia-h100/2026-11-24-walk/``) moved
16384 x 2048 bfloat16 in 65 us with 4 KiB pieces against 76 with 2 KiB, and no shape ran faster with 8 KiB."""

CHUNK_AHEAD_MAX = 16
"""Most chunks the walk loads at once before storing them one step further along their cycle (``_walk_ahead``)."""

CHUNK_TABLE_KEEP_BYTES = 1 << 20
"""Segment tables up to this size stay on the device for the shape's next call (``_kept_table``)."""


def _walk_ahead(longest: int, piece_bytes: int) -> int:
    """Chunks the walk loads at once: half the longest segment's moves rounded up to a power of two (a segment
    of 3 moves walks 2 at a time), 2 to CHUNK_AHEAD_MAX, at most 64 KiB of a program's registers. The H100 sweep
    of 2026-11-24 (the walk alone, 4 KiB pieces): segments of at most 3 moves 103 us at 2 against 108 at 4 (32768
    x 1024 float32), of 13-14 moves 104 and 60 us at 16 against 113 and 65 at 4, of 36 moves 94 us at 8 and 96 at
    16 (8192 x 3072 float32)."""
    return min(CHUNK_AHEAD_MAX, max(2, triton.next_power_of_2(longest) // 2), 65536 // piece_bytes)


def _walk_warps(held_bytes: int) -> int:
    """Warps of a chunk-walk program that holds ``held_bytes`` (its chunks in flight): one per 8 KiB, 1 to 4. H100,
    2026-11-24 (``bench-results/nvidia-h100/2026-11-24-walk/run4-*``, the walk alone): 2 chunks of 2 KiB (32768 x 1024
    bfloat16) 76 us on one warp against 92 on four; 2 of 4 KiB 99 against 103; 8 of 4 KiB 94 on four, 97 on two,
    102 on one; 16 of 4 KiB 104 on four, 110 on eight."""
    return max(1, min(4, held_bytes // 8192))


MAX_PLAN_CHUNKS = 2**28
"""The chunk plan takes about 40 bytes of host memory per chunk: beyond this many chunks (10 GB) ``transpose_``
refuses with a ValueError rather than exhaust the host. Only sides sharing 32 or more get a plan, so this
takes m n / gcd above 2**28: matrices of more than 8 G items. It also keeps chunk numbers within 32 bits, which
the walk relies on."""

C2R_MAX_GCD = 31
"""Rectangular in-place transposes whose sides share no divisor above this take the C2R steps: the chunk walk
moves chunks of gcd items, which do not coalesce below 32 (0.1-0.3% of the copy bandwidth for coprime
sides, H100, 2026-11-22), and its host plan grows with m n / gcd (seconds for 16 M items)."""

ONCHIP_ITEMS = 16384
"""The C2R steps hold whole rows, and whole columns, of at most this many items in one program's registers;
longer ones are staged through a scratch buffer, STAGE_ITEMS at a time."""

WIDE_INDEX = 2**31
"""The C2R steps form their index arithmetic in 64 bits from this value on (the row step's b * b, the column
step's m n), in 32 bits below it."""

STAGE_ITEMS = 4096
"""Items a program moves per step when the C2R steps stage a long row or column through scratch."""

SPLIT_MIN_GCD = 32
"""A rectangle whose sides share no divisor above C2R_MAX_GCD is split, where it can be, into a part whose sides
share at least this much and a thin rest (``_split_plan``); the part takes the block and chunk steps."""

RESTRIDE_BYTES = 8192
"""Bytes that one program of ``restride_rows_kernel`` moves, with a warp per KiB (``_restride``). H100, 2026-11-24
(``bench-results/nvidia-h100/2026-11-24-restride-hints/``): 8 KiB in eight warps took the six split shapes of the lab
in 507 us against 591 for 16 KiB in four (bfloat16 2187 x 4096 28 us against 76)."""


class _Split(NamedTuple):
    """How a rows x cols in-place transpose is split (``_split_plan``): ``rows`` keeps the first ``kept`` rows
    (else the first ``kept`` columns) as the part transposed in place; the rest, ``side_items`` items, goes aside."""

    rows: bool
    kept: int
    side_items: int


def _divisors(n: int) -> list[int]:
    """The divisors of n >= 1."""
    low = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted({*low, *(n // d for d in low)})


def _split_plan(rows: int, cols: int) -> _Split | None:
    """The split of a rows x cols in-place transpose (sides sharing at most C2R_MAX_GCD) into a part whose sides
    share the most, at least SPLIT_MIN_GCD, and a rest of at most ``WORKSPACE_ITEMS * (rows + cols)`` items; None
    where there is none (the C2R steps then).

    Keeping the first r rows of A (m x n) leaves the rest B (the other rows) beside: A.T's row j is A1.T's row j
    followed by B.T's, so B.T goes aside, A1 (r x n, contiguous) is transposed in place, and the rows of A1.T
    spread out to A's row stride m, each followed by its row of B.T. Keeping the first c columns: B = A[:, c:] goes
    aside as B.T, A1's rows close up to a stride of c, A1 (m x c) is transposed in place, and B.T follows A1.T
    (A.T is A1.T over B.T). For a side s and a divisor d of the other side, s - s mod d shares at least d with it.

    Example:
        >>> _split_plan(4096, 4095)  # the first 4095 rows: a square, one row aside
        _Split(rows=True, kept=4095, side_items=4095)
        >>> _split_plan(4096, 2187)  # the first 2176 columns (sharing 128 with 4096), 11 columns aside
        _Split(rows=False, kept=2176, side_items=45056)
        >>> _split_plan(100000, 7) is None
        True
    """
    return _best_split(rows, cols, SPLIT_MIN_GCD, WORKSPACE_ITEMS * (rows + cols))


@functools.lru_cache(maxsize=64)
def _best_split(rows: int, cols: int, least: int, budget: int) -> _Split | None:
    """``_split_plan`` for a smallest common divisor ``least`` and a rest of at most ``budget`` items."""
    best: tuple[tuple[int, int], _Split] | None = None
    for keep_rows, side, other in ((True, rows, cols), (False, cols, rows)):
        for d in _divisors(other):
            kept = side - side % d
            rest = (side - kept) * other
            if d < least or kept == 0 or rest == 0 or rest > budget:
                continue
            key = (math.gcd(kept, other), -rest)
            if best is None or key > best[0]:
                best = (key, _Split(keep_rows, kept, rest))
    return None if best is None else best[1]


class _Restride(NamedTuple):
    """A split's restride (``restride_rows_kernel``), in words: output rows, words kept per row, source and output row
    strides, the blocks' parts and words per part, and the number of blocks."""

    rows: int
    length: int
    source: int
    target: int
    parts: int
    part: int
    blocks: int


def _split_restride(rows: int, cols: int, split: _Split, itemsize: int) -> _Restride:
    """The restride of a rows x cols in-place transpose split as ``split`` says, for items of ``itemsize`` bytes:
    blocks of about RESTRIDE_BYTES in parts of the largest power of two that fits in an output row (each part then
    spans at most two rows)."""
    vec = 2 if itemsize == 16 else 1
    if split.rows:
        out_rows, source, target = cols, split.kept * vec, rows * vec
    else:
        out_rows, source, target = rows, cols * vec, split.kept * vec
    words = max(1, RESTRIDE_BYTES * vec // itemsize)
    part = min(words, 1 << (target.bit_length() - 1))
    parts = max(1, words // part)
    return _Restride(out_rows, split.kept * vec, source, target, parts, part, cdiv(out_rows * target, parts * part))


def _settings() -> tuple:
    """The module's settings that decide an in-place transpose's launches: part of a replayed plan's key."""
    return (C2R_MAX_GCD, SPLIT_MIN_GCD, RESTRIDE_BYTES, WORKSPACE_ITEMS, MAX_SEGMENTS, CHUNK_PIECE_BYTES,
            CHUNK_AHEAD_MAX, ONCHIP_ITEMS, STAGE_ITEMS, WIDE_INDEX)  # fmt: skip


class _C2RPlan(NamedTuple):
    """Launch geometry of the C2R steps for a rows x cols matrix (``_c2r_plan``): per step whether rows (columns)
    are staged through scratch, the block of items a program handles at a time, the rows (columns) a program
    holds, the number of programs, and the scratch items both steps share."""

    rows_staged: bool
    block_n: int
    per_program_rows: int
    row_programs: int
    cols_staged: bool
    block_m: int
    per_program_cols: int
    col_programs: int
    scratch_items: int


def _takes_c2r(rows: int, cols: int) -> bool:
    """Whether the in-place transpose of a rows x cols matrix takes the C2R steps (any item size)."""
    return math.gcd(rows, cols) <= C2R_MAX_GCD


def _c2r_plan(rows: int, cols: int, itemsize: int) -> _C2RPlan:
    """How ``_launch_c2r`` launches the C2R steps. Rows (columns) of up to ONCHIP_ITEMS words are held in
    registers, several per program; longer ones go one at a time through scratch (columns several at a time, a
    32-byte sector per row), with as many programs as ``WORKSPACE_ITEMS * (rows + cols)`` items of scratch
    allow. 16-byte items count as two words."""
    vec = 2 if itemsize == 16 else 1
    budget = WORKSPACE_ITEMS * (rows + cols)

    def side(length: int, count: int, staged_per_program: int) -> tuple[bool, int, int, int, int]:
        """(staged, block, lines per program, programs, scratch items) for ``count`` lines of ``length`` items."""
        block = triton.next_power_of_2(length)
        if block * vec <= ONCHIP_ITEMS:
            per = max(1, min(64, ONCHIP_ITEMS // (block * vec)))
            return False, block, per, cdiv(count, per), 0
        per = staged_per_program
        programs = max(1, min(cdiv(count, per), budget // (length * per)))
        return True, max(1, STAGE_ITEMS // (vec * per)), per, programs, programs * length * per

    row_side = side(cols, rows, 1)
    col_side = side(rows, cols, max(1, 32 // itemsize))
    return _C2RPlan(*row_side[:4], *col_side[:4], max(row_side[4], col_side[4]))


class _ChunkPlan(NamedTuple):
    """How ``permute_chunks_kernel`` finishes the in-place transpose of a row-major rows x cols matrix.

    ``t = gcd(rows, cols)``: after every t x t block is transposed, chunks of t items move from (I, c, J) to
    (J, c, I) in an a x t x b grid (a = rows / t, b = cols / t). ``table`` (int64, 2 x segments) holds where
    each segment starts and how many moves it makes; the first ``copied`` segments cut longer cycles and start
    from a copy of their first chunk, the others are whole cycles. ``longest``: the most moves of any segment.
    """

    t: int
    a: int
    b: int
    copied: int
    table: np.ndarray
    longest: int


def _chunk_plan(rows: int, cols: int) -> _ChunkPlan:
    """``_cut_cycles`` for a rows x cols transpose, with copies for at most ``WORKSPACE_ITEMS * (rows + cols)``
    items (and ``MAX_SEGMENTS`` chunks)."""
    return _cut_cycles(*_plan_key(rows, cols))


def _plan_key(rows: int, cols: int) -> tuple[int, int, int]:
    """(rows, cols, how many chunks the walk may copy aside): the arguments of ``_cut_cycles`` and the key of the
    plan's table on a device (``_kept_table``)."""
    return rows, cols, max(1, min(MAX_SEGMENTS, WORKSPACE_ITEMS * (rows + cols) // math.gcd(rows, cols)))


@functools.lru_cache(maxsize=16)
def _cut_cycles(rows: int, cols: int, budget: int) -> _ChunkPlan:
    """The cycles of the chunk permutation of a rows x cols transpose, cut into segments of at most ``length``
    moves (computed once per shape).

    Each chunk's cycle is named by its smallest member, found by pointer doubling (after step k, ``rep[p]``
    is the smallest of the 2**k chunks from p on; a step that changes nothing means every window already
    holds its cycle's minimum); then every chunk's distance from that minimum along the cycle, by list
    ranking (pointer jumping on the cycle cut before its minimum). Segments start at the multiples of
    ``length`` of that distance, the smallest length whose copies are at most ``budget``: every segment is at
    most ``length`` moves, so the walk is balanced. O(N log N) host time and O(N) host memory for N chunks.
    """
    t = math.gcd(rows, cols)
    a, b = rows // t, cols // t
    count = a * t * b
    if count > MAX_PLAN_CHUNKS:
        raise ValueError(
            f"transpose_: an in-place transpose of {rows} x {cols} (sides sharing {t}) moves {count} chunks of "
            f"{t} items, whose plan would need about {count * 40 / 2**30:.0f} GB of host memory; use transpose(a) "
            "(out of place) instead"
        )
    p = np.arange(count, dtype=np.int32)
    target = (((p % b) * t + (p // b) % t) * a + p // (t * b)).astype(np.int32)
    rep, step = p, target
    while True:
        joined = np.minimum(rep, rep[step])
        if np.array_equal(joined, rep):
            break
        rep, step = joined, step[step]
    del step, joined
    last = target == rep  # the chunk before its cycle's minimum ends the cut cycle
    ahead, nxt = (~last).astype(np.int32), np.where(last, p, target)
    while not last[nxt].all():
        ahead, nxt = ahead + ahead[nxt], nxt[nxt]
    sizes = np.bincount(rep, minlength=count).astype(np.int32)
    size = sizes[rep]
    rank = size - 1 - ahead  # moves from the cycle's minimum
    del ahead, nxt, last
    cycles = sizes[(rep == p) & (target != p)]
    low, high = 1, max(1, int(cycles.max(initial=1)))
    while low < high:  # the smallest length whose cut cycles need at most `budget` copies
        mid = (low + high) // 2
        long = cycles[cycles > mid]
        low, high = (low, mid) if int((-(-long // mid)).sum()) <= budget else (mid + 1, high)
    length = low
    starts = p[(target != p) & (rank % length == 0)]
    moves = np.minimum(length, size[starts] - rank[starts])
    order = np.argsort(size[starts] <= length, kind="stable")  # cut cycles first: their starts are copied
    copied = int((size[starts] > length).sum())
    table = np.stack([starts[order], moves[order]]).astype(np.int64)
    return _ChunkPlan(t, a, b, copied, table, int(moves.max(initial=0)))


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
    """The words the kernels move for ``t`` (m x n, or 1-D), and how many words make one item (VEC).

    Words are same-size integers, or the floats themselves when scaled; complex items that are scaled or
    16 bytes wide are two words (real, imaginary), an m x n x 2 view. The kernels address the words with
    ``t``'s own strides, counted in items.
    """
    vec = 1
    if t.is_complex() and (scaled or t.element_size() == 16):
        t, vec = torch.view_as_real(t), 2
    return (t if scaled else t.view(_WORDS[t.element_size()])), vec


def launch_transpose(
    a: torch.Tensor,
    out: torch.Tensor,
    alpha: float,
    lo: torch.Tensor | None = None,
    flag: torch.Tensor | None = None,
) -> None:
    """Launches ``out = alpha * a.T`` (a m x n, out n x m, same dtype; alpha == 1 moves bits) on checked tensors,
    or for batches (3-D ``a`` and ``out``) ``out[i] = alpha * a[i].T``.

    With ``lo`` (float32, alpha == 1, the same strides as ``out``) the transpose is split into TF32 parts
    for a 3xTF32 product: ``out`` gets the rounded high part and ``lo`` the rounded remainder. With ``flag`` (one
    int32, float32 or float64 items moved untouched) the copy also sets ``flag`` to 1 if it moves an infinity or
    NaN (and leaves it as it is otherwise): LU's column-major copy of a batch checks its input so.
    """
    if a.ndim == 3:  # matrices in the grid's second dimension, at most MAX_GRID_Y a launch
        for start in range(0, a.shape[0], MAX_GRID_Y):
            stop = start + MAX_GRID_Y
            _launch_tiles(a[start:stop], out[start:stop], alpha, None if lo is None else lo[start:stop], flag)
    else:
        _launch_tiles(a, out, alpha, lo, flag)


_EXPONENTS = {torch.float32: 0x7F800000, torch.float64: 0x7FF0000000000000}
"""The exponent bits of the float types whose copies check for infinities and NaN (``launch_transpose``'s flag)."""


def _launch_tiles(
    a: torch.Tensor, out: torch.Tensor, alpha: float, lo: torch.Tensor | None, flag: torch.Tensor | None
) -> None:
    """``transpose_tiles_kernel`` on the m x n ``a`` (or a batch of at most MAX_GRID_Y, items moved one by one)."""
    scaled = alpha != 1.0
    split = lo is not None
    if flag is not None and (scaled or split or a.dtype not in _EXPONENTS):
        raise ValueError(f"launch_transpose: a check for infinities moves float32 or float64 untouched, not {a.dtype}")
    batch, batch_strides = (a.shape[0], (a.stride(0), out.stride(0))) if a.ndim == 3 else (1, (0, 0))
    one_a, one_out = (a[0], out[0]) if a.ndim == 3 else (a, out)
    packed = None if scaled or split or a.ndim == 3 or flag is not None else _packed(a, out)
    (src, vec), (dst, _) = _as_words(a, scaled or split), _as_words(out, scaled or split)
    if packed is None:
        pack, (m, n), strides = 1, one_a.shape, (*one_a.stride(), *one_out.stride())
        itemsize = a.element_size()
    else:
        (pack, m, n, strides), itemsize = packed, 4
    cfg = transpose_tiles(m, n, strides[0], strides[1], itemsize, pack)
    tiles = cdiv(m, cfg.block_m) * cdiv(n, cfg.block_n)
    _TILES((tiles, batch),
        src, dst, lo if split else dst, dst if flag is None else flag,
        m, n,
        *strides,
        *batch_strides,
        alpha,
        SCALE=scaled,
        SPLIT=split,
        INDEX_64=needs_int64(*((src[0], dst[0]) if a.ndim == 3 else (src, dst))),  # a batch's offsets are 64-bit
        VEC=vec,
        PACK=pack,
        BLOCK_M=cfg.block_m, BLOCK_N=cfg.block_n,
        HINTS=_hints(m, n, strides, itemsize),
        BATCHED=a.ndim == 3,
        EXPONENT=0 if flag is None else _EXPONENTS[a.dtype],
        JOIN=pack == 4 and m <= THIN_SIDE,
        num_warps=cfg.num_warps,
    )  # fmt: skip


PACK_ITEMS = True
"""Whether 1- and 2-byte items move packed in 32-bit words where the shapes and strides allow (``_packed``)."""


def _packed(a: torch.Tensor, out: torch.Tensor) -> tuple[int, int, int, tuple[int, int, int, int]] | None:
    """How ``transpose_tiles_kernel`` moves ``out = a.T`` (bit for bit) in 32-bit words of 1- or 2-byte items:
    (items per word, rows, words per row, the strides of a and out in words), where ``a`` and ``out`` both have
    unit-stride rows (or both unit-stride columns: then it moves out.T = (a.T).T), both sides are multiples of
    the items per word, each row starts on a word, and ``a`` has more than THIN_SIDE rows (a.T, for column-major
    ones) or 1-byte items; else None (items one by one).

    Packed, the tiles transpose as 32-bit words, which Triton re-lays out through shared memory with whole-word
    accesses, and the items of each word are regrouped in registers (``kernels.transpose._transpose_packed``).
    H100, 2026-11-24 (``bench-results/nvidia-h100/2026-11-24-packed``): bfloat16 from 64 MiB at 90-95% of the
    copy bandwidth against 88-94% item by item, 100000 x 100 at 70-73% against 63-69%, int8 8192^2 at 88-90%
    against 86%, 100000 x 100 int8 at 52-55% against 21%. With at most THIN_SIDE rows (100 x 100000 read
    along its rows) out's rows are at most THIN_SIDE / pack words long and neighbouring rows, written by
    different stores, share sectors: 43-65% packed against 52-68% item by item. 1-byte items there store their
    four rows of words as one tile (the kernel's ``JOIN``): H100, 2026-11-27
    (``bench-results/nvidia-h100/2026-11-27-thin-int8/call1-join.jsonl``, 3 interleaved rounds) int8 100 x 700000
    row-major at 91.8% of the copy bandwidth against 89.9% item by item, 700000 x 100 column-major at 89.6%
    against 84.1% (53% with separate stores); bfloat16 gained nothing that way (80.8-86.8% against 82.5-85.6%) and
    moves item by item, and the joined store cost larger packed transposes 4-8 points, so only these take it.
    Plain integer arithmetic on shapes and strides: this runs on every call (``launch_transpose``).

    Example:
        >>> x, y = torch.empty(200, 4, dtype=torch.bfloat16), torch.empty(4, 200, dtype=torch.bfloat16)
        >>> _packed(x, y), _packed(x[:199], y[:, :199]), _packed(y, x)
        ((2, 200, 2, (2, 1, 100, 1)), None, None)
        >>> _packed(torch.empty(100, 800, dtype=torch.int8), torch.empty(800, 100, dtype=torch.int8))
        (4, 100, 200, (200, 1, 25, 1))
    """
    size = a.element_size()
    if size > 2 or not PACK_ITEMS:
        return None
    pack = 4 // size
    (m, n), sa, so = a.shape, a.stride(), out.stride()
    if sa[1] != 1:  # column-major: the words run down the columns
        m, n, sa, so = n, m, sa[::-1], so[::-1]
    if (
        sa[1] != 1
        or so[1] != 1
        or (m <= THIN_SIDE and pack != 4)
        or (m | n | sa[0] | so[0]) % pack
        or (a.data_ptr() | out.data_ptr()) % 4
    ):
        return None
    return pack, m, n // pack, (sa[0] // pack, 1, so[0] // pack, 1)


def _hints(m: int, n: int, strides: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """``transpose_tiles_kernel``'s HINTS for ``out = a.T`` of an m x n ``a`` with the strides of a and out: M, N and
    the strides declared multiples of their power-of-two factors for matrices with a side of at most THIN_SIDE and
    items of at most 4 bytes, else nothing. H100, 2026-11-23 (``bench-results/nvidia-h100/2026-11-23-thin-transpose``):
    rows of 100 items then load in 16-byte vectors, bfloat16 100000 x 100 at 66-70% of the copy bandwidth against
    54-62%, float32 100000 x 100 and 100 x 100000 at 79-82% against 79-82% (+1.4 points on average); float64 thin and
    float32 5000^2 lose 0-6 points with them.

    Example:
        >>> _hints(1000, 100, (100, 1, 1000, 1), 4), _hints(200, 200, (200, 1, 200, 1), 4)
        ((4, 4, 4, 1, 4, 1), (1, 1, 1, 1, 1, 1))
    """
    if min(m, n) > THIN_SIDE or itemsize > 4:
        return (1,) * 6
    return _word_multiples((m, n, *strides), itemsize)


def _word_multiples(counts: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """What each count of items may be declared a multiple of (``multiple_hint``): its power-of-two factor, up to
    16 bytes' worth of items."""
    return tuple(multiple_hint(x, max(1, 16 // itemsize)) for x in counts)


def launch_transpose_square(a: torch.Tensor) -> None:
    """Launches the in-place transpose of the square, contiguous ``a`` (any item size), on a checked tensor: its
    memory transposed as a row-major matrix, which is a's transpose in either memory order (and a column-major
    ``a`` gets the row stride ``_square_hints`` declares)."""
    words, vec = _as_words(a, scaled=False)
    launch_square_blocks(words, vec, a.shape[0], 1, 1, (a.shape[0], 1), a.element_size())


def launch_square_blocks(
    words: torch.Tensor, vec: int, side: int, count: int, per_row: int, strides: tuple[int, ...], itemsize: int
) -> None:
    """Transposes in place ``count`` side x side blocks of ``words`` (items of ``itemsize`` bytes, ``vec`` words
    each): block i starts at block row i // per_row, block column i % per_row, with the item strides given.
    One program per pair of tiles of a block (``transpose_blocks_inplace_kernel``)."""
    cfg = square_tiles(itemsize)
    block = min(cfg.block_m, cfg.block_n, SQUARE_BLOCK, max(16, triton.next_power_of_2(side)))
    tiles = cdiv(side, block)
    _BLOCKS((count * (tiles * (tiles + 1) // 2),),
        words,
        side, per_row,
        *strides,
        INDEX_64=needs_int64(words),
        VEC=vec,
        BLOCK=block,
        HINTS=_square_hints(side, strides[0], itemsize),
        num_warps=cfg.num_warps,
    )  # fmt: skip


def _square_hints(side: int, stride: int, itemsize: int) -> tuple[int, ...]:
    """``transpose_blocks_inplace_kernel``'s HINTS: the blocks' side and the row stride declared multiples of their
    power-of-two factors up to 16 bytes, so that rows Triton cannot prove aligned (5000 float32 items: a multiple of 8,
    not of 16) still load and store in vectors.

    Example:
        >>> _square_hints(5000, 5000, 4), _square_hints(4096, 4096, 4), _square_hints(5001, 5001, 4)
        ((4, 4), (1, 1), (1, 1))
    """
    return _word_multiples((side, stride), itemsize)


def launch_transpose_rectangular(a: torch.Tensor, rows: int, cols: int) -> None:
    """Transposes in place the row-major rows x cols matrix held by the contiguous memory of ``a`` (checked).

    Sides with a small common divisor that fit on chip: the C2R steps (``_launch_c2r``). Otherwise two steps
    (docs/transpose.md): every t x t block (t = gcd(rows, cols)) is transposed in place, then the chunks of t
    items are moved along the cycles of ``_chunk_plan``.
    """
    items = _memory(a)
    words, vec = _as_words(items, scaled=False)
    words = words.reshape(-1)
    if not _takes_c2r(rows, cols):
        _launch_chunks(words, vec, rows, cols, a.element_size())
    elif (split := _split_plan(rows, cols)) is None:
        _launch_c2r(words, vec, rows, cols)
    else:
        _launch_split(items, words, vec, rows, cols, split)


def _launch_split(items: torch.Tensor, words: torch.Tensor, vec: int, rows: int, cols: int, split: _Split) -> None:
    """The in-place transpose of the row-major rows x cols matrix in ``items`` (its ``words``) split as ``split``
    says (``_split_plan``): the rest aside, the part transposed by blocks and chunks, the rows restrided."""
    kept, itemsize = split.kept, items.element_size()
    geometry = _split_restride(rows, cols, split, itemsize)
    if split.rows:  # A = [A1; B]: B.T aside, A1 in place, A1.T's rows spread out, each followed by B.T's row
        side = scratch((cols, rows - kept), items.dtype, items.device)
        launch_transpose(items[kept * cols :].view(rows - kept, cols), side, 1.0)
        _launch_chunks(words[: kept * cols * vec], vec, kept, cols, itemsize)
        _restride(words, _as_words(side, scaled=False)[0], geometry)
    else:  # A = [A1, B]: B.T aside, A1's rows closed up, A1 in place, B.T after A1.T
        side = scratch((cols - kept, rows), items.dtype, items.device)
        launch_transpose(items.view(rows, cols)[:, kept:], side, 1.0)
        _restride(words, None, geometry)
        _launch_chunks(words[: rows * kept * vec], vec, rows, kept, itemsize)
        launch_transpose(side.T, items[rows * kept :].view(cols - kept, rows), 1.0)


def _restride(words: torch.Tensor, side: torch.Tensor | None, g: _Restride) -> None:
    """Launches ``restride_rows_kernel`` as ``g`` says (the ``side`` words after each row's kept ones), its epoch,
    ticket counter and flags kept per device and stream (``kept_counters``)."""
    state = kept_counters("restride", g.blocks + 2, words.device)
    _RESTRIDE((g.blocks,),
        words, words if side is None else side, state,
        g.rows, g.length, g.source, g.target,
        DESCENDING=g.target > g.source, SIDE=side is not None, PARTS=g.parts, PART=g.part, DEPS=4,
        INDEX_64=needs_int64(words), HINTS=_word_multiples((g.source, g.target, g.length), words.element_size()),
        num_warps=max(1, min(8, g.parts * g.part * words.element_size() // 1024)),
    )  # fmt: skip


def _launch_chunks(words: torch.Tensor, vec: int, rows: int, cols: int, itemsize: int) -> None:
    """Blocks, then chunks: the in-place transpose of the row-major rows x cols matrix of items (``vec`` words each)
    held by ``words`` (docs/transpose.md)."""
    key = _plan_key(rows, cols)
    plan = _cut_cycles(*key)
    if plan.t > 1:  # 1 x 1 blocks are their own transposes
        launch_square_blocks(words, vec, plan.t, plan.a * plan.b, plan.b, (cols, 1), itemsize)
    segments = plan.table.shape[1]
    if segments == 0:
        return
    # a table copied from host memory waits for the device to finish its queue: small ones stay on the device
    keep = plan.table.nbytes <= CHUNK_TABLE_KEEP_BYTES
    table = _kept_table(*key, words.device) if keep else torch.from_numpy(plan.table).to(words.device)
    chunk_bytes = plan.t * vec * words.element_size()
    if words.element_size() < 4 and chunk_bytes % 4 == 0 and words.data_ptr() % 16 == 0:
        words = words.view(torch.int32)  # chunks of 1- and 2-byte items move as 32-bit words
    size = words.element_size()
    chunk = chunk_bytes // size
    # no cut cycle: nothing is saved, and the kernel's unused copy pointer is the matrix itself
    saved = scratch((plan.copied * chunk,), words.dtype, words.device) if plan.copied else words
    piece = 16 if INTERPRET else max(16, min(CHUNK_PIECE_BYTES // size, triton.next_power_of_2(chunk)))
    ahead = _walk_ahead(plan.longest, piece * size)
    for save, count in ((True, plan.copied), (False, segments)):
        if count:
            _CHUNKS((count, cdiv(chunk, piece)),
                words, saved, table,
                segments, plan.copied,
                plan.a, plan.t, plan.b,
                chunk,
                SAVE=save,
                AHEAD=ahead,
                BLOCK=piece,
                CHUNK_MULTIPLE=_word_multiples((chunk,), size)[0],
                num_warps=_walk_warps(ahead * piece * size),
            )  # fmt: skip


@functools.lru_cache(maxsize=16)
def _kept_table(rows: int, cols: int, budget: int, device: torch.device) -> torch.Tensor:
    """The segment table of ``_cut_cycles(rows, cols, budget)`` on ``device``, kept there for the shape's next calls
    (tables of at most CHUNK_TABLE_KEEP_BYTES): its copy from host memory waited for the device to finish its queue,
    150 of the 350 us of a 32768 x 1024 float32 ``transpose_`` on the H100."""
    table = torch.from_numpy(_cut_cycles(rows, cols, budget).table).to(device)
    WORKSPACE_TENSORS[id(table)] = table  # read-only: replayed plans may launch with it on any stream
    return table


def _launch_c2r(words: torch.Tensor, vec: int, rows: int, cols: int) -> None:
    """The in-place transpose of the row-major rows x cols matrix of items (``vec`` words each) held by ``words``,
    by Catanzaro, Keller and Garland's decomposition (docs/transpose.md): with c = gcd(rows, cols) > 1 a
    rotation of every column, then a permutation inside every row, then one inside every column; each program
    holds whole rows or columns, or stages long ones through scratch (``_c2r_plan``)."""
    c = math.gcd(rows, cols)
    a, b = rows // c, cols // c
    plan = _c2r_plan(rows, cols, words.element_size() * vec)
    # the unstaged steps never touch scratch: they get the matrix's own pointer
    staged = scratch((plan.scratch_items * vec,), words.dtype, words.device) if plan.scratch_items else words

    def warps(items: int) -> int:
        return max(1, min(16, items * vec // 1024))  # about 32 words per thread

    def columns(rotate: bool) -> None:
        _SHUFFLE_COLUMNS((plan.col_programs,),
            words, staged,
            rows, cols, b,
            ROTATE=rotate, BLOCK_M=plan.block_m, COLS=plan.per_program_cols, STAGED=plan.cols_staged, VEC=vec,
            WIDE=rows * cols >= WIDE_INDEX, num_warps=warps(plan.block_m * plan.per_program_cols),
        )  # fmt: skip

    if c > 1:
        columns(rotate=True)
    _SHUFFLE_ROWS((plan.row_programs,),
        words, staged,
        rows, cols, c, b, pow(a, -1, b) if b > 1 else 0,
        BLOCK_N=plan.block_n, ROWS=plan.per_program_rows, STAGED=plan.rows_staged, VEC=vec, WIDE=b * b >= WIDE_INDEX,
        num_warps=warps(plan.block_n * plan.per_program_rows),
    )  # fmt: skip
    columns(rotate=False)
