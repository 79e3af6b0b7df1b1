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
import math
import re
import warnings
from pathlib import Path
from typing import NamedTuple

import torch

from densela._arrays import INTERPRET
from densela._env import cache_dir, gpu_slug
from densela._launch import GRAPHS, PLANS, REPLAY_GRAPHS, cdiv


class GemmConfig(NamedTuple):
    """How one product runs: the kernel, its tile shape, warps and pipeline depth.

    ``kernel``: "tiles" (``gemm_tiles_kernel``: any strides, batches), "tma" (``gemm_tma_kernel``: persistent, operands
    through TMA descriptors; 2-D products) or "ws" (``gemm_ws_kernel``: persistent and warp-specialized, Gluon,
    Hopper only; ``num_warps`` is then that of each of its two consumer warp groups, 4, or of its one FMA consumer,
    8). ``split_k``: K slices (for products with too few output tiles to fill the GPU), summed in the same launch
    by the tiles kernel, by a second launch after the warp-specialized kernel (the TMA kernel does not split).
    ``flatten``: the TMA kernel pipelines across output tiles. ``epilogue_split``: the TMA and warp-specialized
    kernels store each tile in this many column slices (1, 2 or 4), so that their epilogue needs less shared
    memory. ``pingpong``: the warp-specialized kernel's consumer groups take alternate tiles whole
    instead of sharing each tile.
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
    pingpong: bool = False

    def describe(self) -> str:
        """The configuration in a few words, as ``densela tune`` prints its choices (the fields left at their
        defaults are not named).

        Example:
            >>> GemmConfig(128, 256, 32, 16, 4, 4, "ws", epilogue_split=4).describe()
            'ws 128x256x32, group 16, 4 warps, 4 stages, epilogue in 4'
            >>> GemmConfig(64, 64, 128, 8, 4, 3, split_k=2).describe()
            'tiles 64x64x128, group 8, 4 warps, 3 stages, split 2'
        """
        words = [f"{self.kernel} {self.block_m}x{self.block_n}x{self.block_k}", f"group {self.group_m}",
                 f"{self.num_warps} warps", f"{self.num_stages} stages"]  # fmt: skip
        if self.split_k > 1:
            words.append(f"split {self.split_k}")
        if not self.flatten:
            words.append("not flattened")
        if self.epilogue_split > 1:
            words.append(f"epilogue in {self.epilogue_split}")
        if self.pingpong:
            words.append("ping-pong")
        return ", ".join(words)

    def tiles(self, m: int, n: int, batch: int = 1) -> int:
        """Output tiles of an m x n product (``batch`` of them) on this configuration's blocks.

        Example:
            >>> GemmConfig(64, 128, 32, 8, 4, 3).tiles(1000, 1000), GemmConfig(64, 64, 32, 8, 4, 3).tiles(64, 65, 2)
            (128, 4)
        """
        return cdiv(m, self.block_m) * cdiv(n, self.block_n) * batch

    @classmethod
    def parse(cls, text: str) -> GemmConfig:
        """The configuration that ``describe`` writes as ``text`` (scripts take forced configurations in this form).

        Example:
            >>> cfg = GemmConfig(128, 128, 64, 8, 4, 5, "ws", split_k=2, epilogue_split=2, pingpong=True)
            >>> GemmConfig.parse(cfg.describe()) == cfg
            True
            >>> GemmConfig.parse("tiles 64x64x128, group 8, 4 warps, 6 stages, not flattened").flatten
            False
        """
        head, *words = (word.strip() for word in text.split(","))
        shape = re.fullmatch(r"(tiles|tma|ws) (\d+)x(\d+)x(\d+)", head)
        if shape is None:
            raise ValueError(f"GemmConfig.parse: {text!r} starts with no kernel and block shape (as 'tiles 64x64x32')")
        fields: dict[str, object] = {"kernel": shape[1]}
        fields["block_m"], fields["block_n"], fields["block_k"] = (int(v) for v in shape.groups()[1:])
        named = {"group": "group_m", "warps": "num_warps", "stages": "num_stages", "split": "split_k",
                 "epilogue in": "epilogue_split"}  # fmt: skip
        for word in words:
            if word in ("not flattened", "ping-pong"):
                fields["flatten" if word == "not flattened" else "pingpong"] = word == "ping-pong"
                continue
            match = re.fullmatch(r"(group|split|epilogue in) (\d+)|(\d+) (warps|stages)", word)
            if match is None:
                raise ValueError(f"GemmConfig.parse: {word!r} in {text!r} is none of describe()'s words")
            name, number = (match[1], match[2]) if match[1] else (match[4], match[3])
            fields[named[name]] = int(number)
        missing = {"group_m", "num_warps", "num_stages"} - fields.keys()
        if missing:
            raise ValueError(f"GemmConfig.parse: {text!r} names no {', '.join(sorted(missing))}")
        return cls(**fields)  # type: ignore[arg-type]


class TileConfig(NamedTuple):
    """Block shape of memory-bound 2-D kernels (transpose, add)."""

    block_m: int
    block_n: int
    num_warps: int


_GEMM_INTERPRET = GemmConfig(16, 16, 16, 4, 1, 1)

# The tables below are the best of sweeps on an NVIDIA H200 and an H100 (scripts/gemm-explore.py, 2026-11-22
# and 2026-11-23; records in bench-results/). `densela tune` replaces them per shape bucket.
_GEMM_LARGE = {
    # m * n >= LARGE_MN and m n k >= WS_MIN_WORK: 2-D products of 16-bit and TF32 operands through the
    # warp-specialized kernel (H100, scripts/ws-explore.py, 2026-11-23: bfloat16 1.02-1.06 of cuBLAS at
    # 4096^3 and 8192^3 where the TMA kernel gave 0.95-1.02 in the same runs; 3xTF32 2.1 of SGEMM at 8192^3)
    "16-bit": GemmConfig(128, 256, 64, 16, 4, 3, "ws"),
    # float32 FMA: the warp-specialized kernel's eight-warp FMA consumer (H100, 2026-11-23: 0.91-0.96 of
    # cuBLAS's SGEMM at 4096^3 and 8192^3 in the four operand orders, where the tiles kernel gave 0.82-0.86),
    # each tile stored in one slice (the same at 2048^3..8192^3 as two, 6% faster with k = 96..128)
    "ieee": GemmConfig(128, 128, 32, 8, 8, 4, "ws", epilogue_split=1),
    # TF32: tile rows in groups of 16, as for 16-bit (H100, scripts/gemm-clocks.py, 2026-11-23: 0.3-2% faster than
    # groups of 8 over three-second runs at 4096^3 and 8192^3, less DRAM traffic under the board's power limit)
    "tf32": GemmConfig(128, 256, 32, 16, 4, 4, "ws", epilogue_split=4),
    "tf32x3": GemmConfig(128, 128, 32, 8, 4, 3, "ws", epilogue_split=2),
    # float64: the warp-specialized kernel's DMMA consumer groups (H100, 2026-11-26,
    # bench-results/nvidia-h100/2026-11-26-ws-dmma: 4096^3 1.14 and 8192^3 1.02 of cuBLAS's DGEMM against 0.93 and
    # 0.96 on the tiles kernel's 64 x 128 x 16 tiles, LU's trailing updates 4096 x 4096 x 128 0.98 against 0.85)
    "float64": GemmConfig(128, 128, 32, 8, 4, 2, "ws", epilogue_split=2),
}
_GEMM_LARGE_TILES_FLOAT64 = GemmConfig(64, 128, 16, 8, 4, 3)
"""float64 where the warp-specialized kernel does not run (the tiles sweeps of 2026-11-22, H100/H200)."""
_GEMM_LARGE_ELSEWHERE = {"ieee": GemmConfig(64, 128, 32, 8, 4, 4), "float64": _GEMM_LARGE_TILES_FLOAT64}
"""Large products on GPUs where the warp-specialized kernel does not run (Hopper: ``_GEMM_LARGE_UNWRITABLE``), in
place of the TMA kernel with its tiles: float32 FMA reads nothing through TMA that the tiles kernel cannot (the best
of the tiles sweeps, H100/H200)."""
_GEMM_LARGE_UNWRITABLE = {"ieee": GemmConfig(64, 128, 16, 8, 4, 4), "float64": _GEMM_LARGE_TILES_FLOAT64}
"""The same on Hopper, where the tiles kernel takes only large float32 FMA products whose output rows TMA cannot
write (odd sizes, which also read padded copies of their operands): K steps of 16 (H100, 2026-11-24,
``bench-results/nvidia-h100/2026-11-24-odd-copies/probe-4097*``: 2049^3, 4097^3, 6001^3 at 0.83, 0.89, 0.91 of cuBLAS
against 0.80, 0.79, 0.84 with the 32-long steps above; 64 x 64 x 32 tiles 0.87, 0.88, 0.88)."""
_GEMM_MEDIUM = {
    # SMALL_MN <= m * n, and batches or too little work for the TMA kernel
    "16-bit": GemmConfig(128, 128, 64, 8, 8, 3),
    "ieee": GemmConfig(64, 64, 32, 8, 4, 3),
    "tf32": GemmConfig(128, 128, 32, 8, 8, 3),
    "tf32x3": GemmConfig(128, 128, 64, 8, 8, 2),
    "float64": GemmConfig(64, 64, 32, 8, 4, 3),
}
_GEMM_MEDIUM_NARROW = {"tf32x3": GemmConfig(64, 64, 64, 8, 4, 3)}
"""``_GEMM_MEDIUM``'s narrower tiles, by arithmetic, for products whose wide tiles fill less than MEDIUM_MIN_FILL of
their last wave of SMs (``_medium``). 3xTF32 on the H100, 2026-11-27 (GPU time of graph replays, against cuBLAS's
SGEMM, ``bench-results/nvidia-h100/2026-11-27-host-launch/call11-x3mid.jsonl``; ``densela tune quick`` had found 64 x
64 tiles at 1024^3 on an H200): 768^3 31.8 us against 50.1 on 128 x 128 tiles (1.15x SGEMM against 0.73x), 1024^3
40.4 against 64.1 (1.56x against 0.99x), 1536^3 147.9 against 175.9 (1.30x against 1.09x); where the wide tiles fill
their wave the narrow ones lose: 1280^3 88.3 against 79.3, 2000^3 266.1 against 247.0."""
MEDIUM_MIN_FILL = 0.6
"""The share of the last wave of SMs below which ``_medium`` takes the narrow tiles (1536^3 on 128 x 128 tiles: 0.55,
1280^3: 0.76, 2000^3: 0.97, 1024^3: 0.48, 768^3: 0.27 on 132 SMs)."""
_GEMM_SMALL = GemmConfig(32, 32, 32, 8, 2, 3)
"""m * n <= SMALL_MN: small tiles, so that the few output tiles still spread over the SMs (float32 512^3: 1.07
of cuBLAS against 0.80 with 64 x 64 tiles, H100)."""
_GEMM_SMALL_K = GemmConfig(32, 32, 128, 8, 4, 2)
"""m * n <= SMALL_MN and k <= SMALL_K: the whole inner dimension in one or two steps (128^3: float32 1.41,
bfloat16 1.05, float64 0.94 of cuBLAS, H100)."""
_GEMM_SMALL_FLOAT64 = GemmConfig(32, 32, 64, 8, 4, 3)
"""m * n <= SMALL_MN in float64, one product: four warps on 32 x 32 tiles in K steps of 64 (H100, 2026-11-23,
``bench-results/nvidia-h100/2026-11-23-small-float64/small64.jsonl``: 256^3 1.00 of cuBLAS against 0.89 with
``_GEMM_SMALL_K``, 512^3 0.96 against 0.93 with ``_GEMM_SMALL``, 128^3 0.86 against 0.87)."""
_GEMM_SMALLER_FLOAT64 = GemmConfig(16, 16, 64, 1, 2, 3)
"""float64 outputs of at most 256 x 256 (one product): 16 x 16 tiles of two warps (H100, 2026-11-24,
``bench-results/nvidia-h100/2026-11-24-tiny-fma/run4-*``, GPU time: 128^3 6.5 us against 7.5 on
``_GEMM_SMALL_FLOAT64``, cuBLAS 7.1; 256^3 8.3 against 8.9, cuBLAS 8.2)."""
_GEMM_SMALL_K_16BIT = GemmConfig(32, 32, 128, 8, 4, 3)
"""``_GEMM_SMALL_K`` for 16-bit operands, with a third stage: both K steps of a 256^3 product in flight (the same
run: bfloat16 256^3 6.6 us against 7.2 with two stages, cuBLAS 6.8; 128^3 6.1 against 6.0)."""
_GEMM_MID_TMA = GemmConfig(64, 128, 64, 8, 4, 4, "tma")
"""2-D 16-bit products above MID_TILES_WORK up to MID_TMA_WORK whose rows TMA reads in place: 0.84-0.89 of
cuBLAS at 1000^3 and 1100^3, above the tiles kernel there (H100)."""
_GEMM_MID_TILES = (GemmConfig(64, 128, 128, 8, 4, 3), GemmConfig(64, 64, 128, 8, 4, 4))
"""2-D 16-bit products from SMALL_MN outputs up to MID_TILES_WORK: K steps of 128 on the tiles kernel, 64 x 128
tiles where they make at least half a wave of programs, else 64 x 64; K a multiple of 128, since the TMA
kernel handles a K tail better (1000^3: 0.76 on these tiles, 0.84-0.86 on TMA's) (H100 sweeps of 2026-11-23 evening,
``bench-results/nvidia-h100/2026-11-23-gemm-long-k``: bfloat16/float16 512^3 0.94-1.05 / 0.98-0.99 of cuBLAS
against 0.88-0.91 on the TMA kernel's mid tiles; 1024^3 0.88-0.90 / 0.92-0.93 against 0.85-0.88)."""
_GEMM_SPLIT = {
    "tiny": GemmConfig(16, 16, 64, 1, 1, 3),  # outputs of at most 64 rows and columns
    "tiny-long": GemmConfig(16, 16, 128, 1, 1, 4),  # the same where K allows SPLIT_K_MAX slices of 2 steps
    "16-bit": GemmConfig(64, 64, 128, 8, 4, 4),
    "other": GemmConfig(64, 64, 32, 8, 4, 3),
}
"""Split-K tiles. 16 x 16 tiles of one warp won every output up to 50 x 50 (H100, 2026-11-23); K steps of 128
where K is long enough for SPLIT_K_MAX slices of two steps each (``2026-11-23-gemm-long-k``: 16 x 16 x 16384
1.01-1.06 of cuBLAS in bfloat16 and 1.09 in float32 against 0.84-0.86 with steps of 64; at 25 x 25 x 2500
they left 10 slices where steps of 64 leave 16: bfloat16 0.91 against 1.47); 16-bit 64 x 64 x 128 tiles, four
stages where the programs fit in one wave (256 x 256 x 8192 0.89, was 0.68; 4096 x 64 x 8192 1.02-1.03, was
0.83), three where two programs must share an SM (128 x 4096 x 4096, 256 programs: 0.88-0.89 with three
stages, 0.73 with four, whose 128 KiB leave one program per SM; was 0.71; since 2026-11-28 unsplit in six stages,
``_GEMM_DEEP_16BIT``)."""
_GEMM_DEEP_16BIT = GemmConfig(64, 64, 128, 8, 4, 6)
"""16-bit products of too few 64 x 64 tiles to fill the GPU whose tiles still fill DEEP_MIN_FILL of its SMs (``_deep``):
unsplit, one program an SM with six stages of K 128 in flight (192 KiB), as cuBLAS runs them (bfloat16 128 x 4096 x
4096: 128 unsplit 64 x 64 tiles, 13 stages of K 64, clusters of two; Nsight Compute, H100, 2026-11-28,
``bench-results/nvidia-h100/2026-11-28-tf32-thin``, call 5). GPU time (call 6): 17.8 us against 20.2 split in two with
three stages (cuBLAS 16.9); 64 x 64 x 64 tiles in 10 or 12 stages 17.7, in 6 18.8, 64 x 64 x 128 in 4 stages 18.8."""
DEEP_MIN_FILL = 0.5
"""The share of the SMs from which a 16-bit product's 64 x 64 tiles (fewer than the SMs, K >= SPLIT_K_MIN_K) run
unsplit on ``_GEMM_DEEP_16BIT`` (``_deep``): from half the SMs on, a split in two still leaves each SM a whole tile's K
(two halves, or one unsplit tile), so splitting buys nothing the deeper pipeline does not beat. H100, 2026-11-28
(call 9, GPU time, bfloat16, us, the tables before -> deep): 72 tiles 128 x 2304 x 4096 23.5 (the mid-sized TMA tiles)
-> 15.7 (cuBLAS 12.5), 128 x 2304 x 8192 26.8 -> 24.4 (22.7); 80 tiles 64 x 5120 x 8192 35.9 -> 34.2 (37.7); 88 tiles
128 x 2816 x 4096 18.7 -> 15.8 (14.5); 96 tiles 192 x 2048 x 8192 27.1 -> 23.6 (21.7); 100 and 112 tiles 16-17% faster.
Below half, the split in two wins or ties (4096 x 64 x 8192, 64 tiles: 29.9 us split, 30.0-30.9 unsplit in 8-12
stages, call 6)."""
TINY_SIDE = 64
"""Outputs of at most this many rows and columns are "tiny": split along K on ``_GEMM_SPLIT``'s 16 x 16 tiles, from
SPLIT_K_MIN_K on, and below it too in float32 FMA arithmetic and, for K > SMALL_K, in 16-bit (H100, 2026-11-24,
``bench-results/nvidia-h100/2026-11-24-tiny-fma/run3-*``, GPU time: bfloat16 1 x 1 x 1000 8.3 us against 20.8 on
the small tiles, cuBLAS 8.7; 64 x 64 x 512 8.1 against 11.2, cuBLAS 7.3; with K <= SMALL_K the small tiles' one
or two K steps stay ahead: 1 x 1 x 100 5.8 against 7.0)."""
TINY_FMA_WARPS = 4
"""Warps per 16 x 16 tile for float32 FMA products of tiny outputs (and of any length of K): Triton's FMA dot
walks K one step after another for each of a thread's outputs, and four warps leave two outputs per thread
against eight with one (H100, 2026-11-24, ``bench-results/nvidia-h100/2026-11-24-tiny-fma/run2-*``, GPU time:
12 x 12 x 1200 8.6-8.9 us against 11.1-11.8 with one warp, cuBLAS 11.0; 36 x 36 x 3600 10.3 against 14.0,
cuBLAS 13.4; 1 x 1 x 1000 9.8 against 55 on the small tiles, cuBLAS 22.1; 64 x 64 x 512 8.3 against 15.0, cuBLAS
11.4; eight warps no better)."""
_GEMM_TINY_K_IEEE = GemmConfig(16, 16, 16, 1, 4, 3)
"""float32 FMA products with k <= 16 whose 16 x 16 tiles fit in one wave: one K step per tile (100 x 100 x 1: 5.8
us against 7.1 on ``_GEMM_SMALL_K``'s 32 x 32 x 128 tiles, cuBLAS 6.6; H100, the same run)."""
_GEMM_THIN_K = GemmConfig(64, 128, 16, 8, 4, 2)
"""Products with k <= THIN_K and a large output (outer-product-like): the output write dominates."""
_GEMM_THIN_K_IEEE = GemmConfig(64, 64, 16, 8, 4, 2)
"""The same in float32 FMA arithmetic (2500 x 25 x 2500: 1.02 of cuBLAS with 64 x 64 tiles, 0.89 with 64 x 128;
bfloat16 the other way, H100)."""
_GEMM_THIN_K_TMA = GemmConfig(128, 128, 64, 8, 8, 3, "tma")
"""2-D 16-bit products with k == THIN_K: one K step of the TMA kernel (bfloat16 20480 x 64 x 20480: 1.02 of
cuBLAS against 0.88 on the tiles kernel, H100)."""

WRITE_K = (32, 128)
_GEMM_WRITE_16BIT = GemmConfig(256, 128, 64, 32, 8, 3, "tma")
"""2-D 16-bit products with WRITE_K[0] <= k <= WRITE_K[1] and an output of at least LARGE_MN, bound by writing the
output (the fill bandwidth bounds them: 20480^2 bfloat16 fills in 258 us, 3.25 TB/s): 256 x 128 tiles of the TMA
kernel, tile rows grouped by 32 (H100, 2026-11-24, ``bench-results/nvidia-h100/2026-11-24-write16``, GPU time:
20480 x 96 x 20480 1.06-1.07 of cuBLAS, 16384 x 96 x 16384 1.04-1.06, 20480 x 128 x 20480 1.07-1.08, against
0.94-0.97 on the warp-specialized kernel's 128 x 256 x 64 tiles that the large products take; 20480 x 48 x 20480
1.03 against 0.99 on ``_GEMM_THIN_K``'s tiles, 4096 x 32 x 4096 1.08 against 1.05; 20480 x 32 x 20480 and 8192 x 48
x 8192 within 1%)."""

THIN_WS_MN = 4096 * 4096
"""Outputs from which a float32 FMA product with k <= THIN_K runs on the warp-specialized kernel on Hopper, its TMA
stores leaving while the next tile's products run (H100, 2026-11-23, ``bench-results/nvidia-h100/2026-11-23-thin-ws``:
20480 x 32 x 20480 1.41 of cuBLAS against 0.95 on the tiles kernel, 4096 x 32 x 4096 1.40 against 1.18,
5000 x 50 x 5000 1.07 against 0.94; 3600 x 36 x 3600 0.94 against 1.05)."""
_GEMM_THIN_K_WS16 = GemmConfig(128, 128, 16, 8, 8, 6, "ws", epilogue_split=1)
"""The same for a k that the FMA tiles' K steps of 32 would pad by more than 16 (k mod 32 in 1..16: 36, 48):
steps of 16 in six stages (H100, 2026-11-24, ``bench-results/nvidia-h100/2026-11-24-thin-k16``: 20480 x 48 x 20480
1.21 of cuBLAS against 1.02 with steps of 32, 8192 x 48 x 8192 1.19 against 1.02, 4096 x 36 x 4096 1.11 against
0.96; four stages 2-3% slower, eight the same as six)."""
LARGE_MN = 2048 * 2048
SMALL_MN = 512 * 512
SMALL_K = 256
THIN_K = 64
THIN_WS_FROM = {"ieee": (THIN_WS_MN, 1), "float64": (LARGE_MN, 32), "tf32x3": (LARGE_MN, 32), "tf32": (LARGE_MN, 49)}
"""By arithmetic: (least m * n, least k) from which a 2-D product with k <= THIN_K runs on the warp-specialized
kernel's tiles of the large products on Hopper (``_GEMM_LARGE``; float32 FMA in K steps of 16 where steps of 32 would
pad K by more than 16, ``_GEMM_THIN_K_WS16``), not on the tiles kernel's thin-K tiles; 16-bit products keep
those. float32 FMA: ``THIN_WS_MN``. float64 (DMMA consumer groups) and 3xTF32 (three wgmma products a step), H100,
2026-11-27 (``bench-results/nvidia-h100/2026-11-27-fma-pingpong``, calls 18 and 21, GPU time of graph replays, us,
tiles -> warp-specialized): float64 4096 x 32 x 4096 59.3 -> 54.5 (cuBLAS 54.2), 8192 x 48 x 8192 301.0 -> 232.0
(234.1), 12288 x 64 x 12288 795.6 -> 540.7 (601.0), 20480 x 32 x 20480 1631 -> 1489 (1415), 20480 x 48 x 20480 1947 ->
1571 (1467), 20480 x 64 x 20480 2239 -> 1624 (1664), 2048 x 64 x 2048 27.4 -> 22.6 (23.0), 5000 x 50 x 5000 131.4 ->
99.8 (105.2); 3xTF32 4096 x 32 x 4096 47.3 -> 37.8, 8192 x 48 x 8192 191.4 -> 130.5, 12288 x 64 x 12288 546.6 -> 276.9,
20480 x 32 x 20480 1105 -> 703, 20480 x 64 x 20480 1698 -> 777 (normwise errors 1.1e-7 -> 1.3e-7). TF32 (the same
call 21): K = 64 12288^2 312.6 -> 254.1 (cuBLAS 231.1), 20480^2 941.9 -> 742.0 (666.4), where K = 48 came out even
(8192^2 108.4 -> 107.7) and K = 32 mixed (4096^2 30.1 -> 26.2, 20480^2 651.5 -> 695.9): from K = 49, where the tiles
kernel takes four of its 16-long K steps and the warp-specialized kernel two of 32 as for K = 64. Shorter K not
measured."""
TMA_MIN_WORK = 2 * 2048**3
"""m * n * k from which a 2-D product runs on the persistent TMA kernel (below it, the tiles kernel)."""
WS_MIN_WORK = 2048**3
"""m * n * k from which a 2-D product runs on the warp-specialized kernel where its table names it (H100,
2048^3, scripts/ws-explore.py, 2026-11-23: bfloat16 0.96-0.97 of cuBLAS against 0.95 on the tiles kernel,
float16 0.96-0.97 against 0.95, TF32 0.99 against 0.79, 3xTF32 2.03-2.05 of SGEMM against 1.43)."""
WS_MIN_WORK_FLOAT64 = 2048 * 2048 * 128
"""The same for float64 (from LARGE_MN outputs; LU's trailing updates have k = 128)."""
MID_WS_FROM_WORK = {"16-bit": 1100**3, "tf32": 768**3, "float64": 1000**3, "ieee": 1984**3}
"""m * n * k from which a 2-D product below WS_MIN_WORK runs on the warp-specialized kernel all the same
(``_mid_ws``), by arithmetic. H100, 2026-11-26 (``bench-results/nvidia-h100/2026-11-26-mid-ws``, GPU time against
cuBLAS, the four operand orders): bfloat16 1280^3 0.92-0.93 of cuBLAS against 0.79 on the tiles kernel, 1536^3 0.70-0.72
against 0.35 (128 x 128 tiles split in three), 1792^3 0.98 against 0.55, 2000^3 0.91-0.92 against 0.72-0.74, 1000^3
0.83 against 0.84 on the TMA kernel's mid tiles (``MID_TMA_WORK``); TF32 1000^3 0.84-0.94 against 0.71-0.79, 1536^3
0.96-1.20 against 0.54-0.71, 2000^3 0.99-1.23 against 0.66-0.84; float64 1000^3 0.91-0.92 against 0.77-0.90, 1280^3
0.90-0.92 against 0.75-0.86, 1792^3 0.88-0.91 against 0.78-0.87, 2000^3 0.92-1.08 against 0.75-0.84; a second run
(``mid-ws2`` there): TF32 768^3 0.73-0.81 against 0.65-0.71, 896^3 0.76-0.82 against 0.66-0.71, bfloat16 1104^3 0.90
against 0.72; float64 896^3 0.72-0.73 against 0.68-0.74 (left on the tiles kernel). float32 FMA only from 1984^3
(0.94-0.98 against 0.91-0.94, 2000^3 0.87-0.96 against 0.79-0.87; 1920^3 and below faster on the tiles kernel: 0.98-1.00
against 0.93-0.96, 1792^3 0.96-1.07 against 0.80-0.88)."""
MID_WS_MIN_K = 768
"""The shortest inner dimension of the mid-sized products measured on the warp-specialized kernel (``_mid_ws``);
shorter ones, such as LU's trailing updates (k = 128), keep the tables' choice before: under the lab's ``lu-refine``
at e321278, where they had moved there too, TF32 refinement at n = 16384 took 179.3 ms against 170.5."""
MID_WS_MIN_FILL = {"float64": 0.75, "ieee": 0.9}
"""The least share of the last wave of SMs a mid-sized product's warp-specialized tiles must fill, by arithmetic
(``_mid_ws``): float64 1536^3 fills 0.73 of it on 128 x 64 tiles and ran at 0.71-0.73 of cuBLAS there, against
0.74-0.85 on the tiles kernel; 1280^3 fills 0.76 on 128 x 128 tiles (0.90-0.92 against 0.75-0.86). float32 FMA:
1984^3 and 2000^3 fill 0.97 of it and gain (above); 1000 x 3000 x 4000 (m, n, k) fills 0.73 and took 710.6 us there
against 637.0 on the tiles kernel, 2500 x 2500 x 1250 fills 0.76 and took 454.9 against 441.2 (H100, 2026-11-26,
``bench-results/nvidia-h100/2026-11-26-mid-ws/call11-ab-ieee-e443001-77edc73.jsonl``)."""
_GEMM_MID_WS_NARROW = {
    "16-bit": GemmConfig(128, 128, 64, 8, 4, 5, "ws", epilogue_split=2, pingpong=True),
    "tf32": GemmConfig(128, 128, 32, 8, 4, 4, "ws", epilogue_split=2),
    "float64": GemmConfig(128, 64, 16, 8, 4, 4, "ws", epilogue_split=2),
}
"""The narrower warp-specialized tiles a mid-sized product takes where they fill the SMs' last wave better than
``_GEMM_LARGE``'s (``_mid_ws``; the same runs: bfloat16 1280^3 0.92 on these against 0.65 on 128 x 256 tiles, TF32
1000^3 0.84 against 0.68, float64 1792^3 0.88 against 0.73). float32 FMA has one set of tiles (``mid_ws_tiles``)."""
MID_TMA_WORK = 1100**3
"""m * n * k up to which 2-D 16-bit products of at least SMALL_MN outputs run on the TMA kernel's mid tiles."""
MID_TILES_WORK = 1024**3
"""m * n * k up to which they run on the tiles kernel's mid tiles (``_GEMM_MID_TILES``) instead."""

SPLIT_WS_MIN_SIDE = 128
"""float32 FMA products with fewer output tiles than SMs, K >= SPLIT_K_MIN_K and both sides at least this long run on
the warp-specialized kernel split along K (``_ws_split``; H100, 2026-11-23,
``bench-results/nvidia-h100/2026-11-23-split-ws``: 128 x 4096 x 4096 0.94 of cuBLAS in 4 slices against 0.86 on the
tiles kernel's split-K, 256 x 4096 x 4096 0.95 in 2 against 0.82; with a side of 64, half of each tile is empty:
4096 x 64 x 8192 0.59 against 0.98). 16-bit products stay on the tiles kernel (128 x 4096 x 4096: 0.72-0.81 split
on the warp-specialized kernel against 0.83)."""
SPLIT_K_MIN_BLOCKS = 2
"""Split-K leaves at least this many BLOCK_K steps to each slice."""
SPLIT_K_MIN_K = 1024
"""Products with a shorter inner dimension are never split to fill the GPU (a small product gains less than
it pays)."""
SPLIT_K_SLICE = 1024
"""Longest K slice of a split product with more than 64 x 64 outputs."""
SPLIT_K_MAX = 32
"""The most slices a product with few output tiles is split into (its finishing program adds them all)."""
BALANCE_SPLITS = (2, 3)
"""The K slices ``_balanced`` weighs, unless BALANCE_SPLITS_BY_ARITH names the product's arithmetic."""
BALANCE_SPLITS_BY_ARITH = {"ieee": (2, 3, 4)}
"""``_balanced``'s K slices by arithmetic where they differ from BALANCE_SPLITS: float32 FMA also in four. H100,
2026-11-27 (``bench-results/nvidia-h100/2026-11-27-thin-int8/call8-balance-splits.jsonl`` and ``call9-...``, GPU time
of graph replays, 64 x 64 x 32 tiles, three slices -> four): float32 720^3 35.5 -> 33.8 us, 768^3 36.4 -> 34.8,
900^3 59.5 -> 54.6, 960^3 59.0 -> 54.0, 1026^3 80.4 -> 77.5, 1058^3 (34 K steps: slices of 12 in three, 9 in four)
87.6 -> 79.6, 1088^3 73.5 -> 72.0; at 1160^3 .. 1650^3, where four is now chosen too, within 1% of the choice
before (one or three slices); two or three slices stay where the sweeps found them faster (1090^3 .. 1152^3, 1350^3,
1930^3). float64's partial sums cost more: four slices lost 4-8% against three at 720^3 .. 1088^3."""
BALANCE_COST = 1.08
"""Work per SM a split must save, as a factor, before it pays for writing and adding its partial sums."""
BALANCE_MAX_TILE = 64 * 64
"""Largest output tile (elements) ``_balanced`` splits: 128 x 128 tiles split in three ran at half their unsplit
speed (H100, 2026-11-26, ``bench-results/nvidia-h100/2026-11-26-mid-ws``, 1536^3: bfloat16 46.7 us against 22.4
unsplit, TF32 72.5 against 46.0), where 64 x 64 tiles gain (float64 1152^3 81.6 us split in two against 89.6)."""


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
def warp_specialized(device: int | None) -> bool:
    """Whether ``gemm_ws_kernel`` runs on CUDA device ``device``: Hopper (sm_90, wgmma), not the interpreter."""
    return not INTERPRET and device is not None and torch.cuda.get_device_capability(device) == (9, 0)


def without_warp_specialization(cfg: GemmConfig) -> GemmConfig:
    """The persistent TMA kernel with the tiles, stages and epilogue of the warp-specialized ``cfg`` (eight warps
    for tiles of 128 x 128 or more, as in its own tables): for GPUs other than Hopper, the interpreter, and
    products the warp-specialized kernel does not take. Other configurations unchanged.

    Example:
        >>> without_warp_specialization(GemmConfig(128, 256, 64, 8, 4, 3, "ws")).kernel
        'tma'
    """
    if cfg.kernel != "ws":
        return cfg
    return cfg._replace(kernel="tma", num_warps=8 if cfg.block_m * cfg.block_n >= 128 * 128 else 4)


def _fitted(cfg: GemmConfig, itemsize: int, device: int | None) -> GemmConfig:
    """``cfg`` within ``device``'s shared memory: no more pipeline stages than fit beside the output tile, which
    the tiles kernel's epilogue also stages there, and no split along K whose partial-sum tile (float32, or
    float64 for float64) does not fit twice. On an H100 (227 KiB) bfloat16 128 x 256 x 64 tiles asked Triton for
    256 KiB with four stages, and split in 2 or 3 with three stages too: 1050^3, 1100^3 and 1536^3 products
    failed to compile until 2026-11-23. TMA configurations pass unchanged (measured tables; slice-wise
    epilogue)."""
    if device is None or cfg.kernel != "tiles":
        return cfg
    memory = shared_memory(device)
    tile = cfg.block_m * cfg.block_n
    if cfg.split_k > 1 and 2 * tile * max(itemsize, 4) > memory:
        cfg = cfg._replace(split_k=1)
    stages = cfg.num_stages
    while stages > 1 and _pipeline_bytes(cfg._replace(num_stages=stages), itemsize) + tile * itemsize > memory:
        stages -= 1
    return cfg if stages == cfg.num_stages else cfg._replace(num_stages=stages)


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
    tma: bool = True,
) -> GemmConfig:
    """Configuration for a ``batch`` of m x n x k products of ``dtype`` in ``precision`` (float32) on ``device``.

    A dictionary look-up after the first call for a shape: the configuration `densela tune` stored for the
    shape's bucket on this GPU model, else the tables above (``choose_gemm_config``). ``tma=False`` asks for
    a configuration of the tiles kernel.

    Example:
        >>> import torch
        >>> from densela.tuning import gemm_config
        >>> cfg = gemm_config(64, 64, 64, torch.float32)
        >>> cfg.block_m > 0 and cfg.num_warps > 0
        True
    """
    key = (m, n, k, dtype, precision, batch, device, tma)
    cfg = _CHOSEN.get(key)
    if cfg is None:
        if len(_CHOSEN) >= _CHOSEN_LIMIT:
            _CHOSEN.clear()
        arith = arithmetic(dtype, precision)
        cfg = tuned(device).get(arith, {}).get(bucket(m, n, k, batch))
        if cfg is None or (cfg.kernel != "tiles" and not tma):
            cfg = choose_gemm_config(m, n, k, dtype, precision, batch=batch, device=device, tma=tma)
        elif not warp_specialized(device):
            cfg = without_warp_specialization(cfg)
        _CHOSEN[key] = cfg
    return cfg


