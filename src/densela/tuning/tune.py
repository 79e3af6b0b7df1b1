"""`densela tune`: measure GEMM configurations per shape bucket on this GPU and keep the best.

For each product shape asked for (the GEMM cases of benchmark suites, or shapes given on the command line),
every candidate configuration for its arithmetic and size class is timed on random operands as CUDA-graph
replays of its launches (``graph_ms``: GPU time, the median of CUDA-event times after L2 flushes, two passes over the
candidates, the second in reverse order; each candidate rated by its faster pass). Shapes that share a
bucket (``densela.tuning.bucket``) pool their results: the bucket keeps the configuration with the best
geometric mean of (fastest time / its time) over them. The winners are written to
``densela.tuning.tuned_path(device)``, one file per GPU model, which ``gemm_config`` reads on its first call.
Tuning compiles every candidate: minutes, not seconds.
"""

from __future__ import annotations

import importlib
import json
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np
import torch

from densela.tuning import (
    LARGE_MN,
    MID_WS_FROM_WORK,
    MID_WS_MIN_K,
    SMALL_MN,
    THIN_K,
    GemmConfig,
    arithmetic,
    bucket,
    choose_gemm_config,
    clear_cache,
    mid_ws_tiles,
    multiprocessors,
    tuned_path,
    warp_specialized,
)

C = GemmConfig


def _tma(*args: Any, **kw: Any) -> GemmConfig:
    return GemmConfig(*args, kernel="tma", **kw)


def _ws(*args: Any, **kw: Any) -> GemmConfig:
    return GemmConfig(*args, kernel="ws", **kw)


LARGE_CANDIDATES: dict[str, list[GemmConfig]] = {
    "16-bit": [_ws(128, 256, 64, 16, 4, 3), _ws(128, 256, 64, 8, 4, 3), _ws(128, 256, 64, 8, 4, 4, epilogue_split=2),
               _ws(128, 128, 64, 8, 4, 5, epilogue_split=2, pingpong=True),
               _tma(128, 256, 64, 8, 8, 3), _tma(128, 256, 64, 8, 8, 4, epilogue_split=2),
               _tma(128, 256, 64, 16, 8, 3), _tma(128, 256, 64, 8, 8, 3, flatten=False),
               _tma(128, 128, 64, 8, 4, 4), C(128, 256, 64, 8, 8, 4), C(128, 256, 64, 8, 8, 3)],
    "tf32": [_ws(128, 256, 32, 16, 4, 4, epilogue_split=4), _ws(128, 256, 32, 8, 4, 4, epilogue_split=4),
             _ws(128, 256, 32, 8, 4, 3, epilogue_split=2),
             _tma(128, 256, 32, 8, 8, 3, epilogue_split=2), _tma(128, 256, 32, 8, 8, 4, epilogue_split=4),
             _tma(128, 256, 32, 8, 8, 3, flatten=False, epilogue_split=2),
             _tma(256, 128, 32, 8, 8, 3, epilogue_split=2), _tma(128, 128, 32, 8, 4, 4)],
    "tf32x3": [_ws(128, 128, 32, 8, 4, 3, epilogue_split=2), _ws(128, 128, 16, 8, 4, 6, epilogue_split=2),
               _tma(128, 128, 32, 8, 8, 3, epilogue_split=2), _tma(128, 256, 16, 8, 8, 3, epilogue_split=4),
               _tma(128, 256, 32, 8, 8, 2, epilogue_split=4), _tma(128, 128, 16, 8, 8, 4, epilogue_split=2),
               C(128, 128, 64, 8, 8, 2)],
    "ieee": [_ws(128, 128, 32, 8, 8, 4, epilogue_split=1), _ws(128, 128, 32, 8, 8, 4, epilogue_split=2),
             _ws(256, 128, 32, 8, 8, 3, epilogue_split=4),
             C(64, 128, 32, 8, 4, 4), C(128, 128, 32, 8, 8, 3), C(128, 64, 32, 8, 4, 4), C(64, 128, 32, 8, 4, 3)],
    "float64": [_ws(128, 128, 32, 8, 4, 2, epilogue_split=2),
                C(64, 128, 16, 8, 4, 3), C(128, 64, 16, 8, 4, 3), C(64, 128, 16, 8, 4, 4), C(64, 64, 32, 8, 4, 3)],
}  # fmt: skip
"""Candidates for m * n >= LARGE_MN, from the sweeps at 4096^3 and 8192^3 (scripts/gemm-explore.py and, for the
warp-specialized kernel on Hopper, scripts/ws-explore.py). float64 on the warp-specialized kernel: only the tables'
tiles, whose products matched cuBLAS's bit for bit in every check (H100, 2026-11-26); one check of 128 x 128 x 16
tiles in three stages at 8192^3 in the first sweep was 4.2e-5 off and never again in 16 repeats, unexplained, so the
K steps of 16 stay out until a longer stress test clears them."""

