"""The benchmark runner on the CPU: statistics, inputs, accuracy columns, row schema, failures and Ctrl-C."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
import scipy.linalg
import torch

from densela.bench import run as bench_run
from densela.bench.providers import PROVIDERS, Provider, make_inputs
from densela.bench.rows import FIELDS, read_rows
from densela.bench.suites import Case, Suite
from densela.bench.timing import summarize, time_cpu

pytest.importorskip("matplotlib")


def test_summarize_gives_median_and_quantiles():
    t = summarize([5.0, 1.0, 4.0, 2.0, 3.0], "wall")
    assert (t.median_ms, t.p20_ms, t.p80_ms, t.reps) == (3.0, 1.8, 4.2, 5)
    assert t.spread == pytest.approx((4.2 - 1.8) / 3.0)
    assert t.noisy
    assert not summarize([1.0, 1.0, 1.01], "wall").noisy


def test_time_cpu_repeats_until_the_spread_is_small():
    calls = []
    t = time_cpu(lambda: calls.append(1), max_seconds=1.0)
    assert t.reps >= 5 and len(calls) == t.reps + 1  # one warm-up call
    assert t.timer == "wall" and t.median_ms >= 0


@pytest.mark.parametrize(
    "layout, a_t, b_t", [("nn", False, False), ("nt", False, True), ("tn", True, False), ("tt", True, True)]
)
def test_gemm_inputs_follow_the_layout(layout, a_t, b_t):
    x = make_inputs(Case("gemm", (5, 7, 3), "float32", "ieee", layout), "cpu")
    assert x["a"].shape == (5, 3) and x["b"].shape == (3, 7)
    assert (x["a"].stride(0) == 1) == a_t and (x["b"].stride(0) == 1) == b_t
    assert bool((x["a"] != 0).all()) and x["a"].dtype == torch.float32


def test_add_and_transpose_inputs():
    x = make_inputs(Case("add", (4, 6), "float64", layout="row+col"), "cpu")
    assert x["b"].shape == (4, 6) and x["b"].stride() == (1, 4)
    assert make_inputs(Case("transpose", (4, 6), "float16", layout="col"), "cpu")["a"].stride() == (1, 4)


def test_gemm_accuracy_columns_are_norms_of_the_difference():
    case = Case("gemm", (6, 5, 4), "float64")
    x = make_inputs(case, "cpu")
    exact = x["a"] @ x["b"]
    assert bench_run.accuracy(case, x, exact) == (0.0, 0.0, 0.0)
    off = exact.clone()
    off[2, 3] += 0.5
    err_max, err_l2, err_rel = bench_run.accuracy(case, x, off.numpy())
    assert err_max == pytest.approx(0.5) and err_l2 == pytest.approx(0.5)
    assert err_rel == pytest.approx(0.5 / float(exact.norm()))


@pytest.mark.parametrize("batch", [None, 3])
def test_lu_accuracy_is_the_factorization_residual(batch):
    n = 9
    case = Case("lu", (n,) if batch is None else (batch, n), "float64")
    x = make_inputs(case, "cpu")
    a = x["a"].numpy()
    result = scipy.linalg.lu_factor(a) if batch is None else [scipy.linalg.lu_factor(m) for m in a]
    err_max, _, err_rel = bench_run.accuracy(case, x, result)
    assert err_rel < 1e-14 and err_max < 1e-13
    lu, piv = scipy.linalg.lu_factor(a if batch is None else a[0])
    piv = piv.copy()
    piv[0] = (piv[0] + 1) % n  # a wrong first interchange must show
    bad = (lu, piv) if batch is None else [(lu, piv), *result[1:]]
    assert bench_run.accuracy(case, x, bad)[2] > 1e-3


@pytest.mark.parametrize("batch", [None, 3])
def test_lu_accuracy_with_lapack_pivots(batch):
    """torch's LU keeps LAPACK's 1-based pivots; the accuracy check converts them with the provider's base."""
    n = 9
    case = Case("lu", (n,) if batch is None else (batch, n), "float64")
    x = make_inputs(case, "cpu")
    result = torch.linalg.lu_factor(x["a"])
    assert int(result.pivots.min()) == 1
    err_max, _, err_rel = bench_run.accuracy(case, x, result, pivot_base=1)
    assert err_rel < 1e-14 and err_max < 1e-13
    assert bench_run.accuracy(case, x, (result.LU, result.pivots - 1), pivot_base=1)[2] > 1e-3


