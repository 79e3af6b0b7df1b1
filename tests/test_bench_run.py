"""The benchmark runner on the CPU: statistics, inputs, accuracy columns, row schema, failures and Ctrl-C;
the LU suites' solve inputs (matrices of a given condition number), backward error, providers and the
bounded timing of long GPU calls."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from functools import partial

import numpy as np
import pytest
import scipy.linalg
import torch

import densela as dl
from densela.bench import providers as bench_providers
from densela.bench import run as bench_run
from densela.bench import timing as bench_timing
from densela.bench.providers import PROVIDERS, Provider, make_inputs
from densela.bench.rows import FIELDS, read_rows
from densela.bench.suites import SUITES, Case, Suite
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
        assert row["suite_rows"] == 6  # what the run set out to measure of its suite
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
    assert [json.loads(line)["suite_rows"] for line in lines] == [4, 4]  # two of four: a run cut short
    assert (tmp_path / "report.md").exists()


# --- LU suites: solve inputs, accuracy and providers; the bounded GPU timing loop -------------------------------

HAS_SOLVE = hasattr(dl, "solve") and hasattr(dl, "solve_ex")
needs_solve = pytest.mark.skipif(not HAS_SOLVE, reason="densela.solve / solve_ex not implemented yet")


@pytest.mark.parametrize("cond", [1e2, 1e6])
def test_conditioned_matrix_has_the_asked_singular_values(cond):
    n = 48
    a = bench_providers.conditioned_matrix(n, cond, "float64", "cpu", seed=3)
    s = torch.linalg.svdvals(a)
    expected = torch.logspace(0, -np.log10(cond), n, dtype=torch.float64)
    torch.testing.assert_close(s, expected, rtol=1e-10, atol=0)
    assert float(s[0] / s[-1]) == pytest.approx(cond, rel=1e-9)
    assert not torch.allclose(a, a.T)  # U and V differ: not a symmetric matrix


def test_solve_inputs_are_cached_per_matrix_and_b_does_not_depend_on_the_cache():
    bench_providers.clear_input_cache()
    case = Case("solve", (40,), "float64", "fp32", cond=1e6)
    x = make_inputs(case, "cpu")
    assert x["a"].shape == (40, 40) and x["b"].shape == (40,) and x["a"].dtype == x["b"].dtype == torch.float64
    again = make_inputs(Case("solve", (40,), "float64", "tf32", cond=1e6), "cpu")  # another mode, same matrix
    assert again["a"] is x["a"] and torch.equal(again["b"], x["b"])
    other_seed = make_inputs(case, "cpu", seed=1)
    assert not torch.equal(other_seed["a"], x["a"]) and not torch.equal(other_seed["b"], x["b"])
    assert make_inputs(case, "cpu")["a"] is x["a"]  # the seeds of one matrix stay cached together
    other = make_inputs(Case("solve", (40,), "float64", None, cond=1e2), "cpu")
    assert not torch.equal(other["a"], x["a"]) and torch.equal(other["b"], x["b"])
    assert make_inputs(case, "cpu")["a"] is not x["a"]  # a new matrix evicted the old one: made again
    bench_providers.clear_input_cache()
    assert not bench_providers._CONDITIONED
    block = make_inputs(Case("solve", (12, 5), "float32"), "cpu")  # no cond: random normal A
    assert block["a"].shape == (12, 12) and block["b"].shape == (12, 5) and block["a"].dtype == torch.float32


def test_solve_accuracy_is_the_backward_error():
    """With a known exact solution the residual is zero; a perturbed solution gives ||r|| / (||A|| ||x|| + ||b||)."""
    case = Case("solve", (3,), "float64")
    a = torch.tensor([[2.0, 1.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, -1.0]], dtype=torch.float64)
    exact = torch.tensor([1.0, -0.5, 3.0], dtype=torch.float64)
    b = a @ exact  # (1.5, -2, -3), exactly
    x = {"a": a, "b": b}
    assert bench_run.accuracy(case, x, exact) == (0.0, 0.0, 0.0)
    assert bench_run.accuracy(case, x, exact.numpy()) == (0.0, 0.0, 0.0)  # any array type
    off = exact.clone()
    off[1] += 0.25  # r = b - A x = -(0.25, 1, 0)
    err_max, err_l2, err_rel = bench_run.accuracy(case, x, off)
    assert err_max == 1.0 and err_l2 == pytest.approx(np.hypot(0.25, 1.0))
    # ||A||_inf = 4 (row 2), ||x||_inf = 3, ||b||_inf = 3
    assert err_rel == pytest.approx(1.0 / (4 * 3 + 3))
    # Several right-hand sides: the worst column's backward error.
    block = Case("solve", (3, 2), "float64")
    xs = torch.stack([exact, off], dim=1)
    assert bench_run.accuracy(block, {"a": a, "b": torch.stack([b, b], dim=1)}, xs)[2] == pytest.approx(1 / 15)


def test_solve_accuracy_tells_float64_from_float32_solutions():
    case = Case("solve", (64,), "float64", cond=1e6)
    x = make_inputs(case, "cpu")
    exact = torch.linalg.solve(x["a"], x["b"])
    assert bench_run.accuracy(case, x, exact)[2] < 1e-15
    single = torch.linalg.solve(x["a"].float(), x["b"].float())
    assert 1e-9 < bench_run.accuracy(case, x, single)[2] < 1e-5
    bench_providers.clear_input_cache()


@pytest.mark.parametrize("provider", ["cpu-seq", "numpy"])
@pytest.mark.parametrize("shape", [(40,), (40, 3)])
def test_cpu_solve_providers(provider, shape):
    """cpu-seq builds what cusolver and magma build (lu_factor + lu_solve), on one CPU thread."""
    case = Case("solve", shape, "float64", "fp32", cond=1e6)
    x = make_inputs(case, "cpu")
    builder = PROVIDERS[provider].builder("solve")
    assert builder is not None
    result = builder(case, x)()
    assert tuple(result.shape) == shape
    assert bench_run.accuracy(case, x, result)[2] < 1e-15
    assert PROVIDERS["cusolver"].ops == PROVIDERS["magma"].ops == ("lu", "solve")
    bench_providers.clear_input_cache()


def test_refine_note():
    info = dl.SolveInfo if hasattr(dl, "SolveInfo") else None  # the fields it reads, in any object
    fields = {"iterations": torch.tensor(4), "converged": True, "fell_back": False, "backward_error": 3e-17}
    note = bench_providers.refine_note("tf32", type("Info", (), fields)())
    assert note == "refine tf32: 4 iterations, converged, backward error 3e-17"
    assert info is None or {"iterations", "converged", "fell_back", "backward_error"} <= set(info.__annotations__)


def _solve_suite(providers, cases, base="cpu-seq"):
    return Suite("solves", "test suite", "tests", cases, providers, base, best_of=("cpu-seq", "numpy"))


def test_a_solve_suite_runs_on_the_cpu(tmp_path):
    cases = (Case("solve", (32,), "float64", None, cond=1e6), Case("solve", (32, 4), "float64", None, cond=1e2))
    rows = bench_run.run_suites([_solve_suite(("cpu-seq", "numpy"), cases)], tmp_path, progress=False, max_seconds=0.2)
    assert [(r["provider"], r["status"]) for r in rows] == [("cpu-seq", "ok"), ("numpy", "ok")] * 2
    for r in rows:
        assert r["op"] == "solve" and r["err_rel"] < 1e-15 and r["best_of"] == ["cpu-seq", "numpy"]
        assert r["flops"] == pytest.approx(2 * 32**3 / 3 + 2 * 32**2 * (1 if r["shape"] == [32] else 4))
        assert r["tflops"] == pytest.approx(r["flops"] / (r["median_ms"] * 1e-3) / 1e12)
    assert rows[1]["label"] == "32x32, cond 1e6" and rows[3]["label"] == "32x32, 4 rhs, cond 1e2"
    saved = read_rows(tmp_path / "rows.jsonl")
    assert [r["best_of"] for r in saved] == [["cpu-seq", "numpy"]] * 4
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "cpu-seq backward error" in md and "best of cpu-seq/numpy" in md
    assert not bench_providers._CONDITIONED  # the run dropped its cached matrices


@needs_solve
def test_densela_solve_rows_carry_the_refinement(tmp_path):
    """densela's solve in every mode it has, small enough for Triton's interpreter; a refined solve's row
    says how the refinement went."""
    cases = tuple(Case("solve", (16,), "float64", mode, cond=1e6) for mode in (None, "fp32"))
    suite = _solve_suite(("cpu-seq", "densela"), cases)
    rows = bench_run.run_suites([suite], tmp_path, progress=False, max_seconds=0.2)
    ours = [r for r in rows if r["provider"] == "densela"]
    assert [r["status"] for r in ours] == ["ok", "ok"], [r["note"] for r in ours]
    assert all(r["err_rel"] < 1e-15 for r in ours)
    assert "refine" not in (ours[0]["note"] or "")
    assert "refine fp32: " in ours[1]["note"] and "converged" in ours[1]["note"]
    if not bench_run.gpu_present():
        assert ours[1]["note"].startswith("Triton interpreter: correctness only; refine fp32: ")


@pytest.mark.skipif(not hasattr(dl, "lu_factor"), reason="densela.lu_factor not implemented yet")
def test_densela_batched_lu_row(tmp_path):
    case = Case("lu", (3, 16), "float64")
    suite = Suite("batched", "test suite", "tests", (case,), ("cpu-seq", "densela"), "cpu-seq")
    rows = bench_run.run_suites([suite], tmp_path, progress=False, max_seconds=0.2)
    assert [r["status"] for r in rows] == ["ok", "ok"], [r["note"] for r in rows]
    assert all(r["err_rel"] < 1e-14 for r in rows)


@pytest.mark.parametrize("name", ["lu-large", "lu-batched", "lu-refine"])
def test_lu_suites_skip_the_gpu_libraries_without_a_gpu(tmp_path, name):
    """On a CPU-only machine the vendor providers give skipped rows (never loaded); densela's rows come only
    where densela implements the op (here left out, to keep the interpreter out of it)."""
    if bench_run.gpu_present():
        pytest.skip("a GPU is present: the vendor libraries run")
    rows = bench_run.run_suites([SUITES[name]], tmp_path, providers=["cusolver", "magma"], progress=False)
    assert rows and all(r["status"] == "skipped" and r["note"] == "needs a CUDA GPU" for r in rows)
    assert {r["provider"] for r in rows} == {"cusolver", "magma"}
    assert max(r["size"] for r in rows) <= 64 and all(r["best_of"] == ["cusolver", "magma"] for r in rows)


def test_slow_gpu_calls_are_timed_call_by_call_and_bounded(monkeypatch):
    """A call longer than rep_ms / MIN_GPU_REPS never goes through gpu_samples' rounds; its repetitions stop at
    MIN_GPU_REPS when steady, and at the time limit (with MIN_GPU_REPS at least) when not."""
    benches = []
    monkeypatch.setattr(bench_timing, "gpu_samples", lambda *a, **k: benches.append(1) or [1.0, 1.0, 1.0])

    def fake(samples):
        it = iter(samples)
        calls = []

        def timed_calls(fn):
            def timed():
                calls.append(1)
                return next(it)

            return timed

        monkeypatch.setattr(bench_timing, "_timed_calls", timed_calls)
        return calls

    calls = fake([150.0, 151.0, 150.5, 999.0])
    t = bench_timing.time_gpu(lambda: None, max_seconds=60.0)
    assert (t.reps, len(calls), t.median_ms, t.timer, benches) == (3, 3, 150.5, bench_timing.GPU_TIMER, [])

    calls = fake([150.0, 300.0, 100.0, 400.0, 50.0])  # noisy: more samples, until the time limit
    t = bench_timing.time_gpu(lambda: None, max_seconds=0.0)
    assert t.reps == bench_timing.MIN_GPU_REPS == 3 and t.noisy and not benches

    calls = fake([150.0, 300.0, 100.0, *([200.0] * 40)])  # noisy at first, steady later: stops when steady
    t = bench_timing.time_gpu(lambda: None, max_seconds=60.0)
    assert 3 < t.reps < 40 and not t.noisy

    calls = fake([0.5])  # a short call: the probe only chooses gpu_samples
    t = bench_timing.time_gpu(lambda: None, max_seconds=60.0)
    assert (len(calls), t.reps, benches) == (1, 3, [1])


def test_ceilings_measured_another_way_are_measured_again(monkeypatch, tmp_path):
    """A cached ceilings file is used only when its ``method`` is this version's (an earlier one flushed the L2 by
    writing, which slowed the copy): otherwise, and with ``refresh``, the ceilings are measured and cached anew."""
    from densela.bench import roofline

    path = tmp_path / "gpu.json"
    monkeypatch.setattr(roofline, "cache_path", lambda gpu: path)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "GPU")
    measured = []

    def measure(progress):
        measured.append(1)
        return {"gpu": "GPU", "copy_gbps": 3000.0 + len(measured), "method": roofline.METHOD}

    monkeypatch.setattr(roofline, "measure_ceilings", measure)
    path.write_text(json.dumps({"gpu": "GPU", "copy_gbps": 2900.0, "method": "device copy, do_bench median"}))
    assert roofline.ceilings(progress=False)["copy_gbps"] == 3001.0  # another method: measured again
    assert roofline.ceilings(progress=False)["copy_gbps"] == 3001.0 and len(measured) == 1  # cached now
    assert roofline.ceilings(refresh=True, progress=False)["copy_gbps"] == 3002.0
    assert json.loads(path.read_text())["copy_gbps"] == 3002.0


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_gpu_samples_time_each_call_after_a_flush_by_reading(monkeypatch):
    """gpu_samples flushes the L2 before every timed call (by reading: the flush buffer stays as it was) and
    returns one positive time per timed call."""
    flushes = []
    flush = bench_timing.flush_l2
    monkeypatch.setattr(bench_timing, "flush_l2", lambda: flushes.append(1) or flush())
    x = torch.randn(1 << 20, device="cuda")
    calls = []
    samples = bench_timing.gpu_samples(lambda: calls.append(1) or x.mul_(1.0), warmup_ms=1.0, rep_ms=5.0)
    assert samples and all(t > 0 for t in samples)
    assert len(flushes) == 5 + len(samples)  # the five estimating calls and each timed one
    assert len(calls) >= 1 + 5 + len(samples)
    buffer = bench_timing._flush_buffers[torch.cuda.current_device()]
    assert buffer.numel() * 4 == bench_timing.FLUSH_BYTES and bool((buffer == 1).all())


def test_torch_solve_factors_and_solves_under_their_own_backends(monkeypatch):
    """magma's solve: lu_factor under MAGMA, lu_solve under cuSOLVER (torch's MAGMA lu_solve fails for one
    right-hand side at n = 8192); each call inside its own backend's context."""
    events = []

    @contextlib.contextmanager
    def backend(name):
        events.append(f"{name}+")
        yield
        events.append(f"{name}-")

    for name in ("lu_factor", "lu_solve"):
        real = getattr(torch.linalg, name)
        monkeypatch.setattr(torch.linalg, name, lambda *a, real=real, name=name: events.append(name) or real(*a))
    build = bench_providers._solve_torch(partial(backend, "magma"), partial(backend, "cusolver"))
    case = Case("solve", (20,), "float64")
    x = make_inputs(case, "cpu")
    assert bench_run.accuracy(case, x, build(case, x)())[2] < 1e-15
    assert events == ["magma+", "lu_factor", "magma-", "cusolver+", "lu_solve", "cusolver-"]


