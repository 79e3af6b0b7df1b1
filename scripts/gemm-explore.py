"""Explores GEMM kernel paths and configurations on a GPU against cuBLAS: the evidence behind the tables in
``densela.tuning`` (a precursor of ``densela tune``, which sweeps the same way per shape bucket).

    python3 scripts/gemm-explore.py [GROUP ...]      # groups: thin thin-ws thin-ws16 small small64 small16 long-k
                                                     #         mid16 16bit ieee overhead split-ws thin-k16 large64 ws64
                                                     #         ws64-mid ws64-small tiny-fma tiny-16 small-w
                                                     #         mid-ws mid-ws2

Phase 1 compiles every variant in worker processes (filling Triton's cache); phase 2 times each in this
process: the call's launches are captured in a CUDA graph, whose replays ``tune.graph_ms`` times
(median of a 40 ms run, L2 flushed), so that host time stays out of the comparison (the lab's own timing
hides it behind the flush); two passes over a shape's variants, the second in reverse order (the record keeps
both medians and rates the smaller), against cuBLAS through torch captured the same way on the same inputs,
with each variant's normwise error against a float64 product. Records go to $OUT/explore.jsonl (or
./explore.jsonl) as they are measured; a summary table is printed last. The group ``overhead`` measures the
wall time per call, Python included, against torch.matmul.
"""

from __future__ import annotations

import cProfile
import importlib
import io
import json
import multiprocessing as mp
import os
import pstats
import sys
import time
from dataclasses import dataclass

import torch

from densela.tuning import GemmConfig as C
from densela.tuning.tune import THIN_K_CANDIDATES, graph_ms

G = importlib.import_module("densela.gemm")
OUT = os.environ.get("OUT", ".")
DEVICE = 0 if torch.cuda.is_available() else None
DEADLINE_S = float(os.environ.get("EXPLORE_DEADLINE_S", "480"))
"""Seconds after which no further shape is timed (the device tool stops a command at 600)."""


@dataclass(frozen=True)
class Variant:
    group: str
    dtype: str
    precision: str
    shape: tuple[int, int, int]
    layout: str = "nn"
    cfg: C | None = None  # None: what densela's tables choose
    pad: bool | str = False  # the tiles kernel reads unaligned operands from padded copies whatever the size
    # ("a" or "b": only that operand)

    @property
    def key(self) -> tuple:
        return (self.dtype, self.precision, self.shape, self.layout)


def _tma(*args, **kw) -> C:
    return C(*args, kernel="tma", **kw)


MID_16BIT = [_tma(128, 128, 64, 8, 8, 4), _tma(128, 128, 64, 8, 4, 4), _tma(64, 128, 64, 8, 4, 4),
             _tma(128, 64, 64, 8, 4, 4), _tma(128, 256, 64, 8, 8, 3), _tma(64, 256, 64, 8, 4, 4),
             C(64, 128, 64, 8, 4, 3), C(128, 128, 64, 8, 8, 3), C(64, 64, 64, 8, 4, 3), C(64, 128, 128, 8, 4, 3),
             C(64, 64, 128, 8, 4, 4)]  # fmt: skip
WAVE = [C(64, 64, 32, 8, 4, 3), C(64, 64, 32, 8, 4, 3, split_k=2), C(64, 64, 32, 8, 4, 3, split_k=3),
        C(32, 64, 32, 8, 4, 3), C(64, 32, 32, 8, 4, 3), C(32, 64, 32, 8, 2, 3), C(32, 32, 32, 8, 2, 3),
        C(64, 64, 32, 8, 4, 4), C(64, 64, 16, 8, 4, 4)]  # fmt: skip
LARGE_16BIT = [_tma(128, 256, 64, 8, 8, 3), _tma(128, 256, 64, 16, 8, 3), _tma(128, 256, 64, 8, 8, 4, epilogue_split=2),
               _tma(128, 256, 64, 16, 8, 4, epilogue_split=2), _tma(256, 128, 64, 8, 8, 3),
               _tma(128, 256, 64, 4, 8, 3), _tma(128, 256, 64, 16, 8, 3, flatten=False),
               _tma(128, 128, 64, 16, 8, 4), _tma(128, 256, 64, 32, 8, 3)]  # fmt: skip
SMALL = [C(16, 16, 64, 8, 1, 2), C(16, 32, 64, 8, 2, 2), C(32, 32, 64, 8, 2, 2), C(32, 32, 128, 8, 4, 2),
         C(32, 64, 64, 8, 4, 2), C(64, 64, 64, 8, 4, 2), C(32, 32, 32, 8, 2, 3), C(64, 64, 32, 8, 4, 3),
         C(64, 128, 64, 8, 4, 3)]  # fmt: skip
