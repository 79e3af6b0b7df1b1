"""GEMM kernels: ``out = alpha * A @ B + beta * C``.

- ``gemm_tiles_kernel``: one program per output tile (and per K slice with split-K, finished in the same
  launch), operands read through pointers and any strides, batched. It serves every layout, the
  interpreter, batches, small and thin products.
- ``gemm_tma_kernel``: a persistent kernel (one program per SM walking the tiles in grouped order) whose
  operand tiles arrive by the Hopper tensor-memory accelerator (TMA) through tensor descriptors. It serves
  large 2-D products whose operands TMA can read (16-byte aligned rows, unit inner stride).
- ``split_sum_kernel``: adds up the K slices' partial sums the warp-specialized kernel (``gemm_ws``) leaves
  in a workspace, into the output.
"""

from __future__ import annotations

import triton
import triton.language as tl

from densela.kernels.elementwise import multiple, wait_for_previous


@triton.jit
def grouped_tile(tile, num_m, num_n, GROUP_M: tl.constexpr):
    """(row, column) of output tile number ``tile`` when tiles are visited in groups of GROUP_M rows.

    Neighbouring tile numbers share A rows and B columns, so operand tiles are reused from L2.
    """
    group_size = GROUP_M * num_n
    first_m = (tile // group_size) * GROUP_M
    rows_in_group = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (tile % group_size) % rows_in_group
    pid_n = (tile % group_size) // rows_in_group
    return pid_m, pid_n


@triton.jit
def store_tile(
    acc, out_ptr, c_ptr, offs_m, offs_n, M, N,
    stride_cm, stride_cn, stride_om, stride_on,
    alpha, beta,
    HAS_C: tl.constexpr, ACC_DTYPE: tl.constexpr,
):  # fmt: skip
    """Writes ``alpha * acc + beta * C`` to the masked tile at (offs_m, offs_n) of ``out``.

    ``out_ptr`` and ``c_ptr`` already point at their batch entry. ``HAS_C`` is False when beta == 0, and
    C is then never read. The result is rounded once to ``out``'s dtype.
    """
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    acc = acc * tl.full((), alpha, ACC_DTYPE)
    if HAS_C:
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        c = tl.load(c_ptrs, mask=mask, other=0.0).to(ACC_DTYPE)
        acc += tl.full((), beta, ACC_DTYPE) * c
    out_ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def gemm_tiles_kernel(
    a_ptr, b_ptr, c_ptr, out_ptr, part_ptr, count_ptr,
    M, N, K, LOAD_M, LOAD_N,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    stride_cb, stride_cm, stride_cn,
    stride_ob, stride_om, stride_on,
    alpha: tl.float64, beta: tl.float64,
    HAS_C: tl.constexpr,
    SPLIT: tl.constexpr,
    SUM_CHUNK: tl.constexpr,
    PRECISION: tl.constexpr,
    ACC_DTYPE: tl.constexpr,
    UPCAST: tl.constexpr,
    INDEX_64: tl.constexpr,
    HINTS: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
):  # fmt: skip
    """One program computes one BLOCK_M x BLOCK_N tile of ``out`` for batch entry ``program_id(1)``.

    Loads are bounded by LOAD_M x LOAD_N, stores by M x N: a padded operand copy (B's rows, or an M-major A's
    columns, of a multiple of 16 elements) sets LOAD_N (LOAD_M) past N (M), so that the masks along its
    contiguous axis come in whole vectors; what the padding adds lands only in rows and columns that are not
    stored. The K loop runs over whole BLOCK_K blocks without a K mask and ends with one masked block when
    BLOCK_K does not divide K.

    ``HINTS`` gives, for the sizes and strides in the order of ``HINTED``, a number of elements each is a
    multiple of (1: nothing known). Triton only learns by itself whether an integer is a multiple of 16;
    a row stride of 1000 float32 elements still starts every row on a 16-byte boundary, and with the hint
    the loads and stores along rows become 16-byte vectors (bfloat16 operands of 1000 x 1000 loaded
    element by element, without the asynchronous copies that pipeline the K loop, ran at a quarter of
    cuBLAS's speed).

    Split-K (``SPLIT``): the grid's third axis splits the K blocks into slices. Each program writes its
    slice's sum to its own block of ``part_ptr`` and counts itself in ``count_ptr`` (one int32 per tile,
    zero between launches); the program that counts last adds the partial sums, SUM_CHUNK slices per load,
    in a fixed order (so the result does not depend on scheduling), finishes the tile and resets the count.
    ``UPCAST`` converts operands to ACC_DTYPE before the dot (Triton's interpreter computes bf16 dots
    wrongly). ``INDEX_64`` widens offsets when an operand spans more than 2**31 elements.
    """
    wait_for_previous()
    (M, N, K, LOAD_M, LOAD_N, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb,
     stride_cm, stride_cn, stride_ob, stride_om, stride_on) = (
        multiple(M, HINTS[0]), multiple(N, HINTS[1]), multiple(K, HINTS[2]), multiple(LOAD_M, HINTS[3]),
        multiple(LOAD_N, HINTS[4]), multiple(stride_ab, HINTS[5]), multiple(stride_am, HINTS[6]),
        multiple(stride_ak, HINTS[7]), multiple(stride_bb, HINTS[8]), multiple(stride_bk, HINTS[9]),
        multiple(stride_bn, HINTS[10]), multiple(stride_cb, HINTS[11]), multiple(stride_cm, HINTS[12]),
        multiple(stride_cn, HINTS[13]), multiple(stride_ob, HINTS[14]), multiple(stride_om, HINTS[15]),
        multiple(stride_on, HINTS[16]),
    )  # fmt: skip
    pid = tl.program_id(0)
    batch = tl.program_id(1)
    split = tl.program_id(2)
    splits = tl.num_programs(2)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = grouped_tile(pid, num_m, num_n, GROUP_M)
    k_blocks = tl.cdiv(K, BLOCK_K)
    blocks_per_split = tl.cdiv(k_blocks, splits)
    k_first = split * blocks_per_split
    k_last = min(k_first + blocks_per_split, k_blocks)
    k_whole = min(k_last, K // BLOCK_K)

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    step_a = BLOCK_K * stride_ak
    step_b = BLOCK_K * stride_bk
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        offs_k = offs_k.to(tl.int64)
        batch = batch.to(tl.int64)
        # a stride Triton specialized to the constant 1 is a Python int: widen through an int64 tensor
        step_a = tl.full((), BLOCK_K, tl.int64) * stride_ak
        step_b = tl.full((), BLOCK_K, tl.int64) * stride_bk
    mask_m = offs_m[:, None] < LOAD_M
    mask_n = offs_n[None, :] < LOAD_N
    a_ptrs = a_ptr + batch * stride_ab + k_first * step_a + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + k_first * step_b + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_DTYPE)
    for _ in range(k_first, k_whole):
        a = tl.load(a_ptrs, mask=mask_m, other=0.0)
        b = tl.load(b_ptrs, mask=mask_n, other=0.0)
        acc = _multiply_add(a, b, acc, PRECISION, ACC_DTYPE, UPCAST)
        a_ptrs += step_a
        b_ptrs += step_b
    if k_first < k_last and k_last * BLOCK_K > K:  # the partial last block of K is in this slice
        k_left = K - (k_last - 1) * BLOCK_K
        a = tl.load(a_ptrs, mask=mask_m & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n, other=0.0)
        acc = _multiply_add(a, b, acc, PRECISION, ACC_DTYPE, UPCAST)

    out_tile = out_ptr + batch * stride_ob
    c_tile = c_ptr + batch * stride_cb
    if SPLIT:
        tile = batch * (num_m * num_n) + pid
        block = tl.arange(0, BLOCK_M)[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
        parts = part_ptr + tile * splits * (BLOCK_M * BLOCK_N)
        tl.store(parts + split * (BLOCK_M * BLOCK_N) + block, acc)
        tl.debug_barrier()  # every thread's partial sum is stored before the count says so
        if tl.atomic_add(count_ptr + tile, 1, sem="acq_rel", scope="gpu") == splits - 1:
            total = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_DTYPE)
            chunk = tl.arange(0, SUM_CHUNK)[:, None, None]
            for s in tl.range(0, splits, SUM_CHUNK, num_stages=3):  # loads in flight while earlier chunks add up
                ptrs = parts + (s + chunk) * (BLOCK_M * BLOCK_N) + block[None, :, :]
                total += tl.sum(tl.load(ptrs, mask=s + chunk < splits, other=0.0, cache_modifier=".cg"), axis=0)
            tl.atomic_xchg(count_ptr + tile, 0, sem="relaxed", scope="gpu")
            store_tile(total, out_tile, c_tile, offs_m, offs_n, M, N, stride_cm, stride_cn, stride_om, stride_on,
                       alpha, beta, HAS_C, ACC_DTYPE)  # fmt: skip
    else:
        store_tile(acc, out_tile, c_tile, offs_m, offs_n, M, N, stride_cm, stride_cn, stride_om, stride_on,
                   alpha, beta, HAS_C, ACC_DTYPE)  # fmt: skip


HINTED = ("M", "N", "K", "LOAD_M", "LOAD_N", "stride_ab", "stride_am", "stride_ak", "stride_bb", "stride_bk",
          "stride_bn", "stride_cb", "stride_cm", "stride_cn", "stride_ob", "stride_om", "stride_on")  # fmt: skip
"""The runtime integers of ``gemm_tiles_kernel`` that its ``HINTS`` describe, in order."""


@triton.jit
def _multiply_add(a, b, acc, PRECISION: tl.constexpr, ACC_DTYPE: tl.constexpr, UPCAST: tl.constexpr):
    """``acc + a @ b`` in ``PRECISION``; with ``UPCAST`` the operands are first converted to ACC_DTYPE."""
    if UPCAST:
        a = a.to(ACC_DTYPE)
        b = b.to(ACC_DTYPE)
    return tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=ACC_DTYPE)