@pytest.mark.parametrize("shape", [(6, 6), (9, 7), (12, 18)], ids=str)
def test_densela_inplace_transpose_rows(tmp_path, shape):
    """An in-place transposition case: densela's transpose_ on its own copy (the input and the other
    providers' results stay as they were), judged exactly against a.T; torch copies out of place."""
    case = Case("transpose", shape, "float32", layout="inplace")
    suite = Suite("inplace", "test suite", "tests", (case,), ("cpu-seq", "densela"), "cpu-seq")
    rows = bench_run.run_suites([suite], tmp_path, progress=False, max_seconds=0.2)
    assert [r["status"] for r in rows] == ["ok", "ok"], [r["note"] for r in rows]
    assert all(r["err_max"] == 0.0 and r["layout"] == "inplace" for r in rows)


def test_densela_inplace_transpose_alternates():
    """Each timed call transposes what the last one returned: back and forth, never the stale shape."""
    x = make_inputs(Case("transpose", (5, 3), "float32", layout="inplace"), "cpu")
    original = x["a"].clone()
    run = PROVIDERS["densela"].builder("transpose")(Case("transpose", (5, 3), "float32", layout="inplace"), x)
    first, second = run().clone(), run()
    assert torch.equal(first, original.T) and torch.equal(second, original)
    assert torch.equal(x["a"], original)


def test_host_us_times_the_calls_and_profiles_them(tmp_path) -> None:
    """Host time per call grows with the call's own work, and the profile names the function called."""

    def slow() -> None:
        time.sleep(0.002)

    profile = tmp_path / "profile.txt"
    per_call = bench_timing.host_us(slow, calls=5, warmup=1, profile=str(profile))
    assert 2000 <= per_call < 200000
    assert bench_timing.host_us(lambda: None, calls=5, warmup=1) < per_call
    assert "slow" in profile.read_text()
