"""Kernel configurations: block sizes, warps and pipeline depth per operation and shape bucket.

The hot path calls these functions, which only look values up (after the first call for a shape, one
dictionary look-up); nothing here autotunes or synchronizes. `densela tune` (``densela.tuning.tune``)
measures configurations per shape bucket and stores the best in a file per GPU model, which
``gemm_config`` prefers to the tables here. Under Triton's interpreter every product gets one small
configuration so tests run fast on the CPU.
"""

from __future__ import annotations

import functools
import json
import warnings
from pathlib import Path
from typing import NamedTuple

import torch

from densela._arrays import INTERPRET
from densela._env import cache_dir, gpu_slug
from densela._launch import GRAPHS, PLANS


class GemmConfig(NamedTuple):
    """How one product runs: the kernel, its tile shape, warps and pipeline depth.

    ``kernel``: "tiles" (``gemm_tiles_kernel``: any strides, batches) or "tma" (``gemm_tma_kernel``:
    persistent, operands through TMA descriptors; 2-D products). ``split_k``: K slices of the tiles kernel
    summed by a second kernel (for products with too few output tiles to fill the GPU). ``flatten``: the
    TMA kernel pipelines across output tiles. ``epilogue_split``: the TMA kernel stores each tile in this
    many column slices (1, 2 or 4), so that its epilogue needs less shared memory.
    """

    block_m: int
    block_n: int
    block_k: int
    group_m: int
    num_warps: int
    num_stages: int
    kernel: str = "tiles"
    split_k: int = 1
    flatten: bool = True
    epilogue_split: int = 1


class TileConfig(NamedTuple):
    """Block shape of memory-bound 2-D kernels (transpose, add)."""

    block_m: int
    block_n: int
    num_warps: int


_GEMM_INTERPRET = GemmConfig(16, 16, 16, 4, 1, 1)

# The tables below are the best of sweeps on an NVIDIA H200 (scripts/gemm-explore.py, 2026-11-22; records
# in bench-results/nvidia-h200/2026-11-22-gemm-explore/). `densela tune` replaces them per shape bucket.
_GEMM_LARGE = {
    # m * n >= LARGE_MN: 2-D products of 16-bit and TF32 operands through the persistent TMA kernel
    "16-bit": GemmConfig(128, 256, 64, 8, 8, 3, "tma"),
    "ieee": GemmConfig(64, 128, 32, 8, 4, 4),
    "tf32": GemmConfig(128, 256, 32, 8, 8, 3, "tma", epilogue_split=2),
    "tf32x3": GemmConfig(128, 128, 32, 8, 8, 3, "tma", epilogue_split=2),
    "float64": GemmConfig(64, 128, 16, 8, 4, 3),
}
_GEMM_MEDIUM = {
    # SMALL_MN <= m * n, and batches or too little work for the TMA kernel
    "16-bit": GemmConfig(128, 256, 64, 8, 8, 4),
    "ieee": GemmConfig(64, 64, 32, 8, 4, 3),
    "tf32": GemmConfig(128, 128, 32, 8, 8, 3),
    "tf32x3": GemmConfig(128, 128, 64, 8, 8, 2),
    "float64": GemmConfig(64, 64, 32, 8, 4, 3),
}
_GEMM_SMALL = {
    # m * n < SMALL_MN: small tiles, so that the few output tiles still spread over the SMs
    "16-bit": GemmConfig(64, 64, 64, 8, 4, 3),
    "ieee": GemmConfig(32, 32, 32, 8, 2, 3),
    "tf32": GemmConfig(32, 32, 32, 8, 2, 3),
    "tf32x3": GemmConfig(32, 32, 32, 8, 2, 3),
    "float64": GemmConfig(32, 32, 32, 8, 2, 3),
}
_GEMM_SPLIT = (GemmConfig(32, 32, 64, 1, 4, 3), GemmConfig(64, 64, 32, 8, 4, 3))
"""Split-K tiles: for outputs of at most 64 rows and columns, and for larger ones."""
_GEMM_THIN_K = GemmConfig(64, 128, 16, 8, 4, 2)
"""Products with k <= THIN_K and a large output (outer-product-like): the output write dominates."""

LARGE_MN = 2048 * 2048
SMALL_MN = 512 * 512
THIN_K = 64
TMA_MIN_WORK = 2 * 2048**3
"""m * n * k from which a 2-D product runs on the persistent TMA kernel (below it, the tiles kernel)."""

SPLIT_K_MIN_BLOCKS = 2
"""Split-K leaves at least this many BLOCK_K steps to each slice."""
SPLIT_K_MIN_K = 1024
"""Products with a shorter inner dimension are never split (a small product gains less than it pays)."""


def arithmetic(dtype: torch.dtype, precision: str | None) -> str:
    """The arithmetic a product of ``dtype`` operands uses: "16-bit", "ieee", "tf32", "tf32x3" or "float64".

    Example:
        >>> arithmetic(torch.bfloat16, None), arithmetic(torch.float32, "tf32")
        ('16-bit', 'tf32')
    """
    if dtype.itemsize == 2:
        return "16-bit"
    if dtype == torch.float64:
        return "float64"
    return precision or "ieee"


def bucket(m: int, n: int, k: int, batch: int) -> str:
    """The shape bucket a tuned configuration covers: each size's power-of-two range, and batched or not.

    Example:
        >>> bucket(1000, 4096, 4096, 1), bucket(1024, 5000, 4096, 3)
        ('10-13-13-1', '11-13-13-n')
    """
    return "-".join([*(str(min(x.bit_length(), 15)) for x in (m, n, k)), "n" if batch > 1 else "1"])


