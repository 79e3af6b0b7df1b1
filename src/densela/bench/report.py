"""The benchmark report: ``results.csv``, ``report.md`` and PNG plots, built from result rows.

``report.md`` opens with the run's context and a headline table (geometric-mean speedup of each provider
against its suite's base), then gives each suite a section with one table per operation, dtype, precision
and layout, in the manner of the studies' "execution times and speedups versus cuBLAS" tables: one line
per shape, per provider the median time, the rate and its share of the measured ceiling, the speedup,
the error against the float64 reference (for a solve: the normwise backward error and the residual) and,
where measured, the host-device transfers. Where a suite names ``best_of`` providers (the LU suites:
cuSOLVER and MAGMA), each table also gives the fastest of them per case and every other provider's
speedup against it ("vs best"), and the headline its geometric mean. The figures come from
``densela.bench.plots`` when matplotlib is installed. ``format_table`` is the short text summary printed
after a run.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Container, Hashable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from densela.bench.rows import FIELDS, GEMM_STATES, Row, state_times, timed
from densela.bench.suites import MEMORY_BOUND_OPS, SUITES
from densela.bench.targets import check_targets, format_targets, targets_table

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
GroupKey = tuple[str, str, str, "str | None", str]
"""What one table and one pair of plots cover: suite, op, dtype, precision, layout."""

DASH = "-"
NOISY_NOTE = "~ noisy: the p20-p80 spread stayed above the target until the time limit; read it as a range."
INTERP_NOTE = "interp.: Triton interpreter: correctness only, no timing."


def write_report(rows: Sequence[Row], out_dir: str | Path, ceilings: dict[str, Any] | None = None) -> list[Path]:
    """Writes ``results.csv``, ``report.md`` and the PNG plots of ``rows`` into ``out_dir``; returns the paths.

    ``ceilings`` (``{"gpu": ..., "copy_gbps": ..., "peaks_tflops": {precision: TFLOP/s}}``, as measured
    by ``densela roofline``) adds ``roofline.png``. Without matplotlib only the CSV and the markdown are
    written, and the markdown says so.

    Example:
        >>> import tempfile
        >>> row = {"suite": "demo", "op": "transpose", "provider": "torch", "base": "torch", "shape": [64, 64],
        ...        "label": "64x64", "size": 64, "dtype": "float32", "status": "ok", "timer": "cuda-events",
        ...        "median_ms": 0.004, "p20_ms": 0.0039, "p80_ms": 0.0041, "gbps": 8.2}
        >>> paths = write_report([row], tempfile.mkdtemp())
        >>> sorted(p.name for p in paths)[-2:]
        ['report.md', 'results.csv']
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = with_comparisons(rows)
    csv_path = _write_csv(rows, out / "results.csv")
    try:
        from densela.bench import plots
    except ImportError:
        plots = None
    names = _group_names(_group(rows, _group_key))
    figures = _draw(plots, rows, out, names, ceilings) if plots else {}
    md_path = out / "report.md"
    md_path.write_text(_markdown(rows, names, figures, plots_available=plots is not None), encoding="utf-8")
    return [csv_path, md_path, *(p for paths in figures.values() for p in paths)]


def with_comparisons(rows: Sequence[Row]) -> list[Row]:
    """Copies of ``rows`` with what the report compares: ``speedup`` filled from the base where the run left it
    empty, and the comparison with the fastest of the suite's ``best_of`` (``best_provider``, ``best_ms``,
    ``vs_best``).

    Example:
        >>> rows = [{"suite": "s", "op": "add", "dtype": "float32", "shape": [8], "label": "8", "provider": p,
        ...          "base": "torch", "status": "ok", "timer": "wall", "median_ms": ms}
        ...         for p, ms in (("torch", 2.0), ("densela", 1.0))]
        >>> [r["speedup"] for r in with_comparisons(rows)]
        [1.0, 2.0]
    """
    return _with_best(_with_speedups(rows))


