"""The benchmark suites: the studies' shapes written out as the studies print them, dtypes, providers, bases,
size limits, and the interpreter's capped copies. Pure data: nothing here touches a GPU."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from densela.bench.suites import OPS, REFINE_MODES, SUITES, Case, interpreter_shape, lu_flops, suite_for_interpreter

FP32_FP64 = ["float32", "float64"]
GEMM_PROVIDERS = ("densela", "cublas", "cupy")

# Thesis 000, tables 4.5-4.10 (HELIOS), repeated with the same shapes in 4.11-4.16 (GP1).
TNL_GEMM = {
    "tnl-gemm-square": [
        "100x100 * 100x100",
        "1300x1300 * 1300x1300",
        "2500x2500 * 2500x2500",
        "3700x3700 * 3700x3700",
        "5000x5000 * 5000x5000",
    ],
    "tnl-gemm-wide": [
        "100x50 * 50x100",
        "1300x650 * 650x1300",
        "2500x1250 * 1250x2500",
        "3700x1850 * 1850x3700",
        "5000x2500 * 2500x5000",
    ],
    "tnl-gemm-tall": [
        "50x100 * 100x50",
        "650x1300 * 1300x650",
        "1250x2500 * 2500x1250",
        "1850x3700 * 3700x1850",
        "2500x5000 * 5000x2500",
    ],
    "tnl-gemm-random": [
        "20x80 * 80x60",
        "260x1040 * 1040x780",
        "500x2000 * 2000x1500",
        "740x2960 * 2960x2220",
        "1000x4000 * 4000x3000",
    ],
    "tnl-gemm-thin-1": [
        "1x100 * 100x1",
        "12x1200 * 1200x12",
        "25x2500 * 2500x25",
        "36x3600 * 3600x36",
        "50x5000 * 5000x50",
    ],
    "tnl-gemm-thin-2": [
        "100x1 * 1x100",
        "1200x12 * 12x1200",
        "2500x25 * 25x2500",
        "3600x36 * 36x3600",
        "5000x50 * 50x5000",
    ],
}

# Thesis 000, tables 4.17-4.20 (HELIOS) and 4.21-4.24 (GP1).
TNL_TRANSPOSE = {
    "tnl-transpose-square": ["100x100", "5000x5000", "10000x10000"],
    "tnl-transpose-wide": ["50x100", "2500x5000", "5000x10000"],
    "tnl-transpose-tall": ["100x50", "5000x2500", "10000x5000"],
    "tnl-transpose-thin": ["100x1", "5000x50", "10000x100"],
}

# PA2 report 001, section 2c (N = 256 .. 4096), and the one-by-one sweep for the divisibility dips.
PA2_N = [256, 512, *range(1000, 1101), 2048, 4096]

# ITU project 002: addition figures 18 and 23, multiplication figures 29/31 and 39, LU figures 46 and 57.
ITU_ADD_N = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000]
ITU_MUL_N = [100, 200, 300, 400, 500, 600, 5000]
ITU_LU_N = [100, 200, 300, 400, 500, 1000]

# Report 004: (n, k) pairs of section 3.1.1, then k = 32, 48, 64, 96 at n = 20480 (section 4.3.3).
NONSQUARE_LABELS = [
    "4096x32 * 32x4096",
    "8192x48 * 48x8192",
    "12288x64 * 64x12288",
    "16384x96 * 96x16384",
    "20480x128 * 128x20480",
    "20480x32 * 32x20480",
    "20480x48 * 48x20480",
    "20480x64 * 64x20480",
    "20480x96 * 96x20480",
]


def labels(name: str, dtype: str) -> list[str]:
    return [c.label for c in SUITES[name].cases if c.dtype == dtype]


def test_registry_names() -> None:
    assert set(SUITES) == {
        *TNL_GEMM,
        *TNL_TRANSPOSE,
        "pa2-sgemm",
        "itu-add",
        "itu-mul",
        "itu-lu",
        "lu-large",
        "lu-batched",
        "lu-refine",
        "nonsquare-k",
        "gemm-targets",
        "gemm-layouts",
        "gemm-odd",
        "gemm-thin",
        "memory-targets",
        "transpose-inplace",
        "quick",
    }
    assert all(s.name == name for name, s in SUITES.items())


def test_odd_suite_has_odd_rows_in_every_mode() -> None:
    cases = SUITES["gemm-odd"].cases
    modes = {(c.dtype, c.precision) for c in cases}
    assert modes == {
        ("bfloat16", None), ("float16", None), ("float32", "ieee"), ("float32", "tf32"), ("float32", "tf32x3"),
        ("float64", None)
    }  # fmt: skip
    assert all(c.shape[1] % 2 or c.shape[2] % 2 for c in cases), "an odd row stride (n or k) in every product"
    for mode in modes:  # row-major operands, and the three other transposition states at 1001^3
        layouts = {c.layout for c in cases if (c.dtype, c.precision) == mode}
        assert layouts == {"row", "nt", "tn", "tt"}, (mode, layouts)


def test_inplace_suite_holds_the_issue_5_shapes() -> None:
    cases = SUITES["transpose-inplace"].cases
    assert {c.layout for c in cases} == {"inplace"} and {c.op for c in cases} == {"transpose"}
    assert {c.dtype for c in cases} == {"float32", "float64", "bfloat16"}
    shapes = {c.shape for c in cases}
    assert {(8192, 8192), (32768, 1024), (100000, 100), (4096, 4095)} <= shapes
    divisors = {math.gcd(*s) for s in shapes if s[0] != s[1]}
    assert 1 in divisors and any(1 < d < 32 for d in divisors) and any(d >= 32 for d in divisors)


def test_gemm_target_suites_hold_the_issue_4_points() -> None:
    targets = {(c.shape, c.dtype, c.precision, c.layout) for c in SUITES["gemm-targets"].cases}
    for n in (2048, 4096, 8192):
        for dtype, precision in (("float16", None), ("bfloat16", None), ("float32", "tf32"), ("float32", "tf32x3"),
                                 ("float32", "ieee"), ("float64", None)):  # fmt: skip
            assert ((n, n, n), dtype, precision, "row") in targets
    assert {c.layout for c in SUITES["gemm-targets"].cases} == {"row", "nt", "tn", "tt"}
    thin = SUITES["gemm-thin"].cases
    assert {c.dtype for c in thin} == {"float32", "bfloat16"}
    assert ((50, 50, 5000), "bfloat16") in {(c.shape, c.dtype) for c in thin}
    assert all(min(c.shape[:2]) <= 256 or c.shape[2] <= 128 for c in thin)


@pytest.mark.parametrize("name", sorted(SUITES))
def test_suite_is_well_formed(name: str) -> None:
    suite = SUITES[name]
    assert suite.cases and suite.description and suite.source
    assert len(set(suite.cases)) == len(suite.cases)
    assert suite.base in suite.providers
    assert all(p in suite.providers for p, _ in suite.limits)
    assert all(op in OPS and p in suite.providers for op, p in suite.op_bases)
    assert all(p in suite.providers for p in suite.best_of) and suite.base not in suite.best_of[1:]
    for c in suite.cases:
        assert c.op in OPS
        assert all(isinstance(d, int) and d >= 1 for d in c.shape)
        assert c.itemsize in (2, 4, 8) or (c.itemsize == 1 and c.op == "transpose")  # 8-bit: transposes only
        fp32_gemm = c.op == "gemm" and c.dtype == "float32"
        if c.op == "solve":
            assert c.precision in (None, *REFINE_MODES) and c.dtype == "float64" and c.cond and c.cond >= 1
        else:
            assert c.precision in (("ieee", "tf32", "tf32x3") if fp32_gemm else (None,)) and c.cond is None
        ours = ("quick", "gemm-targets", "gemm-layouts", "gemm-odd")  # the studies' FP32 is "ieee"
        assert c.precision == "ieee" or not fp32_gemm or name in ours


@pytest.mark.parametrize("name", sorted(TNL_GEMM))
def test_tnl_gemm(name: str) -> None:
    suite = SUITES[name]
    assert labels(name, "float32") == labels(name, "float64") == TNL_GEMM[name]
    assert [c.dtype for c in suite.cases] == ["float32"] * 5 + ["float64"] * 5
    assert {c.op for c in suite.cases} == {"gemm"}
    assert {(c.dtype, c.precision) for c in suite.cases} == {("float32", "ieee"), ("float64", None)}
    assert (suite.providers, suite.base, suite.limits) == (GEMM_PROVIDERS, "cublas", ())


@pytest.mark.parametrize("name", sorted(TNL_TRANSPOSE))
def test_tnl_transpose(name: str) -> None:
    suite = SUITES[name]
    assert labels(name, "float32") == labels(name, "float64") == TNL_TRANSPOSE[name]
    assert sorted({c.dtype for c in suite.cases}) == FP32_FP64
    assert {(c.op, c.precision, c.layout) for c in suite.cases} == {("transpose", None, "row")}
    assert (suite.providers, suite.base) == (GEMM_PROVIDERS, "cublas")
    assert "MAGMA" in suite.description


def test_pa2_sgemm() -> None:
    suite = SUITES["pa2-sgemm"]
    assert [c.shape for c in suite.cases] == [(n, n, n) for n in PA2_N]
    assert {(c.dtype, c.precision) for c in suite.cases} == {("float32", "ieee")}
    assert (suite.providers, suite.base) == (("densela", "cublas", "numpy"), "cublas")


@pytest.mark.parametrize(
    ("name", "op", "sizes", "dtypes"),
    [
        ("itu-add", "add", ITU_ADD_N, ["float32"]),
        ("itu-mul", "gemm", ITU_MUL_N, ["float32"]),
        ("itu-lu", "lu", ITU_LU_N, FP32_FP64),
    ],
)
def test_itu(name: str, op: str, sizes: list[int], dtypes: list[str]) -> None:
    suite = SUITES[name]
    square = {"add": lambda n: (n, n), "gemm": lambda n: (n, n, n), "lu": lambda n: (n,)}[op]
    assert [c.shape for c in suite.cases] == [square(n) for _ in dtypes for n in sizes]
    assert [c.dtype for c in suite.cases] == [d for d in dtypes for _ in sizes]
    assert all(c.op == op and c.transfers for c in suite.cases)
    if op == "lu":
        assert (suite.providers, suite.base) == (("densela", "cusolver", "magma", "numpy", "cpu-seq"), "cusolver")
    else:
        assert (suite.providers, suite.base) == (("densela", "cublas", "numpy", "cpu-seq"), "cublas")


def test_nonsquare_k() -> None:
    suite = SUITES["nonsquare-k"]
    assert labels("nonsquare-k", "float32") == labels("nonsquare-k", "float64") == NONSQUARE_LABELS
    assert [c.dtype for c in suite.cases] == ["float32"] * 9 + ["float64"] * 9
    assert (suite.providers, suite.base) == (("densela", "cublas", "cupy", "numpy"), "cublas")


def test_quick_mixes_every_op() -> None:
    suite = SUITES["quick"]
    assert {c.op for c in suite.cases} == set(OPS)
    gemm = {(c.shape, c.dtype, c.precision) for c in suite.cases if c.op == "gemm"}
    modes = [
        ("float16", None),
        ("bfloat16", None),
        ("float32", "ieee"),
        ("float32", "tf32"),
        ("float32", "tf32x3"),
        ("float64", None),
    ]
    assert gemm == {((n, n, n), d, p) for n in (1024, 4096) for d, p in modes}
    rest = [(c.op, c.shape, c.dtype, c.layout) for c in suite.cases if c.op != "gemm"]
    assert rest == [
        ("transpose", (4096, 4096), "float32", "row"),
        ("transpose", (8192, 2048), "float32", "row"),
        ("transpose", (4096, 4095), "float32", "inplace"),
        ("add", (4096, 4096), "float32", "row"),
        ("add", (4096, 4096), "float32", "row+col"),
        ("lu", (1000,), "float64", "row"),
        ("lu", (4096,), "float64", "row"),
        ("lu", (10000, 32), "float64", "row"),
        ("solve", (4096,), "float64", "row"),
    ]
    solve = suite.cases[-1]
    assert (solve.precision, solve.cond, solve.label) == ("fp32", 100.0, "4096x4096, cond 1e2")
    assert set(suite.providers) == {"densela", "cublas", "cusolver", "magma", "numpy"}
    assert [c.shape for c in suite.cases if suite.runs("numpy", c)] == [(1024, 1024, 1024)] * 6 + [(1000,)]
    assert {c.op: suite.base_for(c) for c in suite.cases} == {
        "gemm": "cublas",
        "transpose": "cublas",
        "add": "cublas",
        "lu": "cusolver",
        "solve": "cusolver",
    }
    assert not any(c.transfers for c in suite.cases)
    assert len(suite.cases) == 21


LU_VENDORS = ("cusolver", "magma")


def test_lu_large() -> None:
    """Issue 6: square LU to n = 16384 in both dtypes, on the GPU only; the existing itu-lu stays as it was."""
    suite = SUITES["lu-large"]
    sizes = [1000, 2048, 4096, 8192, 16384]
    assert [(c.op, c.shape, c.dtype) for c in suite.cases] == [
        ("lu", (n,), d) for d in ("float64", "float32") for n in sizes
    ]
    assert not any(c.transfers for c in suite.cases)
    assert (suite.providers, suite.base, suite.best_of, suite.limits) == (
        ("densela", *LU_VENDORS),
        "cusolver",
        LU_VENDORS,
        (),
    )
    assert [c.shape for c in SUITES["itu-lu"].cases] == [(n,) for _ in FP32_FP64 for n in ITU_LU_N]
    assert SUITES["itu-lu"].best_of == ()
    big = suite.cases[4]
    assert (big.label, big.flops, big.bytes) == ("16384x16384", pytest.approx(2 * 16384**3 / 3), 2 * 8 * 16384**2)


def test_lu_batched() -> None:
    suite = SUITES["lu-batched"]
    expected = [
        ("lu", (batch, n), d) for d in ("float64", "float32") for batch in (1000, 10000) for n in (8, 16, 32, 64, 128)
    ]
    assert [(c.op, c.shape, c.dtype) for c in suite.cases] == expected
    assert (suite.providers, suite.base, suite.best_of) == (("densela", *LU_VENDORS), "cusolver", LU_VENDORS)
    assert suite.cases[0].label == "1000 x 8x8" and suite.cases[-1].label == "10000 x 128x128"
    assert suite.cases[-1].flops == pytest.approx(10000 * 2 * 128**3 / 3)


def test_lu_refine() -> None:
    """float64 solves of one right-hand side at n = 8192, 16384 and cond 1e2, 1e6, every refinement mode and
    none; the modes of one matrix adjacent, so that its inputs are made once."""
    suite = SUITES["lu-refine"]
    expected = [
        ((n,), cond, mode) for n in (8192, 16384) for cond in (1e2, 1e6) for mode in (None, "fp32", "tf32", "bf16")
    ]
    assert [(c.shape, c.cond, c.precision) for c in suite.cases] == expected
    assert {(c.op, c.dtype, c.nrhs) for c in suite.cases} == {("solve", "float64", 1)}
    assert (suite.providers, suite.base, suite.best_of) == (("densela", *LU_VENDORS), "cusolver", LU_VENDORS)
    assert [c.label for c in suite.cases[::4]] == [
        "8192x8192, cond 1e2",
        "8192x8192, cond 1e6",
        "16384x16384, cond 1e2",
        "16384x16384, cond 1e6",
    ]
    small = suite_for_interpreter(suite)
    assert [(c.shape, c.cond, c.precision) for c in small.cases] == [
        ((64,), cond, mode) for cond in (1e2, 1e6) for mode in (None, *REFINE_MODES)
    ]


def test_labels() -> None:
    assert Case("gemm", (100, 60, 20), "float32").label == "100x20 * 20x60"
    assert Case("transpose", (1000, 500), "float32").label == "1000x500"
    assert Case("add", (30, 40), "float32").label == "30x40"
    assert Case("lu", (128,), "float64").label == "128x128"
    assert Case("lu", (8, 64), "float64").label == "8 x 64x64"
    assert Case("solve", (100,), "float64", cond=1e6).label == "100x100, cond 1e6"
    assert Case("solve", (100, 16), "float64", "bf16", cond=2.5e3).label == "100x100, 16 rhs, cond 2500"
    assert Case("solve", (100,), "float64").label == "100x100"


def test_flops_and_bytes() -> None:
    gemm = Case("gemm", (2, 3, 4), "float32")  # A 2x4, B 4x3, C 2x3
    assert (gemm.flops, gemm.bytes, gemm.size, gemm.memory_bound) == (48.0, 4.0 * (8 + 12 + 6), 4, False)
    transpose = Case("transpose", (2, 3), "float64")
    assert (transpose.flops, transpose.bytes, transpose.memory_bound) == (0.0, 2 * 8 * 6.0, True)
    add = Case("add", (2, 3), "float16")
    assert (add.flops, add.bytes, add.memory_bound) == (18.0, 3 * 2 * 6.0, True)
    lu = Case("lu", (3,), "float64")
    assert (lu.flops, lu.bytes) == (pytest.approx(18.0), 2 * 8 * 9.0)
    batched = Case("lu", (5, 3), "float32")
    assert (batched.flops, batched.bytes, batched.size) == (pytest.approx(90.0), 2 * 4 * 5 * 9.0, 5)
    # An m x n LU (m >= n): n^2 (m - n/3); square: 2 n^3 / 3.
    assert (lu_flops(3, 3), lu_flops(6, 3), lu_flops(3, 6), lu_flops(1000, 10)) == (18.0, 45.0, 45.0, 100000 - 1000 / 3)
    # A solve: the LU (2 n^3 / 3) and two triangular solves per right-hand side (2 n^2 each pair).
    vector = Case("solve", (3,), "float64", "fp32", cond=10.0)
    assert (vector.flops, vector.bytes, vector.nrhs, vector.size) == (18.0 + 18.0, 8 * (9 + 6.0), 1, 3)
    block = Case("solve", (4, 5), "float64")
    assert (block.flops, block.bytes, block.nrhs) == (pytest.approx(128 / 3 + 160), 8 * (16 + 40.0), 5)


@pytest.mark.parametrize("name", sorted(SUITES))
def test_suite_for_interpreter_caps_sizes(name: str) -> None:
    suite = SUITES[name]
    small = suite_for_interpreter(suite)
    assert (small.name, small.providers, small.base, small.limits) == (
        suite.name,
        suite.providers,
        suite.base,
        suite.limits,
    )
    assert len(set(small.cases)) == len(small.cases) <= len(suite.cases)
    assert all(max(c.shape) <= 64 for c in small.cases)
    assert all(c.shape[0] <= 8 for c in small.cases if c.op == "lu" and len(c.shape) == 2)  # a batch of 8 at most
    assert set(small.cases) == {replace(c, shape=interpreter_shape(c)) for c in suite.cases}
    assert {(c.op, c.dtype, c.precision, c.cond) for c in small.cases} == {
        (c.op, c.dtype, c.precision, c.cond) for c in suite.cases
    }


def test_interpreter_shape() -> None:
    assert interpreter_shape(Case("lu", (10000, 128), "float64")) == (8, 64)
    assert interpreter_shape(Case("lu", (4, 16), "float64")) == (4, 16)
    assert interpreter_shape(Case("lu", (16384,), "float32")) == (64,)
    assert interpreter_shape(Case("solve", (8192, 100), "float64")) == (64, 64)
    assert interpreter_shape(Case("gemm", (5000, 50, 5000), "float32"), cap=32) == (32, 32, 32)
    assert suite_for_interpreter(SUITES["lu-batched"], batch_cap=2).cases[0].shape == (2, 8)


def test_suite_for_interpreter_keeps_small_shapes_and_dedups() -> None:
    small = suite_for_interpreter(SUITES["tnl-gemm-thin-1"], cap=16)
    assert [c.label for c in small.cases if c.dtype == "float32"] == ["1x16 * 16x1", "12x16 * 16x12", "16x16 * 16x16"]
    pa2 = suite_for_interpreter(SUITES["pa2-sgemm"])
    assert [c.shape for c in pa2.cases] == [(64, 64, 64)]


def test_runs_limits() -> None:
    mul = SUITES["itu-mul"]
    small, large = (next(c for c in mul.cases if c.size == n) for n in (600, 5000))
    assert mul.runs("cpu-seq", small) and not mul.runs("cpu-seq", large)
    assert all(mul.runs(p, large) for p in ("densela", "cublas", "numpy"))
    assert not mul.runs("cupy", small)  # not one of the suite's providers
    add = SUITES["itu-add"]
    assert all(add.runs("cpu-seq", c) for c in add.cases)
    lu = SUITES["itu-lu"]
    assert lu.runs("cpu-seq", Case("lu", (2000,), "float64"))
    assert not lu.runs("cpu-seq", Case("lu", (2001,), "float64"))


def test_memory_targets_cover_issue_5() -> None:
    """Every dtype, both layouts, tall, wide and thin transposes (issue 5), 8-bit ones of 64 MiB and more; add
    alike and transposed."""
    cases = SUITES["memory-targets"].cases
    for op, layouts, dtypes in (
        ("transpose", {"row", "col"}, {"float32", "float64", "bfloat16", "int8"}),
        ("add", {"row", "row+col"}, {"float32", "float64", "bfloat16"}),
    ):
        mine = [c for c in cases if c.op == op]
        assert {c.layout for c in mine} == layouts
        assert {c.dtype for c in mine} == dtypes
    shapes = {c.shape for c in cases if c.op == "transpose"}
    assert {(100000, 100), (32768, 1024)} <= shapes
    small = [c for c in cases if c.dtype == "int8"]
    assert {min(c.shape) for c in small} == {100, 1024, 8192} and all(c.bytes >= 2 * (64 << 20) for c in small)
