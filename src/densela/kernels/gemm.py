"""GEMM kernels: ``out = alpha * A @ B + beta * C`` over a batch, any strides."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def gemm_tiles_kernel(
    a_ptr, b_ptr, c_ptr, out_ptr,
    M, N, K,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    stride_cb, stride_cm, stride_cn,
    stride_ob, stride_om, stride_on,
    alpha: tl.float64, beta: tl.float64,
    HAS_C: tl.constexpr,
    PRECISION: tl.constexpr,
    ACC_DTYPE: tl.constexpr,
    UPCAST: tl.constexpr,
    INDEX_64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
):  # fmt: skip
    """One program computes one BLOCK_M x BLOCK_N tile of ``out`` for batch entry ``program_id(1)``.

    Tiles are visited in groups of GROUP_M rows so neighbouring programs share A and B tiles in L2.
    ``HAS_C`` is False when beta == 0: C is then never read. ``UPCAST`` converts operands to ACC_DTYPE
    before the dot (Triton's interpreter computes bf16 dots wrongly). ``INDEX_64`` widens offsets when
    an operand spans more than 2**31 elements.
    """
    pid = tl.program_id(0)
    batch = tl.program_id(1)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    group_size = GROUP_M * num_n
    first_m = (pid // group_size) * GROUP_M
    rows_in_group = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group_size) % rows_in_group
    pid_n = (pid % group_size) // rows_in_group

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
    mask_m = offs_m < M
    mask_n = offs_n < N
    a_ptrs = a_ptr + batch * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_DTYPE)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
        if UPCAST:
            a = a.to(ACC_DTYPE)
            b = b.to(ACC_DTYPE)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=ACC_DTYPE)
        a_ptrs += step_a
        b_ptrs += step_b

    acc = acc * tl.full((), alpha, ACC_DTYPE)
    mask = mask_m[:, None] & mask_n[None, :]
    if HAS_C:
        c_ptrs = c_ptr + batch * stride_cb + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        c = tl.load(c_ptrs, mask=mask, other=0.0).to(ACC_DTYPE)
        acc += tl.full((), beta, ACC_DTYPE) * c
    out_ptrs = out_ptr + batch * stride_ob + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=mask)