def clear_cache() -> None:
    """Forgets the configurations chosen so far, the launches planned with them and the tuned tables read (after
    `densela tune`, in tests)."""
    _CHOSEN.clear()
    PLANS.clear()
    GRAPHS.clear()
    REPLAY_GRAPHS.clear()
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
    tma: bool = True,
) -> GemmConfig:
    """The untuned choice: large 2-D products of 16-bit and TF32 operands, and mid-sized 16-bit ones, on the
    persistent TMA kernel (``tma=False``: never), outputs with a tiny inner dimension on outer-product tiles,
    products whose output tiles cannot fill the GPU split along K, everything else on the tiles kernel with
    tiles sized to the output and, where the last wave of tiles would leave SMs idle, split in 2 or 3.

    Example:
        >>> import torch
        >>> cfg = choose_gemm_config(50, 50, 5000, torch.float32)  # under the interpreter: one small tile
        >>> cfg.block_m > 0
        True
    """
    if INTERPRET:
        return _GEMM_INTERPRET
    return _fitted(_short_k(_table_choice(m, n, k, dtype, precision, batch, device, tma), k), dtype.itemsize, device)


def _short_k(cfg: GemmConfig, k: int) -> GemmConfig:
    """``cfg`` with K steps no longer than K's next power of two (at least 16) on the tiles kernel, unsplit: a step
    longer than K stages masked operand tiles in shared memory and multiplies them, and the larger stages leave
    fewer programs an SM. Batched LU's trailing updates (k = 32 on the 32 x 32 x 128 small-K tiles) on the H100,
    2026-11-24 (``bench-results/nvidia-h100/2026-11-24-short-k/``): 10000 x 128 x 128 float64 factored in 8.79 ms
    against 9.62 (the updates 1.21 ms against 2.03), float32 4.03 against 5.01, 100 x 100 5.82 against 7.25
    (float64) and 3.68 against 4.72.

    Example:
        >>> small_k = GemmConfig(32, 32, 128, 8, 4, 2)
        >>> _short_k(small_k, 32).block_k, _short_k(small_k, 200).block_k
        (32, 128)
    """
    if cfg.kernel != "tiles" or cfg.split_k > 1 or k >= cfg.block_k:
        return cfg
    return cfg._replace(block_k=max(16, 1 << max(0, k - 1).bit_length()))


