"""Warp-specialized Hopper GEMM written in Gluon (Triton's explicit-layout dialect).

``gemm_ws_kernel`` is a persistent kernel for 16-bit, TF32 (also 3xTF32), float32 FMA and float64 products on sm_90:
one program per SM walks the output tiles in grouped order; inside a program three partitions run concurrently:

- a producer warp issues the TMA loads of the A and B tiles into a ring of ``STAGES`` shared-memory
  buffers and never touches registers beyond a few counters;
- two consumer warp groups wait for a stage, issue the wgmma on it asynchronously, and release the stage
  before (one wgmma behind) as soon as wgmma has finished reading it; after the K loop each writes its
  result through shared memory, in column slices, with TMA stores that complete while the next tile's
  products run. Cooperative: each group owns one half (``BLOCK_M / 2`` rows) of every tile. Ping-pong:
  each group owns every other tile whole; since the stages arrive in tile order, one group's K loop runs
  while the other stores its tile (the schedule of CUTLASS's ping-pong kernels).

wgmma reads 32-bit (TF32) operands from shared memory only K-major; an M-major float32 A is loaded from its
stage into registers instead (the register operand of wgmma takes any order). The launcher turns row-major
operands (a K-major A, an N-major B) around into out^T = B^T A^T, which the kernel computes with B^T through
registers and stores transposed (``OUT_T``), so that a row-major B need not be copied K-major first.

With ``SPLITS`` > 1 (products with fewer output tiles than SMs) the work items are the tiles' K slices: each
program sums one slice of K of its tiles and stores the float32 partial sum in a workspace of ``SPLITS``
stacked slices, which ``split_sum_kernel`` (densela.kernels.gemm) adds up into the output.

With ``STREAM_K`` (products of at least as many tiles as SMs, not a multiple of them) the last wave of whole tiles
would leave SMs idle, about 3% of a 4096^3 product's time (its float32 FMA time stays flat from 3968 to 4224 rows on
the H100, bench-results/nvidia-h100/2026-11-27-stream-k): the tiles past the whole waves but one are shared out
evenly by K steps instead (stream-K, Osama et al., PPoPP 2023), each program summing its share from the last
tile back, the tile where two shares meet finished by the later share's program from the earlier one's partial sum.
The launcher streams float32 FMA products only (``gemm.STREAM_K_FROM_IDLE`` says why).

float32 products in FMA arithmetic (``FMA``: no tensor cores) run one consumer partition of eight warps
instead, each thread summing an 8 x 8 block of the tile's products from operand vectors it reads from the
stage (``gl.dot_fma`` on slices of 16 along K), and storing the tile in row slices (whose TMA stores drain while the
next tile's products run: float32 products with a short K and a large output gain most): 47-50 TFLOP/s on the H100,
0.91-0.96 of cuBLAS's SGEMM, where Triton's own FMA dot on the tiles kernel gives 0.82-0.86
(bench-results/nvidia-h100/2026-11-23-fma).

float64 products run two consumer groups of four warps, as the cooperative 16-bit kernel does, each summing its
half of the tile with DMMA (``mma_v2``: Hopper's ``mma.sync`` m16n8k16 in float64) on fragments it reads from the
stage, 16 along K at a time, then releasing the stage: the groups wait for nothing but their own stages, so one
group's fragment reads overlap the other's products, where the tiles kernel's four warps all load between two block
syncs and then all multiply. 128 x 128 x 32 tiles in two stages: 4096^3 1.14 and 8192^3 1.02 of cuBLAS's DGEMM
against 0.93 and 0.96 on the tiles kernel (H100, 2026-11-26, bench-results/nvidia-h100/2026-11-26-ws-dmma); the
products are bit for bit cuBLAS's (the same instruction, summing along K in the same order).

TF32 products with an N-major B (which wgmma cannot read from shared memory) multiply with ``mma_v2`` too (TF32
``mma.sync`` m16n8k8) on fragments of either order read from the stage, at about half wgmma's rate: the launcher
gives them only thin products bound by reading their large operand (``tuning.TF32_MMA2_SIDE``), which then need no
copy (64 x 4096 x 4096 with row-major operands 33.9 us against 54.8, 128 x 4096 x 4096 37.4 against 83.8; H100,
2026-11-27, bench-results/nvidia-h100/2026-11-27-tf32-mma2).

Triton's automatic warp specialization builds the same structure but hung on the H100 with Triton 3.6
(bench-results/nvidia-h100/2026-11-23-warp-specialize); here the partitions and their mbarriers are
written out by hand. Stages are handed over by mbarriers: ``ready[s]`` completes when both TMA loads
of stage s have landed (transaction count), ``empty[s]`` when the consumer groups of its tile have
released it.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from typing import Any

import torch
import triton
import triton.language as tl
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.ampere import mma_v2
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
from triton.runtime.jit import constexpr_function

WS_MAXNREG = 168
"""Registers per thread at launch: twelve warps (two consumer groups, the producer's group) fill the 64 Ki."""
FMA_K = gl.constexpr(16)
"""K elements of the operands an FMA consumer thread reads per ``dot_fma`` (its least K); ptxas interleaves the
reads with the products, so that they do not all occupy registers at once."""


def ws_num_warps(fma: bool) -> int:
    """Warps to launch ``gemm_ws_kernel`` with: its first partition's, a consumer group of four, or the one
    FMA consumer of eight (the producer's warp comes on top).

    Example:
        >>> ws_num_warps(False), ws_num_warps(True)
        (4, 8)
    """
    return 8 if fma else 4


@constexpr_function
def _consumer_groups(fma):
    """Consumer partitions of the kernel, each with its own epilogue buffer: one for FMA, else two."""
    return 1 if fma else 2


@constexpr_function
def _worker_warps(fma):
    """Warps of the kernel's worker partitions: the second consumer group's (none for FMA), the producer's."""
    return [1] if fma else [4, 1]


@constexpr_function
def _worker_regs(fma, consumer_regs):
    """Registers per thread of the worker partitions, as ``_worker_warps`` orders them (the producer keeps 40)."""
    return [40] if fma else [consumer_regs, 40]


WS_CONSUMER_REGS = 232
"""Registers per consumer thread once the producer's group has given its own back (it keeps 40): a 64 x 256
float32 accumulator takes 128."""

_GL_DTYPES = {
    torch.float16: gl.float16,
    torch.bfloat16: gl.bfloat16,
    torch.float32: gl.float32,
    torch.float64: gl.float64,
}


def epilogue_block(block_m: int, block_n: int, split: int, fma: bool, pingpong: bool) -> list[int]:
    """[rows, columns] of the slices a consumer group stores: the group's rows (cooperative: half the tile's,
    ping-pong: the tile's) in ``split`` column slices, or for ``fma`` the tile in ``split`` row slices, at most
    BLOCK_M / 64 of them (an M-major A leaves no more row halvings within each thread's registers; the
    launcher passes the same block for a K-major A).

    Example:
        >>> epilogue_block(128, 256, 4, False, False), epilogue_block(128, 128, 4, True, False)
        ([64, 64], [64, 128])
    """
    if fma:
        return [block_m // min(split, block_m // 64), block_n]
    return [block_m if pingpong else block_m // 2, block_n // split]


def ws_descriptor(view: torch.Tensor, k_major: bool, rows_block: int, k_block: int) -> TensorDescriptor:
    """A TMA descriptor over the 2-D ``view`` (rows x K when ``k_major``, else K x rows) in the shared-memory
    layout wgmma reads, with tiles of the block shape."""
    block = [rows_block, k_block] if k_major else [k_block, rows_block]
    layout = gl.NVMMASharedLayout.get_default_for(block, _GL_DTYPES[view.dtype])
    return TensorDescriptor(view, list(view.shape), [view.stride(0), 1], block, layout)


@constexpr_function
def _block_rows_and_k(shape, k_major):
    """(rows, K) of an operand's block shape: [rows, K] when K-major, else [K, rows]."""
    return (shape[0], shape[1]) if k_major else (shape[1], shape[0])


@gluon.jit
def _tile_origin(tile, M, N, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, GROUP_M: gl.constexpr):
    """First row and column of output tile number ``tile`` in grouped order (GROUP_M tile rows)."""
    num_m = gl.cdiv(M, BLOCK_M)
    num_n = gl.cdiv(N, BLOCK_N)
    group_size = GROUP_M * num_n
    first_m = (tile // group_size) * GROUP_M
    rows_in_group = gl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (tile % group_size) % rows_in_group
    pid_n = (tile % group_size) // rows_in_group
    return pid_m * BLOCK_M, pid_n * BLOCK_N


@gluon.jit
def _work_item(item, num_tiles, SPLITS: gl.constexpr):
    """(output tile, K slice) of work item number ``item``: item = slice * num_tiles + tile, so that the slices
    of one tile run on different SMs at once."""
    tile = item
    k_slice = 0
    if SPLITS > 1:
        tile = item % num_tiles
        k_slice = item // num_tiles
    return tile, k_slice


@constexpr_function
def _out_block(shape, out_t):
    """(rows, columns) of a consumer group's output slice in the kernel's product: the descriptor's block
    [rows, columns], or [columns, rows] when the product is stored transposed (``OUT_T``)."""
    return (shape[1], shape[0]) if out_t else (shape[0], shape[1])


@gluon.jit
def _streamed(num_tiles, k_steps, NUM_SMS: gl.constexpr):
    """Stream-K: (tiles taken whole, in waves of one per program; this program's first and end K steps of the
    rest, counted along their tiles' K steps one tile after the other). The rest, one wave to two of tiles, is
    shared out evenly by K steps, so that every program ends at the same time (whole tiles alone leave the last
    wave's SMs idle where the tiles are not a multiple of the programs). A share is at least one tile's steps
    (the rest is at least a wave), so each tile is cut between at most two programs."""
    whole = (num_tiles // NUM_SMS - 1) * NUM_SMS
    total = (num_tiles - whole) * k_steps
    share = gl.cdiv(total, NUM_SMS)
    first = gl.minimum(gl.program_id(0) * share, total)
    return whole, first, gl.minimum(first + share, total)


@gluon.jit
def _segment(i, first, last, k_steps):
    """(tile, counted from the first streamed one, and its K steps [k_lo, k_hi)) of part ``i`` of a program's
    stream-K share [first, last): the share's last tile first, so that a program sums the first steps of the tile
    its share ends in before anything else, and the next program, whose share starts in that tile, sums the
    tile's other steps last and adds the two (``_consumer``): the wait is only ever for a program that had done
    its part of the tile long before."""
    t = gl.cdiv(last, k_steps) - 1 - i
    return t, gl.maximum(first - t * k_steps, 0), gl.minimum(last - t * k_steps, k_steps)


@gluon.jit
def _load_step(
    a_desc, b_desc, a_lo_desc, b_lo_desc, a_bufs, b_bufs, a_lo_bufs, b_lo_bufs, ready, empty, step, row0, col0, k0,
    A_K_MAJOR: gl.constexpr, B_K_MAJOR: gl.constexpr, SPLIT3: gl.constexpr,
):  # fmt: skip
    """The TMA loads of the operand tiles at (row0, k0) and (k0, col0) into the stage of the producer's count
    ``step``, once the consumers have released it."""
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    nbytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    s = step % STAGES
    # A fresh mbarrier counts as having completed the phase before phase 0.
    mbarrier.wait(empty.index(s), ((step // STAGES) & 1) ^ 1)
    bar = ready.index(s)
    if SPLIT3:  # both operands K-major, and their remainders
        mbarrier.expect(bar, 2 * nbytes)
        tma.async_copy_global_to_shared(a_lo_desc, [row0, k0], bar, a_lo_bufs.index(s))
        tma.async_copy_global_to_shared(b_lo_desc, [col0, k0], bar, b_lo_bufs.index(s))
    else:
        mbarrier.expect(bar, nbytes)
    if A_K_MAJOR:
        tma.async_copy_global_to_shared(a_desc, [row0, k0], bar, a_bufs.index(s))
    else:
        tma.async_copy_global_to_shared(a_desc, [k0, row0], bar, a_bufs.index(s))
    if B_K_MAJOR:
        tma.async_copy_global_to_shared(b_desc, [col0, k0], bar, b_bufs.index(s))
    else:
        tma.async_copy_global_to_shared(b_desc, [k0, col0], bar, b_bufs.index(s))


@gluon.jit
def _producer(
    a_desc, b_desc, a_lo_desc, b_lo_desc, c_desc, out_desc, part_ptr, flag_ptr, a_bufs, b_bufs, a_lo_bufs,
    b_lo_bufs, c_bufs, ready, empty, bars, M, N, K, alpha, beta,
    HAS_C: gl.constexpr, A_K_MAJOR: gl.constexpr, B_K_MAJOR: gl.constexpr, SPLIT3: gl.constexpr,
    FMA: gl.constexpr, OUT_T: gl.constexpr, GROUP_M: gl.constexpr, NUM_SMS: gl.constexpr, SPLITS: gl.constexpr,
    STREAM_K: gl.constexpr, GROUP: gl.constexpr,
):  # fmt: skip
    """Loads the operand tiles of every K step of every tile of this program, STAGES steps ahead."""
    BLOCK_M: gl.constexpr = _block_rows_and_k(a_desc.block_type.shape, A_K_MAJOR)[0]
    BLOCK_N: gl.constexpr = _block_rows_and_k(b_desc.block_type.shape, B_K_MAJOR)[0]
    BLOCK_K: gl.constexpr = _block_rows_and_k(a_desc.block_type.shape, A_K_MAJOR)[1]
    num_tiles = gl.cdiv(M, BLOCK_M) * gl.cdiv(N, BLOCK_N)
    k_steps = gl.cdiv(gl.cdiv(K, BLOCK_K), SPLITS)
    items = num_tiles * SPLITS
    if STREAM_K:
        items, first, last = _streamed(num_tiles, k_steps, NUM_SMS)
    step = 0
    for item in range(gl.program_id(0), items, NUM_SMS):
        tile, k_slice = _work_item(item, num_tiles, SPLITS)
        row0, col0 = _tile_origin(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        for kk in range(k_steps):
            k0 = (k_slice * k_steps + kk) * BLOCK_K  # past K (the last slice's tail): TMA loads zeros
            _load_step(a_desc, b_desc, a_lo_desc, b_lo_desc, a_bufs, b_bufs, a_lo_bufs, b_lo_bufs, ready, empty,
                       step, row0, col0, k0, A_K_MAJOR, B_K_MAJOR, SPLIT3)  # fmt: skip
            step += 1
    if STREAM_K:
        for i in range(gl.cdiv(last, k_steps) - first // k_steps):
            t, k_lo, k_hi = _segment(i, first, last, k_steps)
            row0, col0 = _tile_origin(items + t, M, N, BLOCK_M, BLOCK_N, GROUP_M)
            for kk in range(k_lo, k_hi):
                _load_step(a_desc, b_desc, a_lo_desc, b_lo_desc, a_bufs, b_bufs, a_lo_bufs, b_lo_bufs, ready,
                           empty, step, row0, col0, kk * BLOCK_K, A_K_MAJOR, B_K_MAJOR, SPLIT3)  # fmt: skip
                step += 1


@gluon.jit
def _slices(x, PARTS: gl.constexpr, ROWS: gl.constexpr):
    """The tile ``x`` cut into PARTS column slices of equal width, left to right, or (ROWS) row slices, top
    to bottom (PARTS a power of two; the halving bits must lie in each thread's registers)."""
    xs = (x,)
    for _ in gl.static_range(PARTS.bit_length() - 1):
        halves = ()
        for j in gl.static_range(len(xs)):
            y = xs[j]
            if ROWS:
                halves += y.reshape(2, y.shape[0] // 2, y.shape[1]).permute(1, 2, 0).split()
            else:
                halves += y.reshape(y.shape[0], 2, y.shape[1] // 2).permute(0, 2, 1).split()
        xs = halves
    return xs


_FMA_LAYOUTS = {  # (A K-major?, B K-major?): elements, threads and warps along (M, N); H100 sweeps, 2026-11-23
    # (bench-results/nvidia-h100/2026-11-23-fma): K-major A and B at 45 TFLOP/s with [4, 1] or [1, 2] x [8, 4]
    # elements x threads, 44 with [2, 1]; row-major A and B the same with [2, 4] and [4, 4]
    (True, False): ([2, 4], [4, 8], [4, 2]),
    (False, False): ([4, 4], [4, 8], [4, 2]),
    (False, True): ([4, 1], [4, 8], [4, 2]),
    (True, True): ([4, 1], [4, 8], [4, 2]),
}


@constexpr_function
def _mma_v2(fma, instr_k, b_k_major):
    """Whether the consumer groups multiply with ``mma_v2`` (``mma.sync``) on fragments they read from the stage:
    float64 (DMMA m16n8k16), and TF32 with an N-major B, which wgmma cannot read from shared memory."""
    return instr_k == 4 or (instr_k == 8 and not fma and not b_k_major)


@constexpr_function
def _accumulator_layout(fma, block_n, instr_k, a_k_major, b_k_major):
    """The registers of a consumer group's accumulator. wgmma: its own layout. FMA: a blocked layout in which
    each thread of the eight warps sums an 8 x 8 block of products (a 128 x 128 tile), from operand vectors it
    reads from shared memory: four consecutive rows of an M-major A, four columns of an N-major B, and a
    K-major operand's 16-byte K vectors (``_FMA_LAYOUTS``)."""
    if _mma_v2(fma, instr_k, b_k_major):  # mma.sync on fragments read from the stage
        return gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])
    if not fma:
        return gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, block_n, instr_k])
    spt, tpw, wpc = _FMA_LAYOUTS[(a_k_major, b_k_major)]
    return gl.BlockedLayout(spt, tpw, wpc, [1, 0])


@gluon.jit
def _k_step(
    a_bufs, b_bufs, a_lo_bufs, b_lo_bufs, ready, empty, acc, step, kk,
    A_K_MAJOR: gl.constexpr, B_K_MAJOR: gl.constexpr, SPLIT3: gl.constexpr, FMA: gl.constexpr, MMA2: gl.constexpr,
    A_REGS: gl.constexpr, FIRST_ROW: gl.constexpr,
):  # fmt: skip
    """One K step of a consumer group on the stage of the producer's count ``step``: returns the tile's sum.

    Without SPLIT3 the step's wgmma accumulates into the sum and runs on while the next stage is awaited; the
    previous step's stage is released. With SPLIT3 the step's three TF32 products a_lo b + a b_lo + a b start
    from zero and their sum is added to the tile's in float32 (wgmma's own accumulation over a long K chain is
    less precise). ``A_REGS``: an M-major float32 A is read into registers (wgmma reads 32-bit operands
    from shared memory K-major only), one wgmma instruction's K slice at a time, and the step waits for its wgmmas
    and releases its own stage. ``FMA``: float32 products on the CUDA cores, ``MMA2``: float64 or TF32
    products (``mma_v2``) on fragments read from the stage in either order; either releases the stage once every
    warp of the group has read it.
    """
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    ROWS: gl.constexpr = acc.type.shape[0]
    s = step % STAGES
    mbarrier.wait(ready.index(s), (step // STAGES) & 1)
    if A_K_MAJOR:
        a = a_bufs.index(s).slice(FIRST_ROW, ROWS, dim=0)
    else:
        a = a_bufs.index(s).slice(FIRST_ROW, ROWS, dim=1).permute((1, 0))
    if B_K_MAJOR:
        b = b_bufs.index(s).permute((1, 0))
    else:
        b = b_bufs.index(s)
    if FMA or MMA2:
        # float32 FMA or mma_v2 (float64 DMMA, TF32) on slices of FMA_K along K, read into registers
        BLOCK_K: gl.constexpr = a.type.shape[1]
        gl.static_assert(BLOCK_K % FMA_K == 0, "FMA K steps are a multiple of FMA_K")
        K_WIDTH: gl.constexpr = 1 if MMA2 else 0  # consecutive K elements a thread holds: mma_v2's 32/64-bit, FMA's
        a_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=acc.type.layout, k_width=K_WIDTH)
        b_layout: gl.constexpr = gl.DotOperandLayout(operand_index=1, parent=acc.type.layout, k_width=K_WIDTH)
        for k in gl.static_range(0, BLOCK_K, FMA_K):
            a_k = a.slice(k, FMA_K, dim=1).load(a_layout)
            b_k = b.slice(k, FMA_K, dim=0).load(b_layout)
            if FMA:
                acc = gl.dot_fma(a_k, b_k, acc)
            elif acc.dtype == gl.float64:
                acc = mma_v2(a_k, b_k, acc)
            else:
                acc = mma_v2(a_k, b_k, acc, input_precision="tf32")
        gl.thread_barrier()  # every warp of the partition has read the stage
        mbarrier.arrive(empty.index(s), count=1)
    elif SPLIT3:
        a_lo = a_lo_bufs.index(s).slice(FIRST_ROW, ROWS, dim=0)
        b_lo = b_lo_bufs.index(s).permute((1, 0))
        part = warpgroup_mma(a_lo, b, acc, use_acc=False, is_async=True)
        part = warpgroup_mma(a, b_lo, part, is_async=True)
        part = warpgroup_mma(a, b, part, is_async=True)
        part = warpgroup_mma_wait(num_outstanding=0, deps=(part,))
        mbarrier.arrive(empty.index(s), count=1)
        acc += part
    elif A_REGS:
        # A's fragment in slices of one wgmma instruction each (K 8), each slice's wgmma issued before the next
        # slice is read, so that the reads overlap the products. Each slice keeps its own registers until the
        # wait: the next step's reads would overwrite registers a wgmma still reads (ptxas serializes the wgmma
        # otherwise, even unrolled by two: slower on the H100, 2026-11-23 run 7); the other consumer group keeps
        # the tensor cores busy across the wait.
        reg_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=acc.type.layout, k_width=1)
        BLOCK_K: gl.constexpr = a.type.shape[1]
        kept = ()
        for k in gl.static_range(0, BLOCK_K, 8):
            a_k = a.slice(k, 8, dim=1).load(reg_layout)
            acc = warpgroup_mma(a_k, b.slice(k, 8, dim=0), acc, is_async=True)
            kept += (a_k,)
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,) + kept)[0]
        mbarrier.arrive(empty.index(s), count=1)  # read whole: the stage is free now
    else:
        acc = warpgroup_mma(a, b, acc, is_async=True)
        # At most this step's wgmma is still running: the previous step's stage is free.
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc,))
        mbarrier.arrive(empty.index((step + STAGES - 1) % STAGES), count=1, pred=kk > 0)
    return acc


@gluon.jit
def _k_loop(
    a_bufs, b_bufs, a_lo_bufs, b_lo_bufs, ready, empty, acc, step, k_lo, k_hi,
    A_K_MAJOR: gl.constexpr, B_K_MAJOR: gl.constexpr, SPLIT3: gl.constexpr, FMA: gl.constexpr, MMA2: gl.constexpr,
    A_REGS: gl.constexpr, FIRST_ROW: gl.constexpr,
):  # fmt: skip
    """K steps k_lo .. k_hi - 1 of a tile (``_k_step``) from the stage of the producer's count ``step`` on:
    (the sum, the count after them)."""
    for kk in range(k_lo, k_hi):
        acc = _k_step(a_bufs, b_bufs, a_lo_bufs, b_lo_bufs, ready, empty, acc, step, kk - k_lo,
                      A_K_MAJOR, B_K_MAJOR, SPLIT3, FMA, MMA2, A_REGS, FIRST_ROW)  # fmt: skip
        step += 1
    return acc, step


@gluon.jit
def _drained(acc, empty, step, WGMMA: gl.constexpr):
    """The sum once its last wgmma is done, and that step's stage released (``WGMMA``: the K steps that leave both
    to the end of the tile; the others wait and release in each step)."""
    if WGMMA:
        STAGES: gl.constexpr = empty.type.shape[0]
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
        mbarrier.arrive(empty.index((step + STAGES - 1) % STAGES), count=1)  # K > 0
    return acc


SLOT_ROWS = gl.constexpr(16)
"""Rows of an epilogue slice that stream-K's partial sums move between memory and the epilogue's buffer at a time
(``_epilogue``), so that a whole slice need not sit in registers beside the accumulator."""


@constexpr_function
def _slot_layout(fma):
    """A blocked layout of SLOT_ROWS rows of an epilogue slice with four consecutive columns per thread, in which
    stream-K's partial sums go to and from memory in 16-byte vectors or more."""
    return gl.BlockedLayout([1, 4], [2, 16], [8 if fma else 4, 1], [1, 0])


@gluon.jit
def _epilogue(
    acc, row, col0, c_desc, out_desc, c_smem, c_bar, c_phase, alpha, beta, slot,
    HAS_C: gl.constexpr, FMA: gl.constexpr, OUT_T: gl.constexpr, FROM_SLOT: gl.constexpr, TO_SLOT: gl.constexpr,
):  # fmt: skip
    """Stores ``alpha * acc (+ beta * C)`` at rows ``row`` .., columns ``col0`` .. of the output (its transpose with
    ``OUT_T``) in slices through ``c_smem``; returns the phase of ``c_bar`` for the next load of C.

    Stream-K's partial sums (an output of the accumulator's dtype): ``TO_SLOT`` stores ``acc`` into ``slot``
    instead, slice after slice; ``FROM_SLOT`` first adds the sum there to ``acc``. A slice goes between registers
    and ``slot`` through ``c_smem``, so that memory sees 16-byte vectors (``_slot_layout``)."""
    EPI_M: gl.constexpr = _out_block(out_desc.block_type.shape, OUT_T)[0]
    EPI_N: gl.constexpr = _out_block(out_desc.block_type.shape, OUT_T)[1]
    ROWS: gl.constexpr = acc.type.shape[0]
    BLOCK_N: gl.constexpr = acc.type.shape[1]
    ACC: gl.constexpr = acc.dtype
    vectors: gl.constexpr = _slot_layout(FMA)
    in_chunk = (gl.arange(0, SLOT_ROWS, layout=gl.SliceLayout(1, vectors))[:, None] * EPI_N
                + gl.arange(0, EPI_N, layout=gl.SliceLayout(0, vectors))[None, :])  # fmt: skip
    view = c_smem.permute((1, 0)) if OUT_T else c_smem  # [EPI_M, EPI_N]
    parts = _slices(acc, (ROWS // EPI_M) * (BLOCK_N // EPI_N), FMA)
    for j in gl.static_range(len(parts)):
        part = parts[j]
        tma.store_wait(pendings=0)  # the previous store has read c_smem
        if FROM_SLOT:
            for r in gl.static_range(0, EPI_M, SLOT_ROWS):
                chunk = gl.load(slot + (j * EPI_M + r) * EPI_N + in_chunk, cache_modifier=".cg")
                view.slice(r, SLOT_ROWS, dim=0).store(chunk)
            gl.thread_barrier()  # the slice in c_smem before any thread reads it
            part += view.load(part.type.layout)
            gl.thread_barrier()  # every thread has read it before any overwrites c_smem
        if TO_SLOT:
            view.store(part)
            gl.thread_barrier()
            for r in gl.static_range(0, EPI_M, SLOT_ROWS):
                gl.store(slot + (j * EPI_M + r) * EPI_N + in_chunk, view.slice(r, SLOT_ROWS, dim=0).load(vectors))
            gl.thread_barrier()
        else:
            part = part * alpha.to(ACC)
            at = [row + j * EPI_M, col0] if FMA else [row, col0 + j * EPI_N]
            if OUT_T:  # the kernel computed out^T = B^T A^T: store the slice's transpose
                part = part.permute((1, 0))
                at = [col0 + j * EPI_N, row]
            if HAS_C:
                mbarrier.expect(c_bar, c_desc.block_type.nbytes)
                tma.async_copy_global_to_shared(c_desc, at, c_bar, c_smem)
                mbarrier.wait(c_bar, c_phase)
                c_phase ^= 1
                part += beta.to(ACC) * c_smem.load(part.type.layout).to(ACC)
                gl.thread_barrier()  # every thread has read C before any overwrites it
            c_smem.store(part.to(out_desc.dtype))
            fence_async_shared()
            tma.async_copy_shared_to_global(out_desc, at, c_smem)
    return c_phase


@gluon.jit
def _consumer(
    a_desc, b_desc, a_lo_desc, b_lo_desc, c_desc, out_desc, part_ptr, flag_ptr, a_bufs, b_bufs, a_lo_bufs,
    b_lo_bufs, c_bufs, ready, empty, bars, M, N, K, alpha, beta,
    HAS_C: gl.constexpr, A_K_MAJOR: gl.constexpr, B_K_MAJOR: gl.constexpr, SPLIT3: gl.constexpr,
    FMA: gl.constexpr, OUT_T: gl.constexpr, GROUP_M: gl.constexpr, NUM_SMS: gl.constexpr, SPLITS: gl.constexpr,
    STREAM_K: gl.constexpr, GROUP: gl.constexpr,
):  # fmt: skip
    """Consumer warp group GROUP: cooperative (``out_desc`` rows half the tile's), rows GROUP * BLOCK_M / 2 ..
    of every tile of this program; ping-pong (``out_desc`` rows the tile's), every other tile of this
    program, whole. The stages arrive in tile order, so in ping-pong one group's K loop runs while the
    other finishes its tile and stores it, and the tensor cores never wait for an epilogue. The K steps:
    ``_k_step``. ``OUT_T``: the kernel computes out^T = B^T A^T and stores each slice's transpose.

    ``STREAM_K`` (not ping-pong): after the whole tiles, the program's share of the streamed ones
    (``_streamed``, ``_segment``). A tile's first steps, where the share ends, go as a partial sum to the
    program's slot of ``part_ptr`` (``flag_ptr`` set, release); the next program, whose share starts in that
    tile, sums the tile's other steps last, waits for the flag (acquire), adds the slot, sets the flag back to
    zero for the next launch and stores the tile.
    """
    EPI_M: gl.constexpr = _out_block(out_desc.block_type.shape, OUT_T)[0]
    BLOCK_M: gl.constexpr = _block_rows_and_k(a_desc.block_type.shape, A_K_MAJOR)[0]
    ROWS: gl.constexpr = BLOCK_M if FMA else EPI_M  # of the group's accumulator; FMA stores row slices
    PER_TILE: gl.constexpr = BLOCK_M // ROWS  # consumer groups per tile: 2 cooperative, 1 ping-pong or FMA
    PINGPONG: gl.constexpr = PER_TILE == 1 and not FMA  # (FMA: one consumer partition of eight warps)
    FIRST_ROW: gl.constexpr = (GROUP * ROWS) % BLOCK_M
    BLOCK_N: gl.constexpr = _block_rows_and_k(b_desc.block_type.shape, B_K_MAJOR)[0]
    BLOCK_K: gl.constexpr = _block_rows_and_k(a_desc.block_type.shape, A_K_MAJOR)[1]
    INSTR_K: gl.constexpr = 256 // a_desc.dtype.primitive_bitwidth
    gl.static_assert(BLOCK_N <= 256, "one wgmma instruction spans the tile's columns")
    gl.static_assert(not (STREAM_K and (PINGPONG or SPLITS > 1)), "stream-K shares cooperative tiles, unsplit")
    layout: gl.constexpr = _accumulator_layout(FMA, BLOCK_N, INSTR_K, A_K_MAJOR, B_K_MAJOR)
    # wgmma reads 32-bit operands from shared memory K-major only: an M-major float32 A goes through registers
    MMA2: gl.constexpr = _mma_v2(FMA, INSTR_K, B_K_MAJOR)  # float64, TF32 with an N-major B
    A_REGS: gl.constexpr = not A_K_MAJOR and INSTR_K == 8 and not FMA and not MMA2
    WGMMA: gl.constexpr = not SPLIT3 and not FMA and not MMA2 and not A_REGS  # the last step's wait left to the end
    ACC: gl.constexpr = gl.float64 if INSTR_K == 4 else gl.float32
    c_smem = c_bufs.index(GROUP)
    c_bar = bars.index(GROUP)
    num_tiles = gl.cdiv(M, BLOCK_M) * gl.cdiv(N, BLOCK_N)
    k_steps = gl.cdiv(gl.cdiv(K, BLOCK_K), SPLITS)
    items = num_tiles * SPLITS
    if STREAM_K:
        items, first, last = _streamed(num_tiles, k_steps, NUM_SMS)
    c_phase = 0
    start = gl.program_id(0) + PINGPONG * GROUP * NUM_SMS
    for item in range(start, items, (1 + PINGPONG) * NUM_SMS):
        tile, k_slice = _work_item(item, num_tiles, SPLITS)
        row0, col0 = _tile_origin(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        step = (item - gl.program_id(0)) // NUM_SMS * k_steps  # the producer's count of this item's first stage
        if PINGPONG:
            # Ping-pong: take turns at whole K loops. A wait on a stage's mbarrier must not run more than one
            # phase ahead of its loads (parity waits), which the other group's K loop in between would.
            turn = (item - start) // (2 * NUM_SMS)
            mbarrier.wait(bars.index(2 + GROUP), (turn & 1) ^ (1 - GROUP))  # group 0 goes first
        acc, step = _k_loop(a_bufs, b_bufs, a_lo_bufs, b_lo_bufs, ready, empty, gl.zeros([ROWS, BLOCK_N], ACC, layout),
                            step, 0, k_steps, A_K_MAJOR, B_K_MAJOR, SPLIT3, FMA, MMA2, A_REGS, FIRST_ROW)  # fmt: skip
        if PINGPONG:
            mbarrier.arrive(bars.index(3 - GROUP), count=1)  # the other group's turn
        acc = _drained(acc, empty, step, WGMMA)
        row = k_slice * gl.cdiv(M, BLOCK_M) * BLOCK_M + row0 + FIRST_ROW  # the K slice's partial sums' rows
        c_phase = _epilogue(acc, row, col0, c_desc, out_desc, c_smem, c_bar, c_phase, alpha, beta, part_ptr,
                            HAS_C, FMA, OUT_T, False, False)  # fmt: skip
    if STREAM_K:
        gl.static_assert(out_desc.dtype == ACC, "stream-K's partial sums go through the epilogue's buffer")
        step = items // NUM_SMS * k_steps
        mine = gl.program_id(0) * PER_TILE + GROUP  # this program's slot and flag for this group's rows
        for i in range(gl.cdiv(last, k_steps) - first // k_steps):
            t, k_lo, k_hi = _segment(i, first, last, k_steps)
            row0, col0 = _tile_origin(items + t, M, N, BLOCK_M, BLOCK_N, GROUP_M)
            acc, step = _k_loop(a_bufs, b_bufs, a_lo_bufs, b_lo_bufs, ready, empty,
                                gl.zeros([ROWS, BLOCK_N], ACC, layout), step, k_lo, k_hi,
                                A_K_MAJOR, B_K_MAJOR, SPLIT3, FMA, MMA2, A_REGS, FIRST_ROW)  # fmt: skip
            acc = _drained(acc, empty, step, WGMMA)
            row0 += FIRST_ROW
            if k_hi < k_steps:  # the tile's first steps: the next program adds the rest and stores the tile
                c_phase = _epilogue(acc, row0, col0, c_desc, out_desc, c_smem, c_bar, c_phase, alpha, beta,
                                    part_ptr + mine * (ROWS * BLOCK_N), HAS_C, FMA, OUT_T, False, True)  # fmt: skip
                gl.atomic_xchg(flag_ptr + mine, 1, sem="release", scope="gpu")  # after every thread's stores
            elif k_lo > 0:  # the tile's last steps: the previous program summed its first ones
                seen = gl.atomic_add(flag_ptr + mine - PER_TILE, 0, sem="acquire", scope="gpu")
                while seen == 0:
                    seen = gl.atomic_add(flag_ptr + mine - PER_TILE, 0, sem="acquire", scope="gpu")
                gl.thread_barrier()  # the flag seen before any thread reads the slot
                theirs = part_ptr + (mine - PER_TILE) * (ROWS * BLOCK_N)
                c_phase = _epilogue(acc, row0, col0, c_desc, out_desc, c_smem, c_bar, c_phase, alpha, beta, theirs,
                                    HAS_C, FMA, OUT_T, True, False)  # fmt: skip
                gl.atomic_xchg(flag_ptr + mine - PER_TILE, 0, sem="relaxed", scope="gpu")  # zero for the next launch
            else:
                c_phase = _epilogue(acc, row0, col0, c_desc, out_desc, c_smem, c_bar, c_phase, alpha, beta,
                                    part_ptr, HAS_C, FMA, OUT_T, False, False)  # fmt: skip
    tma.store_wait(pendings=0)


@gluon.jit
def gemm_ws_kernel(
    a_desc, b_desc, a_lo_desc, b_lo_desc, c_desc, out_desc, part_ptr, flag_ptr, M, N, K, alpha: tl.float64,
    beta: tl.float64, HAS_C: gl.constexpr, A_K_MAJOR: gl.constexpr, B_K_MAJOR: gl.constexpr, SPLIT3: gl.constexpr,
    FMA: gl.constexpr, OUT_T: gl.constexpr, STAGES: gl.constexpr, GROUP_M: gl.constexpr, NUM_SMS: gl.constexpr,
    SPLITS: gl.constexpr, STREAM_K: gl.constexpr, CONSUMER_REGS: gl.constexpr,
):  # fmt: skip
    """``out = alpha * A @ B + beta * C`` on Hopper; see the module docstring.

    ``a_desc`` reads A as [M, K] tiles (``A_K_MAJOR``) or [K, M]; ``b_desc`` B as [N, K] (``B_K_MAJOR``) or
    [K, N]; with ``SPLIT3`` (float32, both K-major) ``a_desc``/``b_desc`` hold the operands and
    ``a_lo_desc``/``b_lo_desc`` their TF32 remainders (otherwise not read). ``out_desc`` writes and
    ``c_desc`` reads (``HAS_C``) [BLOCK_M / 2, EPI_N] slices (the consumer groups share each tile) or
    [BLOCK_M, EPI_N] slices (ping-pong: each group takes every other tile), or their transposes (``OUT_T``:
    the kernel's product is out^T); with ``FMA`` row slices of the whole tile
    (``epilogue_block``). With ``SPLITS`` > 1, each tile's K steps are cut into SPLITS slices of equal count
    (the last one's steps past K load zeros), and ``out_desc`` writes slice s's partial sum of rows r to rows
    s * ceil(M / BLOCK_M) * BLOCK_M + r of a float32 workspace: the launcher passes alpha 1 and no C, and
    the product untransposed. With ``STREAM_K`` (cooperative or FMA, unsplit; at least as many tiles as programs)
    the tiles past the last whole wave but one are shared out by K steps (``_streamed``): ``part_ptr`` holds a
    slot of a consumer group's accumulator (float32) per program and consumer group of a tile (FMA: one, the tile;
    cooperative: two), ``flag_ptr`` as many zeroed int32 flags, left zero; the programs must all be resident at
    once (one per SM), as the persistent grid is.
    Otherwise neither is read. Launch with ``num_warps=4`` (the first consumer group; ``FMA``: 8, the one consumer
    partition) and ``maxnreg`` such that the twelve warps fit the register file.
    """
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES] + a_desc.block_type.shape, a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES] + b_desc.block_type.shape, b_desc.layout)
    if SPLIT3:
        a_lo_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES] + a_desc.block_type.shape, a_desc.layout)
        b_lo_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES] + b_desc.block_type.shape, b_desc.layout)
    else:  # not read
        a_lo_bufs = gl.allocate_shared_memory(a_desc.dtype, [1, 8, 8], a_desc.layout)
        b_lo_bufs = a_lo_bufs
    c_bufs = gl.allocate_shared_memory(
        out_desc.dtype, [_consumer_groups(FMA)] + out_desc.block_type.shape, out_desc.layout
    )
    BLOCK_M: gl.constexpr = _block_rows_and_k(a_desc.block_type.shape, A_K_MAJOR)[0]
    # consumer groups per tile: 2 cooperative; 1 ping-pong or FMA (which stores row slices of the tile)
    PER_TILE: gl.constexpr = 1 if FMA else BLOCK_M // _out_block(out_desc.block_type.shape, OUT_T)[0]
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    # per consumer group g: bars[g] for its loads of C, bars[2 + g] for its turn to run a K loop (ping-pong)
    bars = gl.allocate_shared_memory(gl.int64, [4, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        # one arrival per consumer group of the stage's tile
        mbarrier.init(empty.index(s), count=PER_TILE)
    for g in gl.static_range(4):
        mbarrier.init(bars.index(g), count=1)
    FIRST: gl.constexpr = 0
    SECOND: gl.constexpr = 1
    # The partitions: the consumer groups (FMA: the one of eight warps, the launch's; else two of four), then the
    # producer's warp. The argument tuples are spelled out (a tuple built in a variable loses its constexprs);
    # FMA takes every other entry of the list.
    gl.warp_specialize(
        [
            (_consumer, (a_desc, b_desc, a_lo_desc, b_lo_desc, c_desc, out_desc, part_ptr, flag_ptr, a_bufs,
                         b_bufs, a_lo_bufs, b_lo_bufs, c_bufs, ready, empty, bars, M, N, K, alpha, beta, HAS_C,
                         A_K_MAJOR, B_K_MAJOR, SPLIT3, FMA, OUT_T, GROUP_M, NUM_SMS, SPLITS, STREAM_K, FIRST)),
            (_consumer, (a_desc, b_desc, a_lo_desc, b_lo_desc, c_desc, out_desc, part_ptr, flag_ptr, a_bufs,
                         b_bufs, a_lo_bufs, b_lo_bufs, c_bufs, ready, empty, bars, M, N, K, alpha, beta, HAS_C,
                         A_K_MAJOR, B_K_MAJOR, SPLIT3, FMA, OUT_T, GROUP_M, NUM_SMS, SPLITS, STREAM_K, SECOND)),
            (_producer, (a_desc, b_desc, a_lo_desc, b_lo_desc, c_desc, out_desc, part_ptr, flag_ptr, a_bufs,
                         b_bufs, a_lo_bufs, b_lo_bufs, c_bufs, ready, empty, bars, M, N, K, alpha, beta, HAS_C,
                         A_K_MAJOR, B_K_MAJOR, SPLIT3, FMA, OUT_T, GROUP_M, NUM_SMS, SPLITS, STREAM_K, SECOND)),
        ][:: 3 - _consumer_groups(FMA)],
        _worker_warps(FMA),
        _worker_regs(FMA, CONSUMER_REGS),
    )  # fmt: skip


def _language_objects() -> list[Any]:
    """What Triton 3.6's interpreter patches in ``triton.language`` while it runs a kernel."""
    return [tl, tl.core, tl.math, tl.tensor, tl.dtype, tl.core.tensor_descriptor_base]


_PRISTINE_LANGUAGE = [(obj, dict(vars(obj))) for obj in _language_objects()]
"""``triton.language`` as densela's import found it, before any kernel ran in the interpreter."""


def _restore_language() -> None:
    """Undoes the patches Triton 3.6's interpreter leaves in ``triton.language``: a device function called from an
    interpreted kernel patches the language's builtins and tensor operators and never restores them, after which
    compiling a kernel in the same process fails (``'block_argument' object has no attribute 'dtype'``)."""
    for obj, attrs in _PRISTINE_LANGUAGE:
        current = vars(obj)
        for name, value in attrs.items():
            if current.get(name, value) is not value:
                setattr(obj, name, value)


def compile_sm90(
    dtype: torch.dtype,
    cfg: Any,
    a_k_major: bool,
    b_k_major: bool,
    split3: bool,
    has_c: bool = False,
    out_t: bool = False,
    fma: bool = False,
    stream_k: bool = False,
) -> dict:
    """Compiles ``gemm_ws_kernel`` for sm_90a without a GPU (Triton ships ptxas) for ``cfg`` (a ``GemmConfig``):
    {"shared": bytes, "spill_bytes": stores + loads, "registers": per thread at launch, "serialized": whether ptxas
    serialized the wgmmas (its C7512 notice: then each waits for the one before it)}.

    Example:
        >>> from densela.tuning import GemmConfig
        >>> info = compile_sm90(torch.bfloat16, GemmConfig(128, 256, 64, 8, 4, 3, "ws"), True, False, False)
        >>> info["spill_bytes"], info["shared"] <= 227 * 1024
        (0, True)
    """
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    from triton.runtime.jit import mangle_type

    _restore_language()  # this process may have run kernels in the interpreter before
    x = torch.empty(256, 256, dtype=dtype)
    a_desc = ws_descriptor(x, a_k_major, cfg.block_m, cfg.block_k)
    b_desc = ws_descriptor(x, b_k_major, cfg.block_n, cfg.block_k)
    rows, cols = epilogue_block(cfg.block_m, cfg.block_n, cfg.epilogue_split, fma, cfg.pingpong)
    out = x if cfg.split_k == 1 else x.float()  # K slices: float32 partial sums, untransposed, no C
    out_desc = ws_descriptor(out, not out_t, rows, cols)
    parts, flags = torch.empty(1, dtype=torch.float64 if dtype == torch.float64 else torch.float32), torch.empty(1)
    values = [a_desc, b_desc, a_desc, b_desc, out_desc, out_desc, parts, flags.int(), 8192, 8192, 8192, 1.0, 0.5,
              has_c, a_k_major, b_k_major, split3, fma, out_t, cfg.num_stages, cfg.group_m, 132, cfg.split_k,
              stream_k, WS_CONSUMER_REGS]  # fmt: skip
    signature, constexprs = {}, {}
    for i, (name, value) in enumerate(zip(gemm_ws_kernel.arg_names, values)):
        if gemm_ws_kernel.params[i].is_constexpr:
            signature[name] = "constexpr"
            constexprs[(i,)] = value
        else:
            signature[name] = gemm_ws_kernel.params[i].annotation_type or mangle_type(value)
    src = GluonASTSource(gemm_ws_kernel, signature, constexprs)
    options = {"num_warps": ws_num_warps(fma), "maxnreg": WS_MAXNREG}
    kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=options)
    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kernel.ptx")
        with open(path, "w") as f:
            f.write(kernel.asm["ptx"])
        report = subprocess.run([ptxas, "-arch=sm_90a", "-v", path, "-o", path + ".o"],
                                capture_output=True, text=True, check=True).stderr  # fmt: skip
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    registers = re.search(r"Used (\d+) registers", report)
    return {
        "shared": kernel.metadata.shared,
        "spill_bytes": int(spills.group(1)) + int(spills.group(2)),
        "registers": int(registers.group(1)),
        "serialized": "C7512" in report,
    }
