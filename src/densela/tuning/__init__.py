"""Kernel configurations: block sizes, warps and pipeline depth per operation and shape bucket.

The hot path calls these functions, which only look values up; nothing here autotunes or synchronizes.
Under Triton's interpreter every operation gets one small configuration so tests run fast on the CPU.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import torch

from densela._arrays import INTERPRET


class GemmConfig(NamedTuple):
    block_m: int
    block_n: int
    block_k: int
    group_m: int
    num_warps: int
    num_stages: int


class TileConfig(NamedTuple):
    """Block shape of memory-bound 2-D kernels (transpose, add)."""

    block_m: int
    block_n: int
    num_warps: int


_GEMM_INTERPRET = GemmConfig(16, 16, 16, 4, 1, 1)
_GEMM_BY_ITEMSIZE = {
    2: GemmConfig(128, 128, 64, 8, 8, 3),
    4: GemmConfig(128, 128, 32, 8, 8, 3),
    8: GemmConfig(64, 64, 32, 8, 4, 3),
}
"""Products whose m * n is under LARGE_MN: tiles small enough to give every SM work."""

LARGE_MN = 2048 * 2048
"""From this m * n on, the large-tile configurations below fill the GPU."""

_GEMM_LARGE = {
    # (arithmetic, B is K-major): the best of a sweep at 4096^3 on an NVIDIA H200 (2026-11-21)
    ("16-bit", False): GemmConfig(128, 256, 64, 8, 8, 4),
    ("16-bit", True): GemmConfig(256, 128, 64, 8, 8, 3),
    ("ieee", False): GemmConfig(128, 128, 32, 8, 8, 3),
    ("ieee", True): GemmConfig(128, 128, 32, 8, 4, 4),
    ("tf32", False): GemmConfig(256, 128, 32, 8, 8, 3),
    ("tf32", True): GemmConfig(128, 256, 32, 8, 8, 3),
    ("tf32x3", False): GemmConfig(128, 64, 32, 8, 4, 4),
    ("tf32x3", True): GemmConfig(128, 128, 64, 8, 8, 2),
    ("float64", False): GemmConfig(64, 128, 16, 8, 4, 3),
    ("float64", True): GemmConfig(128, 64, 16, 8, 4, 3),
}

K_MAJOR_COPY_FROM_M = {"tf32": 256, "tf32x3": 256}
"""Arithmetic for which a B stored N-major is first copied K-major, from this many rows of A on.

Hopper's wgmma reads 32-bit operands from shared memory only K-major; Triton otherwise transposes B in
registers and loses its pipelined load (TF32 at 4096^3 on an H200: 138 TFLOP/s with B N-major, 313
K-major). The copy moves 2 k n itemsize bytes, so it pays once A has enough rows. float64 gained 7% at
4096^3 from a K-major B but lost at 2500^3 and 5000^3 with the copy, so it is not copied."""


def _arithmetic(dtype: torch.dtype, precision: str | None) -> str:
    if dtype.itemsize == 2:
        return "16-bit"
    if dtype == torch.float64:
        return "float64"
    return precision or "ieee"


_TILE_BY_ITEMSIZE = {
    1: TileConfig(64, 64, 4),
    2: TileConfig(64, 64, 4),
    4: TileConfig(64, 64, 4),
    8: TileConfig(32, 64, 4),
    16: TileConfig(32, 32, 4),
}


@functools.cache
def shared_memory(device_index: int) -> int:
    """Bytes of shared memory one program may use on CUDA device ``device_index`` (read once)."""
    from triton.runtime import driver

    return int(driver.active.utils.get_device_properties(device_index)["max_shared_mem"])


def _pipeline_bytes(cfg: GemmConfig, itemsize: int) -> int:
    """Shared memory the software pipeline holds: ``num_stages`` A and B tiles."""
    return (cfg.block_m + cfg.block_n) * cfg.block_k * itemsize * cfg.num_stages


def gemm_config(
    m: int,
    n: int,
    k: int,
    dtype: torch.dtype,
    precision: str | None = None,
    b_k_major: bool = False,
    shared_bytes: int | None = None,
) -> GemmConfig:
    """Tile configuration for an m x n x k product of ``dtype`` operands in ``precision`` (float32).

    ``b_k_major``: B's elements are contiguous along k (a K-major operand). ``shared_bytes``: the
    device's shared memory per program; a large-tile configuration that does not fit falls back to the
    small one (the large ones were chosen on Hopper, whose programs get 227 KiB).

    Example:
        >>> import torch
        >>> from densela.tuning import gemm_config
        >>> cfg = gemm_config(64, 64, 64, torch.float32)
        >>> cfg.block_m > 0 and cfg.num_warps > 0
        True
    """
    if INTERPRET:
        return _GEMM_INTERPRET
    small = _GEMM_BY_ITEMSIZE[dtype.itemsize]
    if m * n < LARGE_MN:
        return small
    large = _GEMM_LARGE[_arithmetic(dtype, precision), b_k_major]
    if shared_bytes is not None and _pipeline_bytes(large, dtype.itemsize) > shared_bytes:
        return small
    return large


def k_major_copy_from(dtype: torch.dtype, precision: str | None) -> int | None:
    """The m from which an N-major B is copied K-major before the product; None: never."""
    return K_MAJOR_COPY_FROM_M.get(_arithmetic(dtype, precision))


def tile_config(itemsize: int) -> TileConfig:
    """Tile configuration for a memory-bound 2-D kernel moving ``itemsize``-byte elements."""
    if INTERPRET:
        return TileConfig(16, 16, 1)
    return _TILE_BY_ITEMSIZE[itemsize]
