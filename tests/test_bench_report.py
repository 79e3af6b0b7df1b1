"""The benchmark report: markdown tables, CSV, PNG plots and the terminal table, from a recorded sample.

``tests/data/bench-sample.jsonl`` is synthetic (tests/data/README.md): three suites (square GEMM in two
dtypes with three providers, transpose, and the ITU add/GEMM/LU suite with transfers and a CPU base),
one failed, one skipped, one noisy and one interpreter-timed row. The markdown tests write the report as
without matplotlib (fast); the plot tests draw a subset and are skipped when matplotlib is missing.
"""

from __future__ import annotations

import csv
import json
import math
import struct
import sys
from pathlib import Path

import pytest

import densela.bench
from densela.bench.report import INTERP_NOTE, NOISY_NOTE, format_table, write_report
from densela.bench.rows import FIELDS, Row, read_rows

SAMPLE = Path(__file__).parent / "data" / "bench-sample.jsonl"
CEILINGS = {
    "gpu": "NVIDIA H200",
    "copy_gbps": 4246.0,
    "peaks_tflops": {"float16": 700.0, "bfloat16": 700.0, "float32": 51.0, "tf32": 350.0, "float64": 55.0},
}


@pytest.fixture(scope="module")
def rows() -> list[Row]:
    return read_rows(SAMPLE)