def _table_choice(
    m: int, n: int, k: int, dtype: torch.dtype, precision: str | None, batch: int, device: int | None, tma: bool
) -> GemmConfig:
    """``choose_gemm_config``'s choice from the tables, before fitting it to the device's shared memory."""
    arith = arithmetic(dtype, precision)
    mn = m * n
    if arith == "16-bit" and WRITE_K[0] <= k <= WRITE_K[1] and mn >= LARGE_MN and tma and batch == 1:
        return _GEMM_WRITE_16BIT
    if k <= THIN_K and mn >= SMALL_MN:
        if arith == "16-bit" and k == THIN_K and tma and batch == 1:
            return _GEMM_THIN_K_TMA
        least_mn, least_k = THIN_WS_FROM.get(arith, (mn + 1, k + 1))
        if mn >= least_mn and k >= least_k and tma and batch == 1 and warp_specialized(device):
            large = _GEMM_LARGE[arith]
            padded = arith == "ieee" and 0 < k % large.block_k <= large.block_k // 2
            return _GEMM_THIN_K_WS16 if padded else large
        return _GEMM_THIN_K_IEEE if arith == "ieee" else _GEMM_THIN_K
    if mn >= LARGE_MN:
        large = _GEMM_LARGE[arith]
        if not warp_specialized(device) or not tma:
            elsewhere = _GEMM_LARGE_UNWRITABLE if warp_specialized(device) else _GEMM_LARGE_ELSEWHERE
            large = elsewhere.get(arith) or without_warp_specialization(large)
        min_work = TMA_MIN_WORK
        if large.kernel == "ws":
            min_work = WS_MIN_WORK_FLOAT64 if arith == "float64" else WS_MIN_WORK
        if large.kernel != "tiles" and (batch > 1 or mn * k < min_work or not tma):
            large = _mid_ws(arith, m, n, k, batch, device, tma) or _GEMM_MEDIUM[arith]
        if device is None or _pipeline_bytes(large, dtype.itemsize) <= shared_memory(device):
            return _balanced(large, arith, m, n, k, batch, device)
    if arith == "16-bit" and _deep(m, n, k, batch, device):
        return _GEMM_DEEP_16BIT
    if arith == "16-bit" and batch == 1 and mn >= SMALL_MN and mn * k <= MID_TILES_WORK and k % 128 == 0:
        wide, narrow = _GEMM_MID_TILES
        return wide if 2 * wide.tiles(m, n) >= multiprocessors(device) else narrow
    if arith == "16-bit" and tma and batch == 1 and mn >= SMALL_MN and mn * k <= MID_TMA_WORK:
        return _GEMM_MID_TMA
    sms = multiprocessors(device)
    tiny = max(m, n) <= TINY_SIDE
    tiny_fma = tiny and arith == "ieee"
    tiny_split = tiny_fma or (tiny and arith == "16-bit" and k > SMALL_K)  # split below SPLIT_K_MIN_K too
    if k >= SPLIT_K_MIN_K or tiny_split:
        if arith == "ieee" and tma and batch == 1 and min(m, n) >= SPLIT_WS_MIN_SIDE and warp_specialized(device):
            split = _ws_split(m, n, k, sms)
            if split > 1:
                return _GEMM_LARGE["ieee"]._replace(split_k=split)
        # Output tiles too few to fill the GPU even when small: split K over more programs, about 1.5 per SM,
        # each with at least SPLIT_K_MIN_BLOCKS steps of K.
        if tiny:
            long = cdiv(k, _GEMM_SPLIT["tiny-long"].block_k) >= SPLIT_K_MIN_BLOCKS * SPLIT_K_MAX
            cfg = _GEMM_SPLIT["tiny-long" if long else "tiny"]
            choices = [cfg._replace(num_warps=TINY_FMA_WARPS) if tiny_fma else cfg]
        else:
            choices = [_GEMM_SPLIT["16-bit"]] * (arith == "16-bit") + [_GEMM_SPLIT["other"]]
        for cfg in choices:
            tiles = cfg.tiles(m, n, batch)
            if tiles < sms:
                wave = cfg is _GEMM_SPLIT["16-bit"]
                split = _few_tiles_split(tiles, k, cfg, sms, tiny=tiny, wave=wave)
                if split >= 2 and wave and tiles * split > sms:
                    return cfg._replace(split_k=split, num_stages=3)  # two programs per SM: 96 KiB each
                if split >= 2 or tiny_split:
                    return cfg._replace(split_k=max(split, 1))
    if mn <= SMALL_MN:
        if arith == "float64" and batch == 1:
            return _GEMM_SMALLER_FLOAT64 if mn <= 256 * 256 else _GEMM_SMALL_FLOAT64
        tiny_k = _GEMM_TINY_K_IEEE
        if arith == "ieee" and k <= tiny_k.block_k and tiny_k.tiles(m, n, batch) <= sms:
            return tiny_k
        if k <= SMALL_K:
            return _GEMM_SMALL_K_16BIT if arith == "16-bit" else _GEMM_SMALL_K
        return _GEMM_SMALL
    mid_ws = _mid_ws(arith, m, n, k, batch, device, tma)
    return mid_ws or _balanced(_medium(arith, m, n, batch, device), arith, m, n, k, batch, device)