def test_vendor_lu_returns_raw_lapack_pivots():
    """The timed LU call returns torch's result untouched: no pivot conversion inside the timing."""
    assert all(PROVIDERS[name].lu_pivot_base == 1 for name in ("cusolver", "magma", "cpu-seq"))
    assert PROVIDERS["numpy"].lu_pivot_base == 0
    case = Case("lu", (9,), "float64")
    x = make_inputs(case, "cpu")
    builder = PROVIDERS["cpu-seq"].builder("lu")  # cusolver and magma build the same call, on a GPU
    assert builder is not None
    lu, piv = builder(case, x)()
    assert torch.equal(piv, torch.linalg.lu_factor(x["a"]).pivots)
    assert bench_run.accuracy(case, x, (lu, piv), PROVIDERS["cpu-seq"].lu_pivot_base)[2] < 1e-14


def test_permutations_match_scipy():
    a = np.random.default_rng(0).standard_normal((7, 7))
    _, piv = scipy.linalg.lu_factor(a)
    p, _, _ = scipy.linalg.lu(a)
    perm = bench_run._permutations(piv[None, :], 7)[0]
    np.testing.assert_array_equal(a[perm], p.T @ a)


def _suite(providers: tuple[str, ...], base: str = "numpy") -> Suite:
    cases = (Case("gemm", (8, 6, 5), "float32", "ieee"), Case("add", (6, 9), "float64"))
    return Suite("tiny", "test suite", "tests", cases, providers, base)


def test_rows_have_the_schema_speedups_and_context(tmp_path):
    rows = bench_run.run_suites([_suite(("numpy", "cpu-seq", "densela"))], tmp_path, progress=False, max_seconds=0.3)
    assert [r["provider"] for r in rows[:3]] == ["numpy", "cpu-seq", "densela"]  # base first
    assert all(r["status"] == "ok" for r in rows), [r.get("note") for r in rows]
    saved = read_rows(tmp_path / "rows.jsonl")
    assert len(saved) == len(rows) == 6
    for row in saved:
        assert set(row) == set(FIELDS)
        assert row["suite"] == "tiny" and row["base"] == "numpy" and row["date"] and row["versions"]["torch"]
        assert row["err_rel"] < 1e-5
    base, seq = saved[0], saved[1]
    assert base["speedup"] == 1.0 and base["timer"] == "wall" and base["p20_ms"] <= base["median_ms"] <= base["p80_ms"]
    assert seq["speedup"] == pytest.approx(base["median_ms"] / seq["median_ms"])
    assert seq["tflops"] == pytest.approx(2 * 8 * 6 * 5 / (seq["median_ms"] * 1e-3) / 1e12)
    densela_rows = [r for r in saved if r["provider"] == "densela"]
    if not bench_run.gpu_present():
        assert all(r["timer"] == "interpreter" and r["median_ms"] is None for r in densela_rows)
    assert (tmp_path / "report.md").exists() and (tmp_path / "results.csv").exists()


