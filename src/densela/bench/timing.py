"""Timing: medians with p20/p80, repeated until the spread is small or a time limit passes.

GPU work is timed with CUDA events around each call after an L2 flush (``gpu_samples``, ``do_bench``'s
procedure with ``flush_l2``, which reads a large buffer rather than writing one); a call too long for a round to
hold ``MIN_GPU_REPS`` of them (an LU of n = 16384 takes 0.15 to 0.35 s) is timed call by call instead, with the
same events and L2 flush, at least ``MIN_GPU_REPS`` times and then only until the spread is small or the time
limit passes. CPU work is timed with a wall clock. Warm-up and compilation happen before the timed repetitions.
The spread is (p80 - p20) / median; a row whose spread stays above the target when time runs out is flagged
noisy rather than discarded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

TARGET_SPREAD = 0.05
MIN_GPU_REPS = 3
"""The fewest timed repetitions of GPU work; a call longer than ``rep_ms / MIN_GPU_REPS`` is timed call by
call (``time_gpu``), so that its repetitions stay few and bounded: at least this many, and more only while
the spread is above target and ``max_seconds`` have not passed."""


@dataclass(frozen=True)
class Timing:
    """Summary of timed repetitions, in milliseconds."""

    median_ms: float
    p20_ms: float
    p80_ms: float
    reps: int
    timer: str

    @property
    def spread(self) -> float:
        return (self.p80_ms - self.p20_ms) / self.median_ms if self.median_ms > 0 else 0.0

    @property
    def noisy(self) -> bool:
        return self.spread > TARGET_SPREAD


def summarize(samples_ms: Sequence[float], timer: str) -> Timing:
    """Median, p20 and p80 of ``samples_ms``.

    Example:
        >>> summarize([1.0, 2.0, 3.0, 4.0, 5.0], "wall").median_ms
        3.0
    """
    p20, median, p80 = np.percentile(np.asarray(samples_ms, dtype=np.float64), [20, 50, 80])
    return Timing(float(median), float(p20), float(p80), len(samples_ms), timer)


FLUSH_BYTES = 256 << 20
"""Bytes ``flush_l2`` reads: several times the L2 cache of a Hopper GPU (50 MiB)."""

GPU_TIMER = "cuda-events/l2-read"
"""The ``timer`` of GPU rows: CUDA events around each call after ``flush_l2``. Rows of earlier versions say
"cuda-events": their flush (``triton.testing.do_bench``'s) wrote its buffer instead."""

_flush_buffers: dict[int, Any] = {}


def flush_l2() -> None:
    """Evicts the current CUDA device's L2 cache by reading ``FLUSH_BYTES`` (its lines left clean), from a buffer
    allocated on the device's first flush and kept for the process's later ones.

    ``triton.testing.do_bench`` flushes by zeroing a buffer, which leaves an L2 full of dirty lines that the timed
    call then writes back to memory: on the H100 that cost the copy or transpose of a 100 MB matrix 6-8 us of its
    67-77 (a copy of the same bytes 73.3 us against 67.8 after a flush by reading, densela's transpose of 5000^2
    float32 76.5 against 69.9, the 2 GiB copy of the ceiling 1421 against 1414:
    bench-results/nvidia-h100/2026-11-26-l2-flush/).
    Reading evicts as thoroughly and leaves nothing to write back, so a call is timed on its own traffic.

    Example (needs a CUDA GPU):
        >>> flush_l2()  # doctest: +SKIP
    """
    import torch

    device = torch.cuda.current_device()
    buffer = _flush_buffers.get(device)
    if buffer is None:
        buffer = _flush_buffers[device] = torch.ones(FLUSH_BYTES // 4, dtype=torch.int32, device=device)
    buffer.amax()


def gpu_samples(fn: Callable[[], Any], *, warmup_ms: float = 10.0, rep_ms: float = 60.0) -> list[float]:
    """Milliseconds of each of about ``rep_ms`` worth of calls of ``fn``, each timed with CUDA events after
    ``flush_l2``: ``triton.testing.do_bench``'s procedure (five calls estimate one, warm-up calls fill
    ``warmup_ms``) with the flush that leaves no dirty lines.

    Example (needs a CUDA GPU):
        >>> import torch
        >>> x = torch.randn(4096, 4096, device="cuda")  # doctest: +SKIP
        >>> len(gpu_samples(lambda: x @ x)) > 10  # doctest: +SKIP
        True
    """
    import torch

    fn()
    torch.cuda.synchronize()
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    begin.record()
    for _ in range(5):
        flush_l2()
        fn()
    end.record()
    end.synchronize()
    estimate = max(begin.elapsed_time(end) / 5, 1e-6)
    for _ in range(max(1, int(warmup_ms / estimate))):
        fn()
    events = [
        (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        for _ in range(max(1, int(rep_ms / estimate)))
    ]
    for begin, end in events:
        flush_l2()
        begin.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return [float(begin.elapsed_time(end)) for begin, end in events]


def gpu_median_ms(fn: Callable[[], Any], *, warmup_ms: float = 10.0, rep_ms: float = 60.0) -> float:
    """The median of ``gpu_samples``: one round, no spread target (``time_gpu`` repeats rounds until the spread is
    small).

    Example (needs a CUDA GPU):
        >>> import torch
        >>> x = torch.randn(4096, 4096, device="cuda")  # doctest: +SKIP
        >>> gpu_median_ms(lambda: x @ x) > 0  # doctest: +SKIP
        True
    """
    return float(np.median(gpu_samples(fn, warmup_ms=warmup_ms, rep_ms=rep_ms)))


def _timed_calls(fn: Callable[[], Any]) -> Callable[[], float]:
    """A function timing one call of ``fn`` with CUDA events after ``flush_l2``, as ``gpu_samples`` times each
    of its repetitions; returns milliseconds."""
    import torch

    def timed() -> float:
        flush_l2()
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        fn()
        end.record()
        end.synchronize()
        return float(begin.elapsed_time(end))

    return timed


def time_gpu(fn: Callable[[], Any], *, max_seconds: float = 3.0, rep_ms: float = 60.0) -> Timing:
    """Times ``fn`` (which launches GPU work) with CUDA events; repeats until the spread is under target.

    Each round runs ``gpu_samples`` for about ``rep_ms`` after a warm-up; rounds double in length and
    their samples pool until the spread is small or ``max_seconds`` have passed. A call longer than
    ``rep_ms / MIN_GPU_REPS`` (a round would spend five estimating calls and a warm-up on one or two
    samples) is timed call by call: ``MIN_GPU_REPS`` samples, then more only while the spread
    is above target and ``max_seconds`` have not passed.

    Example (needs a CUDA GPU):
        >>> import torch
        >>> x = torch.randn(4096, 4096, device="cuda")  # doctest: +SKIP
        >>> time_gpu(lambda: x @ x).timer  # doctest: +SKIP
        'cuda-events/l2-read'
    """
    fn()  # compilation and first-call work stay out of the samples
    timed = _timed_calls(fn)
    start = time.perf_counter()
    samples = [timed()]
    if samples[0] * MIN_GPU_REPS > rep_ms:
        while True:
            timing = summarize(samples, GPU_TIMER)
            if len(samples) >= MIN_GPU_REPS and (not timing.noisy or time.perf_counter() - start > max_seconds):
                return timing
            samples.append(timed())
    samples = []  # a short call: the probe only chose the path
    start = time.perf_counter()
    while True:
        samples += gpu_samples(fn, rep_ms=rep_ms)
        timing = summarize(samples, GPU_TIMER)
        if not timing.noisy or time.perf_counter() - start > max_seconds:
            return timing
        rep_ms *= 2


def time_cpu(fn: Callable[[], Any], *, max_seconds: float = 3.0, min_reps: int = 5) -> Timing:
    """Times ``fn`` (CPU work) with a wall clock after one warm-up call; at least ``min_reps`` repetitions.

    Stops once the spread is under target with at least ``min_reps`` samples and 0.2 s spent, or when
    ``max_seconds`` have passed (with at least two samples).

    Example:
        >>> time_cpu(lambda: sum(range(1000)), max_seconds=0.5).reps >= 5
        True
    """
    fn()
    samples: list[float] = []
    start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e3)
        elapsed = time.perf_counter() - start
        timing = summarize(samples, "wall")
        if len(samples) >= min_reps and elapsed > 0.2 and not timing.noisy:
            return timing
        if elapsed > max_seconds and len(samples) >= 2:
            return timing


def time_transfers(host: Sequence[Any], device_result: Any, device: Any, reps: int = 5) -> tuple[float, float]:
    """Median milliseconds of copying the ``host`` inputs to ``device`` and ``device_result`` back.

    Plain (pageable) host memory, as the studies' ``cudaMemcpy`` calls used; timed with CUDA events.

    Example (needs a CUDA GPU):
        >>> import torch
        >>> x = torch.randn(1000, 1000)
        >>> h2d_ms, d2h_ms = time_transfers([x], x.cuda(), "cuda")  # doctest: +SKIP
    """
    import torch

    def timed(work: Callable[[], Any]) -> float:
        times = []
        for _ in range(reps):
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            work()
            end.record()
            end.synchronize()
            times.append(begin.elapsed_time(end))
        return float(np.median(times))

    return timed(lambda: [t.to(device) for t in host]), timed(lambda: device_result.to("cpu"))


def peak_extra_bytes(fn: Callable[[], Any]) -> tuple[Any, int]:
    """``(fn(), bytes)``: the result of one call of ``fn`` on the current CUDA device and the most memory it held
    at once beyond what was allocated before it (PyTorch's caching allocator's peak, after synchronizing). The
    allocator's cache is emptied first: a cached block up to 1 MiB larger than a request above 1 MiB is handed out
    whole and counted whole, so the peak would depend on what earlier calls left in the cache.

    Example (needs a CUDA GPU):
        >>> import torch                                     # doctest: +SKIP
        >>> _, extra = peak_extra_bytes(lambda: torch.empty(1 << 20, device="cuda"))  # doctest: +SKIP
        >>> extra                                            # doctest: +SKIP
        1048576
    """
    import torch

    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    result = fn()
    torch.cuda.synchronize()
    return result, torch.cuda.max_memory_allocated() - before


def kernel_times(fn: Callable[[], Any]) -> dict[str, list[float]]:
    """GPU time (us) of every kernel that one call of ``fn`` launches, by kernel name (its first 60 characters),
    from ``torch.profiler``.

    Example (needs a CUDA GPU):
        >>> import torch                                     # doctest: +SKIP
        >>> x = torch.randn(1 << 20, device="cuda")          # doctest: +SKIP
        >>> len(kernel_times(lambda: x * 2))                 # doctest: +SKIP
        1
    """
    import torch
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    kernels: dict[str, list[float]] = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            kernels.setdefault(e.name[:60], []).append(e.device_time)
    return kernels


def host_us(fn: Callable[[], Any], calls: int = 100, warmup: int = 5, profile: str | None = None) -> float:
    """Host time (us) per call of ``fn`` over ``calls`` calls queued without waiting for the GPU (it synchronizes
    before and after, but not between calls): when it exceeds the calls' GPU time, the host decides their speed.
    With ``profile`` (a file path), a second ``calls`` calls run under cProfile and the 25 functions of most own time
    are appended to that file.

    Example:
        >>> host_us(lambda: sum(range(100)), calls=10) > 0
        True
    """
    import torch

    def wait() -> None:
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.synchronize()

    for _ in range(warmup):
        fn()
    wait()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    per_call = (time.perf_counter() - start) / calls * 1e6
    wait()
    if profile is not None:
        import cProfile
        import io
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(calls):
            fn()
        profiler.disable()
        wait()
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(25)
        with open(profile, "a") as f:
            f.write(text.getvalue())
    return per_call