def _deep(m: int, n: int, k: int, batch: int, device: int | None) -> bool:
    """Whether a 16-bit product runs unsplit on ``_GEMM_DEEP_16BIT``: K >= SPLIT_K_MIN_K and 64 x 64 tiles fewer than
    the SMs but at least DEEP_MIN_FILL of them.

    Example (``device`` None: the interpreter's three SMs, which two tiles fill two thirds of):
        >>> _deep(128, 64, 4096, 1, None), _deep(128, 64, 512, 1, None), _deep(64, 64, 4096, 1, None)
        (True, False, False)
    """
    sms = multiprocessors(device)
    tiles = _GEMM_DEEP_16BIT.tiles(m, n, batch)
    return k >= SPLIT_K_MIN_K and DEEP_MIN_FILL * sms <= tiles < sms


def _medium(arith: str, m: int, n: int, batch: int, device: int | None) -> GemmConfig:
    """``_GEMM_MEDIUM``'s tiles for ``arith``, or ``_GEMM_MEDIUM_NARROW``'s where the wide ones would fill less than
    MEDIUM_MIN_FILL of their last wave of SMs.

    Example (``device`` None: the interpreter's three SMs, which one 128 x 128 tile fills a third of):
        >>> _medium("tf32x3", 128, 128, 1, None).block_m, _medium("tf32x3", 1024, 1024, 1, None).block_m
        (64, 128)
    """
    wide, narrow = _GEMM_MEDIUM[arith], _GEMM_MEDIUM_NARROW.get(arith)
    tiles = wide.tiles(m, n, batch)
    if narrow is None or wave_fill(tiles, multiprocessors(device)) >= MEDIUM_MIN_FILL:
        return wide
    return narrow


