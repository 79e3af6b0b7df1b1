"""The benchmark runner: every case of every suite, every provider, one row each, written as it comes.

For each case the runner makes random inputs once, runs the base provider first, then the others; each
provider's first call (compilation, warm-up) also gives the result judged against a float64 reference
(for a solve: the residual and the normwise backward error); then it is timed. A provider that cannot run
here (a missing library, no GPU) gives a "skipped" row per case without being loaded; a failing provider
gives a "failed" row and the run goes on; Ctrl-C stops the run and keeps every row written so far. Without
a GPU, densela runs in Triton's interpreter on small shapes (correctness only, no timing) and the CPU
providers are timed as usual.
"""

from __future__ import annotations

import itertools
import json
import math
import platform
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import torch

from densela import _arrays
from densela._env import environment, git_commit
from densela.bench import roofline
from densela.bench.providers import PROVIDERS, Inputs, NotedCall, clear_input_cache, make_inputs
from densela.bench.rows import Row, append_row
from densela.bench.suites import Case, Suite, suite_for_interpreter
from densela.bench.timing import Timing, time_cpu, time_gpu, time_transfers

ROTATE_SETS = 4
"""Input sets cycled through when one set fits in the L2 cache several times over."""


def gpu_present() -> bool:
    """Whether densela's kernels run on a GPU in this process (not the interpreter)."""
    return _arrays.cuda_available() and not _arrays.INTERPRET


def context() -> dict[str, Any]:
    """The fields every row of a run shares: GPU, driver, CUDA, versions, commit and host."""
    env = environment()
    gpu = env["gpus"][0]["name"] if env["gpus"] else None
    versions = dict(env["versions"], python=platform.python_version())
    return {
        "gpu": gpu,
        "driver": env["driver"],
        "cuda": env["cuda"],
        "versions": versions,
        "git_commit": git_commit(),
        "host": platform.node(),
    }


def _now() -> str:
    """The current time, ISO 8601 in UTC to the second: each row's ``date``."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _f64(x: Any, device: torch.device) -> torch.Tensor:
    if isinstance(x, np.ndarray):
        x = torch.from_numpy(x)
    elif not isinstance(x, torch.Tensor):
        x = torch.from_dlpack(x)
    return x.to(device=device, dtype=torch.float64)


def _permutations(piv: np.ndarray, n: int) -> np.ndarray:
    """Row permutations (batch x n) from sequential 0-based interchanges (batch x min(m, n))."""
    batch = piv.shape[0]
    perm = np.tile(np.arange(n), (batch, 1))
    rows = np.arange(batch)
    for i in range(piv.shape[1]):
        j = piv[:, i]
        swapped = perm[rows, j].copy()
        perm[rows, j] = perm[:, i]
        perm[:, i] = swapped
    return perm


def _host_ints(x: Any) -> np.ndarray:
    return (x if isinstance(x, np.ndarray) else torch.from_dlpack(x).cpu().numpy()).astype(np.int64)


def _lu_difference(a: torch.Tensor, result: Any, pivot_base: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(P A - L U, A) in float64, batched, for an LU result ``(lu, piv)`` or a list of them (one per matrix),
    whose pivots count rows from ``pivot_base`` (1 for LAPACK's, 0 for SciPy's)."""
    a64 = a.to(torch.float64).reshape(-1, *a.shape[-2:])
    if isinstance(result, list):
        lu = torch.stack([_f64(p[0], a.device) for p in result])
        piv = np.stack([_host_ints(p[1]) for p in result])
    else:
        lu, piv = _f64(result[0], a.device), _host_ints(result[1])
    lu = lu.reshape(a64.shape)
    n = a64.shape[-1]
    perm = torch.from_numpy(_permutations(piv.reshape(a64.shape[0], -1) - pivot_base, n)).to(a.device)
    pa = torch.gather(a64, 1, perm[:, :, None].expand_as(a64))
    lower = torch.tril(lu, -1) + torch.eye(n, dtype=torch.float64, device=a.device)
    return pa - lower @ torch.triu(lu), a64