LARGE64 = [C(64, 128, 16, 8, 4, 3), C(64, 128, 32, 8, 4, 2), C(64, 128, 32, 8, 4, 3), C(128, 64, 32, 8, 4, 2),
           C(128, 64, 32, 8, 4, 3), C(128, 128, 32, 8, 8, 2)]  # fmt: skip
"""float64 at 4096^3 and 8192^3 (0.88-0.95 of cuBLAS): K steps of 32, two steps' DMMAs between each pair of the K
loop's block syncs (the 16-deep steps load their fragments between two syncs, docs/performance.md); these compile
for sm_90 without spills (238-248 registers), and none was in the sweeps of 2026-11-22."""
WS64 = [C(128, 128, 16, 8, 4, 4, "ws", epilogue_split=2), C(128, 128, 16, 8, 4, 3, "ws", epilogue_split=2),
        C(128, 128, 32, 8, 4, 2, "ws", epilogue_split=2), C(128, 128, 16, 8, 4, 2, "ws", epilogue_split=1),
        C(128, 64, 32, 8, 4, 3, "ws", epilogue_split=1), C(128, 64, 16, 8, 4, 5, "ws", epilogue_split=1),
        C(64, 128, 16, 8, 4, 4, "ws", epilogue_split=1), C(128, 128, 16, 16, 4, 4, "ws", epilogue_split=2)]  # fmt: skip
"""float64 on the warp-specialized kernel's DMMA consumer groups (TMA stages, fragments read between mbarrier
waits, no block-wide sync between the reads and the products): tiles, K steps, stages and epilogue slices that fit
the 227 KiB of shared memory."""
SMALL64 = [C(32, 32, 128, 8, 4, 2), C(32, 32, 32, 8, 2, 3), C(16, 32, 128, 8, 2, 2), C(32, 16, 128, 8, 2, 2),
           C(16, 32, 64, 8, 2, 3), C(16, 16, 128, 8, 1, 2), C(32, 32, 64, 8, 4, 3), C(32, 32, 128, 8, 2, 2),
           C(32, 32, 64, 8, 4, 2, split_k=2), C(32, 32, 32, 8, 2, 3, split_k=2), C(32, 32, 32, 8, 2, 3, split_k=4),
           C(16, 32, 64, 8, 2, 3, split_k=2), C(32, 64, 64, 8, 4, 3, split_k=2),
           C(64, 64, 32, 8, 4, 3, split_k=4)]  # fmt: skip
SMALL16 = [C(32, 32, 128, 8, 4, 2), C(32, 32, 64, 8, 4, 3), C(16, 32, 64, 8, 2, 3), C(32, 16, 128, 8, 2, 2),
           C(16, 32, 128, 8, 2, 2), C(16, 16, 128, 8, 1, 2), C(32, 32, 64, 8, 2, 3), C(32, 64, 64, 8, 4, 3),
           C(64, 64, 64, 8, 4, 3), C(32, 32, 128, 8, 2, 2), C(16, 64, 64, 8, 2, 3)]  # fmt: skip
THIN_WS = [
    C(128, 128, 32, 8, 8, 4, "ws", epilogue_split=2),
    C(128, 128, 16, 8, 8, 4, "ws", epilogue_split=2),
    C(128, 128, 64, 8, 8, 3, "ws", epilogue_split=2),
    C(128, 128, 32, 8, 8, 4, "ws", epilogue_split=1),
    C(64, 64, 16, 8, 4, 2),
]
THIN_K16 = [
    C(128, 128, 16, 8, 8, 4, "ws", epilogue_split=1),
    C(128, 128, 16, 8, 8, 6, "ws", epilogue_split=1),
    C(128, 128, 16, 8, 8, 8, "ws", epilogue_split=1),
    C(128, 128, 32, 8, 8, 4, "ws", epilogue_split=1),
]
THIN_WS16 = [C(128, 256, 64, 16, 4, 3, "ws"), C(128, 128, 64, 8, 4, 5, "ws", epilogue_split=2, pingpong=True),
             C(128, 128, 64, 8, 4, 4, "ws", pingpong=True),
             C(128, 128, 32, 8, 4, 6, "ws", epilogue_split=2, pingpong=True),
             C(128, 256, 64, 16, 4, 3, "ws", epilogue_split=2)]  # fmt: skip