TILE_CANDIDATES: dict[int, list[GemmConfig]] = {
    2: [C(64, 64, 64, 8, 4, 3), C(64, 128, 64, 8, 4, 3), C(128, 128, 64, 8, 8, 3), C(128, 256, 64, 8, 8, 3),
        C(32, 32, 128, 8, 4, 2), C(32, 64, 64, 8, 4, 3), C(64, 64, 128, 8, 4, 4), C(64, 128, 128, 8, 4, 3)],
    4: [C(32, 32, 32, 8, 2, 3), C(32, 32, 128, 8, 4, 2), C(32, 64, 32, 8, 4, 3), C(64, 64, 32, 8, 4, 3),
        C(64, 128, 32, 8, 4, 4), C(128, 128, 32, 8, 8, 3)],
    8: [C(32, 32, 32, 8, 2, 3), C(32, 32, 128, 8, 4, 2), C(32, 64, 32, 8, 4, 3), C(64, 64, 32, 8, 4, 3),
        C(64, 128, 16, 8, 4, 3), C(32, 32, 64, 8, 4, 3), C(16, 32, 64, 8, 2, 3)],
}  # fmt: skip
"""Candidates for the tiles kernel below LARGE_MN, by item size."""

MID_TMA_CANDIDATES = [_tma(64, 128, 64, 8, 4, 4), _tma(128, 64, 64, 8, 4, 4), _tma(128, 128, 64, 8, 4, 4)]
"""Candidates for 2-D 16-bit products below LARGE_MN (the TMA kernel with mid tiles)."""

THIN_K_CANDIDATES = [C(64, 128, 16, 8, 4, 2), C(128, 128, 16, 8, 8, 2), C(64, 64, 16, 8, 4, 2),
                     C(128, 64, 32, 8, 4, 3), C(128, 256, 16, 8, 8, 2)]  # fmt: skip
"""Candidates for k <= THIN_K with a large output."""

SPLIT_BASES = [C(16, 16, 64, 1, 1, 3), C(16, 16, 128, 1, 1, 4), C(16, 16, 64, 1, 4, 3), C(16, 16, 128, 1, 4, 4),
               C(32, 64, 64, 8, 4, 3), C(64, 64, 32, 8, 4, 3),
               C(64, 64, 128, 8, 4, 4)]  # fmt: skip
SPLITS = (2, 3, 4, 8, 16, 32)


