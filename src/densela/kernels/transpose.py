"""Transposition kernels: out of place (optionally scaled, or split into TF32 parts), and in place: square
blocks, and the chunk permutation that finishes a rectangular transpose.

Both move words (integers of the item's size, so any dtype moves bit-exactly) or, when scaling or
splitting, floats; complex items arrive as VEC = 2 words (real and imaginary parts). A program transposes whole tiles in
registers and stores each at its mirrored position; Triton gives the load and the store their own
coalesced layouts and re-lays the tile out through shared memory in between.
"""

from __future__ import annotations

import triton
import triton.language as tl

from densela.kernels.elementwise import multiple, tile_pointers, upcast


@triton.jit
def transposed_tile(x, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, VEC: tl.constexpr):
    """The BLOCK_N x (BLOCK_M * VEC) transpose of a BLOCK_M x (BLOCK_N * VEC) tile of VEC-word items."""
    items = tl.reshape(x, (BLOCK_M, BLOCK_N, VEC))
    return tl.reshape(tl.permute(items, (1, 0, 2)), (BLOCK_N, BLOCK_M * VEC))


@triton.jit
def round_to_tf32(x):
    """float32 ``x`` rounded to the nearest TF32 value (10 fraction bits, ties to even), as float32.

    Infinities and NaN pass unchanged; a finite value that would round past the largest float32 is
    truncated instead, so the result stays finite.
    """
    bits = x.to(tl.uint32, bitcast=True)
    rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000
    truncated = bits & 0xFFFFE000
    exponent_ones = 0x7F800000
    finite = (bits & exponent_ones) != exponent_ones
    overflowed = (rounded & exponent_ones) == exponent_ones
    out = tl.where(finite & ~overflowed, rounded, tl.where(finite, truncated, bits))
    return out.to(tl.float32, bitcast=True)


@triton.jit
def _exchange(x, y, BITS: tl.constexpr, LOW: tl.constexpr):
    """Exchanges halves between two uint32 words of packed items: of each 2 * BITS-bit group, the high half
    of ``x`` and the low half of ``y`` change places. ``LOW`` masks the low half of every group."""
    low = tl.full((), LOW, x.dtype)
    return (x & low) | ((y & low) << BITS), ((x >> BITS) & low) | (y ^ (y & low))


