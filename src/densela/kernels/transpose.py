"""Transposition kernels: out of place (optionally scaled, or split into TF32 parts) and in place for square
matrices.

Both move words (integers of the item's size, so any dtype moves bit-exactly) or, when scaling or
splitting, floats; complex items arrive as VEC = 2 words (real and imaginary parts). A program transposes whole tiles in
registers and stores each at its mirrored position; Triton gives the load and the store their own
coalesced layouts and re-lays the tile out through shared memory in between.
"""

from __future__ import annotations

import triton
import triton.language as tl

from densela.kernels.elementwise import tile_pointers, upcast


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
def transpose_tiles_kernel(
    a_ptr, out_ptr, lo_ptr,
    M, N,
    stride_am, stride_an,
    stride_om, stride_on,
    alpha: tl.float64,
    SCALE: tl.constexpr,
    SPLIT: tl.constexpr,
    INDEX_64: tl.constexpr,
    VEC: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    """One program writes ``out = A.T`` for one BLOCK_M x BLOCK_N tile of the M x N matrix ``A``.

    With ``SCALE`` the words are floats and are multiplied by ``alpha`` (16-bit floats in float32,
    rounded once); with ``SPLIT`` (float32) ``out`` gets hi = tf32(a) and ``lo_ptr``, with out's strides,
    gets tf32(a - hi), the two parts of a 3xTF32 product (hi + lo carries 22 significant bits; an
    infinite or NaN item gives hi = item, lo = 0); otherwise the words move untouched.
    """
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    row0 = (pid // tiles_n) * BLOCK_M
    col0 = (pid % tiles_n) * BLOCK_N
    a_ptrs, a_mask = tile_pointers(a_ptr, row0, col0, M, N, stride_am, stride_an, INDEX_64, BLOCK_M, BLOCK_N, VEC)
    out_ptrs, out_mask = tile_pointers(out_ptr, col0, row0, N, M, stride_om, stride_on, INDEX_64, BLOCK_N, BLOCK_M, VEC)
    x = tl.load(a_ptrs, mask=a_mask)
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
def transpose_square_inplace_kernel(
    a_ptr,
    N,
    stride_am, stride_an,
    INDEX_64: tl.constexpr,
    VEC: tl.constexpr,
    BLOCK: tl.constexpr,
):  # fmt: skip
    """Transposes the N x N matrix ``A`` in place; one program per pair of BLOCK x BLOCK tiles (I, J), I <= J.

    The program reads tiles (I, J) and (J, I), then writes each, transposed, into the other's place (a
    diagonal tile, I == J, into itself). The barrier keeps every thread's stores after all of the
    program's loads; pairs are disjoint, so programs never touch each other's tiles.
    """
    pid = tl.program_id(0)
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