def candidates(m: int, n: int, k: int, dtype: torch.dtype, precision: str | None, batch: int, device: int) -> list[C]:
    """The configurations tried for one product shape: its size class's list plus the untuned choice.

    Example:
        >>> import torch
        >>> cands = candidates(4096, 4096, 4096, torch.float16, None, 1, None)
        >>> any(c.kernel == "tma" for c in cands)
        True
    """
    arith = arithmetic(dtype, precision)
    found = [choose_gemm_config(m, n, k, dtype, precision, batch=batch, device=device)]
    mn = m * n
    if k <= THIN_K and mn >= SMALL_MN:
        found += THIN_K_CANDIDATES
        if arith == "ieee" and batch == 1 and warp_specialized(device):
            found += [c for c in LARGE_CANDIDATES["ieee"] if c.kernel == "ws"]
    elif mn >= LARGE_MN:
        runs = {"tiles"} | ({"tma", "ws"} if batch == 1 else set())
        if not warp_specialized(device):
            runs.discard("ws")
        found += [c for c in LARGE_CANDIDATES[arith] if c.kernel in runs]
        if batch > 1:  # batches run on the tiles kernel
            found += TILE_CANDIDATES[dtype.itemsize]
    else:
        found += TILE_CANDIDATES[dtype.itemsize]
        if arith == "16-bit" and batch == 1:
            found += MID_TMA_CANDIDATES
        sms = multiprocessors(device)
        for base in SPLIT_BASES:
            tiles = -(-m // base.block_m) * -(-n // base.block_n) * batch
            k_blocks = -(-k // base.block_k)
            if tiles < sms:
                found += [base._replace(split_k=s) for s in SPLITS if s * 2 <= k_blocks]
    mid_ws = arith in MID_WS_FROM_WORK and batch == 1 and k >= MID_WS_MIN_K and mn >= SMALL_MN
    if mid_ws and warp_specialized(device):
        found += mid_ws_tiles(arith)
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class Shape:
    """One product to tune for: ``batch`` products of an m x k and a k x n operand of ``dtype``."""

    m: int
    n: int
    k: int
    dtype: torch.dtype
    precision: str | None = None
    batch: int = 1

    @property
    def arithmetic(self) -> str:
        return arithmetic(self.dtype, self.precision)

    @property
    def bucket(self) -> str:
        return bucket(self.m, self.n, self.k, self.batch)

    def __str__(self) -> str:
        batch = f"{self.batch} x " if self.batch > 1 else ""
        return f"{batch}{self.m}x{self.k} * {self.k}x{self.n} {self.arithmetic}"


def graph_ms(fn: Callable[[], Any], rep_ms: float = 60.0, quantiles: Sequence[float] = (0.5,)) -> list[float]:
    """GPU time (ms, at ``quantiles``) of ``fn``'s launches: run once (compiling), captured in a CUDA graph, whose
    replays ``bench.timing.gpu_samples`` times (L2 flushed before each, CUDA events). The host time of a call stays
    out: a configuration whose launch does more on the host (an operand copied for TMA, descriptors) would
    otherwise look slower than on ``matmul``'s path, which replays its launches behind the lab's L2 flush.

    >>> graph_ms(lambda: torch.ones(1 << 20, device="cuda") * 2)  # doctest: +SKIP
    [0.011]
    """
    from densela._launch import capture_stream
    from densela.bench.timing import gpu_samples

    fn()
    side = capture_stream()  # the warm-up and the capture on the device's one side stream
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()  # a warm-up off the default stream, as torch's graph capture asks
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side):
        fn()
    return [float(t) for t in np.quantile(gpu_samples(graph.replay, rep_ms=rep_ms), list(quantiles))]


def operands(shape: Shape, device: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Random normal a, b and an output for ``shape`` on ``device`` (never zeros)."""
    gen = torch.Generator(device=f"cuda:{device}").manual_seed(seed)
    wide = torch.float64 if shape.dtype == torch.float64 else torch.float32
    lead = (shape.batch,) if shape.batch > 1 else ()

    def randn(*size: int) -> torch.Tensor:
        return torch.randn(size, generator=gen, device=f"cuda:{device}", dtype=wide).to(shape.dtype)

    out = torch.empty((*lead, shape.m, shape.n), dtype=shape.dtype, device=f"cuda:{device}")
    return randn(*lead, shape.m, shape.k), randn(*lead, shape.k, shape.n), out


def time_candidates(shape: Shape, device: int, configs: Sequence[C] | None = None) -> dict[C, float]:
    """Milliseconds per candidate for ``shape`` (the faster of two passes); failing candidates are left out, and
    RuntimeError (from the last failure) when every one fails."""
    launch_gemm = importlib.import_module("densela.gemm").launch_gemm
    configs = configs if configs is not None else candidates(*_args(shape), shape.batch, device)
    a, b, out = operands(shape, device)
    precision = shape.precision or "ieee"
    times: dict[C, float] = {}
    failure: Exception | None = None
    for cfg in [*configs, *reversed(configs)]:
        try:
            ms = graph_ms(lambda cfg=cfg: launch_gemm(a, b, None, out, 1.0, 0.0, precision, cfg))[0]
        except Exception as e:  # a configuration that does not fit this GPU (shared memory): not a candidate here
            failure = e
            continue
        times[cfg] = min(ms, times.get(cfg, math.inf))
    if not times and failure is not None:
        raise RuntimeError(f"no configuration for {shape} could be timed") from failure
    return times


def _args(shape: Shape) -> tuple:
    """(m, n, k, dtype, precision): the positional arguments of the configuration functions."""
    return (shape.m, shape.n, shape.k, shape.dtype, shape.precision)


def tune(
    shapes: Iterable[Shape], *, device: int = 0, force: bool = False, progress: bool = True
) -> list[dict[str, Any]]:
    """Tunes the buckets of ``shapes`` on CUDA device ``device``; returns one record per shape.

    Buckets already in the tuning file are skipped unless ``force``. The file keeps other buckets.
    """
    path = tuned_path(device)
    stored = json.loads(path.read_text()) if path.exists() else {"entries": {}}
    entries: dict[str, dict[str, Any]] = stored.setdefault("entries", {})
    pending: dict[tuple[str, str], list[Shape]] = {}
    for shape in dict.fromkeys(shapes):
        if force or shape.bucket not in entries.get(shape.arithmetic, {}):
            pending.setdefault((shape.arithmetic, shape.bucket), []).append(shape)
    records = []
    written = 0
    started = time.perf_counter()
    todo = [s for group in pending.values() for s in group]
    measured: dict[Shape, dict[C, float]] = {}
    for i, shape in enumerate(todo, 1):
        measured[shape] = time_candidates(shape, device)
        if progress:
            best = min(measured[shape].values(), default=math.nan)
            print(f"[{i}/{len(todo)}] {shape}: {len(measured[shape])} configurations, best {best:.4f} ms", flush=True)
    for (arith, key), group in pending.items():
        ratios: dict[C, list[float]] = {}
        for shape in group:
            times = measured[shape]
            if not times:
                continue
            fastest = min(times.values())
            for cfg, ms in times.items():
                ratios.setdefault(cfg, []).append(math.log(fastest / ms))
        complete = {cfg: sum(r) / len(r) for cfg, r in ratios.items() if len(r) == len(group)}
        if not complete:
            continue
        winner = max(complete, key=complete.__getitem__)
        entries.setdefault(arith, {})[key] = winner._asdict()
        written += 1
        for shape in group:
            default = choose_gemm_config(*_args(shape), batch=shape.batch, device=device)
            times = measured[shape]
            records.append(dict(shape=str(shape), bucket=key, config=winner._asdict(), ms=times.get(winner),
                                untuned_ms=times.get(default), fastest_ms=min(times.values())))  # fmt: skip
    stored.update(gpu=torch.cuda.get_device_name(device), date=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stored, indent=1) + "\n")
    clear_cache()
    if progress:
        print(
            f"tuned {written} of {len(pending)} buckets in {time.perf_counter() - started:.0f} s; written to {path}",
            flush=True,
        )
    return records
