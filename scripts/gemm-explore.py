"""Explores GEMM kernel paths and configurations on a GPU against cuBLAS: the evidence behind the tables in
``densela.tuning`` (a precursor of ``densela tune``, which sweeps the same way per shape bucket).

    python3 scripts/gemm-explore.py [GROUP ...]      # groups: 16bit tf32 tf32x3 ieee fp64 thin small layouts overhead

Phase 1 compiles every variant in worker processes (filling Triton's cache); phase 2 times each in this
process with ``triton.testing.do_bench`` (median of a 40 ms run, L2 flushed) in two passes over a shape's
variants, the second in reverse order (the record keeps both medians and rates the smaller), against cuBLAS
through torch on the same inputs, and measures its normwise error against a float64 product. Each variant's record goes
to $OUT/explore.jsonl (or ./explore.jsonl) as it is measured; a summary table is printed last.
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
from densela.tuning.tune import candidates

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

    @property
    def key(self) -> tuple:
        return (self.dtype, self.precision, self.shape, self.layout)


def _variants() -> list[Variant]:
    """Every candidate `densela tune` would try for each shape below, plus the untuned choice (cfg None)."""
    out: list[Variant] = []

    def add(group: str, dtype: str, precision: str, shapes: list[tuple[int, int, int]], layout: str = "nn") -> None:
        for shape in shapes:
            cands = candidates(*shape, getattr(torch, dtype), precision, 1, DEVICE)
            out.extend(Variant(group, dtype, precision, shape, layout, cfg) for cfg in [None, *cands])

    for dt in ("float16", "bfloat16"):
        add("16bit", dt, "ieee", [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)])
    add("tf32", "float32", "tf32", [(4096, 4096, 4096), (8192, 8192, 8192)])
    add("tf32", "float32", "tf32", [(4096, 4096, 4096), (8192, 8192, 8192)], "nt")
    add("tf32x3", "float32", "tf32x3", [(4096, 4096, 4096), (8192, 8192, 8192)])
    add("ieee", "float32", "ieee", [(4096, 4096, 4096), (8192, 8192, 8192)])
    add("fp64", "float64", "ieee", [(4096, 4096, 4096), (8192, 8192, 8192)])
    few_tiles = [(1, 1, 100), (12, 12, 1200), (25, 25, 2500), (36, 36, 3600), (50, 50, 5000), (256, 256, 8192),
                 (128, 4096, 4096), (4096, 64, 8192), (16, 16, 16384)]  # fmt: skip
    tiny_k = [(100, 100, 1), (1200, 1200, 12), (2500, 2500, 25), (3600, 3600, 36), (5000, 5000, 50),
              (4096, 4096, 32), (8192, 8192, 48), (20480, 20480, 32), (20480, 20480, 128)]  # fmt: skip
    for dt in ("float32", "bfloat16"):
        add("thin", dt, "ieee", few_tiles + tiny_k)
    for dt in ("float32", "bfloat16", "float64"):
        add("small", dt, "ieee", [(n, n, n) for n in (128, 256, 512, 1000, 1024, 1001, 1050, 2500)])
    for dt, precision in (("float16", "ieee"), ("float32", "tf32"), ("float32", "tf32x3"), ("float32", "ieee"),
                          ("float64", "ieee")):  # fmt: skip
        for layout in ("nn", "nt", "tn", "tt"):
            out.append(Variant("layouts", dt, precision, (4096, 4096, 4096), layout, None))
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


def _run(v: Variant, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
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
    from triton.testing import do_bench

    p20, p50, p80 = do_bench(fn, warmup=10, rep=40, quantiles=[0.2, 0.5, 0.8])
    return p50, p20, p80


def _overhead(records: list[dict]) -> None:
    """Wall time per call at 128^3 and 512^3, Python included: torch.matmul, densela.matmul, the launcher."""
    import densela as dl

    for n, dt in ((128, torch.float32), (128, torch.bfloat16), (512, torch.float32)):
        a, b = torch.randn(n, n, device="cuda", dtype=dt), torch.randn(n, n, device="cuda", dtype=dt)
        out = torch.empty(n, n, device="cuda", dtype=dt)

        def per_call(fn, count=3000):
            for _ in range(50):
                fn()
            torch.cuda.synchronize()
            t = time.perf_counter()
            for _ in range(count):
                fn()
            torch.cuda.synchronize()
            return (time.perf_counter() - t) / count * 1e6

        calls = {
            "torch_us": lambda a=a, b=b: torch.matmul(a, b),
            "torch_out_us": lambda a=a, b=b, out=out: torch.matmul(a, b, out=out),
            "densela_us": lambda a=a, b=b: dl.matmul(a, b),
            "densela_out_us": lambda a=a, b=b, out=out: dl.matmul(a, b, out=out),
            "launch_us": lambda a=a, b=b, out=out: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee"),
        }
        row = dict(group="overhead", n=n, dtype=str(dt), **{name: per_call(fn) for name, fn in calls.items()})
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
    started = time.time()
    workers = 8
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
                           cfg=cfg, cublas_ms=base_ms, cublas_err=base_err)  # fmt: skip
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
        f"g{cfg['group_m']} split{cfg['split_k']} flat{cfg['flatten']}"
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
        chosen = next((r for r in ok if r["cfg"] is None), None)
        cfg = best["cfg"]
        desc = "default" if cfg is None else _describe(cfg)
        chosen_txt = f" default {chosen['ratio']:.2f}" if chosen else ""
        shape = "x".join(map(str, key[3]))
        print(f"{key[0]:7} {key[1]:8} {key[2]:6} {shape:17} {key[4]} cublas {rs[0]['cublas_ms']:.4f} "
              f"best {best['ratio']:.2f} ({best['tflops']:.0f} TF, err {best['err']:.1e} vs {best['cublas_err']:.1e}) "
              f"{desc}{chosen_txt}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