def solve_residual(a: torch.Tensor, b: torch.Tensor, solution: Any) -> tuple[float, float, float]:
    """(max abs, L2 norm) of the residual r = b - A x in float64, and the normwise backward error
    ||r|| / (||A|| ||x|| + ||b||) in the infinity norm (the largest over the columns of several
    right-hand sides): how much A and b must change for x to solve the system exactly.

    Example:
        >>> a = torch.tensor([[2.0, 0.0], [0.0, 4.0]], dtype=torch.float64)
        >>> b = torch.tensor([1.0, 1.0], dtype=torch.float64)
        >>> solve_residual(a, b, torch.tensor([0.5, 0.25], dtype=torch.float64))
        (0.0, 0.0, 0.0)
        >>> solve_residual(a, b, torch.tensor([0.5, 0.5], dtype=torch.float64))  # r = (0, -1): 1 / (4 * 0.5 + 1)
        (1.0, 1.0, 0.3333333333333333)
    """
    a64, b64 = a.to(torch.float64), b.to(torch.float64)
    x64 = _f64(solution, a.device).reshape(b64.shape)
    columns = (lambda t: t[:, None]) if b64.ndim == 1 else (lambda t: t)
    r = columns(b64) - a64 @ columns(x64)
    norm_a = float(a64.abs().sum(dim=1).max()) if a64.numel() else 0.0
    scale = norm_a * columns(x64).abs().amax(dim=0) + columns(b64).abs().amax(dim=0)
    r_inf = r.abs().amax(dim=0) if r.numel() else torch.zeros(1, dtype=torch.float64)
    backward = torch.where(scale > 0, r_inf / scale, r_inf)
    return float(r_inf.max()), float(r.norm()), float(backward.max())


def accuracy(case: Case, x: Inputs, result: Any, pivot_base: int = 0) -> tuple[float, float, float]:
    """(max-norm, L2 norm, relative L2) of the difference from the float64 reference.

    gemm, transpose and add compare with the exact operation computed in float64; LU with the
    factored matrix, as ``P A - L U``, its pivots counting rows from ``pivot_base``; solve has no
    reference solution: its difference is the residual ``b - A x`` and its relative error the normwise
    backward error (``solve_residual``).
    """
    a = x["a"]
    if case.op == "solve":
        return solve_residual(a, x["b"], result)
    if case.op == "lu":
        diff, ref = _lu_difference(a, result, pivot_base)
    else:
        ref = {
            "gemm": lambda: a.to(torch.float64) @ x["b"].to(torch.float64),
            "transpose": lambda: a.T.to(torch.float64),
            "add": lambda: a.to(torch.float64) + x["b"].to(torch.float64),
        }[case.op]()
        diff = _f64(result, a.device) - ref
    norm = float(ref.norm())
    l2 = float(diff.norm())
    return float(diff.abs().max()) if diff.numel() else 0.0, l2, (l2 / norm if norm > 0 else l2)


def _input_sets(case: Case, device: str, gpu: bool) -> list[Inputs]:
    """One input set, or ROTATE_SETS of them when a set is small enough to sit in the L2 cache."""
    l2 = torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size if gpu else 0
    count = ROTATE_SETS if gpu and case.bytes * ROTATE_SETS < 2 * l2 else 1
    return [make_inputs(case, device, seed) for seed in range(count)]


def _cycle(fns: Sequence[Callable[[], Any]]) -> Callable[[], Any]:
    if len(fns) == 1:
        return fns[0]
    it = itertools.cycle(fns)
    return lambda: next(it)()