def issue_targets(rows: Sequence[Row]) -> str:
    """The issue targets that ``rows`` measure, as text for the terminal (``targets.format_targets``; '' if none).

    Example:
        >>> rows = [{"suite": "lu-large", "op": "lu", "provider": p, "base": "cusolver", "shape": [4096],
        ...          "label": "4096x4096", "dtype": "float64", "status": "ok", "timer": "cuda-events", "median_ms": ms}
        ...         for p, ms in (("cusolver", 14.0), ("densela", 15.0))]
        >>> print(issue_targets(rows).splitlines()[1])
          no  6  LU n = 4096: >= 1.5x cuSOLVER: lowest 0.93 (4096x4096 float64); 1 of 1 below 1.50
    """
    return format_targets(check_targets(with_comparisons(rows)))


def format_table(rows: Sequence[Row]) -> str:
    """A fixed-width text table of ``rows``, one line per row, for the terminal after a run.

    Example:
        >>> row = {"suite": "square", "op": "gemm", "provider": "cublas", "base": "cublas", "label": "4096^3",
        ...        "dtype": "float32", "precision": "tf32", "status": "ok", "timer": "cuda-events",
        ...        "median_ms": 0.3894, "tflops": 353.0, "pct_ceiling": 99.7, "err_rel": 2.9e-4}
        >>> print(format_table([row]))
        suite   shape   dtype         provider      ms         rate  %ceil  speedup   err_rel  status
        square  4096^3  float32/tf32  cublas    0.3894  353 TFLOP/s   100%     base  2.90e-04  ok
    """
    rows = _with_speedups(rows)
    header = ["suite", "shape", "dtype", "provider", "ms", "rate", "%ceil", "speedup", "err_rel", "status"]
    body = [
        [
            r["suite"],
            r["label"],
            "/".join(filter(None, (r["dtype"], r.get("precision")))),
            r["provider"],
            _time_cell(r, spread=False),
            _rate_cell(r, unit=True, pct=False),
            _value(r, "pct_ceiling", lambda v: f"{_sig(v, 2)}%"),
            "base" if r["provider"] == r["base"] and timed(r) else _value(r, "speedup", _speedup),
            _value(r, "err_rel", _sci),
            r["status"] + (", noisy" if r.get("noisy") else ""),
        ]
        for r in rows
    ]
    return _grid(header, body, markdown=False, left={0, 1, 2, 3, 9})


# --- rows ------------------------------------------------------------------------------------------------


def _unit(op: str) -> str:
    return "GB/s" if op in MEMORY_BOUND_OPS else "TFLOP/s"


def _group_key(r: Row) -> GroupKey:
    return (r["suite"], r["op"], r["dtype"], r.get("precision"), r.get("layout") or "row")


def _case_key(r: Row) -> tuple[Any, ...]:
    return (*_group_key(r), tuple(r.get("shape") or ()), r["label"])