def _mid_ws(arith: str, m: int, n: int, k: int, batch: int, device: int | None, tma: bool) -> GemmConfig | None:
    """The warp-specialized tiles for a 2-D product of at least MID_WS_FROM_WORK multiply-adds and MID_WS_MIN_K along
    K (below the tables' WS_MIN_WORK), or None where it stays on the tiles kernel: ``_GEMM_LARGE``'s tiles, or the
    narrower ones of ``_GEMM_MID_WS_NARROW`` where their tiles fill the last wave of SMs better (the kernel is
    persistent: a product of 72 tiles on 132 SMs runs as long as one of 132), if either fills at least
    MID_WS_MIN_FILL of it.

    Example:
        >>> import torch
        >>> _mid_ws("16-bit", 1280, 1280, 1280, 1, None, True) is None  # not on a Hopper GPU
        True
    """
    least = MID_WS_FROM_WORK.get(arith)
    if least is None or m * n * k < least or k < MID_WS_MIN_K or batch > 1 or not tma or not warp_specialized(device):
        return None
    sms = multiprocessors(device)
    wide, narrow = mid_ws_tiles(arith)
    fill = [wave_fill(c.tiles(m, n), sms) for c in (wide, narrow)]
    if max(fill) < MID_WS_MIN_FILL.get(arith, 0.0):
        return None
    return wide if fill[0] >= fill[1] - 0.01 else narrow