@triton.jit
def _load_operand(desc, outer, k, STORED_K_MAJOR: tl.constexpr):
    """The (outer x BLOCK_K) tile of an operand at (outer, k), from a descriptor over its stored form.

    ``STORED_K_MAJOR``: the descriptor views the operand as [outer, K] (K contiguous); otherwise as
    [K, outer], and the loaded tile is transposed (a free view for the tensor cores' shared memory reads).
    """
    return desc.load([outer, k]) if STORED_K_MAJOR else desc.load([k, outer]).T


@triton.jit
def gemm_tma_kernel(
    a_desc, b_desc, a_lo_desc, b_lo_desc,
    c_ptr, out_ptr,
    M, N, K,
    stride_cm, stride_cn, stride_om, stride_on,
    alpha: tl.float64, beta: tl.float64,
    HAS_C: tl.constexpr,
    A_K_MAJOR: tl.constexpr,
    B_K_MAJOR: tl.constexpr,
    SPLIT3: tl.constexpr,
    PRECISION: tl.constexpr,
    ACC_DTYPE: tl.constexpr,
    UPCAST: tl.constexpr,
    INDEX_64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    NUM_SMS: tl.constexpr,
    FLATTEN: tl.constexpr,
    EPILOGUE_SPLIT: tl.constexpr,
):  # fmt: skip
    """Persistent product: program p computes output tiles p, p + NUM_SMS, ... in grouped order.

    Operand tiles come through TMA descriptors: ``a_desc`` over A as [M, K] (``A_K_MAJOR``) or as [K, M],
    ``b_desc`` over B as [N, K] (``B_K_MAJOR``) or as [K, N]. 32-bit tensor-core products need both
    K-major (wgmma reads transposed 32-bit operands only from registers). With ``SPLIT3`` the descriptors
    hold the high TF32 parts of A and B, and ``a_lo_desc``/``b_lo_desc`` the remainders: the product is
    a_lo b + a b_lo + a b, three TF32 products with float32-level accuracy (3xTF32); each K step's three
    products start from zero and are added to the tile's sum in float32, since wgmma's TF32 accumulation
    over a long K chain is less precise than float32 (4.8e-6 against 8e-7 normwise at 2048^3 on an
    H200). ``FLATTEN`` lets
    Triton pipeline across the tile loop, so the next tile's loads overlap this tile's epilogue.
    ``UPCAST`` as in ``gemm_tiles_kernel``. ``EPILOGUE_SPLIT`` (1, 2 or 4) stores the tile in that many
    column slices: the layout conversion before each store then holds only a slice in shared memory, which
    leaves room for pipeline stages.
    """
    wait_for_previous()
    start = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    for tile in tl.range(start, num_m * num_n, NUM_SMS, flatten=FLATTEN):
        pid_m, pid_n = grouped_tile(tile, num_m, num_n, GROUP_M)
        row0 = pid_m * BLOCK_M
        col0 = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_DTYPE)
        for kk in range(k_tiles):
            k0 = kk * BLOCK_K
            a = _load_operand(a_desc, row0, k0, A_K_MAJOR)
            b = _load_operand(b_desc, col0, k0, B_K_MAJOR).T
            if SPLIT3:
                a_lo = _load_operand(a_lo_desc, row0, k0, A_K_MAJOR)
                b_lo = _load_operand(b_lo_desc, col0, k0, B_K_MAJOR).T
                step = tl.dot(a_lo, b, tl.zeros((BLOCK_M, BLOCK_N), ACC_DTYPE), input_precision="tf32")
                step = tl.dot(a, b_lo, step, input_precision="tf32")
                acc += tl.dot(a, b, step, input_precision="tf32")
            else:
                acc = _multiply_add(a, b, acc, PRECISION, ACC_DTYPE, UPCAST)
        offs_m = row0 + tl.arange(0, BLOCK_M)
        if INDEX_64:
            offs_m = offs_m.to(tl.int64)
        if EPILOGUE_SPLIT == 1:
            _store_columns(acc, out_ptr, c_ptr, offs_m, col0, M, N, stride_cm, stride_cn, stride_om, stride_on,
                           alpha, beta, HAS_C, ACC_DTYPE, INDEX_64)  # fmt: skip
        elif EPILOGUE_SPLIT == 2:
            _store_halves(acc, out_ptr, c_ptr, offs_m, col0, M, N, stride_cm, stride_cn, stride_om, stride_on,
                          alpha, beta, HAS_C, ACC_DTYPE, INDEX_64)  # fmt: skip
        else:
            left, right = _halves(acc)
            _store_halves(left, out_ptr, c_ptr, offs_m, col0, M, N, stride_cm, stride_cn, stride_om, stride_on,
                          alpha, beta, HAS_C, ACC_DTYPE, INDEX_64)  # fmt: skip
            _store_halves(right, out_ptr, c_ptr, offs_m, col0 + BLOCK_N // 2, M, N, stride_cm, stride_cn, stride_om,
                          stride_on, alpha, beta, HAS_C, ACC_DTYPE, INDEX_64)  # fmt: skip