def _rates(case: Case, timing: Timing, ceilings: dict[str, Any] | None) -> dict[str, Any]:
    seconds = timing.median_ms * 1e-3
    tflops = case.flops / seconds / 1e12 if case.flops else None
    gbps = case.bytes / seconds / 1e9
    pct = ceiling = None
    if ceilings is not None and case.memory_bound:
        pct, ceiling = 100.0 * gbps / ceilings["copy_gbps"], f"copy {ceilings['copy_gbps']:.0f} GB/s"
    elif ceilings is not None and tflops is not None:
        peak = roofline.peak_for(ceilings, case.dtype, case.precision)
        key = roofline.ceiling_key(case.dtype, case.precision)
        pct, ceiling = 100.0 * tflops / peak, f"{key} GEMM {peak:.1f} TFLOP/s"
    return {"tflops": tflops, "gbps": gbps, "pct_ceiling": pct, "ceiling": ceiling}


def _what(suite: Suite, case: Case, provider: str) -> Row:
    """The fields saying what a row measures."""
    return {
        "suite": suite.name,
        "op": case.op,
        "provider": provider,
        "base": suite.base_for(case),
        "best_of": list(suite.best_of) or None,
        "shape": list(case.shape),
        "label": case.label,
        "size": case.size,
        "dtype": case.dtype,
        "precision": case.precision,
        "layout": case.layout,
        "flops": case.flops,
        "bytes": case.bytes,
    }


def measure(
    suite: Suite,
    case: Case,
    provider: str,
    sets: list[Inputs],
    *,
    gpu: bool,
    ceilings: dict[str, Any] | None,
    max_seconds: float,
) -> Row:
    """One row: ``provider`` on ``case`` (result judged, then timed); exceptions become the row's note."""
    row = _what(suite, case, provider)
    entry = PROVIDERS[provider]
    try:
        builder = entry.builder(case.op)
        assert builder is not None
        on_host = entry.where == "cpu"
        fns = [builder(case, {k: v.cpu() for k, v in x.items()} if on_host else x) for x in sets]
        result, said = fns[0].first() if isinstance(fns[0], NotedCall) else (fns[0](), None)
        err_max, err_l2, err_rel = accuracy(case, sets[0], result, entry.lu_pivot_base)
        row.update(err_max=err_max, err_l2=err_l2, err_rel=err_rel)
        if provider == "densela" and not gpu:
            note = "; ".join(filter(None, ("Triton interpreter: correctness only", said)))
            return dict(row, status="ok", timer="interpreter", note=note)
        row["note"] = said
        timer = time_cpu if on_host else time_gpu
        timing = timer(_cycle(fns), max_seconds=max_seconds)
        row.update(
            median_ms=timing.median_ms,
            p20_ms=timing.p20_ms,
            p80_ms=timing.p80_ms,
            reps=timing.reps,
            spread=timing.spread,
            noisy=timing.noisy,
            timer=timing.timer,
            **_rates(case, timing, ceilings),
        )
        if case.transfers and gpu and not on_host:
            host = [t.cpu() for t in sets[0].values()]
            device_result = result[0] if isinstance(result, tuple) else result
            row["h2d_ms"], row["d2h_ms"] = time_transfers(host, torch.from_dlpack(device_result), sets[0]["a"].device)
        return dict(row, status="ok")
    except NotImplementedError as e:
        return dict(row, status="skipped", note=str(e))
    except Exception as e:  # a failing provider must not stop the run: its row says what happened
        if gpu:
            torch.cuda.empty_cache()
        first_line = str(e).strip().split("\n", 1)[0]  # CUDA errors add paragraphs of debugging advice
        return dict(row, status="failed", note=f"{type(e).__name__}: {first_line}")


def _work(
    suites: Sequence[Suite], only: Sequence[str] | None, unavailable: dict[str, str | None]
) -> Iterator[tuple[Suite, Case, list[str]]]:
    """(suite, case, providers in order, base first) for every case, providers filtered by ``only``.

    A provider is listed for the ops it declares; one that can run here only where its builder exists
    too, one that cannot (``unavailable`` gives the reason) without being loaded, to give its skipped rows.
    """
    for suite in suites:
        for case in suite.cases:
            names = [p for p in suite.providers if only is None or p in only]
            names.sort(key=lambda p, case=case: p != suite.base_for(case))
            names = [
                p
                for p in names
                if suite.runs(p, case)
                and case.op in PROVIDERS[p].ops
                and (unavailable[p] is not None or PROVIDERS[p].builder(case.op) is not None)
            ]
            if names:
                yield suite, case, names


