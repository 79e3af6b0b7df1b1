"""The GPU's measured ceilings: copy bandwidth and the peak rate of each precision, cached per GPU.

Copy bandwidth: a device-to-device copy of a 2 GiB buffer, counting bytes read plus bytes written. Peak
rates: cuBLAS (through torch) on 8192^3 random products, float16, bfloat16, float32 FMA, TF32 and float64.
These are the ceilings every "% of ceiling" column divides by. The cache lives in
``$XDG_CACHE_HOME/densela`` (default ``~/.cache/densela``), one JSON file per GPU name.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import torch

from densela._env import cache_dir, gpu_slug
from densela.bench.timing import gpu_median_ms

Ceilings = dict[str, Any]

PEAK_SIZE = 8192
COPY_BYTES = 2 * 2**30
PRECISIONS = ("float16", "bfloat16", "float32", "tf32", "float64")
METHOD = (
    f"device copy of {COPY_BYTES >> 30} GiB (read + write); torch.matmul {PEAK_SIZE}^3; medians of CUDA-event times,"
    " L2 flushed by reading"
)
"""How the ceilings are measured; a cached measurement made another way is measured again."""


def cache_path(gpu: str) -> Path:
    return cache_dir() / f"ceilings-{gpu_slug(gpu)}.json"


def ceiling_key(dtype: str, precision: str | None) -> str:
    """Which measured peak bounds a product of ``dtype`` in ``precision``.

    Example:
        >>> ceiling_key("float32", "tf32"), ceiling_key("float64", None)
        ('tf32', 'float64')
    """
    if dtype == "float32" and precision in ("tf32", "tf32x3"):
        return precision
    return dtype


def peak_for(ceilings: Ceilings, dtype: str, precision: str | None) -> float:
    """The TFLOP/s ceiling of a product: tf32x3 does three TF32 products per output, so a third of TF32."""
    key = ceiling_key(dtype, precision)
    peaks = ceilings["peaks_tflops"]
    return peaks["tf32"] / 3.0 if key == "tf32x3" else peaks[key]


def _copy_ms(device: torch.device) -> float:
    src = torch.randn(COPY_BYTES // 4, device=device)
    dst = torch.empty_like(src)
    return gpu_median_ms(lambda: dst.copy_(src), warmup_ms=25.0, rep_ms=200.0)


def measure_ceilings(progress: bool = True) -> Ceilings:
    """Measures copy bandwidth and the vendor GEMM peaks on the current GPU (about half a minute).

    Example (needs a CUDA GPU):
        >>> c = measure_ceilings(progress=False)  # doctest: +SKIP
        >>> sorted(c["peaks_tflops"])  # doctest: +SKIP
        ['bfloat16', 'float16', 'float32', 'float64', 'tf32']
    """
    device = torch.device("cuda", torch.cuda.current_device())
    copy_ms = _copy_ms(device)
    peaks = {}
    for name in PRECISIONS:
        if progress:
            print(f"roofline: measuring the {name} GEMM peak", flush=True)
        dtype = torch.float32 if name == "tf32" else getattr(torch, name)
        a = torch.randn(PEAK_SIZE, PEAK_SIZE, device=device, dtype=dtype)
        b = torch.randn(PEAK_SIZE, PEAK_SIZE, device=device, dtype=dtype)
        saved = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
        try:
            ms = gpu_median_ms(lambda a=a, b=b: torch.matmul(a, b), warmup_ms=25.0, rep_ms=200.0)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = saved
        peaks[name] = 2.0 * PEAK_SIZE**3 / (ms * 1e-3) / 1e12
    return {
        "gpu": torch.cuda.get_device_name(device),
        "copy_gbps": 2.0 * COPY_BYTES / (copy_ms * 1e-3) / 1e9,
        "peaks_tflops": peaks,
        "method": METHOD,
        "torch": torch.__version__,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def ceilings(refresh: bool = False, progress: bool = True) -> Ceilings:
    """This GPU's ceilings: from the cache, or measured (and cached) when absent, measured by another ``METHOD``
    or ``refresh``.

    Example (needs a CUDA GPU):
        >>> print(format_ceilings(ceilings()))  # doctest: +SKIP
        NVIDIA H200 (measured 2026-11-21T13:05:10+00:00)
          copy bandwidth  4274 GB/s
          ...
    """
    gpu = torch.cuda.get_device_name(torch.cuda.current_device())
    path = cache_path(gpu)
    if path.exists() and not refresh:
        cached = json.loads(path.read_text())
        if cached.get("method") == METHOD:
            return cached
    measured = measure_ceilings(progress)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(measured, indent=2) + "\n")
    return measured


def format_ceilings(c: Ceilings) -> str:
    """The ceilings as a few lines of text.

    Example:
        >>> print(format_ceilings({"gpu": "G", "copy_gbps": 3000.0, "peaks_tflops": {"float64": 50.0}, "date": "d"}))
        G (measured d)
          copy bandwidth  3000 GB/s
          float64 GEMM    50.0 TFLOP/s
    """
    lines = [f"{c['gpu']} (measured {c['date']})", f"  copy bandwidth  {c['copy_gbps']:.0f} GB/s"]
    lines += [f"  {name + ' GEMM':<15} {value:.1f} TFLOP/s" for name, value in c["peaks_tflops"].items()]
    return "\n".join(lines)