def _write_without_plots(rows: list[Row], out: Path) -> list[Path]:
    """write_report as on a machine without matplotlib: the plots module cannot be imported."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, "densela.bench.plots", None)
        mp.delattr(densela.bench, "plots", raising=False)
        return write_report(rows, out, CEILINGS)


@pytest.fixture(scope="module")
def text_report(rows: list[Row], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("text-report")
    paths = _write_without_plots(rows, out)
    assert sorted(p.name for p in paths) == ["report.md", "results.csv"]
    return out


@pytest.fixture(scope="module")
def markdown(text_report: Path) -> str:
    return (text_report / "report.md").read_text(encoding="utf-8")


def _section(md: str, heading: str) -> str:
    """The text from ``heading`` (a whole line) to the next heading of the same or a higher level."""
    level = heading.split()[0]
    start = md.index(f"\n{heading}\n")
    ends = [md.find(f"\n{'#' * n} ", start + 1) for n in range(1, len(level) + 1)]
    return md[start : min((e for e in ends if e > 0), default=len(md))]


def _cells(section: str, label: str, column: str) -> str:
    """The cell of ``column`` in the line of ``label``, in the first table of ``section`` that has both."""
    for table in section.split("\n\n"):
        lines = [line for line in table.splitlines() if line.startswith("|")]
        if not lines:
            continue
        header = [c.strip() for c in lines[0].strip("|").split("|")]
        for line in lines[2:]:
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] == label and column in header:
                return cells[header.index(column)]
    raise AssertionError(f"no cell {column!r} for {label!r}")


def _find(rows: list[Row], **fields: object) -> Row:
    (row,) = [r for r in rows if all(r[k] == v for k, v in fields.items())]
    return row


def test_context_and_headline(markdown: str, rows: list[Row]) -> None:
    assert markdown.startswith("# densela benchmark report\n")
    for fact in ("NVIDIA H200", "580.95.05 / 13.0", "triton 3.6.0", "6877f89c2d0e", "gpu-node-07"):
        assert fact in markdown
    assert "2026-11-22T09:01:14+00:00 to 2026-11-22T09:02:17+00:00" in markdown  # the first and last row's
    assert "70 ok, 1 failed, 1 skipped" in markdown
    headline = _section(markdown, "## Headline")
    assert "| suite" in headline and "geo-mean speedup" in headline
    speedups = [r["speedup"] for r in rows if r["suite"] == "transpose" and r["provider"] == "densela"]
    geomean = math.exp(sum(map(math.log, speedups)) / len(speedups))
    table = [[c.strip() for c in line.strip("|").split("|")] for line in headline.splitlines() if "|" in line]
    assert ["transpose", "torch", "densela", f"{geomean:.2f}", "1.35 to 3.03", "5"] in table


def test_table_headers(markdown: str) -> None:
    square = _section(markdown, "## square")
    assert "### float16" in square and "### float32 · tf32" in square
    for header in ("cublas (base) ms", "cublas TFLOP/s (% ceil.)", "cupy speedup", "densela speedup"):
        assert f" {header} |" in square
    assert "cublas speedup" not in square  # the base's speedup column would only say "base"
    assert "densela max abs(Δ)" in square and "densela ‖Δ‖₂" in square
    assert "torch GB/s (% ceil.)" in _section(markdown, "## transpose")
    itu = _section(markdown, "## itu")
    assert "### add · float32" in itu and "### gemm · float32 · ieee" in itu and "### lu · float64" in itu
    assert "torch h2d / d2h ms" in itu and "cpu-seq h2d / d2h ms" not in itu
    assert _cells(_section(itu, "### add · float32"), "4000x4000", "torch h2d / d2h ms") == "5.34 / 2.57"
    assert "Ceiling: copy 4246 GB/s." in _section(markdown, "## transpose")
    assert "Ceiling: float16 GEMM 709.0 TFLOP/s." in _section(square, "### float16")


def test_speedup_and_rate_cells(markdown: str, rows: list[Row]) -> None:
    transpose = _section(markdown, "## transpose")
    base = _find(rows, suite="transpose", provider="torch", label="16384x16384")
    ours = _find(rows, suite="transpose", provider="densela", label="16384x16384")
    assert _cells(transpose, "16384x16384", "densela speedup") == f"{base['median_ms'] / ours['median_ms']:.2f}"
    assert _cells(transpose, "16384x16384", "densela GB/s (% ceil.)") == "3105 (73%)"
    half_range = 50 * (ours["p80_ms"] - ours["p20_ms"]) / ours["median_ms"]
    assert _cells(transpose, "16384x16384", "densela ms") == f"0.6916 ±{half_range:.2g}%"
    assert _cells(transpose, "16384x16384", "densela max abs(Δ)") == "0.00e+00"
    # Speedups of thousands are written whole; where the base was skipped there is none.
    gemm = _section(_section(markdown, "## itu"), "### gemm · float32 · ieee")
    assert _cells(gemm, "1000x1000 * 1000x1000", "torch speedup") == "32,464"
    assert _cells(gemm, "2000x2000 * 2000x2000", "torch speedup") == "-"
    assert _cells(gemm, "2000x2000 * 2000x2000", "cpu-seq (base) ms") == "skipped"


def test_speedup_computed_where_the_run_left_it_empty(rows: list[Row], tmp_path: Path) -> None:
    stripped = [{**r, "speedup": None} for r in rows if r["suite"] == "square" and r["dtype"] == "float16"]
    _write_without_plots(stripped, tmp_path)
    section = _section((tmp_path / "report.md").read_text(encoding="utf-8"), "## square")
    base = _find(rows, suite="square", dtype="float16", provider="cublas", size=3700)
    ours = _find(rows, suite="square", dtype="float16", provider="densela", size=3700)
    expected = base["median_ms"] / ours["median_ms"]
    assert _cells(section, "3700x3700 * 3700x3700", "densela speedup") == f"{expected:.2f}"


def test_failed_skipped_noisy_and_interpreter_rows(markdown: str) -> None:
    square = _section(markdown, "## square")
    assert (
        "- failed: densela, float32 · tf32, 5000x5000 * 5000x5000: OutOfResources: out of resource: shared memory"
        in square
    )
    tf32 = _section(square, "### float32 · tf32")
    assert _cells(tf32, "5000x5000 * 5000x5000", "densela ms") == "failed"
    assert _cells(tf32, "5000x5000 * 5000x5000", "densela speedup") == "-"
    # The interpreter's row: no time, rate or speedup, but its error.
    assert _cells(tf32, "100x100 * 100x100", "densela ms") == "interp."
    assert _cells(tf32, "100x100 * 100x100", "densela TFLOP/s (% ceil.)") == "-"
    assert _cells(tf32, "100x100 * 100x100", "densela speedup") == "-"
    assert _cells(tf32, "100x100 * 100x100", "densela max abs(Δ)") == "1.20e-06"
    assert INTERP_NOTE in square and "correctness only, no timing" in INTERP_NOTE
    noisy = _cells(_section(square, "### float16"), "100x100 * 100x100", "cupy ms")
    assert noisy.endswith(" ~") and NOISY_NOTE in square
    assert NOISY_NOTE not in _section(markdown, "## transpose")
    itu = _section(markdown, "## itu")
    assert "- skipped: cpu-seq, gemm · float32 · ieee, 2000x2000 * 2000x2000: cpu-seq: estimated 96 s" in itu


def test_without_matplotlib_the_report_says_so(markdown: str, text_report: Path) -> None:
    assert "Plots need matplotlib" in markdown
    assert not list(text_report.glob("*.png")) and "![" not in markdown


def test_results_csv_has_every_field(text_report: Path, rows: list[Row]) -> None:
    with open(text_report / "results.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        written = list(reader)
    assert reader.fieldnames == list(FIELDS)
    assert len(written) == len(rows)
    first = written[0]
    assert first["shape"] == "100x100x100" and json.loads(first["versions"])["triton"] == "3.6.0"
    assert float(first["median_ms"]) == rows[0]["median_ms"]
    failed = next(r for r in written if r["status"] == "failed")
    assert failed["median_ms"] == "" and "OutOfResources" in failed["note"]


def test_format_table(rows: list[Row]) -> None:
    text = format_table(rows)
    lines = text.splitlines()
    assert len(lines) == len(rows) + 1
    header = ["suite", "shape", "dtype", "provider", "ms", "rate", "%ceil", "speedup", "err_rel", "status"]
    assert lines[0].split() == header
    for provider in ("cublas", "cupy", "densela", "torch", "cpu-seq"):
        assert f" {provider} " in text
    line = next(line for line in lines if line.startswith("transpose") and "16384x16384" in line and "densela" in line)
    assert "0.6916" in line and "3105 GB/s" in line and "73%" in line and "2.66" in line and line.endswith("ok")
    assert any(" interp. " in line for line in lines) and any(line.endswith("ok, noisy") for line in lines)
    assert any(line.endswith("failed") for line in lines) and any(line.endswith("skipped") for line in lines)
    assert sum(" base " in line for line in lines) == sum(
        r["provider"] == r["base"] and r["median_ms"] is not None for r in rows
    )


# --- plots ---------------------------------------------------------------------------------------------------


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG file, after checking its signature and header chunk."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", path
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def plot_report(rows: list[Row], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp("plot-report")
    return out, write_report([r for r in rows if r["suite"] in ("transpose", "itu")], out, CEILINGS)


def test_plots_written_and_linked(plot_report: tuple[Path, list[Path]]) -> None:
    out, paths = plot_report
    pngs = {p.name for p in paths if p.suffix == ".png"}
    groups = ("transpose-float32", "itu-add-float32", "itu-gemm-float32-ieee", "itu-lu-float64")
    assert pngs == {"roofline.png"} | {f"{g}-{kind}.png" for g in groups for kind in ("time", "speedup")}
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "Plots need matplotlib" not in markdown
    for name in pngs:
        assert f"]({name})" in markdown
        path = out / name
        width, height = _png_size(path)
        assert path.stat().st_size > 20_000, name  # axes, lines and text, not an empty canvas
        assert (width, height) == ((1740, 600) if name == "roofline.png" else (960, 600)), name


def test_categorical_axis_and_no_roofline_without_ceilings(rows: list[Row], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    # A k sweep at fixed n: every shape has the same size, so the time plot's x axis names the shapes.
    template = _find(rows, suite="itu", op="gemm", provider="torch", size=500)
    sweep = [
        {**template, "suite": "thin", "provider": provider, "base": "torch", "shape": [4096, 4096, k],
         "label": f"4096x{k} * {k}x4096", "size": 4096, "median_ms": ms, "speedup": None}
        for k in (32, 64, 128)
        for provider, ms in (("torch", 0.01 * k / 32), ("densela", 0.008 * k / 32))
    ]  # fmt: skip
    paths = write_report(sweep, tmp_path)
    assert not (tmp_path / "roofline.png").exists()
    assert {p.name for p in paths if p.suffix == ".png"} == {
        "thin-float32-ieee-time.png",
        "thin-float32-ieee-speedup.png",
    }
    assert (
        _cells((tmp_path / "report.md").read_text(encoding="utf-8"), "4096x64 * 64x4096", "densela speedup") == "1.25"
    )


# --- the LU suites: the best of cuSOLVER and MAGMA, solve columns and notes ------------------------------------


def _lu_rows() -> list[Row]:
    """Made-up rows of lu-batched (magma faster in one case, cusolver in the other, densela failing in a
    third) and lu-refine (a refined solve with its note)."""
    template = {"status": "ok", "timer": "cuda-events", "dtype": "float64", "precision": None, "layout": "row"}
    rows = []
    for label, shape, times in (
        ("10000 x 32x32", [10000, 32], {"cusolver": 0.29, "magma": 0.22, "densela": 0.11}),
        ("1000 x 128x128", [1000, 128], {"cusolver": 1.5, "magma": 2.0, "densela": 3.0}),
        ("1000 x 8x8", [1000, 8], {"cusolver": 0.04, "magma": 0.05, "densela": None}),
    ):
        for provider, ms in times.items():
            rows.append(
                {**template, "suite": "lu-batched", "op": "lu", "provider": provider, "base": "cusolver",
                 "best_of": ["cusolver", "magma"], "shape": shape, "label": label, "size": shape[0],
                 "median_ms": ms, "p20_ms": ms, "p80_ms": ms, "err_max": 1e-15, "err_l2": 1e-14}
            )  # fmt: skip
            if ms is None:
                rows[-1].update(status="failed", note="RuntimeError: boom")
    refined = "refine fp32: 3 iterations, converged, backward error 2.1e-17"
    for provider, ms, note in (("cusolver", 40.0, None), ("magma", 160.0, None), ("densela", 20.0, refined)):
        rows.append(
            {**template, "suite": "lu-refine", "op": "solve", "provider": provider, "base": "cusolver",
             "best_of": ["cusolver", "magma"], "shape": [8192], "label": "8192x8192, cond 1e6", "size": 8192,
             "precision": "fp32", "median_ms": ms, "p20_ms": ms, "p80_ms": ms, "err_max": 3e-12, "err_l2": 4e-11,
             "err_rel": 2.1e-17 if provider == "densela" else 5e-17, "note": note}
        )  # fmt: skip
    return rows


@pytest.fixture(scope="module")
def lu_markdown(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("lu-report")
    _write_without_plots(_lu_rows(), out)
    return (out / "report.md").read_text(encoding="utf-8")


def test_best_of_vendors_per_case(lu_markdown: str) -> None:
    """densela against the faster of cuSOLVER and MAGMA in each case, beside the speedup against the base."""
    batched = _section(lu_markdown, "## lu-batched")
    assert "*best of cusolver/magma*: the faster of cusolver and magma in each case" in batched
    assert _cells(batched, "10000 x 32x32", "best of cusolver/magma ms") == "0.22 magma"
    assert _cells(batched, "10000 x 32x32", "densela vs best") == "2.00"  # 0.22 / 0.11
    assert _cells(batched, "10000 x 32x32", "densela speedup") == "2.64"  # 0.29 / 0.11, against the base
    assert _cells(batched, "1000 x 128x128", "best of cusolver/magma ms") == "1.5 cusolver"
    assert _cells(batched, "1000 x 128x128", "densela vs best") == "0.50"
    assert _cells(batched, "1000 x 8x8", "best of cusolver/magma ms") == "0.04 cusolver"
    assert _cells(batched, "1000 x 8x8", "densela vs best") == "-"  # densela failed there
    assert "cusolver vs best" not in batched and "magma vs best" not in batched
    headline = _section(lu_markdown, "## Headline")
    table = [[c.strip() for c in line.strip("|").split("|")] for line in headline.splitlines() if "|" in line]
    assert ["lu-batched", "cusolver", "densela", f"{math.sqrt(0.29 / 0.11 * 0.5):.2f}", "0.50 to 2.64", "2"] in table
    assert ["lu-batched", "best of cusolver/magma", "densela", "1.00", "0.50 to 2.00", "2"] in table
    assert ["lu-refine", "best of cusolver/magma", "densela", "2.00", "2.00 to 2.00", "1"] in table
    assert not any(row[2] in ("cusolver", "magma") and row[1].startswith("best") for row in table)


def test_solve_tables_give_the_backward_error_and_the_refinement(lu_markdown: str) -> None:
    refine = _section(lu_markdown, "## lu-refine")
    assert "### float64 · fp32" in refine
    assert _cells(refine, "8192x8192, cond 1e6", "densela backward error") == "2.10e-17"
    assert _cells(refine, "8192x8192, cond 1e6", "cusolver backward error") == "5.00e-17"
    assert _cells(refine, "8192x8192, cond 1e6", "densela max abs(r)") == "3.00e-12"
    assert _cells(refine, "8192x8192, cond 1e6", "best of cusolver/magma ms") == "40 cusolver"
    assert "max abs(Δ)" not in refine and "backward error" not in _section(lu_markdown, "## lu-batched")
    assert (
        "- densela, float64 · fp32, 8192x8192, cond 1e6: refine fp32: 3 iterations, converged, backward error 2.1e-17"
        in refine
    )
    assert "- failed: densela, float64, 1000 x 8x8: RuntimeError: boom" in _section(lu_markdown, "## lu-batched")


def test_best_of_in_the_csv(tmp_path: Path) -> None:
    _write_without_plots(_lu_rows(), tmp_path)
    with open(tmp_path / "results.csv", newline="", encoding="utf-8") as f:
        written = list(csv.DictReader(f))
    assert {r["best_of"] for r in written} == {"cusolver/magma"}


LAYOUTS_RUN = Path(__file__).parent.parent / "bench-results/nvidia-h100/2026-11-26-fma-layouts/lab-gemm-layouts-a9e3535"


def test_transposition_states_table_from_a_stored_run(tmp_path: Path) -> None:
    """A suite that measures GEMM in several transposition states gets a table of each state's time and the spread
    per shape, computed from the rows (H100, 2026-11-26); a suite with one state has none."""
    rows = read_rows(LAYOUTS_RUN / "rows.jsonl")
    _write_without_plots(rows, tmp_path)
    section = _section((tmp_path / "report.md").read_text(encoding="utf-8"), "## gemm-layouts")
    assert "Transposition states" in section
    times = {
        r["layout"]: r["median_ms"]
        for r in rows
        if r["provider"] == "densela" and r["label"] == "2000x2000 * 2000x2000" and r.get("precision") == "tf32"
    }
    spread = f"{100 * (max(times.values()) / min(times.values()) - 1):.0f}%"
    line = next(x for x in section.splitlines() if x.startswith("| 2000x2000 * 2000x2000 | float32 tf32 "))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[2:6] == [f"{times[t]:.4g}" for t in ("nn", "nt", "tn", "tt")]
    assert cells[6] == spread and spread == "49%"


def test_no_transposition_states_table_for_one_state(markdown: str) -> None:
    assert "Transposition states" not in markdown