def _group(items: Iterable[T], key: Callable[[T], K]) -> dict[K, list[T]]:
    """Items by ``key``, keys in order of first appearance (the order the suite ran its cases)."""
    groups: dict[K, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def _with_speedups(rows: Sequence[Row]) -> list[Row]:
    """Copies of the rows whose ``speedup`` is filled from the base's median where the run left it empty.

    A recorded speedup is kept (it compares against the base measured in the same run); rows without a time
    get none.
    """
    base_ms = {_case_key(r): r["median_ms"] for r in rows if r["provider"] == r["base"] and timed(r)}
    filled = []
    for r in rows:
        speedup = r.get("speedup")
        if speedup is None and timed(r) and _case_key(r) in base_ms:
            speedup = base_ms[_case_key(r)] / r["median_ms"]
        filled.append({**r, "speedup": speedup if timed(r) else None})
    return filled


def _best_of(r: Row) -> list[str]:
    return list(r.get("best_of") or ())


def best_name(best_of: Sequence[str]) -> str:
    """How the report names the fastest of ``best_of`` per case.

    Example:
        >>> best_name(["cusolver", "magma"])
        'best of cusolver/magma'
    """
    return f"best of {'/'.join(best_of)}"


def _with_best(rows: Sequence[Row]) -> list[Row]:
    """Copies of the rows with the comparison against the fastest of their suite's ``best_of`` providers.

    Every row of a case whose ``best_of`` providers have at least one time gets ``best_provider`` and
    ``best_ms`` (the fastest of them in that case); a timed row of any other provider also ``vs_best``
    (``best_ms`` / its median: above 1 where it beats them all). Report fields only: rows.jsonl keeps none.

    Example:
        >>> rows = [{"suite": "s", "op": "lu", "dtype": "float64", "shape": [8], "label": "8x8", "provider": p,
        ...          "best_of": ["cusolver", "magma"], "status": "ok", "median_ms": ms}
        ...         for p, ms in (("cusolver", 3.0), ("magma", 2.0), ("densela", 1.0))]
        >>> [(r["best_provider"], r["best_ms"], r["vs_best"]) for r in _with_best(rows)]
        [('magma', 2.0, None), ('magma', 2.0, None), ('magma', 2.0, 2.0)]
    """
    best: dict[tuple[Any, ...], tuple[float, str]] = {}
    for r in rows:
        if r["provider"] in _best_of(r) and timed(r):
            key = _case_key(r)
            best[key] = min(best.get(key, (math.inf, "")), (r["median_ms"], r["provider"]))
    filled = []
    for r in rows:
        ms, provider = best.get(_case_key(r), (None, None)) if _best_of(r) else (None, None)
        vs = ms / r["median_ms"] if ms and timed(r) and r["provider"] not in _best_of(r) else None
        filled.append({**r, "best_provider": provider, "best_ms": ms, "vs_best": vs})
    return filled


def _geomean(values: Sequence[float]) -> tuple[float, float, float, int]:
    """Geometric mean, min and max of ``values``, and their count."""
    return math.exp(sum(map(math.log, values)) / len(values)), min(values), max(values), len(values)


def _geomean_speedups(rows: Sequence[Row]) -> dict[str, tuple[float, float, float, int]]:
    """Per provider other than the base: geometric mean, min and max of its speedups, and their count."""
    found = _group((r for r in rows if r["provider"] != r["base"] and r.get("speedup")), lambda r: r["provider"])
    return {provider: _geomean([r["speedup"] for r in group]) for provider, group in found.items()}


def _geomean_vs_best(rows: Sequence[Row]) -> dict[tuple[str, str], tuple[float, float, float, int]]:
    """Per (comparison name, provider): the same statistics of the speedups against the best of ``best_of``."""
    found = _group((r for r in rows if r.get("vs_best")), lambda r: (best_name(_best_of(r)), r["provider"]))
    return {key: _geomean([r["vs_best"] for r in group]) for key, group in found.items()}


def _distinct(rows: Iterable[Row], field: str) -> list[str]:
    return list(dict.fromkeys(str(r[field]) for r in rows if r.get(field) not in (None, "")))


def _group_names(keys: Iterable[GroupKey]) -> dict[GroupKey, list[str]]:
    """The parts naming each group: op and layout only where its suite has several, dtype, precision."""
    by_suite = _group(keys, lambda k: k[0])
    return {
        (suite, op, dtype, precision, layout): [
            part
            for part, shown in (
                (op, len({k[1] for k in by_suite[suite]}) > 1),
                (dtype, True),
                (precision, True),
                (layout, len({k[4] for k in by_suite[suite]}) > 1),
            )
            if shown and part
        ]
        for suite, op, dtype, precision, layout in (k for group in by_suite.values() for k in group)
    }


# --- cells -----------------------------------------------------------------------------------------------


def _sig(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits, or whole when it has that many (never 1e+02 for 99.7)."""
    return f"{x:.0f}" if abs(x) >= 10 ** (digits - 1) else f"{x:.{digits}g}"


def _sci(x: float) -> str:
    return f"{x:.2e}"


def _speedup(x: float) -> str:
    return f"{x:.2f}" if x < 100 else f"{x:,.0f}"


def _value(r: Row | None, field: str, fmt: Callable[[Any], str]) -> str:
    """``fmt`` of the row's field, a dash where there is no row or no value."""
    return fmt(r[field]) if r and r.get(field) is not None else DASH


def _time_cell(r: Row | None, spread: bool = True) -> str:
    """Median ms ± half the p20-p80 range in % of the median, "~" when noisy; else the status or "interp."."""
    if r is None:
        return DASH
    if r["status"] != "ok":
        return r["status"]
    if not timed(r):
        return "interp." if r.get("timer") == "interpreter" else DASH
    cell = _sig(r["median_ms"])
    if spread and r.get("p20_ms") is not None and r.get("p80_ms") is not None:
        cell += f" ±{_sig(50 * (r['p80_ms'] - r['p20_ms']) / r['median_ms'], 2)}%"
    return cell + " ~" if r.get("noisy") else cell


def _rate_cell(r: Row | None, unit: bool = False, pct: bool = True) -> str:
    """TFLOP/s or GB/s, whichever judges the op, with its percentage of the ceiling."""
    if not r:
        return DASH
    field = "gbps" if r["op"] in MEMORY_BOUND_OPS else "tflops"
    cell = _value(r, field, lambda v: _sig(v, 3) + (f" {_unit(r['op'])}" if unit else ""))
    if pct and cell != DASH and r.get("pct_ceiling") is not None:
        cell += f" ({_sig(r['pct_ceiling'], 2)}%)"
    return cell


def _transfer_cell(r: Row | None) -> str:
    if not r or r.get("h2d_ms") is None:
        return DASH
    return f"{_sig(r['h2d_ms'], 3)} / {_value(r, 'd2h_ms', lambda v: _sig(v, 3))}"


def _grid(header: list[str], body: list[list[str]], markdown: bool, left: Container[int] = frozenset({0})) -> str:
    """Columns padded to width, right-aligned except those in ``left``: a markdown table or plain text."""
    widths = [max(map(len, column)) for column in zip(header, *body)]

    def line(cells: Sequence[str]) -> str:
        padded = [c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return f"| {' | '.join(padded)} |" if markdown else "  ".join(padded).rstrip()

    if not markdown:
        return "\n".join(line(cells) for cells in (header, *body))
    rule = "|" + "|".join("-" * (w + 1) + ("-" if i in left else ":") for i, w in enumerate(widths)) + "|"
    return "\n".join([line(header), rule, *(line(cells) for cells in body)])


# --- markdown --------------------------------------------------------------------------------------------


def _best_cell(r: Row | None) -> str:
    """The fastest ``best_of`` provider's median and name, from any row of the case."""
    if not r or r.get("best_ms") is None:
        return DASH
    return f"{_sig(r['best_ms'])} {r['best_provider']}"


def _group_tables(rows: Sequence[Row]) -> list[str]:
    """The tables of one group: time, rate and speedup per provider (and the best of ``best_of`` with the
    speedups against it); errors and transfers beside them, or in a second table when more than two
    providers would make one table too wide."""
    base, unit, op = rows[0]["base"], _unit(rows[0]["op"]), rows[0]["op"]
    providers = sorted(dict.fromkeys(r["provider"] for r in rows), key=lambda p: p != base)  # base first
    best_of = next((_best_of(r) for r in rows if _best_of(r)), [])
    Column = tuple[str, str, Callable[[Row | None], str]]
    perf: list[Column] = []
    accuracy: list[Column] = []
    transfers = {r["provider"] for r in rows if r.get("h2d_ms") is not None}
    for p in providers:
        perf += [(f"{p}{' (base)' if p == base else ''} ms", p, _time_cell), (f"{p} {unit} (% ceil.)", p, _rate_cell)]
        if p != base:
            perf.append((f"{p} speedup", p, lambda r: _value(r, "speedup", _speedup)))
        if op == "solve":
            accuracy += [(f"{p} backward error", p, lambda r: _value(r, "err_rel", _sci))]
            accuracy += [(f"{p} max abs(r)", p, lambda r: _value(r, "err_max", _sci))]
        else:
            accuracy += [(f"{p} max abs(Δ)", p, lambda r: _value(r, "err_max", _sci))]
            accuracy += [(f"{p} ‖Δ‖₂", p, lambda r: _value(r, "err_l2", _sci))]
        if p in transfers:
            accuracy.append((f"{p} h2d / d2h ms", p, _transfer_cell))
    if best_of and any(r.get("best_ms") is not None for r in rows):
        perf.append((f"{best_name(best_of)} ms", "", _best_cell))
        perf += [(f"{p} vs best", p, lambda r: _value(r, "vs_best", _speedup)) for p in providers if p not in best_of]
    by_case = {(r["label"], r["provider"]): r for r in rows}
    by_case.update({(r["label"], ""): r for r in rows if r.get("best_ms") is not None})  # any row of the case
    labels = list(dict.fromkeys(r["label"] for r in rows))
    out = []
    for columns in [perf + accuracy] if len(providers) <= 2 else [perf, accuracy]:
        header = ["shape", *(title for title, _, _ in columns)]
        body = [[label, *(cell(by_case.get((label, p))) for _, p, cell in columns)] for label in labels]
        out += [_grid(header, body, markdown=True), ""]
    ceilings = _distinct(rows, "ceiling")
    return out + ([f"Ceiling: {'; '.join(ceilings)}.", ""] if ceilings else [])


def _layout_table(rows: Sequence[Row]) -> list[str]:
    """For GEMM cases measured in several transposition states: each provider's median time per state and the
    spread (slowest / fastest - 1), one line per shape, dtype and mode; nothing when no case has two states.

    Example:
        >>> r = {"op": "gemm", "status": "ok", "timer": "cuda-events", "label": "8x8 * 8x8", "dtype": "float32",
        ...      "precision": "ieee"}
        >>> rows = [{**r, "provider": "densela", "layout": t, "median_ms": ms} for t, ms in (("row", 1.0), ("nt", 1.5))]
        >>> print(_layout_table(rows)[0].splitlines()[2])
        | 8x8 * 8x8 | float32 ieee |             1 |           1.5 |             - |             - |            50% |
    """
    cases = {case: by for case, by in state_times(list(rows)).items() if any(len(t) > 1 for t in by.values())}
    if not cases:
        return []
    providers = sorted(dict.fromkeys(p for by in cases.values() for p in by), key=lambda p: p != "densela")
    header = ["shape", "dtype", *(f"{providers[0]} {t} ms" for t in GEMM_STATES)]
    header += [f"{p} spread" for p in providers]
    body = []
    for (label, mode), by in cases.items():
        first = by.get(providers[0], {})
        cells = [_sig(first[t]) if t in first else DASH for t in GEMM_STATES]
        spreads = [
            f"{100 * (max(by[p].values()) / min(by[p].values()) - 1):.0f}%" if len(by.get(p, {})) > 1 else DASH
            for p in providers
        ]
        body.append([label, mode, *cells, *spreads])
    note = "Transposition states (spread: the slowest state's time over the fastest's, less one)."
    return [_grid(header, body, markdown=True, left={0, 1}), "", note, ""]


def _suite_section(suite: str, rows: Sequence[Row], names: dict[GroupKey, list[str]], figures: dict) -> list[str]:
    lines = [f"## {suite}", ""]
    if suite in SUITES:
        lines += [f"{SUITES[suite].description.rstrip('.')}. Source: {SUITES[suite].source}.", ""]
    lines += _layout_table(rows)
    base, ops = rows[0]["base"], ", ".join(_distinct(rows, "op"))
    lines += [f"Operations: {ops}. Speedups are against **{base}** (its median time / the provider's).", ""]
    best_of = next((_best_of(r) for r in rows if _best_of(r)), [])
    if best_of:
        lines += [
            f"*{best_name(best_of)}*: the faster of {' and '.join(best_of)} in each case; *vs best*: its median "
            "time / the provider's (above 1: faster than each of them).",
            "",
        ]
    for key, group in _group(rows, _group_key).items():
        lines += [f"### {' · '.join(names[key])}", "", *_group_tables(group)]
        lines += [" ".join(f"![{p.stem}]({p.name})" for p in figures.get(key, [])), ""] if key in figures else []
    footnotes = [NOISY_NOTE] if any(r.get("noisy") for r in rows) else []
    footnotes += [INTERP_NOTE] if any(r.get("timer") == "interpreter" for r in rows) else []
    lines += [*footnotes, ""] if footnotes else []
    said = [r for r in rows if r["status"] == "ok" and r.get("timer") != "interpreter" and r.get("note")]
    if said:
        lines += ["Notes:", ""]
        lines += [f"- {r['provider']}, {' · '.join(names[_group_key(r)])}, {r['label']}: {r['note']}" for r in said]
        lines.append("")
    missing = [r for r in rows if r["status"] != "ok"]
    if missing:
        lines += ["Not measured:", ""]
        lines += [
            f"- {r['status']}: {r['provider']}, {' · '.join(names[_group_key(r)])}, {r['label']}: "
            f"{r.get('note') or 'no reason recorded'}"
            for r in missing
        ]
        lines.append("")
    return lines


def _context(rows: Sequence[Row]) -> list[str]:
    """The header table: GPU, driver, CUDA, versions, commit, host, date range, row counts."""
    versions: dict[str, dict[str, None]] = {}  # package -> its distinct versions, in order
    for r in rows:
        for package, version in (r.get("versions") or {}).items():
            versions.setdefault(package, {})[str(version)] = None
    dates = sorted(_distinct(rows, "date"))
    counts = _group(rows, lambda r: r["status"])
    facts = [
        ("GPU", ", ".join(_distinct(rows, "gpu"))),
        ("Driver / CUDA", f"{', '.join(_distinct(rows, 'driver'))} / {', '.join(_distinct(rows, 'cuda'))}"),
        ("Versions", ", ".join(f"{package} {'/'.join(v)}" for package, v in versions.items())),
        ("Git commit", ", ".join(c[:12] for c in _distinct(rows, "git_commit"))),
        ("Host", ", ".join(_distinct(rows, "host"))),
        ("Dates (UTC)", f"{dates[0]} to {dates[-1]}" if dates else ""),
        ("Rows", ", ".join(f"{len(v)} {k}" for k, v in counts.items())),
    ]
    return [_grid(["", ""], [[name, value or DASH] for name, value in facts], markdown=True, left={0, 1}), ""]


def _headline(rows: Sequence[Row]) -> list[str]:
    """Per suite and provider the geometric-mean speedup against the base, then against the best of the
    suite's ``best_of`` where it has them."""
    body = [
        [suite, against, provider, _speedup(g), f"{_speedup(lo)} to {_speedup(hi)}", str(n)]
        for suite, group in _group(rows, lambda r: r["suite"]).items()
        for (against, provider), (g, lo, hi, n) in [
            *(((group[0]["base"], p), stats) for p, stats in _geomean_speedups(group).items()),
            *_geomean_vs_best(group).items(),
        ]
    ]
    header = ["suite", "base", "provider", "geo-mean speedup", "range", "cases"]
    return ["## Headline", "", _grid(header, body, markdown=True, left={0, 1, 2}), ""] if body else []


def _markdown(rows: Sequence[Row], names: dict, figures: dict, plots_available: bool) -> str:
    lines = ["# densela benchmark report", "", *_context(rows), *_headline(rows), *targets_table(check_targets(rows))]
    lines += [
        "Times are medians in ms ± half the p20-p80 range (in % of the median); rates are TFLOP/s, or GB/s "
        f"for the memory-bound operations ({', '.join(MEMORY_BOUND_OPS)}), with their percentage of the measured "
        "ceiling; errors are the max-norm and L2 norm of the difference from a float64 reference (for a solve, "
        "the normwise backward error ‖b - A x‖ / (‖A‖ ‖x‖ + ‖b‖) in the infinity norm and the largest residual).",
        "",
    ]
    if "roofline" in figures:
        lines += [f"![roofline]({figures['roofline'][0].name})", ""]
    if not plots_available:
        lines += ["Plots need matplotlib: `pip install 'densela[bench]'`.", ""]
    for suite, group in _group(rows, lambda r: r["suite"]).items():
        lines += _suite_section(suite, group, names, figures)
    return "\n".join(lines).rstrip() + "\n"


# --- files -----------------------------------------------------------------------------------------------


def _write_csv(rows: Sequence[Row], path: Path) -> Path:
    """Every field of ``FIELDS``; the shape as '4096x4096', best_of as 'cusolver/magma', the versions as JSON,
    None as empty."""
    text = {
        "shape": lambda v: "x".join(map(str, v)),
        "best_of": "/".join,
        "versions": lambda v: json.dumps(v, sort_keys=True),
    }
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(FIELDS)
        for r in rows:
            writer.writerow("" if r.get(k) is None else text.get(k, lambda v: v)(r[k]) for k in FIELDS)
    return path


def _draw(plots: Any, rows: Sequence[Row], out: Path, names: dict, ceilings: dict | None) -> dict[Any, list[Path]]:
    """The PNGs: the roofline when ``ceilings`` is given, and per group a time plot and a speedup plot."""
    colors = plots.provider_colors(sorted({r["provider"] for r in rows}))
    gpu = ", ".join(_distinct(rows, "gpu")) or "unknown GPU"
    with_times = [r for r in rows if timed(r)]
    figures: dict[Any, list[Path]] = {}
    if ceilings:
        compute = [r for r in with_times if r["op"] not in MEMORY_BOUND_OPS and r.get("flops") and r.get("tflops")]
        memory = [r for r in with_times if r["op"] in MEMORY_BOUND_OPS and r.get("gbps")]
        path = plots.roofline_plot(out / "roofline.png", compute, memory, ceilings, colors)
        figures.update({"roofline": [path]} if path else {})
    for key, group in _group(with_times, _group_key).items():
        stem = out / "-".join([key[0], *names[key]])
        title = f"{key[0]}: {' · '.join(names[key])} — {gpu}"
        base = group[0]["base"]
        labels = list(dict.fromkeys(r["label"] for r in group))
        sizes = {r["label"]: r.get("size") for r in group}
        categorical = len(set(sizes.values())) < len(sizes) or None in sizes.values()  # x = shape, not size
        by_provider = _group(group, lambda r: r["provider"])
        series = {
            p: ([labels.index(r["label"]) if categorical else r["size"] for r in rs], [r["median_ms"] for r in rs])
            for p, rs in by_provider.items()
        }
        xlabel = "shape" if categorical else "size (largest dimension)"
        figures[key] = [
            plots.line_plot(
                stem.with_name(f"{stem.name}-time.png"), series, title=title, xlabel=xlabel,
                ylabel="median time (ms)", colors=colors, xticklabels=labels if categorical else None,
            )
        ]  # fmt: skip
        speedup = {(r["provider"], r["label"]): r["speedup"] or math.nan for r in group}
        bars = {p: [speedup.get((p, label), math.nan) for label in labels] for p in by_provider if p != base}
        if any(not math.isnan(v) for values in bars.values() for v in values):
            figures[key].append(
                plots.bar_plot(
                    stem.with_name(f"{stem.name}-speedup.png"), labels, bars, title=title,
                    ylabel=f"speedup vs {base} (x)", colors=colors, ref=base, value_format=_speedup,
                )
            )  # fmt: skip
    return figures
