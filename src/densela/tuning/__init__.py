"""Kernel configurations: block sizes, warps and pipeline depth per operation and shape bucket.

The hot path calls these functions, which only look values up; nothing here autotunes or synchronizes.
Under Triton's interpreter every operation gets one small configuration so tests run fast on the CPU.
"""

from __future__ import annotations

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


_TILE_BY_ITEMSIZE = {
    1: TileConfig(64, 64, 4),
    2: TileConfig(64, 64, 4),
    4: TileConfig(64, 64, 4),
    8: TileConfig(32, 64, 4),
    16: TileConfig(32, 32, 4),
}


def gemm_config(m: int, n: int, k: int, dtype: torch.dtype) -> GemmConfig:
    """Tile configuration for an m x n x k product of ``dtype`` operands."""
    if INTERPRET:
        return _GEMM_INTERPRET
    return _GEMM_BY_ITEMSIZE[dtype.itemsize]


def tile_config(itemsize: int) -> TileConfig:
    """Tile configuration for a memory-bound 2-D kernel moving ``itemsize``-byte elements."""
    if INTERPRET:
        return TileConfig(16, 16, 1)
    return _TILE_BY_ITEMSIZE[itemsize]
