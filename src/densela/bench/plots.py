"""The report's figures: time against size, speedup bars and the roofline, as PNG files.

Drawn with matplotlib's object interface (``Figure`` and its Agg canvas, no pyplot and no global state),
so that the lab can draw from any thread and never opens a window. ``densela.bench.report`` prepares
the data; the functions here only draw it. Importing this module needs matplotlib (the ``bench`` extra).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from itertools import cycle
from pathlib import Path
from typing import Any

from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

SIZE = (8.0, 5.0)
DPI = 120
MARKERS = "osD^vP*Xh<>"
_MAX_SIZE_TICKS = 10
_MAX_BAR_LABELS = 24


def provider_colors(providers: Sequence[str]) -> dict[str, Any]:
    """A fixed color per provider (tab10, then tab20), the same in every figure of a report.

    Example:
        >>> colors = provider_colors(["cublas", "densela"])
        >>> len(colors), colors["cublas"] != colors["densela"]
        (2, True)
    """
    palette = colormaps["tab10" if len(providers) <= 10 else "tab20"].colors
    return {p: palette[i % len(palette)] for i, p in enumerate(providers)}


def line_plot(
    path: Path,
    series: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    colors: Mapping[str, Any],
    xticklabels: Sequence[str] | None = None,
) -> Path:
    """One line with markers per series (name -> (xs, ys)), log-log; with ``xticklabels`` the x axis is
    categorical (x = index of the label) and only y is logarithmic. Returns ``path``.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.png"
        >>> line_plot(p, {"a": ([10, 100], [0.1, 2.0])}, title="t", xlabel="n", ylabel="ms",
        ...           colors={"a": "C0"}).stat().st_size > 1000
        True
    """
    fig, ax = _figure(title)
    for (name, (xs, ys)), marker in zip(series.items(), cycle(MARKERS)):
        ax.plot(xs, ys, marker=marker, color=colors[name], label=name, linewidth=1.5, markersize=5)
    _log_axis(ax, "y", [y for _, ys in series.values() for y in ys])
    if xticklabels is not None:
        ax.set_xticks(range(len(xticklabels)), xticklabels, rotation=30, ha="right", fontsize=8)
    else:
        sizes = sorted({x for xs, _ in series.values() for x in xs})
        _log_axis(ax, "x", sizes)
        if len(sizes) <= _MAX_SIZE_TICKS:
            ax.set_xticks(sizes, [str(s) for s in sizes], rotation=30 if len(sizes) > 6 else 0)
    ax.set(xlabel=xlabel, ylabel=ylabel)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)
    return _save(fig, path)


def bar_plot(
    path: Path,
    labels: Sequence[str],
    bars: Mapping[str, Sequence[float]],
    *,
    title: str,
    ylabel: str,
    colors: Mapping[str, Any],
    ref: str,
    value_format: Callable[[float], str] = "{:.2f}".format,
) -> Path:
    """Grouped bars per label, one per series (NaN: no bar; "n/a" where a label has none), drawn from 1
    (the reference ``ref``) so that faster rises and slower falls, on a log axis past a 10x range; values
    written on the bars with ``value_format`` while there are few. Returns ``path``.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.png"
        >>> bar_plot(p, ["64", "128"], {"a": [1.5, 0.8]}, title="t", ylabel="speedup", colors={"a": "C1"},
        ...          ref="base").stat().st_size > 1000
        True
    """
    fig, ax = _figure(title)
    width = 0.8 / len(bars)
    for j in range(len(labels)):
        if all(math.isnan(values[j]) for values in bars.values()):
            ax.text(j, 1.0, "n/a", ha="center", va="bottom", fontsize=8, color="0.4")
    drawn = sum(not math.isnan(v) for values in bars.values() for v in values)
    for i, (name, values) in enumerate(bars.items()):
        points = [(j + (i - (len(bars) - 1) / 2) * width, v) for j, v in enumerate(values) if not math.isnan(v)]
        if not points:
            continue
        xs, ys = zip(*points)
        drawn_bars = ax.bar(xs, [y - 1 for y in ys], width, bottom=1, color=colors[name], label=name)
        if drawn <= _MAX_BAR_LABELS:
            ax.bar_label(drawn_bars, [value_format(y) for y in ys], fontsize=7, padding=2)
    ax.axhline(1.0, color="black", linewidth=1, linestyle="--", label=f"{ref} (base)")
    finite = [v for values in bars.values() for v in values if not math.isnan(v)] + [1.0]
    if max(finite) / min(finite) > 10:
        _log_axis(ax, "y", finite)
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
    ax.set(ylabel=ylabel, xlim=(-0.6, len(labels) - 0.4))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)
    return _save(fig, path)


def roofline_plot(
    path: Path,
    compute: Sequence[Mapping[str, Any]],
    memory: Sequence[Mapping[str, Any]],
    ceilings: Mapping[str, Any],
    colors: Mapping[str, Any],
) -> Path | None:
    """The roofline of ``ceilings`` with the ``compute`` rows on it (x = flops / bytes, y = TFLOP/s) and,
    beside it, the ``memory`` rows' GB/s against the copy bandwidth. Colors tell providers apart and
    markers ops. Returns ``path``, or None when there is nothing to draw.

    Example:
        >>> import tempfile, pathlib
        >>> row = {"op": "gemm", "provider": "a", "flops": 2e12, "bytes": 3e9, "tflops": 500.0}
        >>> ceilings = {"gpu": "GPU", "copy_gbps": 4000.0, "peaks_tflops": {"float16": 700.0}}
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.png"
        >>> roofline_plot(p, [row], [], ceilings, {"a": "C0"}) == p
        True
    """
    if not compute and not memory:
        return None
    panels = [panel for panel, rows in (("compute", compute), ("memory", memory)) if rows]
    fig = Figure(figsize=(6.5 * len(panels) + 1.5, 5.0), dpi=DPI, layout="constrained")
    axes = dict(zip(panels, fig.subplots(1, len(panels), squeeze=False)[0]))
    markers = dict(zip(sorted({r["op"] for r in (*compute, *memory)}), cycle(MARKERS)))
    copy_gbps = float(ceilings["copy_gbps"])
    if compute:
        _draw_roofs(axes["compute"], compute, copy_gbps / 1000, ceilings["peaks_tflops"])
    if memory:
        _draw_bandwidth(axes["memory"], memory, copy_gbps)
    for panel, rows in (("compute", compute), ("memory", memory)):
        for r in rows:
            x = r["flops"] / r["bytes"] if panel == "compute" else r["bytes"] / 1e6
            y = r["tflops"] if panel == "compute" else r["gbps"]
            axes[panel].scatter(x, y, color=colors[r["provider"]], marker=markers[r["op"]], s=30, alpha=0.85, zorder=3)
    shown = {r["provider"] for r in (*compute, *memory)}
    providers = [Line2D([], [], color=c, marker="o", linestyle="", label=p) for p, c in colors.items() if p in shown]
    ops = [Line2D([], [], color="0.35", marker=m, linestyle="", label=op) for op, m in markers.items()]
    fig.legend(handles=providers, loc="outside right upper", fontsize=9, title="provider")
    fig.legend(handles=ops, loc="outside right lower", fontsize=9, title="operation")
    fig.suptitle(f"Roofline — {ceilings.get('gpu', 'GPU')}")
    return _save(fig, path)


def _draw_roofs(ax: Any, rows: Sequence[Mapping[str, Any]], bandwidth_tb: float, peaks: Mapping[str, float]) -> None:
    """The bandwidth slope and one roof per distinct peak (precisions sharing a peak share a label)."""
    by_peak: dict[float, list[str]] = {}
    for precision, peak in peaks.items():
        by_peak.setdefault(float(peak), []).append(precision)
    ridges = [peak / bandwidth_tb for peak in by_peak]
    intensities = [r["flops"] / r["bytes"] for r in rows]
    lo, hi = min(*intensities, *ridges) / 4, max(*intensities, *ridges) * 20  # room for the roof labels
    ax.plot([lo, max(ridges)], [bandwidth_tb * lo, max(by_peak)], color="0.3", linewidth=1.2)
    x = lo * 1.5  # the slope label hangs below and right of the rising line
    ax.text(x, bandwidth_tb * x / 1.3, f" copy {bandwidth_tb * 1000:.0f} GB/s", ha="left", va="top", fontsize=8)
    ordered = sorted(by_peak)
    for i, peak in enumerate(ordered):
        close_above = i + 1 < len(ordered) and ordered[i + 1] / peak < 1.3
        ax.plot([peak / bandwidth_tb, hi], [peak, peak], color="0.3", linewidth=1.2)
        label = f"{'/'.join(by_peak[peak])} {peak:.0f} TFLOP/s"
        ax.text(hi / 1.1, peak, label, ha="right", va="top" if close_above else "bottom", fontsize=8)
    _log_axis(ax, "x", [lo, hi])
    _log_axis(ax, "y", [bandwidth_tb * lo, *by_peak, *(r["tflops"] for r in rows)])
    ax.set_xlim(lo, hi)
    ax.set(xlabel="arithmetic intensity (FLOP/byte)", ylabel="TFLOP/s", title="compute-bound operations")
    ax.grid(True, which="major", alpha=0.3)


def _draw_bandwidth(ax: Any, rows: Sequence[Mapping[str, Any]], copy_gbps: float) -> None:
    """Achieved GB/s against bytes moved, under the measured copy bandwidth, with a % of copy axis."""
    ax.axhline(copy_gbps, color="0.3", linewidth=1.2)
    ax.text(0.02, copy_gbps, f"copy {copy_gbps:.0f} GB/s", transform=ax.get_yaxis_transform(), va="bottom", fontsize=8)
    _log_axis(ax, "x", [r["bytes"] / 1e6 for r in rows])
    ax.set_ylim(0, 1.15 * max(copy_gbps, *(r["gbps"] for r in rows)))
    ax.set(xlabel="bytes moved (MB)", ylabel="achieved GB/s", title="memory-bound operations")
    ax.secondary_yaxis("right", functions=(lambda g: 100 * g / copy_gbps, lambda p: p * copy_gbps / 100)).set_ylabel(
        "% of copy bandwidth"
    )
    ax.grid(True, which="major", alpha=0.3)


def _log_axis(ax: Any, which: str, values: Sequence[float]) -> None:
    """A log scale on ``ax``'s ``which`` ("x" or "y") axis with plain-number labels, at every digit within
    a decade, 1-2-5 steps up to three, decades past that, and no minor ticks (they cost most of the time)."""
    getattr(ax, f"set_{which}scale")("log")
    axis = getattr(ax, f"{which}axis")
    finite = [v for v in values if v > 0 and math.isfinite(v)]
    decades = math.log10(max(finite) / min(finite)) if finite else 0.0
    subs = range(1, 10) if decades < 1 else (1, 2, 5) if decades < 3 else (1,)
    axis.set_major_locator(LogLocator(subs=[float(s) for s in subs]))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(NullLocator())


def _figure(title: str) -> tuple[Figure, Any]:
    fig = Figure(figsize=SIZE, dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    ax.set_title(title, fontsize=11)
    ax.grid(True, which="major", alpha=0.3)
    return fig, ax


def _save(fig: Figure, path: Path) -> Path:
    fig.savefig(path)
    return path
