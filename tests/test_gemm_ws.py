"""The warp-specialized Gluon GEMM (``densela.kernels.gemm_ws``) compiles for Hopper on any machine.

Triton ships ptxas, so every configuration the tables or `densela tune` may give the kernel is compiled here
for sm_90a, in each operand order, epilogue and output order it takes, and must fit the H100's shared memory without
spilling registers or having ptxas serialize its wgmmas. Its products are checked on a Hopper GPU in test_gemm.py
(the ``ws`` tests).
"""

from __future__ import annotations

import pytest
import torch

import densela.tuning
from densela.kernels.gemm_ws import compile_sm90
from densela.tuning.tune import LARGE_CANDIDATES

H100_SHARED_BYTES = 227 * 1024
"""Shared memory one program may use on an H100 or H200."""

WS_ARITHMETIC = {
    "16-bit": (torch.bfloat16, ""),
    "tf32": (torch.float32, "tf32"),
    "tf32x3": (torch.float32, "tf32x3"),
    "ieee": (torch.float32, "ieee"),
    "float64": (torch.float64, ""),
}


def _orders(arith: str) -> list[tuple[bool, bool, bool]]:
    """(A K-major?, B K-major?, stored transposed?) as the launcher gives them: 16-bit and float32 FMA
    operands in either order; TF32 B K-major (copied so when it is not), A K-major or through registers, and
    row-major operands swapped (out^T = B^T A^T, stored transposed), as float64's are; 3xTF32 parts are K-major
    copies."""
    if arith in ("16-bit", "ieee"):  # FMA: either order too
        return [(True, False, False), (True, True, False), (False, False, False), (False, True, False)]
    if arith == "tf32":
        return [(True, True, False), (False, True, True), (False, True, False)]
    if arith == "float64":  # row-major operands swapped, as TF32's; the other orders read in place
        return [(True, True, False), (False, True, True), (False, False, False), (False, True, False)]
    return [(True, True, False)]


def _cases() -> list:
    cases = []
    for arith, (dtype, precision) in WS_ARITHMETIC.items():
        table = densela.tuning._GEMM_LARGE[arith]
        assert table.kernel == "ws", f"{arith}: the large-product table no longer names the warp-specialized kernel"
        configs = dict.fromkeys([table, *(c for c in LARGE_CANDIDATES[arith] if c.kernel == "ws")])
        orders = _orders(arith)
        for cfg in configs:
            for order in orders if cfg == table else orders[:1]:
                for has_c in (False, True) if (cfg == table and order in orders[:2]) else (False,):
                    name = f"{arith}-{cfg.block_m}x{cfg.block_n}x{cfg.block_k}-s{cfg.num_stages}-e{cfg.epilogue_split}"
                    name += f"-{'k' if order[0] else 'm'}{'k' if order[1] else 'n'}{'-t' if order[2] else ''}"
                    name += "-c" if has_c else ""
                    cases.append(pytest.param(dtype, precision, cfg, *order, has_c, id=name))
    # thin TF32 on mma_v2 (``tuning.tf32_mma2_config``): an N-major B beside either A, and swapped (stored transposed)
    for m, n in ((64, 4096), (4096, 64), (128, 4096)):
        for order, split in (((True, False, False), 4), ((False, False, False), 1), ((True, False, True), 1)):
            cfg = densela.tuning.tf32_mma2_config(m, n, 4096, None)._replace(split_k=split)
            name = f"tf32-mma2-{cfg.block_m}x{cfg.block_n}-split{split}-{'k' if order[0] else 'm'}n"
            name += "-t" if order[2] else ""
            cases.append(pytest.param(torch.float32, "tf32", cfg, *order, False, id=name))
    # float32 FMA split along K (``tuning._ws_split``): an epilogue of float32 partial sums, in both operand orders
    split = densela.tuning._GEMM_LARGE["ieee"]._replace(split_k=4)
    for order in _orders("ieee")[::2]:
        name = f"ieee-split4-{'k' if order[0] else 'm'}{'k' if order[1] else 'n'}"
        cases.append(pytest.param(torch.float32, "ieee", split, *order, False, id=name))
    return [pytest.param(*case.values, False, id=case.id) for case in cases] + _streamed_cases()


def _streamed_cases() -> list:
    """The float32 FMA table's configuration streamed (stream-K: partial sums through the epilogue's buffer), in each
    operand order, with and without C."""
    cfg = densela.tuning._GEMM_LARGE["ieee"]
    cases = []
    for order in _orders("ieee"):
        for has_c in (False, True):
            name = f"ieee-stream-k-{'k' if order[0] else 'm'}{'k' if order[1] else 'n'}" + ("-c" if has_c else "")
            cases.append(pytest.param(torch.float32, "ieee", cfg, *order, has_c, True, id=name))
    return cases


@pytest.mark.parametrize("dtype, precision, cfg, a_k_major, b_k_major, out_t, has_c, stream_k", _cases())
def test_compiles_for_hopper_within_its_limits(dtype, precision, cfg, a_k_major, b_k_major, out_t, has_c, stream_k):
    info = compile_sm90(dtype, cfg, a_k_major, b_k_major, precision == "tf32x3", has_c, out_t, precision == "ieee",
                        stream_k)  # fmt: skip
    assert info["shared"] <= H100_SHARED_BYTES, f"asks for {info['shared']} bytes of shared memory"
    assert info["spill_bytes"] == 0, f"spills {info['spill_bytes']} bytes of registers"
    assert info["registers"] * 32 * 12 <= 65536, "twelve warps do not fit the register file at launch"
    assert not info["serialized"], "ptxas serialized the wgmmas (C7512): each would wait for the one before it"