def _progress(total: int, enabled: bool) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    if tqdm is None or not enabled:
        return None
    return tqdm(total=total, unit="run", dynamic_ncols=True)


def run_suites(
    suites: Sequence[Suite],
    out_dir: str | Path,
    *,
    providers: Sequence[str] | None = None,
    max_seconds: float = 3.0,
    progress: bool = True,
) -> list[Row]:
    """Runs ``suites`` and writes ``rows.jsonl`` (one row at a time), the report and plots to ``out_dir``.

    Returns the rows. Without a GPU the suites shrink to interpreter sizes (``suite_for_interpreter``).

    Example (NumPy's add timed on the CPU; any suites of ``SUITES`` run the same way):
        >>> import tempfile
        >>> from densela.bench.suites import Case, Suite
        >>> suite = Suite("demo", "one add", "docs", (Case("add", (32, 32), "float64"),), ("numpy",), "numpy")
        >>> rows = run_suites([suite], tempfile.mkdtemp(), progress=False, max_seconds=0.2)  # doctest: +ELLIPSIS
        suite ...
        >>> rows[0]["status"], rows[0]["timer"]
        ('ok', 'wall')
    """
    from densela.bench.report import format_table, issue_targets, write_report

    gpu = gpu_present()
    if not gpu:
        suites = [suite_for_interpreter(s) for s in suites]
    device = "cuda" if gpu else "cpu"
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "rows.jsonl"
    path.unlink(missing_ok=True)
    ceilings = roofline.ceilings(progress=progress) if gpu else None
    if ceilings is not None:
        (out / "ceilings.json").write_text(json.dumps(ceilings, indent=2) + "\n")
    shared = context()
    wanted = dict.fromkeys(p for s in suites for p in s.providers if providers is None or p in providers)
    unavailable = {p: PROVIDERS[p].unavailable(gpu) for p in wanted}  # each import tried once per run
    work = list(_work(suites, providers, unavailable))
    planned = Counter(suite.name for suite, _, names in work for _ in names)
    bar = _progress(sum(planned.values()), progress)
    rows: list[Row] = []
    started = time.perf_counter()
    try:
        for suite, case, names in work:
            sets = _input_sets(case, device, gpu)
            base_ms = None
            for name in names:
                if bar is not None:
                    bar.set_description(f"{suite.name} {case.label} {case.dtype} {name}")
                if unavailable[name] is None:
                    row = measure(suite, case, name, sets, gpu=gpu, ceilings=ceilings, max_seconds=max_seconds)
                else:  # never loaded: its library may be missing
                    row = dict(_what(suite, case, name), status="skipped", note=unavailable[name])
                median = row.get("median_ms")
                if name == suite.base_for(case):
                    base_ms = median
                if base_ms is not None and median:
                    row["speedup"] = base_ms / median
                row.update(shared, date=_now(), suite_rows=planned[suite.name])
                append_row(path, row)
                rows.append(row)
                if bar is not None:
                    bar.update()
            del sets
    except KeyboardInterrupt:
        print(f"\ninterrupted: keeping the {len(rows)} rows measured so far", flush=True)
    finally:
        clear_input_cache()
        if bar is not None:
            bar.close()
    elapsed = time.perf_counter() - started
    write_report(rows, out, ceilings)
    print(format_table(rows))
    if targets := issue_targets(rows):
        print(targets)
    minutes, seconds = divmod(math.ceil(elapsed), 60)
    print(f"{len(rows)} rows in {minutes} min {seconds} s, written to {out}/ (rows, report, CSV, plots)")
    if not gpu:
        print("No GPU: densela ran in Triton's interpreter (correctness only); timings need a GPU.")
    return rows