def test_missing_and_failing_providers_give_rows_and_the_run_goes_on(tmp_path, monkeypatch):
    def broken() -> dict:
        def build(case, x):
            def run():
                raise RuntimeError("kernel exploded")

            return run

        return {"gemm": build, "add": build}

    monkeypatch.setitem(PROVIDERS, "broken", Provider("broken", "always fails", "cpu", broken))
    monkeypatch.setitem(PROVIDERS, "absent", Provider("absent", "needs a library", "cpu", broken, ("no_such_lib",)))
    rows = bench_run.run_suites([_suite(("numpy", "broken", "absent"))], tmp_path, progress=False, max_seconds=0.2)
    by = {(r["provider"], r["op"]): r for r in rows}
    assert by[("broken", "gemm")]["status"] == "failed" and "kernel exploded" in by[("broken", "gemm")]["note"]
    assert by[("absent", "add")]["status"] == "skipped" and "no_such_lib" in by[("absent", "add")]["note"]
    assert by[("numpy", "add")]["status"] == "ok"


def test_an_unavailable_provider_is_never_loaded_and_gives_skipped_rows(tmp_path, monkeypatch):
    loads, imports = [], []

    def load() -> dict:
        loads.append(1)
        import no_such_lib  # noqa: F401  # as CuPy's provider does where CuPy is not installed

        return {}

    def unavailable(self, gpu, checked=Provider.unavailable):
        imports.append(self.name)
        return checked(self, gpu)

    monkeypatch.setattr(Provider, "unavailable", unavailable)
    monkeypatch.setitem(PROVIDERS, "absent", Provider("absent", "needs a library", "gpu", load, ("no_such_lib",)))
    suites = [_suite(("numpy", "absent")), _suite(("absent",), base="absent")]
    rows = bench_run.run_suites(suites, tmp_path, progress=False, max_seconds=0.2)
    skipped = [r for r in rows if r["provider"] == "absent"]
    assert len(skipped) == 4 and all(r["status"] == "skipped" and "no_such_lib" in r["note"] for r in skipped)
    assert [r["status"] for r in rows if r["provider"] == "numpy"] == ["ok", "ok"]
    assert not loads and imports.count("absent") == 1  # the import was tried once in the run
    assert len(read_rows(tmp_path / "rows.jsonl")) == 6


def test_numpy_without_scipy_skips_only_lu(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)  # import scipy raises ImportError
    monkeypatch.setitem(sys.modules, "scipy.linalg", None)
    assert PROVIDERS["numpy"].unavailable(gpu=False) is None
    cases = (Case("gemm", (8, 6, 5), "float32", "ieee"), Case("lu", (7,), "float64"))
    suite = Suite("tiny", "test suite", "tests", cases, ("numpy",), "numpy")
    rows = bench_run.run_suites([suite], tmp_path, progress=False, max_seconds=0.2)
    assert [r["status"] for r in rows] == ["ok", "skipped"]
    assert rows[1]["note"].startswith("SciPy is not installed")


def test_rows_are_dated_when_measured(tmp_path, monkeypatch):
    dates = iter(["2026-11-22T09:00:00+00:00", "2026-11-22T09:00:05+00:00"])
    monkeypatch.setattr(bench_run, "_now", lambda: next(dates))
    suite = Suite("tiny", "test suite", "tests", (Case("add", (6, 9), "float64"),), ("numpy", "cpu-seq"), "numpy")
    bench_run.run_suites([suite], tmp_path, progress=False, max_seconds=0.2)
    saved = [r["date"] for r in read_rows(tmp_path / "rows.jsonl")]
    assert saved == ["2026-11-22T09:00:00+00:00", "2026-11-22T09:00:05+00:00"]


def test_ctrl_c_keeps_what_was_measured(tmp_path, monkeypatch):
    measured = bench_run.measure
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return measured(*args, **kwargs)

    monkeypatch.setattr(bench_run, "measure", interrupted)
    rows = bench_run.run_suites([_suite(("numpy", "cpu-seq"))], tmp_path, progress=False, max_seconds=0.2)
    assert len(rows) == 2
    lines = (tmp_path / "rows.jsonl").read_text().splitlines()
    assert [json.loads(line)["provider"] for line in lines] == ["numpy", "cpu-seq"]
    assert (tmp_path / "report.md").exists()