@triton.jit
def _packed_rows(base, p, row0, col0, M, N, stride_m, stride_n,
                 INDEX_64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PACK: tl.constexpr):  # fmt: skip
    """Pointers to rows row0 + PACK * k + p (k < BLOCK_M / PACK) and words col0 .. col0 + BLOCK_N of an M x N
    matrix of words (M a multiple of PACK), and their mask."""
    return tile_pointers(base + p * stride_m, row0 // PACK, col0, M // PACK, N, PACK * stride_m, stride_n,
                         INDEX_64, BLOCK_M // PACK, BLOCK_N, 1)  # fmt: skip


@triton.jit
def _load_words(a_ptr, p, row0, col0, M, N, stride_m, stride_n,
                INDEX_64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PACK: tl.constexpr):  # fmt: skip
    """Words of rows row0 + PACK * k + p of A (``_packed_rows``), unsigned."""
    ptrs, mask = _packed_rows(a_ptr, p, row0, col0, M, N, stride_m, stride_n, INDEX_64, BLOCK_M, BLOCK_N, PACK)
    words = tl.load(ptrs, mask=mask)
    return words.to(tl.uint32, bitcast=True)


@triton.jit
def _store_words(out_ptr, q, words, row0, col0, M, N, stride_m, stride_n,
                 INDEX_64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PACK: tl.constexpr):  # fmt: skip
    """Stores the transpose of ``words`` (BLOCK_M / PACK x BLOCK_N, the tile of A at (row0, col0)) in rows
    PACK * (col0 + j) + q of out."""
    ptrs, mask = _packed_rows(out_ptr, q, col0 * PACK, row0 // PACK, PACK * N, M // PACK, stride_m, stride_n,
                              INDEX_64, BLOCK_N * PACK, BLOCK_M // PACK, PACK)  # fmt: skip
    tl.store(ptrs, tl.trans(words).to(out_ptr.dtype.element_ty, bitcast=True), mask=mask)


@triton.jit
def _transpose_packed(
    a_ptr, out_ptr, row0, col0, M, N, stride_am, stride_an, stride_om, stride_on,
    INDEX_64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PACK: tl.constexpr, JOIN: tl.constexpr,
):  # fmt: skip
    """The tile at (row0, col0) of ``out = A.T`` for items packed PACK (2 or 4) to a 32-bit word along rows.

    ``A`` is M x N words (M x PACK * N items, M a multiple of PACK), ``out`` PACK * N x M / PACK words. Words
    of PACK consecutive rows of A hold, item q of each, the PACK items of one word of out row PACK * j + q; one
    or two rounds of half exchanges (16-bit halves, then bytes) regroup them, so that the tiles themselves
    transpose as words, and every load and store moves whole words. (64-bit words, bfloat16 four and float32 two
    to a word, ran no faster on the H100: bench-results/nvidia-h100/2026-11-24-packed.)

    Out rows PACK * j + q are stored by one store per q, or, with ``JOIN`` (PACK = 4), interleaved into one
    4 * BLOCK_N x BLOCK_M / 4 tile and stored at once: where out's rows are short (1-byte items with at most
    THIN_SIDE rows, ``transpose._packed``) neighbouring rows share sectors, which separate stores write twice.
    """
    a_ptr = a_ptr.to(tl.pointer_type(tl.int32))  # the launcher passes the items' own words
    out_ptr = out_ptr.to(tl.pointer_type(tl.int32))
    HALF: tl.constexpr = 16
    LOW_HALF: tl.constexpr = 0x0000FFFF
    LOW_QUARTERS: tl.constexpr = 0x00FF00FF  # the low byte of each half
    w0 = _load_words(a_ptr, 0, row0, col0, M, N, stride_am, stride_an, INDEX_64, BLOCK_M, BLOCK_N, PACK)
    w1 = _load_words(a_ptr, 1, row0, col0, M, N, stride_am, stride_an, INDEX_64, BLOCK_M, BLOCK_N, PACK)
    if PACK == 2:
        w0, w1 = _exchange(w0, w1, HALF, LOW_HALF)
    else:
        w2 = _load_words(a_ptr, 2, row0, col0, M, N, stride_am, stride_an, INDEX_64, BLOCK_M, BLOCK_N, PACK)
        w3 = _load_words(a_ptr, 3, row0, col0, M, N, stride_am, stride_an, INDEX_64, BLOCK_M, BLOCK_N, PACK)
        w0, w2 = _exchange(w0, w2, HALF, LOW_HALF)
        w1, w3 = _exchange(w1, w3, HALF, LOW_HALF)
        w0, w1 = _exchange(w0, w1, HALF // 2, LOW_QUARTERS)
        w2, w3 = _exchange(w2, w3, HALF // 2, LOW_QUARTERS)
        if JOIN:
            quads = tl.join(tl.join(w0, w2), tl.join(w1, w3))  # [k, j, a, b] holds word (k, j) of w_(2a + b)
            rows = tl.reshape(tl.permute(quads, (1, 2, 3, 0)), (4 * BLOCK_N, BLOCK_M // 4))  # row 4j + q: w_q[:, j]
            ptrs, mask = tile_pointers(out_ptr, 4 * col0, row0 // 4, 4 * N, M // 4, stride_om, stride_on,
                                       INDEX_64, 4 * BLOCK_N, BLOCK_M // 4, 1)  # fmt: skip
            tl.store(ptrs, rows, mask=mask)
        else:
            _store_words(out_ptr, 2, w2, row0, col0, M, N, stride_om, stride_on, INDEX_64, BLOCK_M, BLOCK_N, PACK)
            _store_words(out_ptr, 3, w3, row0, col0, M, N, stride_om, stride_on, INDEX_64, BLOCK_M, BLOCK_N, PACK)
    if not JOIN:
        _store_words(out_ptr, 0, w0, row0, col0, M, N, stride_om, stride_on, INDEX_64, BLOCK_M, BLOCK_N, PACK)
        _store_words(out_ptr, 1, w1, row0, col0, M, N, stride_om, stride_on, INDEX_64, BLOCK_M, BLOCK_N, PACK)


@triton.jit
def transpose_tiles_kernel(
    a_ptr, out_ptr, lo_ptr, flag_ptr,
    M, N,
    stride_am, stride_an,
    stride_om, stride_on,
    stride_ab, stride_ob,
    alpha: tl.float64,
    SCALE: tl.constexpr,
    SPLIT: tl.constexpr,
    INDEX_64: tl.constexpr,
    VEC: tl.constexpr,
    PACK: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    HINTS: tl.constexpr,
    BATCHED: tl.constexpr,
    EXPONENT: tl.constexpr,
    JOIN: tl.constexpr,
):  # fmt: skip
    """One program writes ``out = A.T`` for one BLOCK_M x BLOCK_N tile of the M x N matrix ``A``; with BATCHED, of
    matrix ``program_id(1)`` of a batch, ``stride_ab`` and ``stride_ob`` items apart in ``A`` and ``out`` (without,
    the pointers keep the alignment Triton knows of them).

    With ``PACK`` > 1 (1- and 2-byte items moved untouched, ``_transpose_packed``) ``A`` is M x N 32-bit words
    of PACK items each, and the tile BLOCK_M rows by BLOCK_N words; ``JOIN`` (PACK = 4) stores it at once.

    With ``SCALE`` the words are floats and are multiplied by ``alpha`` (16-bit floats in float32,
    rounded once); with ``SPLIT`` (float32) ``out`` gets hi = tf32(a) and ``lo_ptr``, with out's strides,
    gets tf32(a - hi), the two parts of a 3xTF32 product (hi + lo carries 22 significant bits; an
    infinite or NaN item gives hi = item, lo = 0); otherwise the words move untouched. ``HINTS``: what M, N and
    the four strides are each a multiple of (``multiple``; all 1: nothing declared). With ``EXPONENT`` (the exponent
    bits of the words' float type; 0: no check) a tile holding an infinity or NaN sets ``flag_ptr[0]`` to 1: a copy
    that checks what it moves.
    """
    M, N = multiple(M, HINTS[0]), multiple(N, HINTS[1])
    stride_am, stride_an = multiple(stride_am, HINTS[2]), multiple(stride_an, HINTS[3])
    stride_om, stride_on = multiple(stride_om, HINTS[4]), multiple(stride_on, HINTS[5])
    pid = tl.program_id(0)
    if BATCHED:
        matrix = tl.program_id(1).to(tl.int64)
        a_ptr += matrix * stride_ab * VEC
        out_ptr += matrix * stride_ob * VEC
        lo_ptr += matrix * stride_ob * VEC
    tiles_n = tl.cdiv(N, BLOCK_N)
    row0 = (pid // tiles_n) * BLOCK_M
    col0 = (pid % tiles_n) * BLOCK_N
    if PACK > 1:
        _transpose_packed(a_ptr, out_ptr, row0, col0, M, N, stride_am, stride_an, stride_om, stride_on,
                          INDEX_64, BLOCK_M, BLOCK_N, PACK, JOIN)  # fmt: skip
        return
    a_ptrs, a_mask = tile_pointers(a_ptr, row0, col0, M, N, stride_am, stride_an, INDEX_64, BLOCK_M, BLOCK_N, VEC)
    out_ptrs, out_mask = tile_pointers(out_ptr, col0, row0, N, M, stride_om, stride_on, INDEX_64, BLOCK_N, BLOCK_M, VEC)
    x = tl.load(a_ptrs, mask=a_mask)
    if EXPONENT != 0:
        exponent = tl.full((), EXPONENT, x.dtype)
        if tl.max(tl.max(((x & exponent) == exponent).to(tl.int32), 1), 0) > 0:
            tl.atomic_or(flag_ptr, 1)
    if SCALE:
        wide = upcast(x)
        x = (wide * tl.full((), alpha, wide.dtype)).to(x.dtype)
    if SPLIT:
        hi = round_to_tf32(x)
        rest = tl.where(hi == x, 0.0, x - hi)  # x - x is NaN for infinities
        lo = round_to_tf32(rest)
        tl.store(out_ptrs, transposed_tile(hi, BLOCK_M, BLOCK_N, VEC), mask=out_mask)
        lo_ptrs, _ = tile_pointers(lo_ptr, col0, row0, N, M, stride_om, stride_on, INDEX_64, BLOCK_N, BLOCK_M, VEC)
        tl.store(lo_ptrs, transposed_tile(lo, BLOCK_M, BLOCK_N, VEC), mask=out_mask)
    else:
        tl.store(out_ptrs, transposed_tile(x, BLOCK_M, BLOCK_N, VEC), mask=out_mask)


@triton.jit
def transpose_blocks_inplace_kernel(
    a_ptr,
    N, BLOCKS_N,
    stride_am, stride_an,
    INDEX_64: tl.constexpr,
    VEC: tl.constexpr,
    BLOCK: tl.constexpr,
    HINTS: tl.constexpr,
):  # fmt: skip
    """Transposes in place every N x N block of a matrix made of such blocks, BLOCKS_N of them per block row
    (one block: a square matrix transposed in place). ``HINTS``: what N and stride_am are each a multiple of
    (``multiple``).

    One program per block and pair of BLOCK x BLOCK tiles (I, J), I <= J, of the block: it reads tiles (I, J)
    and (J, I), then writes each, transposed, into the other's place (a diagonal tile, I == J, into itself).
    The barrier keeps every thread's stores after all of the program's loads; pairs are disjoint, so
    programs never touch each other's tiles.
    """
    N, stride_am = multiple(N, HINTS[0]), multiple(stride_am, HINTS[1])
    tiles = tl.cdiv(N, BLOCK)
    pairs = tiles * (tiles + 1) // 2
    pid = tl.program_id(0)
    block = pid // pairs
    pid = pid % pairs
    row0 = (block // BLOCKS_N) * N
    col0 = (block % BLOCKS_N) * N
    if INDEX_64:
        row0 = row0.to(tl.int64)
        col0 = col0.to(tl.int64)
    a_ptr += (row0 * stride_am + col0 * stride_an) * VEC
    # pid numbers the pairs row by row, pid = J * (J + 1) / 2 + I with 0 <= I <= J. The square root gives
    # J up to rounding; the two integer corrections make it exact.
    j = ((tl.sqrt((8 * pid + 1).to(tl.float64)) - 1) / 2).to(tl.int32)
    j = tl.where(j * (j + 1) // 2 > pid, j - 1, j)
    j = tl.where((j + 1) * (j + 2) // 2 <= pid, j + 1, j)
    i = pid - j * (j + 1) // 2
    r_i, r_j = i * BLOCK, j * BLOCK
    ij_ptrs, ij_mask = tile_pointers(a_ptr, r_i, r_j, N, N, stride_am, stride_an, INDEX_64, BLOCK, BLOCK, VEC)
    ji_ptrs, ji_mask = tile_pointers(a_ptr, r_j, r_i, N, N, stride_am, stride_an, INDEX_64, BLOCK, BLOCK, VEC)
    x = tl.load(ij_ptrs, mask=ij_mask)
    y = tl.load(ji_ptrs, mask=ji_mask)
    tl.debug_barrier()
    tl.store(ji_ptrs, transposed_tile(x, BLOCK, BLOCK, VEC), mask=ji_mask)
    tl.store(ij_ptrs, transposed_tile(y, BLOCK, BLOCK, VEC), mask=ij_mask)


@triton.jit
def chunk_target(p, A, T, B):
    """Where chunk ``p`` goes: the chunk numbered (I, c, J) in an A x T x B grid moves to (J, c, I) in B x T x A."""
    i = p // (T * B)
    c = (p // B) % T
    j = p % B
    return (j * T + c) * A + i


@triton.jit
def permute_chunks_kernel(
    words_ptr, saved_ptr, table_ptr,
    SEGMENTS, COPIED,
    A, T, B,
    CHUNK_WORDS,
    SAVE: tl.constexpr,
    AHEAD: tl.constexpr,
    BLOCK: tl.constexpr,
    CHUNK_MULTIPLE: tl.constexpr,
):  # fmt: skip
    """Moves every chunk (CHUNK_WORDS consecutive words, declared a multiple of CHUNK_MULTIPLE: ``multiple``) of a
    flat array to ``chunk_target``, in place, by following the permutation's cycles; program (s, piece) moves words
    [piece * BLOCK, (piece + 1) * BLOCK) of each chunk along segment s.

    ``table_ptr`` holds SEGMENTS starts, then SEGMENTS move counts. The first COPIED segments cut longer cycles:
    the ``SAVE`` launch first copies their first chunks into ``saved_ptr`` (each is overwritten by the segment
    before it), and the moving launch starts them from that copy; the others walk a whole cycle from their own
    first chunk. A segment's last move writes the first chunk of the next one (or of its own cycle). The walk
    loads AHEAD chunks at a time, then stores each one chunk further along, keeping the last in registers.
    """
    CHUNK_WORDS = multiple(CHUNK_WORDS, CHUNK_MULTIPLE)
    s = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < CHUNK_WORDS
    # chunk numbers fit 32 bits (MAX_PLAN_CHUNKS): chunk_target's divisions stay 32-bit, addresses 64-bit
    p = tl.load(table_ptr + s).to(tl.int32)
    slot = saved_ptr + s.to(tl.int64) * CHUNK_WORDS + offs
    if SAVE:
        tl.store(slot, tl.load(words_ptr + p.to(tl.int64) * CHUNK_WORDS + offs, mask=mask), mask=mask)
    else:
        moves = tl.load(table_ptr + SEGMENTS + s).to(tl.int32)
        cur = tl.load(tl.where(s < COPIED, slot, words_ptr + p.to(tl.int64) * CHUNK_WORDS + offs), mask=mask)
        rows = tl.arange(0, AHEAD)
        p = chunk_target(p, A, T, B)
        for done in range(0, moves, AHEAD):
            # row i: the chunk that the (done + i + 1)-th move writes, loaded first unless that move is the
            # segment's last (that chunk was saved, or loaded as the start); `dest` i: the chunk after it, which
            # receives row i
            first = p.to(tl.int64)
            here = tl.zeros([AHEAD], dtype=tl.int64)
            dest = tl.zeros([AHEAD], dtype=tl.int64)
            for i in tl.static_range(AHEAD):
                here = tl.where(rows == i, p, here)
                dest = tl.where(rows == i - 1, p, dest)
                p = chunk_target(p, A, T, B)
            move = done + rows
            block = (here * CHUNK_WORDS)[:, None] + offs[None, :]
            ahead = tl.load(words_ptr + block, mask=(move + 1 < moves)[:, None] & mask[None, :])
            tl.debug_barrier()
            tl.store(words_ptr + first * CHUNK_WORDS + offs, cur, mask=mask)
            sent = (move + 2 <= moves) & (rows < AHEAD - 1)
            block = (dest * CHUNK_WORDS)[:, None] + offs[None, :]
            tl.store(words_ptr + block, ahead, mask=sent[:, None] & mask[None, :])
            cur = tl.sum(tl.where((rows == AHEAD - 1)[:, None], ahead, 0), axis=0).to(ahead.dtype)


@triton.jit
def _mod(x, m):
    """x mod m in [0, m) for any sign of x (Triton's % keeps the dividend's sign on the GPU)."""
    return ((x % m) + m) % m


@triton.jit
def _row_source(x, q, M, C, B, A_INV, WIDE: tl.constexpr):
    """The C2R row step's source column for column q of row x (``shuffle_rows_kernel``). WIDE: the product of a
    difference of columns (|.| < B) with A_INV (< B) is formed in 64 bits (B * B >= 2^31, e.g. 3 x 100000)."""
    t = _mod(x - q, C)
    i = _mod(x - t, M)
    d = q // C - i // C
    if WIDE:
        return t * B + _mod(d.to(tl.int64) * A_INV, B).to(tl.int32)
    return t * B + _mod(d * A_INV, B)


@triton.jit
def _column_source(p, q, M, N, B, ROTATE: tl.constexpr, WIDE: tl.constexpr):
    """A C2R column step's source row for row p of column q (``shuffle_columns_kernel``): one division by M and
    one by B per item (p - q // B lies in (-M, M), and l mod M + (l // M) // B in [0, M + gcd), so a compare
    replaces the last modulo). WIDE: the flat index l = p N + q is formed in 64 bits (M N >= 2^31); 64-bit
    divisions cost several times the 32-bit ones, which made this step 5x slower than the row step."""
    if ROTATE:
        source = p - q // B
        return tl.where(source < 0, source + M, source)
    flat = p.to(tl.int64) * N + q if WIDE else p * N + q
    whole = flat // M
    source = (flat - whole * M + whole // B).to(tl.int32)
    return tl.where(source >= M, source - M, source)


@triton.jit
def shuffle_rows_kernel(
    words_ptr, scratch_ptr,
    M, N, C, B, A_INV,
    BLOCK_N: tl.constexpr, ROWS: tl.constexpr, STAGED: tl.constexpr, VEC: tl.constexpr, WIDE: tl.constexpr,
):  # fmt: skip
    """The row step of the in-place C2R transpose (docs/transpose.md) of the row-major M x N matrix of items (VEC
    words each) at ``words_ptr``: every row x is permuted within itself, ``X[x, q] = Y[x, t B + v]`` with
    ``t = (x - q) mod C``, ``i = (x - t) mod M`` and ``v = (q // C - i // C) A_INV mod B`` (C = gcd(M, N),
    B = N / C, A_INV the inverse of M / C modulo B; WIDE when B * B >= 2^31, see ``_row_source``).

    Rows of at most BLOCK_N items: program p permutes rows [p ROWS, (p + 1) ROWS), loading each item from its
    source (a gather inside the row, which the L1 cache serves after the row's first touch), then storing
    them in order. STAGED (longer rows): program p takes rows p, p + P, ... (P programs) one at a time,
    copies the row to its N items of ``scratch_ptr`` and gathers from there, BLOCK_N items at a time.
    """
    pid = tl.program_id(0)
    w = tl.arange(0, VEC)[None, :]
    if STAGED:
        mine = scratch_ptr + pid.to(tl.int64) * N * VEC
        for x in range(pid, M, tl.num_programs(0)):
            row = words_ptr + tl.cast(x, tl.int64) * N * VEC
            for q0 in range(0, N, BLOCK_N):
                q = (q0 + tl.arange(0, BLOCK_N))[:, None]
                tl.store(mine + q * VEC + w, tl.load(row + q * VEC + w, mask=q < N), mask=q < N)
            tl.debug_barrier()  # the row copied before any of it is overwritten
            for q0 in range(0, N, BLOCK_N):
                q = (q0 + tl.arange(0, BLOCK_N))[:, None]
                source = _row_source(x, q, M, C, B, A_INV, WIDE)
                tl.store(row + q * VEC + w, tl.load(mine + source * VEC + w, mask=q < N), mask=q < N)
            tl.debug_barrier()  # the scratch read before the next row is copied into it
    else:
        x = (pid * ROWS + tl.arange(0, ROWS))[:, None, None]
        q = tl.arange(0, BLOCK_N)[None, :, None]
        w3 = w[None, :, :]
        inside = (x < M) & (q < N) & (w3 < VEC)
        row = words_ptr + x.to(tl.int64) * N * VEC
        source = _row_source(x, q, M, C, B, A_INV, WIDE)
        moved = tl.load(row + source * VEC + w3, mask=inside)  # a gather inside the row
        tl.debug_barrier()  # every word of the program's rows read before any is written
        tl.store(row + q * VEC + w3, moved, mask=inside)


@triton.jit
def shuffle_columns_kernel(
    words_ptr, scratch_ptr,
    M, N, B,
    ROTATE: tl.constexpr, BLOCK_M: tl.constexpr, COLS: tl.constexpr, STAGED: tl.constexpr, VEC: tl.constexpr,
    WIDE: tl.constexpr,
):  # fmt: skip
    """A column step of the in-place C2R transpose of the row-major M x N matrix of items (VEC words each) at
    ``words_ptr``: every column q is permuted within itself, ``Z[p, q] = X[s, q]``. ROTATE: the first step,
    ``s = (p - q // B) mod M`` (column q rotated down by q // B, B = N / gcd(M, N)); otherwise the last,
    ``s = (l mod M + (l // M) // B) mod M`` with ``l = p N + q`` (in 64 bits when WIDE: M N >= 2^31).

    Columns of at most BLOCK_M items: program k permutes columns [k COLS, (k + 1) COLS), loading each item from
    its source row, then storing them in order. STAGED (longer columns): program k takes the blocks of COLS
    columns k, k + P, ... one at a time, copies the block to its M x COLS items of ``scratch_ptr`` and gathers
    from there, BLOCK_M rows at a time.
    """
    pid = tl.program_id(0)
    c = tl.arange(0, COLS)[None, :, None]
    w = tl.arange(0, VEC)[None, None, :]
    if STAGED:
        mine = scratch_ptr + pid.to(tl.int64) * M * COLS * VEC
        for first in range(pid * COLS, N, tl.num_programs(0) * COLS):
            q = first + c
            for p0 in range(0, M, BLOCK_M):
                p = (p0 + tl.arange(0, BLOCK_M))[:, None, None]
                inside = (p < M) & (q < N) & (w < VEC)
                words = tl.load(words_ptr + (p.to(tl.int64) * N + q) * VEC + w, mask=inside)
                tl.store(mine + (p.to(tl.int64) * COLS + c) * VEC + w, words, mask=inside)
            tl.debug_barrier()  # the columns copied before any of them is overwritten
            for p0 in range(0, M, BLOCK_M):
                p = (p0 + tl.arange(0, BLOCK_M))[:, None, None]
                inside = (p < M) & (q < N) & (w < VEC)
                source = _column_source(p, q, M, N, B, ROTATE, WIDE)
                words = tl.load(mine + (source.to(tl.int64) * COLS + c) * VEC + w, mask=inside)
                tl.store(words_ptr + (p.to(tl.int64) * N + q) * VEC + w, words, mask=inside)
            tl.debug_barrier()  # the scratch read before the next columns are copied into it
    else:
        p = tl.arange(0, BLOCK_M)[:, None, None]
        q = pid * COLS + c
        inside = (p < M) & (q < N) & (w < VEC)
        source = _column_source(p, q, M, N, B, ROTATE, WIDE)
        moved = tl.load(words_ptr + (source.to(tl.int64) * N + q) * VEC + w, mask=inside)  # a gather in the columns
        tl.debug_barrier()  # every word of the program's columns read before any is written
        tl.store(words_ptr + (p.to(tl.int64) * N + q) * VEC + w, moved, mask=inside)


@triton.jit
def _output_block(x, ROWS_TOTAL, LENGTH, FROM, TO, BLOCK: tl.constexpr, LAST: tl.constexpr):
    """``restride_rows_kernel``'s block that receives the source word at or after (LAST: at or before) flat position
    x, or -1 after (LAST: before) every source word."""
    r = x // FROM
    c = x - r * FROM
    if LAST:
        c = tl.where(c >= LENGTH, LENGTH - 1, c)
        c = tl.where(r >= ROWS_TOTAL, LENGTH - 1, c)
        r = tl.where(r >= ROWS_TOTAL, ROWS_TOTAL - 1, r)
    else:
        r = tl.where(c >= LENGTH, r + 1, r)
        c = tl.where(c >= LENGTH, 0, c)
    return tl.where(r < ROWS_TOTAL, (r * TO + c) // BLOCK, -1)


@triton.jit
def restride_rows_kernel(
    words_ptr, side_ptr, state_ptr,
    ROWS_TOTAL, LENGTH, FROM, TO,
    DESCENDING: tl.constexpr, SIDE: tl.constexpr, PARTS: tl.constexpr, PART: tl.constexpr, DEPS: tl.constexpr,
    INDEX_64: tl.constexpr, HINTS: tl.constexpr,
):  # fmt: skip
    """Moves, in place, ROWS_TOTAL rows of LENGTH words from a row stride of FROM words to one of TO: word c of row
    r goes from ``r * FROM + c`` to ``r * TO + c``, and with SIDE row r's words LENGTH .. TO - 1 come from row r of
    ``side_ptr`` (TO - LENGTH words a row). Rows close up (TO < FROM, not DESCENDING) or spread out (TO > FROM,
    DESCENDING; then TO - LENGTH words of each row come from the side, or are left as they are without SIDE).

    A program's block is PARTS * PART consecutive words of the output, in parts of PART words (PART <= TO: each
    part spans at most two rows), so its stores are aligned vectors; its loads are the runs of its rows' sources.
    Programs take blocks in the order they start (a ticket): from the first block up when closing, from the last
    down when spreading out, so that every block whose source words lie in a block's destination took its ticket
    earlier. A program loads its block, sets its flag (release), waits for the flags of the blocks whose sources
    its destination covers (acquire), and stores. It waits only on programs that started before it, which never
    wait on it: no deadlock, whatever the grid's size against the GPU; and a store never lands on a word that a
    later block still has to read (its sources lie beyond, or before, every earlier destination).

    ``state_ptr``, kept from call to call (all zero when new): an epoch, the ticket counter, then a flag per block.
    A flag set to the epoch + 1 means loaded in this call; the program that takes the last ticket sets the
    counter back to zero and advances the epoch (every other program read the epoch before taking its ticket),
    so no call has to clear the flags. ``HINTS``: what FROM, TO and LENGTH are each a multiple of (``multiple``),
    so that rows load in vectors where their starts allow; every block but the last stores unmasked vectors.
    """
    FROM, TO, LENGTH = multiple(FROM, HINTS[0]), multiple(TO, HINTS[1]), multiple(LENGTH, HINTS[2])
    BLOCK: tl.constexpr = PARTS * PART
    total = ROWS_TOTAL.to(tl.int64) * TO if INDEX_64 else ROWS_TOTAL * TO
    blocks = tl.cdiv(total, BLOCK)
    mark = tl.atomic_add(state_ptr, 0, sem="relaxed") + 1
    ticket = tl.atomic_add(state_ptr + 1, 1, sem="acq_rel")
    if ticket == blocks - 1:
        tl.atomic_xchg(state_ptr + 1, 0, sem="relaxed")
        tl.atomic_add(state_ptr, 1, sem="release")
    flags_ptr = state_ptr + 2
    b = blocks - 1 - ticket if DESCENDING else ticket
    o0 = b.to(tl.int64) * BLOCK if INDEX_64 else b * BLOCK
    part0 = o0 + tl.arange(0, PARTS)[:, None] * PART
    start = part0 // TO * TO
    r0 = part0 // TO
    o = part0 + tl.arange(0, PART)[None, :]
    second = o >= start + TO
    r = r0 + second
    c = o - start - tl.where(second, TO, 0)
    live = o < total
    inside = c < LENGTH
    if SIDE:  # one load per word, from the matrix or the side
        source = tl.where(inside, words_ptr + r * FROM + c, side_ptr + r * (TO - LENGTH) + (c - LENGTH))
        words = tl.load(source, mask=live)
    else:
        words = tl.load(words_ptr + r * FROM + c, mask=live & inside)
    tl.debug_barrier()  # every thread's loads done before the flag says so
    tl.atomic_xchg(flags_ptr + b, mark, sem="release")
    # the blocks that receive the source words lying in this block's destination
    lo = _output_block(o0, ROWS_TOTAL, LENGTH, FROM, TO, BLOCK, False)
    hi = _output_block(tl.minimum(o0 + BLOCK, total) - 1, ROWS_TOTAL, LENGTH, FROM, TO, BLOCK, True)
    lo = tl.where(lo < 0, hi + 1, lo).to(tl.int32)
    hi = hi.to(tl.int32)
    k = tl.arange(0, DEPS)
    while lo <= hi:
        other = lo + k
        need = (other <= hi) & (other != b)
        seen = tl.atomic_add(flags_ptr + other, 0, mask=need, sem="acquire")
        ready = tl.where(need, (seen == mark).to(tl.int32), 1)
        lo = tl.where(tl.min(ready, 0) > 0, lo + DEPS, lo)
    tl.debug_barrier()  # every thread past the wait before any stores
    if o0 + BLOCK <= total:
        tl.store(words_ptr + o, words)
    else:
        tl.store(words_ptr + o, words, mask=live)