def mid_ws_tiles(arith: str) -> tuple[GemmConfig, GemmConfig]:
    """(wide, narrow): the warp-specialized tiles ``_mid_ws`` chooses between for a mid-sized product of ``arith``
    (one of MID_WS_FROM_WORK's), the same twice where the tables have no narrower ones (`densela tune` weighs both).

    Example:
        >>> wide, narrow = mid_ws_tiles("float64")
        >>> (wide.block_n, narrow.block_n), mid_ws_tiles("ieee")[0] == mid_ws_tiles("ieee")[1]
        ((128, 64), True)
    """
    wide = _GEMM_LARGE[arith]
    return wide, _GEMM_MID_WS_NARROW.get(arith, wide)


TF32_MMA2_SIDE = 256
"""2-D TF32 products whose shorter output side is at most this long, K at least SPLIT_K_MIN_K, and an operand TMA reads
in place but not K-major run on the warp-specialized kernel with ``mma_v2`` (``tf32_mma2_config``): bound by reading
the large operand, they need no more than ``mma.sync``'s TF32 rate (about 175 TFLOP/s on the H100, half of wgmma's),
and ``mma_v2`` reads fragments of either order from the stage, where wgmma needs a K-major copy of an N-major B or an
A through registers. H100, 2026-11-27 (``bench-results/nvidia-h100/2026-11-27-tf32-mma2``, GPU time of graph replays,
us, the tables' path before -> ``mma_v2``; nn: row-major operands, tn: A column-major, tt: both): 64 x 4096 x 4096 nn
54.8 -> 33.9, tn 58.1 -> 36.4; 4096 x 64 x 4096 nn 39.0 -> 35.0, tn 57.7 -> 33.1; 128 x 4096 x 4096 nn 83.8 -> 37.4,
tn 89.7 -> 41.9; 64 x 8192 x 8192 nn 216.1 -> 98.3, tn 219.5 -> 104.9, tt 118.4 -> 103.4; 128 x 8192 x 2048 tn 92.5
-> 42.2, the others 2-7% faster; 192 and 256 x 4096 x 4096 tn 115 -> 69-70, nn and tt within 3% either way;
4096 x 256 x 4096 tn 66.9 -> 69.8, the others 1-3% faster; 512 x 4096 x 4096 nn 63.8 -> 104.1 (there mma.sync's rate
binds). Both operands K-major stay on wgmma (64 x 4096 x 4096 on the tiles kernel: 33.7). The rule depends on the
operands' memory order, which a shape bucket does not know: `densela tune`'s choice for the bucket (measured on
row-major operands) is not consulted there, as for the launcher's other layout rules."""
_GEMM_TF32_MMA2 = GemmConfig(128, 128, 32, 8, 4, 4, "ws", epilogue_split=2)