@triton.jit
def _halves(acc):
    """The left and right column halves of the 2-D tile ``acc``."""
    return tl.split(tl.permute(tl.reshape(acc, (acc.shape[0], 2, acc.shape[1] // 2)), (0, 2, 1)))


@triton.jit
def _store_halves(
    acc, out_ptr, c_ptr, offs_m, col0, M, N, stride_cm, stride_cn, stride_om, stride_on, alpha, beta,
    HAS_C: tl.constexpr, ACC_DTYPE: tl.constexpr, INDEX_64: tl.constexpr,
):  # fmt: skip
    """``_store_columns`` for the two column halves of ``acc``, one after the other."""
    left, right = _halves(acc)
    _store_columns(left, out_ptr, c_ptr, offs_m, col0, M, N, stride_cm, stride_cn, stride_om, stride_on,
                   alpha, beta, HAS_C, ACC_DTYPE, INDEX_64)  # fmt: skip
    _store_columns(right, out_ptr, c_ptr, offs_m, col0 + acc.shape[1] // 2, M, N, stride_cm, stride_cn, stride_om,
                   stride_on, alpha, beta, HAS_C, ACC_DTYPE, INDEX_64)  # fmt: skip


@triton.jit
def _store_columns(
    acc, out_ptr, c_ptr, offs_m, col0, M, N, stride_cm, stride_cn, stride_om, stride_on, alpha, beta,
    HAS_C: tl.constexpr, ACC_DTYPE: tl.constexpr, INDEX_64: tl.constexpr,
):  # fmt: skip
    """``store_tile`` for the columns col0 .. col0 + width of ``acc``'s rows ``offs_m``."""
    offs_n = col0 + tl.arange(0, acc.shape[1])
    if INDEX_64:
        offs_n = offs_n.to(tl.int64)
    store_tile(acc, out_ptr, c_ptr, offs_m, offs_n, M, N, stride_cm, stride_cn, stride_om, stride_on, alpha, beta,
               HAS_C, ACC_DTYPE)  # fmt: skip


@triton.jit
def split_sum_kernel(
    part_ptr, c_ptr, out_ptr,
    M, N, PART_ROWS, stride_pm,
    stride_cm, stride_cn, stride_om, stride_on,
    alpha: tl.float64, beta: tl.float64,
    SPLITS: tl.constexpr, HAS_C: tl.constexpr, INDEX_64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    """One program writes one BLOCK_M x BLOCK_N tile of ``out = alpha * sum_s P_s + beta * C``, where the float32
    partial sums P_s (s < SPLITS) lie stacked in ``part_ptr``: rows of N contiguous elements ``stride_pm`` apart,
    P_s from row s * PART_ROWS. The slices are added in order, in float32; ``out`` and ``C`` take any strides.
    """
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    offs_m = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    part_size = PART_ROWS * stride_pm
    if INDEX_64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
        part_size = PART_ROWS.to(tl.int64) * stride_pm
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    ptrs = part_ptr + offs_m[:, None] * stride_pm + offs_n[None, :]
    acc = tl.load(ptrs, mask=mask, other=0.0)
    for _ in tl.static_range(1, SPLITS):
        ptrs += part_size
        acc += tl.load(ptrs, mask=mask, other=0.0)
    store_tile(acc, out_ptr, c_ptr, offs_m, offs_n, M, N, stride_cm, stride_cn, stride_om, stride_on, alpha, beta,
               HAS_C, tl.float32)  # fmt: skip