_TILE_BY_ITEMSIZE = {  # H100 sweeps, 2026-11-22 (scripts/memory-explore.py): 8- and 16-bit gain 2-4% with 128 x 128
    1: TileConfig(128, 128, 8),
    2: TileConfig(128, 128, 8),
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


@functools.cache
def multiprocessors(device: int | None) -> int:
    """Streaming multiprocessors of CUDA device ``device`` (read once); a few under the interpreter."""
    if device is None:
        return 3
    return torch.cuda.get_device_properties(device).multi_processor_count


def tuned_path(device: int) -> Path:
    """The file `densela tune` writes for the GPU ``device`` is: one per GPU model."""
    return cache_dir() / f"gemm-{gpu_slug(torch.cuda.get_device_name(device))}.json"


@functools.cache
def tuned(device: int | None) -> dict[str, dict[str, GemmConfig]]:
    """The configurations `densela tune` stored for ``device``'s GPU: arithmetic -> bucket -> config (read once)."""
    if device is None:
        return {}
    path = tuned_path(device)
    try:
        entries = json.loads(path.read_text())["entries"]
        return {arith: {b: GemmConfig(**cfg) for b, cfg in table.items()} for arith, table in entries.items()}
    except FileNotFoundError:
        return {}
    except (ValueError, KeyError, TypeError) as e:
        warnings.warn(
            f"densela: ignoring the unreadable tuning file {path} ({e}); run `densela tune` again", stacklevel=2
        )
        return {}


_CHOSEN: dict[tuple, GemmConfig] = {}
_CHOSEN_LIMIT = 1 << 16


def gemm_config(
    m: int,
    n: int,
    k: int,
    dtype: torch.dtype,
    precision: str | None = None,
    *,
    batch: int = 1,
    device: int | None = None,
) -> GemmConfig:
    """Configuration for a ``batch`` of m x n x k products of ``dtype`` in ``precision`` (float32) on ``device``.

    A dictionary look-up after the first call for a shape: the configuration `densela tune` stored for the
    shape's bucket on this GPU model, else the tables above (``choose_gemm_config``).

    Example:
        >>> import torch
        >>> from densela.tuning import gemm_config
        >>> cfg = gemm_config(64, 64, 64, torch.float32)
        >>> cfg.block_m > 0 and cfg.num_warps > 0
        True
    """
    key = (m, n, k, dtype, precision, batch, device)
    cfg = _CHOSEN.get(key)
    if cfg is None:
        if len(_CHOSEN) >= _CHOSEN_LIMIT:
            _CHOSEN.clear()
        arith = arithmetic(dtype, precision)
        cfg = tuned(device).get(arith, {}).get(bucket(m, n, k, batch))
        if cfg is None:
            cfg = choose_gemm_config(m, n, k, dtype, precision, batch=batch, device=device)
        _CHOSEN[key] = cfg
    return cfg


def clear_cache() -> None:
    """Forgets the configurations chosen so far, the launches planned with them and the tuned tables read (after
    `densela tune`, in tests)."""
    _CHOSEN.clear()
    PLANS.clear()
    GRAPHS.clear()
    tuned.cache_clear()


def choose_gemm_config(
    m: int,
    n: int,
    k: int,
    dtype: torch.dtype,
    precision: str | None = None,
    *,
    batch: int = 1,
    device: int | None = None,
) -> GemmConfig:
    """The untuned choice: large 2-D products of 16-bit and TF32 operands on the persistent TMA kernel,
    outputs with a tiny inner dimension on outer-product tiles, products whose output tiles cannot fill the
    GPU split along K, everything else on the tiles kernel with tiles sized to the output."""
    if INTERPRET:
        return _GEMM_INTERPRET
    arith = arithmetic(dtype, precision)
    mn = m * n
    if k <= THIN_K and mn >= SMALL_MN:
        return _GEMM_THIN_K
    if mn >= LARGE_MN:
        large = _GEMM_LARGE[arith]
        if large.kernel == "tma" and (batch > 1 or mn * k < TMA_MIN_WORK):
            large = _GEMM_MEDIUM[arith]
        shared = shared_memory(device) if device is not None else None
        if shared is None or _pipeline_bytes(large, dtype.itemsize) <= shared:
            return large
    base = (_GEMM_SMALL if mn < SMALL_MN else _GEMM_MEDIUM)[arith]
    sms = multiprocessors(device)
    if k >= SPLIT_K_MIN_K and -(-m // base.block_m) * -(-n // base.block_n) * batch < sms:
        # Fewer output tiles than SMs: split K over more programs, on small tiles. The sweeps' best splits
        # left about two BLOCK_K steps per slice, with at most four programs per SM.
        cfg = _GEMM_SPLIT[0] if max(m, n) <= 64 else _GEMM_SPLIT[1]
        tiles = -(-m // cfg.block_m) * -(-n // cfg.block_n) * batch
        split = min(-(-k // cfg.block_k) // SPLIT_K_MIN_BLOCKS, -(-4 * sms // tiles))
        if split >= 2:
            return cfg._replace(split_k=split)
    return base


def tile_config(itemsize: int) -> TileConfig:
    """Tile configuration for a memory-bound 2-D kernel moving ``itemsize``-byte elements."""
    if INTERPRET:
        return TileConfig(16, 16, 1)
    return _TILE_BY_ITEMSIZE[itemsize]