def tf32_mma2_config(m: int, n: int, k: int, device: int | None) -> GemmConfig:
    """The warp-specialized tiles of a thin TF32 product on ``mma_v2`` (``TF32_MMA2_SIDE``): 128 x 128, a side of at
    most 64 on 64-long tiles, split along K into about one work item per SM (at least SPLIT_K_MIN_BLOCKS steps each).

    Example:
        >>> cfg = tf32_mma2_config(64, 4096, 4096, None)
        >>> cfg.kernel, cfg.block_m, cfg.block_n, cfg.split_k >= 1
        ('ws', 64, 128, True)
    """
    cfg = _GEMM_TF32_MMA2
    cfg = cfg._replace(block_m=64 if m <= 64 else cfg.block_m, block_n=64 if n <= 64 else cfg.block_n)
    tiles = cfg.tiles(m, n)
    split = min(multiprocessors(device) // tiles, cdiv(k, cfg.block_k) // SPLIT_K_MIN_BLOCKS)
    return cfg._replace(split_k=max(1, split))


def wave_fill(tiles: int, sms: int) -> float:
    """The share of ``sms`` a persistent kernel's ``tiles`` keep busy over its waves: tiles / (waves * sms).

    Example:
        >>> wave_fill(72, 132), wave_fill(264, 132)
        (0.5454545454545454, 1.0)
    """
    return tiles / (cdiv(tiles, sms) * sms)


def _ws_split(m: int, n: int, k: int, sms: int) -> int:
    """K slices of a float32 FMA product on the warp-specialized kernel's tiles (``_GEMM_LARGE["ieee"]``) when they
    are fewer than the SMs: about one work item per SM, a power of two, each slice at least SPLIT_K_SLICE long,
    and at least half a wave of items; 1 where that leaves no split.

    Example:
        >>> _ws_split(128, 4096, 4096, 132), _ws_split(256, 256, 8192, 132)
        (4, 1)
    """
    cfg = _GEMM_LARGE["ieee"]
    tiles = cfg.tiles(m, n)
    if tiles >= sms:
        return 1
    split = 1 << round(math.log2(sms / tiles))
    while split > 1 and k < split * SPLIT_K_SLICE:
        split //= 2
    return split if 2 * tiles * split >= sms else 1


def _few_tiles_split(tiles: int, k: int, cfg: GemmConfig, sms: int, tiny: bool, wave: bool = False) -> int:
    """How many K slices a product of ``tiles`` output tiles (fewer than the SMs) is split into.

    About 1.5 programs per SM, and for outputs larger than 64 x 64 also slices of at most SPLIT_K_SLICE of K;
    with ``wave`` (the 16-bit tiles of 128-long K steps) about one program per SM whatever K; the nearest power
    of two (even slices), at least SPLIT_K_MIN_BLOCKS steps of K each, at most SPLIT_K_MAX. From the H100
    sweeps of 2026-11-23 (best splits: 50 x 50 x 5000: 16; 16 x 16 x 16384: 16-32; 64 x 64 x 32 tiles:
    256 x 256 x 8192: 8-16, 128 x 4096 x 4096: 4-5, 4096 x 64 x 8192: 4-8; 64 x 64 x 128 tiles: 8, 2 and 2-4).
    """
    per_sm = round(sms / tiles) if wave else max(cdiv(3 * sms, 2 * tiles), 1 if tiny else k // SPLIT_K_SLICE)
    want = max(2, per_sm)
    want = 1 << round(math.log2(want))
    return min(cdiv(k, cfg.block_k) // SPLIT_K_MIN_BLOCKS, SPLIT_K_MAX, want)


def _balanced(cfg: GemmConfig, arith: str, m: int, n: int, k: int, batch: int, device: int | None) -> GemmConfig:
    """``cfg`` split in 2 or 3 along K (float32 FMA also 4: BALANCE_SPLITS_BY_ARITH) where that spreads the work more
    evenly over the SMs.

    Output tiles go to the SMs in waves; a product with a few more tiles than a whole number of waves (float32
    1050^3: 289 tiles of 64 x 64, three on some SMs, two on most) leaves most SMs idle in the last wave.
    The work per SM is ceil(programs / SMs) programs of 1/split of a tile's K each; a split must cut it by
    BALANCE_COST. (float32 on an H100: 1050^3 0.78 -> 0.91 of cuBLAS with 3 slices, 1100^3 0.87 -> 0.97
    with 2.)
    """
    if cfg.kernel != "tiles" or cfg.split_k > 1 or cfg.block_m * cfg.block_n > BALANCE_MAX_TILE:
        return cfg
    sms = multiprocessors(device)
    tiles = cfg.tiles(m, n, batch)
    best, best_work = 1, float(cdiv(tiles, sms))
    for split in BALANCE_SPLITS_BY_ARITH.get(arith, BALANCE_SPLITS):
        if cdiv(k, cfg.block_k) < 4 * split:
            break
        work = cdiv(tiles * split, sms) / split * BALANCE_COST
        if work < best_work:
            best, best_work = split, work
    return cfg if best == 1 else cfg._replace(split_k=best)


def tile_config(itemsize: int) -> TileConfig:
    """Tile configuration for a memory-bound 2-D kernel moving ``itemsize``-byte elements."""
    if INTERPRET:
        return TileConfig(16, 16, 1)
    return _TILE_BY_ITEMSIZE[itemsize]


FLAT_TILE = TileConfig(512, 1, 4)
"""``add`` of operands and a result that are one dense run alike (``add_tiles_kernel``'s FLAT path): 512 consecutive
items a program, 4 warps, whatever the item size. H100, 2026-11-26 (``scripts/memory-explore.py flat``,
bench-results/nvidia-h100/2026-11-26-l2-flush/call3-flat.jsonl): 1.00-1.03x torch.add on 4096^2 and 8192 x 4096
float32, bfloat16 and float64 and on 100000 x 100 float32, where ``tile_config``'s tiles (4096 float32 items, 16384
bfloat16, 2048 float64 a program) gave 0.93-0.97x in float32 and bfloat16; 1024 to 16384 items with 1 to 8 warps
were slower on at least one of the shapes."""

_SQUARE_TILES = {8: TileConfig(64, 64, 4)}
"""In-place square blocks' tiles where they differ from ``tile_config``: 8-byte items in 64 x 64 tiles (H100,
2026-11-24, ``bench-results/nvidia-h100/2026-11-24-packed`` run3 and run8: float64 5000^2 at 88% of the copy
bandwidth against 82-83% with 32 x 32 tiles; 4096^2 at 93-94% either way)."""


def square_tiles(itemsize: int) -> TileConfig:
    """Tiles of the in-place square transposes (``transpose.launch_square_blocks``: the block side is the smaller
    of their sides).

    Example:
        >>> square_tiles(4) == tile_config(4)
        True
    """
    if INTERPRET:
        return tile_config(itemsize)
    return _SQUARE_TILES.get(itemsize, tile_config(itemsize))


THIN_SIDE = 128
"""A matrix with a side this short or shorter is transposed with tiles that span that side (``transpose_tiles``)."""


def transpose_tiles(m: int, n: int, stride_m: int, stride_n: int, itemsize: int, pack: int = 1) -> TileConfig:
    """Tiles (BLOCK_M along the m rows, BLOCK_N along the n columns) for transposing an m x n matrix of
    ``itemsize``-byte words, each ``pack`` items (``transpose._packed``: 1- and 2-byte items moved as 32-bit
    words, the tiles BLOCK_M item rows by BLOCK_N words: ``_PACKED_TILES``).

    4-byte words with a side of at most THIN_SIDE get tiles spanning that side: 128 x 128 with 8 warps when
    the matrix is read along its short side, 128 along the short side and 32 along the long one when it is
    read along the long side; the H100 sweep of 2026-11-22 (memory-explore run 2) measured 81-82% of the copy
    bandwidth with these on 100000 x 100 and 100 x 100000 in both memory orders, against 61-79% with the
    square tiles. A short side of at most 64 words (a packed one) is spanned by its next power of two, the
    tiles twice as long for each halving when read along it. 8-byte items with at most THIN_SIDE rows: 128 x 32
    tiles with 4 warps read along the rows, 128 x 16 with 2 along the columns (H100, 2026-11-24,
    ``bench-results/nvidia-h100/2026-11-24-packed/run6-transpose-tiles.jsonl``: float64 100 x 100000 at 88-90% of
    the copy bandwidth against 78% with the square tiles; 100000 x 100 gained nothing). 4- and 8-byte words with
    both sides above THIN_SIDE: 64 x 64 tiles of 8 warps (``_LARGE_TRANSPOSE_TILES``). 1-byte items packed with at
    most THIN_SIDE rows take the 4-byte words' thin tiles, 128 x 32 words with 4 warps (H100, 2026-11-27,
    ``bench-results/nvidia-h100/2026-11-27-thin-int8/call1-join.jsonl``: the best or within 1.1 points of the best
    of eleven tilings on int8 100 x 700000 and 700000 x 100 in both orders); moved one by one (sides or strides
    not multiples of 4) with a short side read along the long one: ``_BYTE_THIN_TILES``. Everything else:
    ``tile_config``.

    Example:
        >>> transpose_tiles(128, 128, 128, 1, 4) == tile_config(4)
        True
        >>> transpose_tiles(4096, 4096, 4096, 1, 4).num_warps  # 8 on a GPU; the interpreter's tiny tiles have one
        1
    """
    if not INTERPRET and pack == 1 and min(m, n) > THIN_SIDE and itemsize in _LARGE_TRANSPOSE_TILES:
        return _LARGE_TRANSPOSE_TILES[itemsize]
    cfg = _PACKED_TILES[pack] if pack > 1 and not INTERPRET else tile_config(itemsize)
    if INTERPRET or itemsize not in (1, 4, 8) or min(m, n) > THIN_SIDE or max(m, n) < 8 * THIN_SIDE:
        return cfg
    short_is_m = m <= n
    read_along_short = (stride_m == 1) if short_is_m else (stride_n == 1)
    if itemsize == 1:
        return _BYTE_THIN_TILES if pack == 1 and not read_along_short else cfg
    if itemsize == 8:  # only matrices of few rows gain (100 x 100000: 78% -> 88-90%, run6-transpose-tiles)
        if not short_is_m:
            return cfg
        return TileConfig(THIN_SIDE, 16, 2) if read_along_short else TileConfig(THIN_SIDE, 32, 4)
    short = max(16, min(THIN_SIDE, 1 << (min(m, n) - 1).bit_length()))
    long_block = THIN_SIDE * THIN_SIDE // short if read_along_short else 32
    warps = 8 if read_along_short else 4
    return TileConfig(short, long_block, warps) if short_is_m else TileConfig(long_block, short, warps)


_BYTE_THIN_TILES = TileConfig(128, 128, 4)
"""1-byte items moved one by one (not packed: ``transpose._packed``, sides or strides not multiples of 4) in a matrix
with a side of at most THIN_SIDE read along its long side (such as 101 x 700000 row-major: rows of 101 items
written): ``tile_config``'s 128 x 128 tiles with 4 warps instead of 8. Measured before such matrices of sides that
are multiples of 4 were packed: H100, 2026-11-26
(``bench-results/nvidia-h100/2026-11-26-l2-flush/call8-int8-tiles.jsonl``, twenty tilings): 83.8-91.8% of the copy
bandwidth on 100 x 400000 and 100 x 700000 row-major and their column-major
transposes, against 73.3-76.5% with 8 warps and at most 83% with any other tiling."""

_LARGE_TRANSPOSE_TILES = {4: TileConfig(64, 64, 8), 8: TileConfig(64, 64, 8)}
"""Out-of-place transposes of 4- and 8-byte words with both sides above THIN_SIDE. H100, 2026-11-24
(``bench-results/nvidia-h100/2026-11-24-short-k/run3-small-tiles-ab-41c5706.jsonl``, the median of three interleaved
rounds, both memory orders, the tnl and memory-targets shapes): float32 10000^2 at 91.7-92.8% of the copy bandwidth
against 86.9-90.4% with ``tile_config``'s 64 x 64 tiles of 4 warps, the other shapes within a point either way (5000^2
87-88%, 4096^2 89-90% with either); float64 0.5-1.8 points above its 32 x 64 tiles on the shapes of 5000 and 10000
(2500 x 5000 88-89%, 5000^2 92%), within a point elsewhere."""

_PACKED_TILES = {2: TileConfig(128, 64, 4), 4: TileConfig(128, 64, 4)}
"""Packed transposes' tiles (item rows x words): the best of twelve in most rows of the H100 sweep of 2026-11-24
(``bench-results/nvidia-h100/2026-11-24-packed``; bfloat16 8192 x 4096 at 91.9% of the copy bandwidth against
90.3-91.6% with 128 x 64 x 8)."""