SPLIT_WS = {  # warp-specialized tiles split along K: float32 partial sums need an epilogue of at most 64 KiB
    "bfloat16": [C(128, 128, 64, 8, 4, 4, "ws", epilogue_split=2), C(128, 64, 64, 8, 4, 5, "ws"),
                 C(128, 256, 64, 16, 4, 3, "ws", epilogue_split=4),
                 C(128, 128, 64, 8, 4, 4, "ws", epilogue_split=2, pingpong=True)],
    "float32": [C(128, 128, 32, 8, 8, 4, "ws", epilogue_split=1), C(128, 128, 16, 8, 8, 5, "ws", epilogue_split=1),
                C(128, 128, 32, 8, 8, 4, "ws", epilogue_split=2)],
}  # fmt: skip
MID_WS = {  # products below the tables' WS_MIN_WORK (2048^3): the warp-specialized kernel against the tiles kernel
    ("bfloat16", "ieee"): [C(128, 256, 64, 16, 4, 3, "ws"),
                           C(128, 128, 64, 8, 4, 5, "ws", epilogue_split=2, pingpong=True),
                           C(128, 128, 64, 8, 4, 4, "ws", epilogue_split=2)],
    ("float32", "tf32"): [C(128, 256, 32, 16, 4, 4, "ws", epilogue_split=4),
                          C(128, 128, 32, 8, 4, 4, "ws", epilogue_split=2)],
    ("float32", "ieee"): [C(128, 128, 32, 8, 8, 4, "ws", epilogue_split=1)],
    ("float64", "ieee"): [C(128, 128, 32, 8, 4, 2, "ws", epilogue_split=2),
                          C(128, 64, 16, 8, 4, 4, "ws", epilogue_split=2)],
}  # fmt: skip
SPLIT_BASES = [C(16, 16, 64, 1, 1, 3), C(32, 32, 64, 1, 4, 3), C(64, 64, 32, 8, 4, 3), C(32, 64, 64, 8, 4, 3)]
SPLITS = (4, 8, 16, 32, 64)
LONG_K = {  # rounds 2-3 of 2026-11-23 evening: larger tiles over the short side, deeper K steps
    (256, 256, 8192): ([C(64, 64, 128, 8, 4, 3), C(64, 64, 128, 8, 4, 4), C(64, 64, 256, 8, 4, 3),
                        C(128, 128, 64, 8, 8, 4), C(128, 128, 128, 8, 8, 3), C(64, 128, 128, 8, 4, 3),
                        C(128, 64, 128, 8, 4, 3)], (4, 8, 16, 32)),
    (128, 4096, 4096): ([C(64, 64, 128, 8, 4, 3), C(64, 64, 128, 8, 4, 4), C(128, 64, 128, 8, 4, 3),
                         C(128, 128, 64, 8, 8, 4), C(128, 128, 128, 8, 8, 3), C(128, 256, 64, 8, 8, 3),
                         C(64, 64, 256, 8, 4, 3)], (1, 2, 4, 8)),
    (4096, 64, 8192): ([C(64, 64, 128, 8, 4, 3), C(64, 64, 128, 8, 4, 4), C(64, 64, 256, 8, 4, 3),
                        C(128, 64, 128, 8, 4, 3), C(128, 64, 64, 8, 4, 4)], (2, 4, 8)),
    (16, 16, 16384): ([C(16, 16, 128, 1, 1, 4), C(16, 16, 256, 1, 1, 3), C(16, 16, 256, 1, 1, 4),
                       C(16, 16, 512, 1, 1, 3), C(16, 16, 128, 1, 1, 6), C(16, 16, 64, 1, 1, 3)], (8, 16, 32)),
    (256, 256, 256): ([C(64, 64, 128, 8, 4, 2), C(32, 32, 128, 8, 4, 2), C(32, 64, 128, 8, 4, 2),
                       C(64, 64, 256, 8, 4, 1), C(32, 32, 256, 8, 4, 1)], (1, 2)),
    (512, 512, 512): ([C(64, 64, 128, 8, 4, 3), C(64, 64, 128, 8, 4, 4), C(64, 64, 256, 8, 4, 2),
                       C(32, 64, 128, 8, 4, 4), C(64, 128, 128, 8, 4, 3)], (1,)),
    (1024, 1024, 1024): ([C(64, 64, 128, 8, 4, 3), C(64, 128, 128, 8, 4, 3), C(128, 128, 128, 8, 8, 3),
                          C(128, 128, 64, 8, 8, 4)], (1,)),
}  # fmt: skip
LONG_K_FLOAT32 = [(16, 16, 16384), (256, 256, 8192)]


def _variants() -> list[Variant]:
    """This round's questions, group by group; each shape also runs with densela's own choice (cfg None)."""
    out: list[Variant] = []

    def add(group, dtype, precision, shapes, cfgs, layout="nn", pad=False):
        for shape in shapes:
            out.append(Variant(group, dtype, precision, shape, layout, None))
            out.extend(Variant(group, dtype, precision, shape, layout, cfg, pad) for cfg in cfgs)

    few_tiles = [(1, 1, 100), (12, 12, 1200), (25, 25, 2500), (36, 36, 3600), (50, 50, 5000), (256, 256, 8192),
                 (128, 4096, 4096), (4096, 64, 8192), (16, 16, 16384)]  # fmt: skip
    tiny_k = [(100, 100, 1), (1200, 1200, 12), (2500, 2500, 25), (3600, 3600, 36), (5000, 5000, 50), (4096, 4096, 32),
              (20480, 20480, 32)]  # fmt: skip
    for dt in ("float32", "bfloat16"):
        for shape in few_tiles:
            m, n, k = shape
            tiles = {base: -(-m // base.block_m) * -(-n // base.block_n) for base in SPLIT_BASES}
            cfgs = [base._replace(split_k=s) for base in SPLIT_BASES for s in SPLITS
                    if -(-k // base.block_k) >= 2 * s and tiles[base] < 132]  # fmt: skip
            add("thin", dt, "ieee", [shape], cfgs + SMALL[:3])
        add("thin", dt, "ieee", tiny_k, THIN_K_CANDIDATES + SMALL[5:7])
    # float32 FMA with a short K and a large output (the gemm-thin rows): the warp-specialized FMA consumer, whose
    # TMA stores leave while the next tile's products run, against the tiles kernel (64 x 64 x 16: its thin-K
    # table before 2026-11-23 night); odd sizes leave the warp-specialized kernel (rows TMA cannot write)
    thin_ws = [(20480, 20480, 32), (20480, 20480, 48), (20480, 20480, 64), (20480, 20480, 96), (20480, 20480, 128),
               (16384, 16384, 96), (12288, 12288, 64), (8192, 8192, 48), (4096, 4096, 32), (5000, 5000, 50),
               (3600, 3600, 36), (2500, 2500, 25), (5001, 5001, 50), (20481, 20481, 32),
               (4097, 4097, 4097)]  # fmt: skip
    add("thin-ws", "float32", "ieee", thin_ws, THIN_WS)
    # bfloat16 the same shapes: the output's stores bound them; ping-pong overlaps one group's stores with the
    # other's products
    add("thin-ws16", "bfloat16", "ieee", thin_ws[:9], THIN_WS16)
    # K not a multiple of the FMA tiles' 32-long steps (20480 x 48 x 20480 at 1.01-1.08 of cuBLAS, where k = 32 and
    # 64 give 1.3-1.4): steps of 16 waste no products on K = 48, and 12 of 48 at K = 36 (against 28 of 64)
    add(
        "thin-k16",
        "float32",
        "ieee",
        [(20480, 20480, 48), (8192, 8192, 48), (3600, 3600, 36), (4096, 4096, 36)],
        THIN_K16,
    )
    # few output tiles and a long K (gemm-thin: 128 x 4096 x 4096 at 0.87-0.89 of cuBLAS on the tiles kernel's
    # split-K): the warp-specialized kernel's K slices, added up by split_sum_kernel
    for dt, bases in SPLIT_WS.items():
        for shape in [(128, 4096, 4096), (256, 256, 8192), (4096, 64, 8192), (256, 4096, 4096)]:
            m, n, k = shape
            cfgs = [b._replace(split_k=s) for b in bases for s in (2, 4, 8, 16, 32)
                    if -(-m // b.block_m) * -(-n // b.block_n) * s <= 264 and -(-k // b.block_k) >= 4 * s]  # fmt: skip
            add("split-ws", dt, "ieee", [shape], cfgs)
    for dt in ("float32", "bfloat16", "float64"):
        add("small", dt, "ieee", [(n, n, n) for n in (128, 256, 512)], SMALL)
    add("large64", "float64", "ieee", [(n, n, n) for n in (4096, 8192)], LARGE64[1:])
    add("ws64", "float64", "ieee", [(n, n, n) for n in (2048, 4096, 8192)], WS64)
    add("ws64", "float64", "ieee", [(4096, 4096, 128), (8064, 8064, 128)], WS64[:3])  # LU's trailing updates
    # where the tables' float64 choice moves from the tiles kernel to the warp-specialized one (WS_MIN_WORK_FLOAT64)
    mid64 = [(2048, 2048, 128), (2048, 2048, 256), (2048, 2048, 1024), (3072, 3072, 128), (2048, 4096, 128)]
    add("ws64-mid", "float64", "ieee", mid64, [None, LARGE64[0], C(64, 64, 32, 8, 4, 3)])
    # below LARGE_MN outputs (the tables' medium tiles): whether the DMMA groups pay there too
    small64 = [(1024, 1024, 1024), (1536, 1536, 1536), (1024, 1024, 4096), (2048, 1024, 1024), (1536, 1536, 128)]
    add(
        "ws64-small",
        "float64",
        "ieee",
        small64,
        [
            None,
            WS64[2],
            C(128, 64, 32, 8, 4, 2, "ws", epilogue_split=2),
            C(128, 64, 16, 8, 4, 4, "ws", epilogue_split=2),
        ],
    )
    # float64 up to 512^3 (0.91-0.94 of cuBLAS in the lab of 2026-11-23): thinner tiles, more warps, K splits
    add("small64", "float64", "ieee", [(n, n, n) for n in (128, 256, 512)], SMALL64)
    for dt in ("bfloat16", "float16"):  # 16-bit 256^3 at 0.94-0.96 of cuBLAS (2026-11-23)
        add("small16", dt, "ieee", [(n, n, n) for n in (128, 256, 512)], SMALL16)
    # 16-bit products that stream their operands (few output tiles, long K) and small ones: deeper K steps,
    # tiles spanning the short side, splits
    for shape, (bases, splits) in LONG_K.items():
        m, n, k = shape
        cfgs = [b._replace(split_k=s) for b in bases for s in splits if -(-k // b.block_k) >= 2 * s or s == 1]
        for dt in ("bfloat16", "float16") if max(shape) <= 1024 else ("bfloat16",):
            add("long-k", dt, "ieee", [shape], cfgs)
    for shape in LONG_K_FLOAT32:
        bases = [C(16, 16, 64, 1, 1, 3), C(16, 16, 128, 1, 1, 4)] if max(shape[:2]) <= 64 else SPLIT_BASES[2:]
        add("long-k", "float32", "ieee", [shape], [b._replace(split_k=s) for b in bases for s in (8, 16, 32)])
    for dt in ("bfloat16", "float16"):
        add("mid16", dt, "ieee", [(n, n, n) for n in (512, 1000, 1024, 1100, 1536, 2048)], MID_16BIT)
    wave = [(n, n, n) for n in (1001, 1024, 1025, 1050, 1088, 1089, 1100)]
    add("ieee", "float32", "ieee", wave, WAVE)
    add("ieee", "float32", "ieee", [(1001, 1001, 1001), (1050, 1050, 1050)], WAVE[:1], pad=True)
    # odd sizes (pa2-sgemm): rows off 16-byte boundaries load element by element; the padded copies (``pad``)
    # against the tables' unpadded choice, on both sides of N = 1024 and on sizes of 17^2 tiles that load in vectors
    odd = [(n, n, n) for n in (1001, 1023, 1024, 1025, 1027, 1031, 1049, 1050, 1056, 1088, 1089, 1099)]
    add("odd", "float32", "ieee", odd, [None, *WAVE[:3]], pad=True)
    # copies cost about 15 us of 88 at 1025^3: one operand padded, the other read element by element
    for side in ("a", "b"):
        add("odd-side", "float32", "ieee", [odd[i] for i in (0, 3, 5, 6, 11)], [None], pad=side)
    for dt in ("bfloat16", "float16"):
        add("16bit", dt, "ieee", [(n, n, n) for n in (4096, 8192)], LARGE_16BIT)
    # float32 FMA products of tiny outputs (gemm-thin: 12 x 12 x 1200 at 11 us where bfloat16 takes 8 on the same
    # one-warp 16 x 16 tiles): Triton's FMA dot walks K serially per output, so fewer outputs per thread (more
    # warps per tile) and K slices of one or a few steps each (the tables leave at least two)
    tiny_out = [(1, 1, 100), (1, 1, 1000), (32, 32, 256), (64, 64, 512), (12, 12, 1200), (25, 25, 2500),
                (36, 36, 3600), (50, 50, 5000), (16, 16, 16384), (100, 100, 1)]  # fmt: skip
    for shape in tiny_out:
        k = shape[2]
        cfgs = [C(16, 16, bk, 1, warps, 3, split_k=split) for bk in (16, 32, 64, 128) for warps in (1, 4, 8)
                for split in (1, 2, 4, 8, 16, 32, 64) if split <= -(-k // bk) and (split > 1 or k <= 1024)]  # fmt: skip
        add("tiny-fma", "float32", "ieee", [shape], cfgs)
        # bfloat16 on the same tiles (tensor-core dots; one warp per tile won the sweeps of 2026-11-23)
        cfgs16 = [C(16, 16, bk, 1, warps, 3, split_k=split) for bk in (64, 128) for warps in (1, 2, 4)
                  for split in (1, 4, 8, 16, 32) if split <= -(-k // bk) and (split > 1 or k <= 1024)]  # fmt: skip
        add("tiny-16", "bfloat16", "ieee", [shape], cfgs16)
    # small squares below 1.0 of cuBLAS (bfloat16 256^3 0.96, float64 128^3 0.92): more warps on small tiles
    small_w = [C(16, 16, bk, 1, w, 3, split_k=s) for bk in (32, 64, 128) for w in (1, 2, 4) for s in (1, 2)]
    small_w += [C(32, 32, bk, 8, w, 3, split_k=s) for bk in (64, 128) for w in (4, 8) for s in (1, 2)]
    for dt in ("bfloat16", "float64"):
        add("small-w", dt, "ieee", [(128, 128, 128), (256, 256, 256)], small_w)
    # bfloat16 large outputs with a short K (gemm-thin: 20480^2 x 32..128 at 0.94-1.03 of cuBLAS), bound by writing
    # the output (the fill bandwidth: 3.25 TB/s). 2026-11-24 round 1: one K step (block_k = K) and one stage ran at
    # half speed, two stages at 1.00-1.05 of cuBLAS; round 2: the tile order (the operands are small, so grouping
    # tile rows for L2 reuse buys nothing; rows of tiles side by side write neighbouring DRAM pages): within 2% for
    # K = 32 and 64; K = 128 1.05-1.07 on 256 x 128 x 128 tiles with tile rows grouped by 32, against 0.96 for the
    # tables' 128 x 128 x 64; round 3: K of 96 and 128
    for k in (96, 128):
        cfgs = [_tma(256, 128, bk, 32, 8, st) for bk, st in ((128, 2), (64, 2), (64, 3), (32, 4))]
        cfgs += [_tma(128, 256, 128, 32, 8, 2), _tma(128, 128, 128, 32, 8, 2), _tma(128, 128, 64, 32, 8, 3)]
        shapes = [(20480, 20480, k), (16384, 16384, k)] if k == 96 else [(20480, 20480, k)]
        add("write16", "bfloat16", "ieee", shapes, cfgs)
    # round 4 (the tables since b6f7116 take 256 x 128 x 64 for 64 < K <= 128): K of 32 and 48 on the same tiles
    write = [_tma(256, 128, 64, 32, 8, 3), _tma(256, 128, 32, 32, 8, 3), _tma(256, 128, 16, 32, 8, 4),
             _tma(128, 128, 64, 8, 8, 3), _tma(128, 256, 32, 32, 8, 3)]  # fmt: skip
    add(
        "write16",
        "bfloat16",
        "ieee",
        [(20480, 20480, 48), (8192, 8192, 48), (20480, 20480, 32), (4096, 4096, 32)],
        write,
    )
    # mid-sized products (1000^3 .. 2000^3 and the thin 64 x 4096 x 4096 of the lab's gemm-layouts), below the
    # tables' WS_MIN_WORK: on the tiles kernel bfloat16 2000^3 ran at 0.74 of cuBLAS and TF32 at 0.64 where 2048^3
    # on the warp-specialized kernel ran at 0.96-0.99; every operand order
    mid = [(n, n, n) for n in (1000, 1280, 1536, 1792, 2000)]
    for (dt, precision), cfgs in MID_WS.items():
        for layout in ("nn", "tn") if dt == "bfloat16" else ("nn", "nt", "tn", "tt"):
            add("mid-ws", dt, precision, mid, cfgs, layout)
    # round 2 (group mid-ws2): sizes in between, odd and non-square ones, the tiles kernel's medium tiles unsplit
    between = {
        ("bfloat16", "ieee"): ([1104, 1152, 1408, 1536, 1537, 1664, 1900, 1920], C(128, 128, 64, 8, 8, 3), ("nn",)),
        ("float32", "tf32"): ([768, 896, 1152, 1408, 1536, 1664, 1920], C(128, 128, 32, 8, 8, 3), ("nn", "tn")),
        ("float64", "ieee"): ([896, 1152, 1408, 1664, 1920], C(64, 64, 32, 8, 4, 3), ("nn", "tn")),
        ("float32", "ieee"): ([1856, 1920, 1984], C(64, 64, 32, 8, 4, 3), ("nn", "tn")),
    }
    for (dt, precision), (sides, medium, layouts) in between.items():
        shapes = [(n, n, n) for n in sides] + [(4096, 1024, 1024), (2048, 2048, 1024)] * (dt != "float32")
        for layout in layouts:
            add("mid-ws2", dt, precision, shapes, [medium, *MID_WS[dt, precision]], layout)
    tf32_split = [C(128, 128, 32, 8, 4, 4, "ws", epilogue_split=2, split_k=s) for s in (2, 4)]
    for layout in ("nn", "nt", "tn", "tt"):
        add("mid-ws", "float32", "tf32", [(64, 4096, 4096), (4096, 64, 4096)], tf32_split, layout)
    return out


def _inputs(v: Variant, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    m, n, k = v.shape
    gen = torch.Generator(device="cuda").manual_seed(seed)
    dtype = getattr(torch, v.dtype)
    wide = torch.float64 if dtype == torch.float64 else torch.float32

    def stored(rows: int, cols: int, transposed: bool) -> torch.Tensor:
        shape = (cols, rows) if transposed else (rows, cols)
        t = torch.randn(shape, generator=gen, device="cuda", dtype=wide).to(dtype)
        return t.T if transposed else t

    return stored(m, k, v.layout[0] == "t"), stored(k, n, v.layout[1] == "t")


PAD_FROM_WORK = G.PAD_FROM_WORK
TILES_OPERANDS = G._tiles_operands


def _one_side(side: str):
    """``gemm._tiles_operands`` copying only operand ``side`` ("a" or "b") into padded rows."""

    def operands(a: torch.Tensor, b: torch.Tensor, precision: str) -> tuple[torch.Tensor, torch.Tensor, int]:
        if side == "a":
            return G._aligned_copy(a, 16), b, b.shape[1]
        b = G._aligned_copy(b, 16)
        return a, b, b.stride(0)

    return operands


def _run(v: Variant, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    G.PAD_FROM_WORK = 0 if v.pad else PAD_FROM_WORK
    G._tiles_operands = _one_side(v.pad) if isinstance(v.pad, str) else TILES_OPERANDS
    G.launch_gemm(a, b, None, out, 1.0, 0.0, v.precision, v.cfg)


def _compile_worker(variants: list[Variant]) -> list[str]:
    failures = []
    for v in variants:
        try:
            a, b = _inputs(v)
            out = torch.empty(v.shape[0], v.shape[1], dtype=a.dtype, device="cuda")
            _run(v, a, b, out)
            torch.cuda.synchronize()
        except Exception as e:
            failures.append(f"{v}: {type(e).__name__}: {str(e)[:300]}")
        finally:
            torch.cuda.empty_cache()
    return failures


def _cublas(v: Variant, a: torch.Tensor, b: torch.Tensor):
    tf32 = v.precision == "tf32"

    def run():
        torch.backends.cuda.matmul.allow_tf32 = tf32
        r = torch.matmul(a, b)
        torch.backends.cuda.matmul.allow_tf32 = False
        return r

    return run


def _median(fn) -> tuple[float, float, float]:
    """GPU time of ``fn``'s launches (median, p20, p80): CUDA-graph replays, as ``densela tune`` times them."""
    return tuple(graph_ms(fn, rep_ms=40, quantiles=(0.5, 0.2, 0.8)))


def _overhead(records: list[dict]) -> None:
    """Wall time per call, Python included (torch.matmul, densela.matmul, the launcher): the best of seven loops
    of 2000 calls each, the calls taking turns; and a profile of the replayed densela.matmul at 128^3."""
    import densela as dl

    shapes = [(128, 128, 128, torch.float32), (128, 128, 128, torch.bfloat16), (128, 128, 128, torch.float64),
              (512, 512, 512, torch.float32), (50, 50, 5000, torch.float32),
              (16, 16, 16384, torch.bfloat16)]  # fmt: skip
    for m, n, k, dt in shapes:
        a, b = torch.randn(m, k, device="cuda", dtype=dt), torch.randn(k, n, device="cuda", dtype=dt)
        out = torch.empty(m, n, device="cuda", dtype=dt)

        def loop(fn, count=2000):
            t = time.perf_counter()
            for _ in range(count):
                fn()
            torch.cuda.synchronize()
            return (time.perf_counter() - t) / count * 1e6

        calls = {
            "torch_us": lambda a=a, b=b: torch.matmul(a, b),
            "densela_us": lambda a=a, b=b: dl.matmul(a, b),
            "densela_out_us": lambda a=a, b=b, out=out: dl.matmul(a, b, out=out),
            "torch_out_us": lambda a=a, b=b, out=out: torch.matmul(a, b, out=out),
            "launch_us": lambda a=a, b=b, out=out: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee"),
        }
        for fn in calls.values():  # warm-up: compile, plan
            loop(fn, 50)
        best = dict.fromkeys(calls, float("inf"))
        for _ in range(7):  # the calls take turns, so that a slow stretch of the host hits them alike
            for name, fn in calls.items():
                best[name] = min(best[name], loop(fn))
        row = dict(group="overhead", shape=(m, n, k), dtype=str(dt), **best)
        row["ratio"] = row["densela_us"] / row["torch_us"]
        records.append(row)
        print(json.dumps(row), flush=True)
    a = torch.randn(128, 128, device="cuda")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(2000):
        dl.matmul(a, a)
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(25)
    with open(os.path.join(OUT, "overhead-profile.txt"), "w") as f:
        f.write(text.getvalue())


def main(groups: list[str]) -> None:
    torch.backends.cuda.matmul.allow_tf32 = False
    variants = [v for v in _variants() if not groups or v.group in groups]
    print(f"{torch.cuda.get_device_name()} torch {torch.__version__}; {len(variants)} variants", flush=True)
    if "write16" in groups:  # the ceiling of a product that writes its output: the GPU's fill bandwidth
        out = torch.empty(20480, 20480, dtype=torch.bfloat16, device="cuda")
        fill_ms = _median(lambda: out.fill_(1.0))[0]
        gbs = out.numel() * 2 / fill_ms / 1e6
        print(f"fill of 20480^2 bfloat16: {fill_ms * 1e3:.1f} us, {gbs:.0f} GB/s", flush=True)
        del out
    started = time.time()
    workers = max(2, min(14, (os.cpu_count() or 4) - 2))
    chunks = [variants[i::workers] for i in range(workers)]
    with mp.get_context("spawn").Pool(workers) as pool:
        failures = [f for chunk in pool.map(_compile_worker, chunks) for f in chunk]
    print(f"compiled in {time.time() - started:.0f} s; {len(failures)} failures", flush=True)
    for f in failures:
        print("  FAILED", f, flush=True)
    records: list[dict] = []
    path = os.path.join(OUT, "explore.jsonl")
    by_key: dict[tuple, list[Variant]] = {}
    for v in variants:
        by_key.setdefault(v.key, []).append(v)
    with open(path, "w") as f:
        for key, group in by_key.items():
            if time.time() - started > DEADLINE_S:
                print(f"deadline: {key} and later groups not timed", flush=True)
                break
            v0 = group[0]
            a, b = _inputs(v0)
            m, n, k = v0.shape
            ref = a.double() @ b.double()
            ref_norm = float(ref.norm())
            base = _cublas(v0, a, b)
            base_ms = _median(base)[0]
            base_err = float((base().double() - ref).norm()) / ref_norm
            flops = 2.0 * m * n * k
            timed: dict[Variant, list[float]] = {}
            for v in [*group, *reversed(group)]:  # two passes, the second in reverse order
                if v.cfg is None and v in timed:
                    continue
                try:
                    out = torch.empty(m, n, dtype=a.dtype, device="cuda")
                    timed.setdefault(v, []).append(_median(lambda v=v, a=a, b=b, out=out: _run(v, a, b, out))[0])
                except Exception:
                    pass
            for v in group:
                cfg = None if v.cfg is None else v.cfg._asdict()
                rec = dict(group=v.group, dtype=v.dtype, precision=v.precision, shape=v.shape, layout=v.layout,
                           cfg=cfg, pad=v.pad, cublas_ms=base_ms, cublas_err=base_err)  # fmt: skip
                try:
                    out = torch.empty(m, n, dtype=a.dtype, device="cuda")
                    if v.cfg is None:
                        rec["chosen"] = G.gemm_config(m, n, k, a.dtype, v.precision, device=0)._asdict()
                    _run(v, a, b, out)
                    out.fill_(float("nan"))  # judged on a second call, which takes the cached launch path
                    _run(v, a, b, out)
                    err = float((out.double() - ref).norm()) / ref_norm
                    runs = timed[v]
                    ms = min(runs)
                    rec.update(ms=ms, runs=runs, ratio=base_ms / ms, tflops=flops / ms / 1e9, err=err)
                except Exception as e:
                    rec.update(error=f"{type(e).__name__}: {str(e)[:300]}")
                records.append(rec)
                f.write(json.dumps(rec) + "\n")
                f.flush()
            del a, b, ref
            torch.cuda.empty_cache()
    if not groups or "overhead" in groups:
        _overhead(records)
        with open(path, "a") as f:
            for r in records:
                if r["group"] == "overhead":
                    f.write(json.dumps(r) + "\n")
    _summary(records)
    print(f"total {time.time() - started:.0f} s", flush=True)


def _describe(cfg: dict) -> str:
    return (
        f"{cfg['kernel']} {cfg['block_m']}x{cfg['block_n']}x{cfg['block_k']} w{cfg['num_warps']} s{cfg['num_stages']} "
        f"g{cfg['group_m']} split{cfg['split_k']} flat{cfg['flatten']} es{cfg.get('epilogue_split', 1)}"
        f"{' pingpong' if cfg.get('pingpong') else ''}"
    )


def _summary(records: list[dict]) -> None:
    """Per (group, dtype, precision, shape, layout): cuBLAS, densela's choice and the best variant."""
    keys: dict[tuple, list[dict]] = {}
    for r in records:
        if r["group"] != "overhead":
            keys.setdefault((r["group"], r["dtype"], r["precision"], tuple(r["shape"]), r["layout"]), []).append(r)
    for key, rs in keys.items():
        ok = [r for r in rs if "ms" in r]
        if not ok:
            print(*key, "all failed")
            continue
        best = max(ok, key=lambda r: r["ratio"])
        chosen = next((r for r in ok if r["cfg"] is None and not r.get("pad")), None)
        cfg = best["cfg"]
        pad = best.get("pad")
        desc = ("default" if cfg is None else _describe(cfg)) + (f" padded {pad}" if pad else "")
        chosen_txt = f" default {chosen['ratio']:.2f}" if chosen else ""
        shape = "x".join(map(str, key[3]))
        print(f"{key[0]:7} {key[1]:8} {key[2]:6} {shape:17} {key[4]} cublas {rs[0]['cublas_ms']:.4f} "
              f"best {best['ratio']:.2f} ({best['tflops']:.0f} TF, err {best['err']:.1e} vs {best['cublas_err']:.1e}) "
              f"{desc}{chosen_txt}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
