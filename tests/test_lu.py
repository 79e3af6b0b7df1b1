"""LU family: lu_factor, lu_factor_ex, lu_solve, solve, solve_ex.

Judged as LAPACK's own tests judge xGETRF and xGETRS: the ratios ||P A - L U||_1 / (n ||A||_1 eps) and
||b - A x||_1 / (||A||_1 ||x||_1 n eps) below 30, computed in float64 from the returned ``lu``/``piv``, on
LAPACK's matrix types (diagonal, triangular, random, zero columns, ill-conditioned, scaled near underflow and
overflow) plus Wilkinson's growth matrix; pivots identical to SciPy's (LAPACK's) getrf, ties broken by the
first maximum. Interpreter cases stay small (n <= 40); the ``large`` ones run on a GPU.
"""

from __future__ import annotations

import inspect
import threading
import warnings
import zlib

import numpy as np
import pytest
import scipy.linalg
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import densela as dl
import densela._arrays
import densela._launch
import densela.lu
from _reference import (
    UNIT_ROUNDOFF,
    Layout,
    assert_identical,
    backward_error,
    exact_lu_pivots,
    f64_here,
    int64_cpu,
    lu_factor_ratio,
    lu_unpack,
    solve_ratio,
    wilkinson_growth,
    with_condition,
)
from conftest import DEVICE, GPU
from densela._launch import cdiv

DTYPES = (torch.float32, torch.float64)
NP_DTYPES = {torch.float32: np.float32, torch.float64: np.float64}
EPS64 = UNIT_ROUNDOFF[torch.float64]
RATIO = 30.0
"""LAPACK's threshold for its test ratios."""

SMALL = {torch.float32: 1e-35, torch.float64: 1e-300}
LARGE = {torch.float32: 1e35, torch.float64: 1e300}


# --- building inputs ------------------------------------------------------------------------------------------


def rng_for(*key: object) -> np.random.Generator:
    """A NumPy generator seeded from ``key`` (stable across runs, unlike hash())."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def gaussian(shape: tuple[int, ...], *key: object) -> np.ndarray:
    """Standard normal float64 values (never zeros), seeded by ``key``."""
    return rng_for("gaussian", shape, *key).standard_normal(shape)


def rounded(values: np.ndarray, dtype: torch.dtype) -> np.ndarray:
    """``values`` rounded to ``dtype`` (so the float64 values are exactly what the array holds)."""
    return np.asarray(values, dtype=NP_DTYPES[dtype]).astype(np.float64)


def place(values: np.ndarray, dtype: torch.dtype, device: str, layout: Layout = "row") -> torch.Tensor:
    """``values`` (..., m, n) as a tensor of ``dtype`` on ``device`` in ``layout``.

    ``col``: the last two axes column-major; ``strided``/``strided_col``: every other row and column of a
    buffer twice as large whose other elements are NaN, so reading or writing outside the view shows.
    """
    t = torch.from_numpy(np.array(values, dtype=np.float64)).to(dtype)  # a copy: never the caller's memory
    if layout in ("strided", "strided_col"):
        inner: Layout = "col" if layout == "strided_col" else "row"
        shape = (*t.shape[:-2], 2 * t.shape[-2], 2 * t.shape[-1])
        base = place(np.full(shape, np.nan), dtype, device, inner)
        view = base[..., ::2, ::2]
        view.copy_(t.to(device))
        return view
    if layout == "col":
        return t.mT.contiguous().to(device).mT
    return t.contiguous().to(device)


def place_np(values: np.ndarray, dtype: torch.dtype, layout: str = "row") -> np.ndarray:
    """``values`` as a NumPy array: ``row`` C order, ``col`` Fortran order, ``strided`` a [::2, ::2] view of a
    NaN-filled buffer, ``reversed`` a view with a negative row stride."""
    v = values.astype(NP_DTYPES[dtype])
    if layout == "col":
        return np.asfortranarray(v)
    if layout == "strided":
        base = np.full((*v.shape[:-2], 2 * v.shape[-2], 2 * v.shape[-1]), np.nan, dtype=v.dtype)
        base[..., ::2, ::2] = v
        return base[..., ::2, ::2]
    if layout == "reversed":
        return np.ascontiguousarray(v[..., ::-1, :])[..., ::-1, :]
    return np.ascontiguousarray(v)


def snapshot(x: object) -> tuple[object, object]:
    """(the memory ``x`` views, a copy of it): the whole buffer of a strided view, gaps included."""
    if isinstance(x, torch.Tensor):
        base = x._base if x._base is not None else x
        return base, base.clone()
    base = x.base if isinstance(x, np.ndarray) and x.base is not None else x
    return base, np.array(base, copy=True)


def assert_untouched(snap: tuple[object, object], what: str = "input") -> None:
    base, before = snap
    assert_identical(base, before, f"{what} was modified")


def factor_quietly(a: object, **kwargs: object) -> tuple[object, object, list[warnings.WarningMessage]]:
    """dl.lu_factor(a), and the LinAlgWarnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lu, piv = dl.lu_factor(a, **kwargs)
    return lu, piv, [w for w in caught if issubclass(w.category, dl.LinAlgWarning)]


def scipy_factor(values: np.ndarray, dtype: torch.dtype) -> tuple[np.ndarray, np.ndarray]:
    """SciPy's (LAPACK getrf's) factorization of ``values`` in ``dtype``, warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return scipy.linalg.lu_factor(values.astype(NP_DTYPES[dtype]), check_finite=False)


def as_np_int(x: object) -> np.ndarray:
    return int64_cpu(x).numpy()


def assert_lu_valid(a: object, lu: object, piv: object, dtype: torch.dtype, what: str = "") -> None:
    """Shapes and dtypes of (lu, piv), pivots in LAPACK's range (i <= piv[i] < m), |L| <= 1 (partial pivoting)
    and the xGET01 ratio below 30 for every matrix."""
    shape = tuple(a.shape)
    m, n = shape[-2:]
    k = min(m, n)
    assert tuple(lu.shape) == shape, f"{what}: lu shape {tuple(lu.shape)}, a is {shape}"
    assert tuple(piv.shape) == (*shape[:-2], k), f"{what}: piv shape {tuple(piv.shape)} for a of {shape}"
    if isinstance(lu, torch.Tensor):
        assert lu.dtype == dtype and piv.dtype == torch.int32, f"{what}: {lu.dtype}, {piv.dtype}"
    else:
        assert lu.dtype == NP_DTYPES[dtype] and piv.dtype == np.int32, f"{what}: {lu.dtype}, {piv.dtype}"
    p = as_np_int(piv)
    steps = np.arange(k)
    assert ((p >= steps) & (p < m)).all(), f"{what}: pivots outside [i, m): {p}"
    _, lower, _ = lu_unpack(lu, piv)
    largest = float(lower.abs().amax()) if lower.numel() else 0.0
    assert largest <= 1.0 + 8 * UNIT_ROUNDOFF[dtype], f"{what}: |L| reaches {largest}: not partial pivoting"
    ratio = lu_factor_ratio(a, lu, piv, UNIT_ROUNDOFF[dtype])
    assert bool((ratio < RATIO).all()), f"{what}: ||PA - LU|| / (n ||A|| eps) = {ratio.tolist()} (bound {RATIO})"


def assert_pivots_match(piv: object, want: object, what: str = "") -> None:
    got, ref = as_np_int(piv), as_np_int(want)
    assert got.shape == ref.shape, f"{what}: piv shape {got.shape} != {ref.shape}"
    bad = np.argwhere(got != ref)
    assert bad.size == 0, f"{what}: pivots differ from LAPACK's at {bad[:5].tolist()}: {got} vs {ref}"


def assert_solved(a: object, x: object, b: object, dtype: torch.dtype, *, trans: bool = False, what: str = "") -> None:
    assert tuple(x.shape) == tuple(b.shape), f"{what}: x shape {tuple(x.shape)}, b is {tuple(b.shape)}"
    ratio = solve_ratio(a, x, b, UNIT_ROUNDOFF[dtype], trans=trans)
    assert bool((ratio < RATIO).all()), f"{what}: ||b - Ax|| / (||A|| ||x|| n eps) = {ratio.tolist()}"


# --- LAPACK's matrix types ----------------------------------------------------------------------------------

MATRIX_KINDS = (
    "diagonal", "upper", "lower", "random", "zero_first_col", "zero_last_col", "zero_middle_col",
    "zero_last_half", "cond_sqrt_eps", "cond_eps", "near_underflow", "near_overflow", "wilkinson",
    "zero_leading", "tiny_leading",
)  # fmt: skip
ILL_CONDITIONED = ("cond_sqrt_eps", "cond_eps")
"""Kinds whose last pivots are rounding noise, so only the ratio is judged, not the pivot sequence."""


def lapack_matrix(kind: str, m: int, n: int, dtype: torch.dtype) -> np.ndarray:
    """Float64 values, exactly representable in ``dtype``, of one of LAPACK's xGET test types (m x n)."""
    eps = UNIT_ROUNDOFF[dtype]
    g = gaussian((m, n), kind, str(dtype))
    k = min(m, n)
    if kind == "diagonal":
        a = np.zeros((m, n))
        a[range(k), range(k)] = g[range(k), range(k)]
    elif kind == "upper":
        a = np.triu(g)
    elif kind == "lower":
        a = np.tril(g)
    elif kind == "random":
        a = g
    elif zero_columns(kind, n):
        a = g
        a[:, zero_columns(kind, n)] = 0.0
    elif kind in ILL_CONDITIONED:
        cond = np.sqrt(0.1 / eps) if kind == "cond_sqrt_eps" else 0.1 / eps
        a = with_condition(m, n, cond, rng_for(kind, m, n, str(dtype)))
    elif kind == "near_underflow":
        # scaled so that the smallest entry is still a normal number of dtype
        tiny = float(np.finfo(NP_DTYPES[dtype]).tiny)
        a = g * max(SMALL[dtype], 2 * tiny / np.abs(g).min())
        assert np.abs(rounded(a, dtype)).min() >= tiny
    elif kind == "near_overflow":
        a = g * LARGE[dtype]
        assert np.abs(a).max() * max(m, n) < float(np.finfo(NP_DTYPES[dtype]).max) / 16
    elif kind == "wilkinson":
        assert m == n
        a = wilkinson_growth(n)
    elif kind == "zero_leading":
        a = g
        a[0, 0] = 0.0
    elif kind == "tiny_leading":
        a = g
        a[0, 0] = 4 * float(np.finfo(NP_DTYPES[dtype]).tiny)
    else:
        raise AssertionError(kind)
    return rounded(a, dtype)


def zero_columns(kind: str, n: int) -> list[int]:
    return {
        "zero_first_col": [0],
        "zero_last_col": [n - 1],
        "zero_middle_col": [n // 2],
        "zero_last_half": list(range(n - n // 2, n)) if n > 1 else [0],
    }.get(kind, [])


def first_zero_pivot(kind: str, m: int, n: int) -> int:
    """LAPACK's info for a test matrix: the 1-based index of the first exactly zero pivot, else 0.

    A zero column stays zero through elimination, so U[j, j] = 0 exactly for the first zero column j < min(m, n).
    """
    cols = [j for j in zero_columns(kind, n) if j < min(m, n)]
    if kind == "zero_leading" and m == 1:
        cols.append(0)  # a single row whose first entry is zero: the first pivot is that zero
    return min(cols) + 1 if cols else 0


def gpu_only(*values: object, **kwargs: object) -> object:
    """A parametrization case the interpreter cannot afford (the ``large`` mark: it runs on a GPU)."""
    return pytest.param(*values, marks=pytest.mark.large, **kwargs)


# --- lu_factor: accuracy, pivots, warnings -----------------------------------------------------------------


INTERPRETED_BLOCKED = {("random", 33), ("zero_middle_col", 17), ("zero_last_half", 17), ("cond_eps", 17)}
"""The kinds the interpreter also runs past one column block (n > 8: the blocked path, n > 16 two levels)."""


def _kind_cases() -> list[object]:
    """Every kind at n = 1, 2, 7 (one panel); a few at 17 or 33 in the interpreter, all of them on a GPU."""
    cases = []
    for kind in MATRIX_KINDS:
        for n in (1, 2, 7, 17, 33):
            interpreted = n <= 7 or (kind, n) in INTERPRETED_BLOCKED
            cases.append(pytest.param(kind, n, id=f"{kind}-{n}", marks=() if interpreted else pytest.mark.large))
    return cases


@pytest.mark.parametrize(("kind", "n"), _kind_cases())
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_matrix_types(dtype: torch.dtype, kind: str, n: int, device: str) -> None:
    """Every LAPACK test type: the xGET01 ratio, LAPACK's pivots, and a warning exactly for singular ones."""
    values = lapack_matrix(kind, n, n, dtype)
    a = place(values, dtype, device)
    snap = snapshot(a)
    lu, piv, caught = factor_quietly(a)
    assert isinstance(lu, torch.Tensor) and lu.device == a.device and piv.device == a.device
    assert_untouched(snap)
    what = f"{kind} n={n} {dtype}"
    assert_lu_valid(a, lu, piv, dtype, what)
    ref_lu, ref_piv = scipy_factor(values, dtype)
    if kind not in ILL_CONDITIONED:
        assert_pivots_match(piv, ref_piv, what)
    info = first_zero_pivot(kind, n, n)
    if info:
        assert caught, f"{what}: singular (U[{info - 1}, {info - 1}] = 0) but no LinAlgWarning"
        assert f"Diagonal number {info} is exactly zero" in str(caught[0].message), str(caught[0].message)
        assert float(f64_here(lu)[info - 1, info - 1]) == 0.0
    else:
        assert not caught, f"{what}: unexpected warning {caught[0].message}"
    if kind == "wilkinson":
        assert_identical(lu.cpu().to(torch.float64), torch.from_numpy(ref_lu.astype(np.float64)), what)


@pytest.mark.parametrize(
    ("dtype", "n"), [(torch.float64, 40), (torch.float32, 24), gpu_only(torch.float32, 50)], ids=str
)
def test_lu_factor_wilkinson_growth(dtype: torch.dtype, n: int, device: str) -> None:
    """Wilkinson's matrix: ties everywhere (first maximum: no interchange), growth 2**(n-1), exact arithmetic."""
    a = place(wilkinson_growth(n), dtype, device)
    lu, piv = dl.lu_factor(a)
    assert_pivots_match(piv, np.arange(n), "wilkinson")
    assert float(lu[-1, -1]) == 2.0 ** (n - 1)
    ref_lu, _ = scipy_factor(wilkinson_growth(n), dtype)
    assert_identical(lu.cpu(), torch.from_numpy(ref_lu), "wilkinson lu")


# A 10 x 10 matrix of +-1 whose elimination is exact in any order (every pivot a power of two, every value a
# small multiple of 1/16) and has ties away from the diagonal at four steps: the pivot sequence under the
# first-maximum rule is then the only correct answer, whatever the blocking or summation order.
TIES = np.array([
    [1, 1, 1, 1, 1, 1, 1, -1, -1, -1], [-1, 1, 1, -1, -1, 1, -1, 1, -1, -1], [1, -1, -1, -1, 1, -1, 1, -1, -1, 1],
    [1, 1, 1, 1, 1, 1, 1, 1, -1, 1], [-1, -1, 1, -1, 1, 1, -1, -1, -1, -1], [-1, 1, 1, -1, 1, 1, 1, 1, -1, 1],
    [-1, -1, -1, -1, 1, -1, -1, -1, 1, 1], [1, -1, 1, -1, -1, -1, 1, 1, 1, -1], [1, -1, 1, 1, -1, 1, 1, 1, 1, 1],
    [-1, 1, -1, -1, -1, 1, 1, 1, 1, 1],
], dtype=np.float64)  # fmt: skip


@pytest.mark.parametrize(("dtype", "layout"), [(torch.float32, "row"), (torch.float64, "col")], ids=str)
def test_lu_factor_ties_take_the_first_maximum(dtype: torch.dtype, layout: Layout, device: str) -> None:
    pivots, exact = exact_lu_pivots(TIES)
    assert exact and pivots == [0, 1, 4, 4, 7, 8, 8, 7, 9, 9]
    ref_lu, ref_piv = scipy_factor(TIES, dtype)
    assert ref_piv.tolist() == pivots
    lu, piv = dl.lu_factor(place(TIES, dtype, device, layout))
    assert_pivots_match(piv, pivots, f"ties {layout}")
    assert_identical(lu.cpu(), torch.from_numpy(ref_lu), "exact elimination gives LAPACK's lu bit for bit")


def _tied_batch(n: int, count: int) -> np.ndarray:
    """``count`` n x n matrices (n a multiple of 8) with ties at many steps, each eliminated exactly
    (``exact_lu_pivots``): copies of TIES's leading 8 x 8 down the diagonal, then a random permutation of the rows,
    so that the first maximum is often not the lowest row in memory; permutations whose elimination is not exact are
    skipped."""
    rng = rng_for("tied-batch", n)
    block = np.kron(np.eye(n // 8), TIES[:8, :8])
    batch = []
    while len(batch) < count:
        a = block[rng.permutation(n)]
        if exact_lu_pivots(a)[1]:
            batch.append(a)
    return np.stack(batch)


@pytest.mark.parametrize("n", [8, 16, 32, 64])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_batch_ties_take_the_first_maximum(dtype: torch.dtype, n: int, device: str) -> None:
    """Batches of tied matrices take LAPACK's pivots and factors exactly: on a GPU through ``lu_warp_kernel``,
    whose pivot search within a warp compares the magnitudes' bits by integer reductions and breaks ties by
    position (n <= 32), and across warps reduces (magnitude, key, value) triples (64)."""
    values = _tied_batch(n, 12 if n <= 32 else 4)
    lu, piv = dl.lu_factor(place(values, dtype, device))
    for i, a in enumerate(values):
        ref_lu, ref_piv = scipy_factor(a, dtype)
        assert_pivots_match(piv[i], exact_lu_pivots(a)[0], f"matrix {i}")
        assert_pivots_match(piv[i], ref_piv, f"matrix {i} against LAPACK")
        # equal values (the zeros' signs may differ: LAPACK's rank-1 updates skip zero multipliers)
        assert torch.equal(lu[i].cpu(), torch.from_numpy(ref_lu)), f"matrix {i}: exact elimination gives LAPACK's lu"


def _rectangular_cases() -> list[object]:
    """Tall and wide shapes: all in the interpreter for random matrices, the small ones for the other kinds."""
    cases = []
    for kind in ("random", "zero_first_col", "zero_middle_col", "cond_sqrt_eps", "lower"):
        for shape in ((7, 3), (3, 7), (33, 17), (17, 33), (1, 5), (5, 1), (2, 1), (1, 2)):
            interpreted = max(shape) <= 7 or (kind, shape) in (("random", (33, 17)), ("zero_middle_col", (17, 33)))
            cases.append(
                pytest.param(kind, shape, id=f"{kind}-{shape}", marks=() if interpreted else pytest.mark.large)
            )
    return cases


@pytest.mark.parametrize(("kind", "shape"), _rectangular_cases())
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_rectangular(dtype: torch.dtype, kind: str, shape: tuple[int, int], device: str) -> None:
    m, n = shape
    values = lapack_matrix(kind, m, n, dtype)
    a = place(values, dtype, device)
    lu, piv, caught = factor_quietly(a)
    what = f"{kind} {shape} {dtype}"
    assert_lu_valid(a, lu, piv, dtype, what)
    if kind not in ILL_CONDITIONED:
        assert_pivots_match(piv, scipy_factor(values, dtype)[1], what)
    info = first_zero_pivot(kind, m, n)
    messages = [str(w.message) for w in caught]
    if info:
        assert any(f"Diagonal number {info} is exactly zero" in msg for msg in messages), f"{what}: {messages}"
    else:
        assert not messages, f"{what}: unexpected warnings {messages}"


@pytest.mark.parametrize("layout", ["row", "col", "strided", "strided_col"])
@pytest.mark.parametrize(
    ("dtype", "shape"),
    [(torch.float64, (9, 9)), (torch.float64, (10, 6)), (torch.float32, (6, 10)), gpu_only(torch.float32, (33, 33))],
    ids=str,
)
def test_lu_factor_layouts(dtype: torch.dtype, shape: tuple[int, int], layout: Layout, device: str) -> None:
    """Any strides in; the input (and the gaps of a strided view's buffer) left as it was."""
    values = rounded(gaussian(shape, "layouts"), dtype)
    a = place(values, dtype, device, layout)
    snap = snapshot(a)
    lu, piv = dl.lu_factor(a)
    assert_untouched(snap)
    assert isinstance(lu, torch.Tensor) and isinstance(piv, torch.Tensor) and lu.device == a.device
    assert_lu_valid(a, lu, piv, dtype, f"{layout} {shape}")
    assert_pivots_match(piv, scipy_factor(values, dtype)[1], f"{layout} {shape}")


@pytest.mark.parametrize("layout", ["row", "col", "strided", "reversed"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_numpy_in_numpy_out(dtype: torch.dtype, layout: str) -> None:
    values = rounded(gaussian((6, 6), "numpy"), dtype)
    a = place_np(values, dtype, layout)
    snap = snapshot(a)
    lu, piv = dl.lu_factor(a)
    assert_untouched(snap)
    assert isinstance(lu, np.ndarray) and isinstance(piv, np.ndarray)
    assert_lu_valid(a, lu, piv, dtype, layout)
    ref_piv = scipy_factor(values, dtype)[1]
    assert_pivots_match(piv, ref_piv, layout)
    lu_ex, piv_ex, info = dl.lu_factor_ex(a)
    assert isinstance(lu_ex, np.ndarray) and isinstance(info, np.ndarray)
    assert info.shape == () and info.dtype == np.int32 and int(info) == 0
    assert_pivots_match(piv_ex, ref_piv, layout)
    assert_untouched(snap)


def test_lu_factor_read_only_and_zero_stride_numpy() -> None:
    a = np.array(gaussian((6, 6), "read-only"))
    a.flags.writeable = False
    lu, piv = dl.lu_factor(a)
    assert_lu_valid(a, lu, piv, torch.float64, "read-only")
    assert_pivots_match(piv, scipy_factor(a, torch.float64)[1])
    # six equal rows through a zero row stride: the first row pivots (ties), then U[1, 1] is exactly zero
    rows = np.broadcast_to(gaussian((6,), "broadcast"), (6, 6))
    with pytest.warns(dl.LinAlgWarning, match="Diagonal number 2 is exactly zero"):
        lu, piv = dl.lu_factor(rows)
    assert_pivots_match(piv, scipy_factor(np.array(rows), torch.float64)[1], "broadcast rows")
    assert_lu_valid(np.array(rows), lu, piv, torch.float64, "broadcast rows")


@pytest.mark.parametrize("layout", ["row", "col", "strided"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_overwrite_a(dtype: torch.dtype, layout: Layout, device: str) -> None:
    """overwrite_a=True may factor in place: afterwards a holds either its old values or exactly lu, and the
    gaps of a strided view's buffer are never written."""
    values = rounded(gaussian((9, 9), "overwrite"), dtype)
    a = place(values, dtype, device, layout)
    original = place(values, dtype, device)
    base, before = snapshot(a)
    lu, piv = dl.lu_factor(a, overwrite_a=True)
    assert_lu_valid(original, lu, piv, dtype, f"overwrite {layout}")
    assert torch.equal(a, original) or torch.equal(a, lu), "a holds neither its values nor the factorization"
    if layout == "strided":
        gaps = torch.ones_like(base, dtype=torch.bool)
        gaps[::2, ::2] = False
        assert_identical(base[gaps], before[gaps], "gaps of the strided buffer")


def test_lu_factor_overwrite_a_numpy() -> None:
    values = gaussian((10, 10), "overwrite-np")
    a = np.asfortranarray(values)
    lu, piv = dl.lu_factor(a, overwrite_a=True)
    assert isinstance(lu, np.ndarray)
    assert_lu_valid(values, lu, piv, torch.float64, "overwrite numpy")
    assert np.array_equal(a, values) or np.array_equal(a, lu)


# --- batches ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["row", "col", "strided"])
@pytest.mark.parametrize(
    "shape",
    [(3, 7, 7), (2, 7, 3), (2, 3, 7), (1, 1, 1), (9, 16, 16), gpu_only((5, 32, 32)), gpu_only((3, 17, 29)),
     gpu_only((3, 29, 17)), gpu_only((4, 33, 33)), gpu_only((2, 8, 64)), gpu_only((3, 16, 50)),
     gpu_only((3, 40, 64)), gpu_only((3, 64, 64)), gpu_only((2, 100, 100)), gpu_only((2, 128, 128)),
     gpu_only((3, 128, 40)), gpu_only((3, 50, 128))],
    ids=str,
)  # fmt: skip
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_batched(dtype: torch.dtype, shape: tuple[int, int, int], layout: Layout, device: str) -> None:
    values = rounded(gaussian(shape, "batched"), dtype)
    a = place(values, dtype, device, layout)
    snap = snapshot(a)
    lu, piv = dl.lu_factor(a)
    assert_untouched(snap)
    assert_lu_valid(a, lu, piv, dtype, f"batch {shape} {layout}")
    for i in range(shape[0]):
        assert_pivots_match(piv[i], scipy_factor(values[i], dtype)[1], f"matrix {i} of {shape}")
        assert_lu_valid(a[i], lu[i], piv[i], dtype, f"matrix {i} of {shape}")


def test_lu_factor_batch_strided_across_matrices(device: str) -> None:
    """Every other matrix of a larger batch (a batch stride that is not m * n)."""
    values = gaussian((6, 5, 5), "every-other")
    a = place(values, torch.float64, device)[::2]
    lu, piv = dl.lu_factor(a)
    for i in range(3):
        assert_pivots_match(piv[i], scipy_factor(values[2 * i], torch.float64)[1], f"matrix {i}")
    assert_lu_valid(a, lu, piv, torch.float64, "every other matrix")


BATCH_REPLAYS = [
    (4, 7, 7),
    (3, 5, 9),
    (2, 200, 12),  # the interpreter's blocked path for batches: panels, permutations, GEMM updates
    gpu_only((6, 32, 32)),
    gpu_only((3, 64, 64)),
    gpu_only((3, 128, 128)),  # the blocked path on a GPU
    gpu_only((2, 200, 100)),
]


@pytest.mark.parametrize("shape", BATCH_REPLAYS, ids=str)
def test_lu_factor_batch_replays(shape: tuple[int, int, int], device: str) -> None:
    """A batch's launches (small matrices: one; the blocked path: a transposing copy, then panels, permutations and
    updates) write new arrays, and later calls of the same signature replay them (``densela._launch.PLANS``): the
    same factors, pivots and info as the whole call, in new arrays each time (the first result stays as it was;
    info and the pivots written whole by the kernels, info nonzero for one matrix), and the finite check still runs
    before the launch."""
    plans = densela._launch.PLANS
    plans.clear()
    first_values = gaussian(shape, "replay-first")
    second_values = gaussian(shape, "replay-second")
    second_values[1, :, 2] = 0.0
    first, second = place(first_values, torch.float64, device), place(second_values, torch.float64, device)
    lu1, piv1, _ = dl.lu_factor_ex(first)
    kept = lu1.clone(), piv1.clone()
    made = [p for k, p in plans.items() if k[0] == "lu_factor"]
    assert len(made) <= 1 and any(made) == (densela.lu.INTERPRET or device == "cuda"), "planned wherever kernels run"
    lu2, piv2, info2 = dl.lu_factor_ex(second)
    assert lu2.data_ptr() != lu1.data_ptr() and torch.equal(lu1, kept[0]) and torch.equal(piv1, kept[1])
    plans.clear()
    whole = dl.lu_factor_ex(second)
    for got, want, what in zip((lu2, piv2, info2), whole, ("lu", "piv", "info"), strict=True):
        assert got.stride() == want.stride(), what
        assert_identical(got, want, f"replayed {what}")
    assert int64_cpu(info2).tolist()[:2] == [0, 3]
    for i in range(shape[0]):
        assert_pivots_match(piv2[i], scipy_factor(second_values[i], torch.float64)[1], f"matrix {i}")
    assert_lu_valid(second, lu2, piv2, torch.float64, "replayed batch")
    bad = second.clone()
    bad[-1, 1, 1] = float("nan")
    with pytest.raises(ValueError, match="infs or NaNs"):
        dl.lu_factor(bad)


@pytest.mark.parametrize("n", [6, gpu_only(32), gpu_only(64), gpu_only(128)])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_batch_with_one_singular_matrix(dtype: torch.dtype, n: int, device: str) -> None:
    """Only the second matrix has a zero column (column 2): info per matrix, and the warning names it."""
    values = gaussian((3, n, n), "one-singular")
    values[1, :, 2] = 0.0
    values = rounded(values, dtype)
    a = place(values, dtype, device)
    lu, piv, info = dl.lu_factor_ex(a)
    assert isinstance(info, torch.Tensor) and info.dtype == torch.int32 and info.device == a.device
    assert tuple(info.shape) == (3,)
    assert int64_cpu(info).tolist() == [0, 3, 0]
    assert_lu_valid(a, lu, piv, dtype, "batch with a singular matrix")
    for i in range(3):
        assert_pivots_match(piv[i], scipy_factor(values[i], dtype)[1], f"matrix {i}")
    with pytest.warns(dl.LinAlgWarning, match="Diagonal number 3 is exactly zero"):
        lu2, piv2 = dl.lu_factor(a)
    assert_pivots_match(piv2, piv)
    assert_lu_valid(a, lu2, piv2, dtype, "batch with a singular matrix (lu_factor)")


def test_lu_factor_batched_numpy() -> None:
    values = gaussian((2, 5, 5), "batched-np")
    lu, piv = dl.lu_factor(values.astype(np.float32))
    assert isinstance(lu, np.ndarray) and lu.dtype == np.float32 and piv.dtype == np.int32
    assert lu.shape == (2, 5, 5) and piv.shape == (2, 5)
    assert_lu_valid(values.astype(np.float32), lu, piv, torch.float32, "batched numpy")
    lu, piv, info = dl.lu_factor_ex(values)
    assert isinstance(info, np.ndarray) and info.shape == (2,) and info.dtype == np.int32
    assert info.tolist() == [0, 0]


@pytest.mark.large
@pytest.mark.parametrize("n", [16, 32, gpu_only(64), gpu_only(128)])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_batch_in_place_matches_copy(dtype: torch.dtype, n: int, device: str) -> None:
    """Batches of n x n in place (column-major, overwrite_a): the same factors and pivots as a factorization into
    a new array, bit for bit."""
    values = rounded(gaussian((5, n, n), "in-place-batch"), dtype)
    a = place(values, dtype, device, "col")
    lu, piv = dl.lu_factor(a)
    lu_in, piv_in = dl.lu_factor(a, overwrite_a=True)
    assert lu_in.data_ptr() == a.data_ptr()
    assert torch.equal(lu_in, lu) and torch.equal(piv_in, piv)
    for i in range(5):
        assert_pivots_match(piv[i], scipy_factor(values[i], dtype)[1], f"matrix {i}")


@pytest.mark.parametrize("in_place", [False, True], ids=["copy", "in-place"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_batch_over_several_programs(dtype: torch.dtype, in_place: bool, device: str) -> None:
    """37 matrices of 5 x 6, several per program (the last program partly empty), one of them singular and
    one with a NaN: every matrix as SciPy factors it, info per matrix, in place into a column-major batch."""
    values = gaussian((37, 5, 6), "several-programs")
    values[20, :, 1] = 0.0
    values[30, 2, 3] = np.nan
    values = rounded(values, dtype)
    a = place(values, dtype, device, "col")
    lu, piv, info = dl.lu_factor_ex(a, overwrite_a=in_place)
    assert int64_cpu(info).tolist() == [2 if i == 20 else 0 for i in range(37)]
    assert (lu.data_ptr() == a.data_ptr()) == in_place
    host = int64_cpu(piv)
    for i in range(37):
        if i == 30:
            continue  # NaN: LAPACK's choice among NaN rows is not specified
        assert_pivots_match(host[i], scipy_factor(values[i], dtype)[1], f"matrix {i}")
        assert_lu_valid(values[i], lu[i], piv[i], dtype, f"matrix {i}")
    assert torch.isnan(lu[30]).any()


# --- lu_factor_ex and singular matrices ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "zero_cols", "info"),
    [
        ((7, 7), [], 0),
        ((7, 7), [0], 1),
        ((7, 7), [3], 4),
        ((7, 7), [6], 7),
        ((7, 7), [5, 2], 3),
        ((7, 3), [2], 3),
        ((3, 7), [5], 0),
        ((3, 7), [1, 5], 2),
        ((1, 1), [0], 1),
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_ex_info(dtype: torch.dtype, shape: tuple[int, int], zero_cols: list[int], info: int, device: str):
    values = gaussian(shape, "info")
    values[:, zero_cols] = 0.0
    values = rounded(values, dtype)
    a = place(values, dtype, device)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dl.LinAlgWarning)  # lu_factor_ex never warns
        lu, piv, got = dl.lu_factor_ex(a)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.int32 and got.device == a.device
    assert got.shape == ()
    assert int(got) == info
    assert_lu_valid(a, lu, piv, dtype, f"{shape} zero columns {zero_cols}")
    assert_pivots_match(piv, scipy_factor(values, dtype)[1])
    if info:
        assert float(f64_here(lu)[info - 1, info - 1]) == 0.0


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_singular_warns_and_completes(dtype: torch.dtype, device: str) -> None:
    """[[1, 2], [2, 4]]: row 1 pivots, then U[1, 1] = 2 - 0.5 * 4 = 0 exactly; SciPy says the same."""
    values = np.array([[1.0, 2.0], [2.0, 4.0]])
    a = place(values, dtype, device)
    with pytest.warns(dl.LinAlgWarning, match="Diagonal number 2 is exactly zero"):
        lu, piv = dl.lu_factor(a)
    assert_pivots_match(piv, [1, 1])
    assert_identical(lu.cpu(), torch.tensor([[2.0, 4.0], [0.5, 0.0]], dtype=dtype))
    with pytest.warns(scipy.linalg.LinAlgWarning, match="Diagonal number 2 is exactly zero"):
        scipy.linalg.lu_factor(values.astype(NP_DTYPES[dtype]))
    _, _, info = dl.lu_factor_ex(a)
    assert int(info) == 2


def test_lu_factor_singular_names_the_first_zero_pivot(device: str) -> None:
    values = gaussian((7, 7), "two-zero-columns")
    values[:, [5, 3]] = 0.0
    a = place(values, torch.float64, device)
    with pytest.warns(dl.LinAlgWarning) as record:
        lu, piv = dl.lu_factor(a)
    messages = [str(w.message) for w in record if issubclass(w.category, dl.LinAlgWarning)]
    assert any("Diagonal number 4 is exactly zero" in msg for msg in messages), messages
    assert not any("Diagonal number 6" in msg for msg in messages), messages
    assert_lu_valid(a, lu, piv, torch.float64, "zero columns 3 and 5")


@pytest.mark.parametrize("n", [1, 7, 1024, 1025, 3001])
def test_any_singular_reads_the_flag(n: int, device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``_any_singular`` (the flag the device writes into mapped pinned memory on a GPU) on info vectors with no,
    one (first, last, inside) and many nonzero items, spanning several of the flag kernel's blocks; then with no
    time to poll (the stream wait decides), with a device that cannot reach the flag and with a flag never set (the
    copy decides)."""
    if device == "cpu" and not densela.lu.INTERPRET:
        pytest.skip("the flag kernel runs in Triton's interpreter or on a GPU")
    cases = {"none": []}
    cases.update({"first": [0], "last": [n - 1], "inside": [n // 2], "many": list(range(0, n, 3))})
    rng = rng_for("any-singular", n)
    for name, where in cases.items():
        info = torch.zeros(n, dtype=torch.int32)
        info[where] = torch.from_numpy(rng.integers(1, 50, len(where)).astype(np.int32))
        info = info.to(device)
        assert densela.lu._any_singular(info) == bool(where), name
        assert densela.lu._first_singular(info) == (None if not where else (where[0], int(info[where[0]]))), name
    info = torch.zeros(n, dtype=torch.int32, device=device)
    info[-1] = 4
    monkeypatch.setattr(densela.lu, "SPIN_SECONDS", 0.0)
    assert densela.lu._any_singular(info) and not densela.lu._any_singular(torch.zeros_like(info))

    def unreachable(*args: object, **kwargs: object) -> None:
        raise ValueError("Pointer argument (at 2) cannot be accessed from Triton (cpu tensor?)")

    monkeypatch.setattr(densela.lu, "_ANY", unreachable)
    assert densela.lu._any_singular(info) and not densela.lu._any_singular(torch.zeros_like(info))
    monkeypatch.setattr(densela.lu, "_ANY", lambda *args, **kwargs: None)  # a launch that never sets the flag
    assert densela.lu._any_singular(info) and not densela.lu._any_singular(torch.zeros_like(info))


@pytest.mark.parametrize("n", [6, gpu_only(16), gpu_only(64), gpu_only(128)])
def test_lu_factor_flag_follows_each_call(n: int, device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Calls of one signature (replayed after the first) alternate between a batch with a singular matrix (a zero
    column in matrix ``bad``) and one without: each call's warning is its own (on a GPU the factorization's last
    program, or ``any_nonzero_kernel`` after it, sets the thread's flag and resets its counters); then the same
    where the device could not reach the flag (the copy decides)."""
    values = gaussian((9, n, n), "flag-calls")
    fine = place(values, torch.float64, device)
    for reachable in (True, False):
        if not reachable:
            monkeypatch.setattr(densela.lu, "_flag_reachable", lambda device: False)
        for bad in (0, 8, 4):
            broken = values.copy()
            broken[bad, :, n // 2] = 0.0
            with pytest.warns(
                dl.LinAlgWarning, match=f"Diagonal number {n // 2 + 1} is exactly zero \\(matrix {bad}\\)"
            ):
                dl.lu_factor(place(broken, torch.float64, device))
            with warnings.catch_warnings():
                warnings.simplefilter("error", dl.LinAlgWarning)
                dl.lu_factor(fine)


def test_lu_factor_flags_are_per_thread(device: str) -> None:
    """Threads factoring batches of one signature at once, some singular, each read their own flag: the replayed
    plan of a flagged call belongs to the thread that made it."""
    if densela.lu.INTERPRET:
        pytest.skip("Triton's interpreter is not thread-safe")
    values = gaussian((40, 16, 16), "flag-threads")
    broken = values.copy()
    broken[37, :, 5] = 0.0
    inputs = {True: place(broken, torch.float64, device), False: place(values, torch.float64, device)}
    errors: list[str] = []
    for a in inputs.values():  # compiled and planned before the threads start
        densela.lu._factor_call("lu_factor", a, False, False, flagged=True)

    def work(first: bool) -> None:
        for i in range(12):
            singular = (i % 3 == 0) == first
            _, _, _, info, flag = densela.lu._factor_call("lu_factor", inputs[singular], False, False, flagged=True)
            got = densela.lu._first_singular(info, flag)
            if got != ((37, 6) if singular else None):
                errors.append(f"call {i}: {got} for a {'singular' if singular else 'regular'} batch")

    threads = [threading.Thread(target=work, args=(first,)) for first in (True, False, True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:5]


def test_warning_and_error_classes() -> None:
    assert issubclass(dl.LinAlgWarning, RuntimeWarning)
    assert issubclass(dl.RefinementWarning, dl.LinAlgWarning)
    assert dl.LinAlgError is np.linalg.LinAlgError and issubclass(dl.LinAlgError, ValueError)


def test_signatures() -> None:
    """The API's signatures: the array positional-only, every option keyword-only with its default."""
    expected = {
        dl.lu_factor: [("a", "POSITIONAL_ONLY", None), ("overwrite_a", "KEYWORD_ONLY", False),
                       ("check_finite", "KEYWORD_ONLY", True)],
        dl.lu_factor_ex: [("a", "POSITIONAL_ONLY", None), ("overwrite_a", "KEYWORD_ONLY", False)],
        dl.lu_solve: [("lu_and_piv", "POSITIONAL_ONLY", None), ("b", "POSITIONAL_ONLY", None),
                      ("trans", "KEYWORD_ONLY", 0), ("overwrite_b", "KEYWORD_ONLY", False),
                      ("check_finite", "KEYWORD_ONLY", True)],
        dl.solve: [("a", "POSITIONAL_ONLY", None), ("b", "POSITIONAL_ONLY", None), ("refine", "KEYWORD_ONLY", None)],
        dl.solve_ex: [("a", "POSITIONAL_ONLY", None), ("b", "POSITIONAL_ONLY", None),
                      ("refine", "KEYWORD_ONLY", None)],
    }  # fmt: skip
    for fn, params in expected.items():
        got = [
            (p.name, p.kind.name, None if p.default is inspect.Parameter.empty else p.default)
            for p in inspect.signature(fn).parameters.values()
        ]
        assert got == params, f"{fn.__name__}: {got}"


# --- empty matrices -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(0, 0), (0, 5), (5, 0), (2, 0, 0), (0, 3, 3), (2, 4, 0)], ids=str)
def test_lu_factor_empty(shape: tuple[int, ...], device: str) -> None:
    a = torch.empty(shape, dtype=torch.float64, device=device)
    k = min(shape[-2:])
    lu, piv = dl.lu_factor(a)
    assert tuple(lu.shape) == shape and lu.dtype == torch.float64 and lu.device == a.device
    assert tuple(piv.shape) == (*shape[:-2], k) and piv.dtype == torch.int32
    lu, piv, info = dl.lu_factor_ex(a)
    assert tuple(lu.shape) == shape and tuple(piv.shape) == (*shape[:-2], k)
    assert tuple(info.shape) == tuple(shape[:-2]) and info.dtype == torch.int32
    assert not bool(info.any())
    lu, piv = dl.lu_factor(np.empty(shape, dtype=np.float32))
    assert isinstance(lu, np.ndarray) and lu.shape == shape and piv.shape == (*shape[:-2], k)


def test_solve_empty(device: str) -> None:
    lu = torch.empty((0, 0), dtype=torch.float64, device=device)
    piv = torch.empty((0,), dtype=torch.int32, device=device)
    assert tuple(dl.lu_solve((lu, piv), torch.empty((0,), dtype=torch.float64, device=device)).shape) == (0,)
    assert tuple(dl.lu_solve((lu, piv), torch.empty((0, 3), dtype=torch.float64, device=device)).shape) == (0, 3)
    x = dl.solve(np.empty((0, 0)), np.empty((0, 2)))
    assert isinstance(x, np.ndarray) and x.shape == (0, 2)
    a = place(gaussian((5, 5), "no-rhs"), torch.float64, device)  # no right-hand sides
    x = dl.lu_solve(dl.lu_factor(a), torch.empty((5, 0), dtype=torch.float64, device=device))
    assert tuple(x.shape) == (5, 0)


# --- check_finite and bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("overwrite_a", [False, True])
def test_lu_factor_check_finite(bad: float, overwrite_a: bool, device: str) -> None:
    values = gaussian((6, 6), "finite")
    values[2, 3] = bad
    a = place(values, torch.float64, device, "col")
    snap = snapshot(a)
    with pytest.raises(ValueError):
        dl.lu_factor(a, overwrite_a=overwrite_a)
    assert_untouched(snap, "a after a rejected call")
    batch = place(np.stack([gaussian((4, 4), "ok"), values[:4, :4]]), torch.float32, device)
    snap = snapshot(batch)
    with pytest.raises(ValueError):
        dl.lu_factor(batch, overwrite_a=overwrite_a)
    assert_untouched(snap, "batch after a rejected call")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_lu_factor_batch_copy_checks_finite(dtype: torch.dtype, device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch on the blocked path is checked by its column-major copy (no separate pass over it): an infinity or
    NaN anywhere raises ValueError with the input untouched; a finite batch factors as without the check."""
    monkeypatch.setattr(densela.lu, "EAGER_BATCH_BYTES", 0)  # every blocked batch eager, copied by the kernel
    n = 100 if device == "cuda" else 33  # beyond lu_warp_kernel on a GPU; beyond the whole-matrix kernel here
    values = np.stack([gaussian((n, n), "copy-check", i) for i in range(3)])
    finite = place(values, dtype, device)
    expected = dl.lu_factor(finite, check_finite=False)
    monkeypatch.setattr(densela.lu, "_check_finite", lambda op, **named: pytest.fail("a pass of its own"))
    got = dl.lu_factor(finite)
    assert_identical(got[0], expected[0], "lu")
    assert_identical(got[1], expected[1], "piv")
    for where, bad in [((0, 0, 0), np.nan), ((2, n - 1, n - 2), np.inf), ((1, n // 2, 5), -np.inf)]:
        bad_values = values.copy()
        bad_values[where] = bad
        a = place(bad_values, dtype, device)
        snap = snapshot(a)
        with pytest.raises(ValueError, match="infs or NaNs"):
            dl.lu_factor(a)
        assert_untouched(snap, f"a after a rejected call ({where})")


def test_lu_factor_check_finite_false_lets_nan_through(device: str) -> None:
    values = gaussian((6, 6), "finite-off")
    values[4, 2] = np.nan
    a = place(values, torch.float64, device)
    lu, _ = dl.lu_factor(a, check_finite=False)
    assert bool(torch.isnan(lu).any()), "a NaN in A must reach L or U"
    lu, _, _ = dl.lu_factor_ex(a)  # no check at all
    assert bool(torch.isnan(lu).any())


def test_lu_solve_check_finite(device: str) -> None:
    a = place(gaussian((5, 5), "solve-finite"), torch.float64, device)
    lu, piv = dl.lu_factor(a)
    b = place(gaussian((5, 2), "solve-finite-b"), torch.float64, device)
    b[3, 1] = float("nan")
    snap = snapshot(b)
    with pytest.raises(ValueError):
        dl.lu_solve((lu, piv), b, overwrite_b=True)
    assert_untouched(snap, "b after a rejected call")
    lu_inf = lu.clone()
    lu_inf[2, 2] = float("inf")
    b_ok = place(gaussian((5,), "solve-finite-ok"), torch.float64, device)
    with pytest.raises(ValueError):
        dl.lu_solve((lu_inf, piv), b_ok)
    x = dl.lu_solve((lu, piv), b, check_finite=False)
    assert bool(torch.isnan(x[:, 1]).any()) and not bool(torch.isnan(x[:, 0]).any())


def test_lu_solve_checks_lu_again_only_after_torch_writes_it(device: str) -> None:
    """A finite ``lu`` is remembered as ``piv``'s range is: an infinity written through torch or by densela's own
    kernels (``out=``) is found, one written behind torch's back is not and reaches the solution; ``b`` is checked on
    every call."""
    (lu, piv), b = _lu_and_b(9, (9,), device)
    good = lu.clone()
    dl.lu_solve((lu, piv), b)
    assert (id(lu), "finite") in densela.lu._PASSED
    lu[1, 5] = float("inf")
    with pytest.raises(ValueError, match="lu must not contain"):
        dl.lu_solve((lu, piv), b)
    lu[1, 5] = 1.0
    dl.lu_solve((lu, piv), b)
    eye = torch.eye(9, dtype=lu.dtype, device=lu.device)
    dl.gemm(eye, eye, lu, alpha=0.0, beta=float("inf"), out=lu)  # densela's own write: counted, checked again
    with pytest.raises(ValueError, match="lu must not contain"):
        dl.lu_solve((lu, piv), b)
    lu.copy_(good)
    dl.lu_solve((lu, piv), b)
    torch.from_dlpack(lu)[1, 5] = float("inf")  # unseen by torch's version counter
    assert not bool(torch.isfinite(dl.lu_solve((lu, piv), b)).all())
    bad_b = b.clone()
    bad_b[2] = float("nan")
    with pytest.raises(ValueError, match="b must not contain"):
        dl.lu_solve((lu, piv), bad_b)


@pytest.mark.parametrize("layout", ["row", "col", "strided", "strided_col"])
@pytest.mark.parametrize("shape", [(1, 1), (7, 1), (1, 33), (33, 5), (2, 9, 9), (3, 70, 130), (3000, 8)], ids=str)
def test_finite_check_reads_every_item_of_the_view_and_nothing_else(
    shape: tuple[int, ...], layout: Layout, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``lu._finite`` over views whose items are rows of one stride: one launch of ``nonfinite_flag_kernel`` (no
    torch.isfinite) finds a NaN or an infinity at a corner or inside, and nothing in the strided layouts' gaps (NaN
    there); repeated calls (its state word set back to zero by the last program) keep answering."""
    monkeypatch.setattr(torch, "isfinite", lambda t: pytest.fail("torch.isfinite instead of the kernel"))
    values = gaussian(shape, "finite-view", *shape)
    last = tuple(s - 1 for s in shape)
    middle = tuple(s // 2 for s in shape)
    for dtype in (torch.float32, torch.float64):
        assert densela.lu._finite(place(values, dtype, device, layout)), f"{dtype}: finite {layout} view"
        for where, bad in ((last, np.nan), (middle, np.inf), (tuple(0 for _ in shape), -np.inf)):
            poisoned = values.copy()
            poisoned[where] = bad
            assert not densela.lu._finite(place(poisoned, dtype, device, layout)), f"{dtype}: {bad} at {where}"
        assert densela.lu._finite(place(values, dtype, device, layout)), f"{dtype}: finite again"


def test_finite_check_leaves_the_factorizations_flag_alone(device: str) -> None:
    """A checked ``lu_factor`` takes the thread's flag for its factorization before the check runs: the check answers
    in a flag of its own (on a GPU the factorization's kernels set theirs later, and a flag already set by the check
    would end the wait for them with the check's verdict); a singular batch checked on the way still warns."""
    flag = densela.lu._flag(device == "cuda")
    assert densela.lu._finite(place(gaussian((5, 6, 6), "flag-alone"), torch.float64, device))
    assert int(flag[1][0]) == 0, "the finite check wrote the factorization's flag"
    values = gaussian((40, 6, 6), "flag-alone-singular")
    values[17, :, 2] = 0.0
    with pytest.warns(dl.LinAlgWarning, match=r"Diagonal number 3 is exactly zero \(matrix 17\)"):
        dl.lu_factor(place(values, torch.float64, device))


def test_finite_check_of_views_that_are_not_rows_of_one_stride(device: str) -> None:
    """Views whose leading dimensions do not merge (and vectors) are checked too: by torch where there is no rows
    view (``_as_rows`` None), by the kernel for a vector."""
    base = place(gaussian((2, 9, 9), "finite-odd"), torch.float64, device)
    cut = base[:, :5]  # (2, 5, 9) with a matrix stride of 81: neither its rows nor its columns merge
    assert densela.lu._as_rows(cut) is None and densela.lu._as_rows(cut.mT) is None
    assert densela.lu._finite(cut)
    base[1, 4, 8] = float("nan")
    assert not densela.lu._finite(cut)
    base[1, 4, 8] = 0.0
    base[1, 5, 0] = float("inf")  # outside the view
    assert densela.lu._finite(cut)
    vector = place(gaussian((1, 40), "finite-vector"), torch.float32, device)[0, ::3]
    assert densela.lu._as_rows(vector) is not None and densela.lu._finite(vector)
    vector[13] = float("-inf")
    assert not densela.lu._finite(vector)


def _f(shape: tuple[int, ...], device: str, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.from_numpy(gaussian(shape, "bad-input")).to(device).to(dtype)


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        pytest.param(lambda d: _f((4, 4), d, torch.float16), TypeError, "float16", id="float16"),
        pytest.param(lambda d: _f((4, 4), d, torch.bfloat16), TypeError, "bfloat16", id="bfloat16"),
        pytest.param(lambda d: _f((4, 4), d, torch.int32), TypeError, "int32", id="int32"),
        pytest.param(lambda d: _f((4, 4), d, torch.complex64), TypeError, "complex64", id="complex64"),
        pytest.param(lambda d: np.ones((4, 4), np.float16), TypeError, "float16", id="numpy-float16"),
        pytest.param(lambda d: np.ones((4, 4), np.int64), TypeError, "int64", id="numpy-int64"),
        pytest.param(lambda d: [[1.0, 2.0], [3.0, 4.0]], TypeError, "must be an array", id="list"),
        pytest.param(lambda d: _f((4,), d), ValueError, "1-D", id="1-D"),
        pytest.param(lambda d: _f((2, 2, 4, 4), d), ValueError, "4-D", id="4-D"),
        pytest.param(lambda d: _f((), d), ValueError, "0-D", id="0-D"),
    ],
)
@pytest.mark.parametrize("fn", ["lu_factor", "lu_factor_ex"])
def test_lu_factor_bad_input(fn: str, build, error: type, match: str, device: str) -> None:
    a = build(device)
    snap = snapshot(a) if not isinstance(a, list) else None
    with pytest.raises(error, match=match):
        getattr(dl, fn)(a, overwrite_a=True)
    if snap is not None:
        assert_untouched(snap)


def _lu_and_b(n: int, b_shape: tuple[int, ...], device: str, *, batch: tuple[int, ...] = ()):
    a = place(gaussian((*batch, n, n), "lu-b"), torch.float64, device)
    return dl.lu_factor(a), _f(b_shape, device)


@pytest.mark.parametrize(
    ("n", "batch", "b_shape", "error", "shapes"),
    [
        pytest.param(4, (), (5,), ValueError, ["(4, 4)", "(5,)"], id="vector-length"),
        pytest.param(4, (), (5, 2), ValueError, ["(4, 4)", "(5, 2)"], id="matrix-rows"),
        pytest.param(4, (), (2, 4, 1), ValueError, ["(4, 4)", "(2, 4, 1)"], id="3-D-b-for-2-D-lu"),
        pytest.param(4, (2,), (3, 4), ValueError, ["(2, 4, 4)", "(3, 4)"], id="batch-count"),
        pytest.param(4, (2,), (2, 5), ValueError, ["(2, 4, 4)", "(2, 5)"], id="batched-vector-length"),
        pytest.param(4, (2,), (2, 5, 3), ValueError, ["(2, 4, 4)", "(2, 5, 3)"], id="batched-matrix-rows"),
        pytest.param(4, (2,), (4,), ValueError, ["(2, 4, 4)", "(4,)"], id="1-D-b-for-3-D-lu"),
    ],
)
def test_lu_solve_shape_mismatch(n: int, batch, b_shape, error: type, shapes: list[str], device: str) -> None:
    lu_piv, b = _lu_and_b(n, b_shape, device, batch=batch)
    snap = snapshot(b)
    with pytest.raises(error) as excinfo:
        dl.lu_solve(lu_piv, b, overwrite_b=True)
    for s in shapes:
        assert s in str(excinfo.value), f"{s} not named in: {excinfo.value}"
    assert_untouched(snap, "b after a rejected call")


def test_lu_solve_bad_arguments(device: str) -> None:
    (lu, piv), b = _lu_and_b(4, (4,), device)
    for trans in (2, -1, "T"):
        with pytest.raises(ValueError, match="trans"):
            dl.lu_solve((lu, piv), b, trans=trans)
    with pytest.raises(TypeError, match="float32"):
        dl.lu_solve((lu, piv), b.to(torch.float32))
    with pytest.raises(TypeError):
        dl.lu_solve((lu, piv), b.to(torch.int64))
    rect = place(gaussian((4, 6), "rect"), torch.float64, device)
    rect_lu, rect_piv = dl.lu_factor(rect)
    with pytest.raises(ValueError, match=r"square|\(4, 6\)"):
        dl.lu_solve((rect_lu, rect_piv), b)
    for bad in (4, -1):  # 1-based or negative: rejected before any launch, b untouched
        wrong = piv.clone()
        wrong[1] = bad
        before = b.clone()
        with pytest.raises(ValueError, match=r"piv.*\[0, 4\)"):
            dl.lu_solve((lu, wrong), b, overwrite_b=True)
        assert torch.equal(b, before)


@pytest.mark.parametrize("batch", [(), (2,)], ids=["one", "batch"])
def test_lu_solve_checks_a_piv_again_only_after_torch_writes_it(batch: tuple[int, ...], device: str) -> None:
    """``lu_solve`` remembers a ``piv`` it found in range (its host waits for that answer) with torch's version
    counter: a write through torch makes it checked again; a write that torch does not see (through a DLPack
    alias) leaves it trusted, and the interchange kernel then reads the pivot as the nearest row of the matrix:
    the same solution as that row named, ``b`` untouched."""
    n = 33
    (lu, piv), b = _lu_and_b(n, (*batch, n), device, batch=batch)
    snap = snapshot(b)
    first = dl.lu_solve((lu, piv), b)
    assert (id(piv), "in range") in densela.lu._PASSED
    good = piv.clone()
    piv[..., 3] = n  # through torch: checked again, refused
    with pytest.raises(ValueError, match=r"piv.*\[0, 33\)"):
        dl.lu_solve((lu, piv), b)
    piv.copy_(good)
    assert torch.equal(dl.lu_solve((lu, piv), b), first)
    alias = torch.from_dlpack(piv)  # its writes leave piv's version counter as it is
    for bad, nearest in ((10**6, n - 1), (-5, 0)):
        alias[..., 3] = bad
        named = good.clone()
        named[..., 3] = nearest
        assert torch.equal(dl.lu_solve((lu, piv), b), dl.lu_solve((lu, named), b)), f"pivot {bad}"
        alias.copy_(good)
    assert_untouched(snap, "b")


@pytest.mark.parametrize(
    "m, count, cols",
    [(1, 1, 5), (7, 7, 5), (31, 31, 5), (32, 32, 5), (33, 33, 5), (100, 100, 5), (70, 40, 70), (129, 129, 1),
     (300, 300, 1), gpu_only(4099, 4099, 200), gpu_only(8193, 8193, 1)],
    ids=str,
)  # fmt: skip
@pytest.mark.parametrize("reverse", [False, True])
def test_interchanges_match_laswp(m: int, count: int, cols: int, reverse: bool, device: str) -> None:
    """The grouped interchange kernel against LAPACK's laswp, one interchange after another, on pivots drawn at
    random from the whole range (duplicates, earlier rows, rows in and beyond the same group: 32 interchanges a
    step, 64 for at most 16 columns)."""
    rng = np.random.default_rng(m * 1000 + count)
    batch = 2
    piv = rng.integers(0, m, size=(batch, count)).astype(np.int32)
    piv[:, ::3] = np.arange(count)[::3]  # some rows that stay
    values = rng.standard_normal((batch, m, cols))
    expected = values.copy()
    for mat in range(batch):
        order = range(count - 1, -1, -1) if reverse else range(count)
        for i in order:
            p = piv[mat, i]
            expected[mat, [i, p]] = expected[mat, [p, i]]
    x = torch.from_numpy(values).to(device)
    densela.lu._launch_interchanges(x, torch.from_numpy(piv).to(device), reverse=reverse)
    np.testing.assert_array_equal(x.cpu().numpy(), expected)


@pytest.mark.parametrize(
    ("build", "kwargs", "error", "match"),
    [
        pytest.param(lambda d: (_f((4, 4), d), _f((4,), d)), {"refine": "fp16"}, ValueError, "refine", id="fp16"),
        pytest.param(lambda d: (_f((4, 4), d), _f((4,), d)), {"refine": "FP32"}, ValueError, "refine", id="FP32"),
        pytest.param(lambda d: (_f((4, 4), d), _f((4,), d)), {"refine": True}, ValueError, "refine", id="True"),
        pytest.param(
            lambda d: (_f((4, 4), d, torch.float32), _f((4,), d, torch.float32)),
            {"refine": "fp32"}, ValueError, "float64", id="refine-needs-float64",
        ),
        pytest.param(lambda d: (_f((4, 5), d), _f((4,), d)), {}, ValueError, r"square|\(4, 5\)", id="not-square"),
        pytest.param(lambda d: (_f((4, 4), d), _f((5,), d)), {}, ValueError, r"\(4, 4\).*\(5,\)|\(5,\).*\(4, 4\)",
                     id="b-length"),
        pytest.param(lambda d: (_f((4,), d), _f((4,), d)), {}, ValueError, "1-D", id="1-D-a"),
        pytest.param(lambda d: (_f((4, 4), d), _f((4,), d, torch.float32)), {}, TypeError, "float32", id="mixed"),
        pytest.param(lambda d: (_f((4, 4), d, torch.float16), _f((4,), d, torch.float16)), {}, TypeError,
                     "float16", id="float16"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("fn", ["solve", "solve_ex"])
def test_solve_bad_input(fn: str, build, kwargs: dict, error: type, match: str, device: str) -> None:
    a, b = build(device)
    with pytest.raises(error, match=match):
        getattr(dl, fn)(a, b, **kwargs)


# --- lu_solve -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rhs", "n"),
    [("vector", 1), ("vector", 2), ("vector", 7), ("matrix", 1), ("matrix", 7), ("matrix", 33),
     gpu_only("vector", 33), gpu_only("matrix", 2)],
    ids=str,
)  # fmt: skip
@pytest.mark.parametrize("trans", [0, 1])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_solve(dtype: torch.dtype, trans: int, rhs: str, n: int, device: str) -> None:
    """From LAPACK's own factors (so lu_solve is judged alone): the xGET02 ratio, and x against
    torch.linalg.solve in float64 within the condition number's bound."""
    values = rounded(gaussian((n, n), "lu_solve"), dtype)
    ref_lu, ref_piv = scipy_factor(values, dtype)
    lu, piv = place(ref_lu, dtype, device), torch.from_numpy(ref_piv).to(device)
    b_shape = (n,) if rhs == "vector" else (n, 3)
    b_values = rounded(gaussian(b_shape, "lu_solve-b"), dtype)
    b = torch.from_numpy(b_values).to(dtype).to(device)
    snap = snapshot(b)
    x = dl.lu_solve((lu, piv), b, trans=trans)
    assert_untouched(snap, "b")
    assert isinstance(x, torch.Tensor) and x.dtype == dtype and x.device == b.device
    assert_solved(values, x, b_values, dtype, trans=bool(trans), what=f"trans={trans} {rhs} n={n}")
    a64 = torch.from_numpy(values)
    op = a64.T if trans else a64
    ref = torch.linalg.solve(op, torch.from_numpy(b_values))
    assert float(solve_ratio(values, ref, b_values, EPS64, trans=bool(trans))) < RATIO  # the reference itself
    cond = float(torch.linalg.cond(op, 1))
    err = float((f64_here(x).cpu() - ref).abs().sum(dim=0).amax() / ref.abs().sum(dim=0).amax())
    assert err <= RATIO * n * cond * UNIT_ROUNDOFF[dtype], f"forward error {err:.2e}, cond {cond:.2e}"


@pytest.mark.parametrize("b_layout", ["row", "col", "strided", "strided_col", "vector-strided"])
@pytest.mark.parametrize("trans", [0, 1])
def test_lu_solve_b_layouts(trans: int, b_layout: str, device: str) -> None:
    """b in any layout, unchanged with overwrite_b=False (the gaps of a strided buffer too); lu column-major."""
    n = 13
    values = gaussian((n, n), "b-layouts")
    ref_lu, ref_piv = scipy_factor(values, torch.float64)
    lu, piv = place(ref_lu, torch.float64, device, "col"), torch.from_numpy(ref_piv).to(device)
    if b_layout == "vector-strided":
        b_values = gaussian((n,), "b-layouts-b")
        base = torch.full((2 * n,), float("nan"), dtype=torch.float64, device=device)
        b = base[::2]
        b.copy_(torch.from_numpy(b_values))
    else:
        b_values = gaussian((n, 4), "b-layouts-b")
        b = place(b_values, torch.float64, device, b_layout)
    snap = snapshot(b)
    x = dl.lu_solve((lu, piv), b, trans=trans)
    assert_untouched(snap, "b")
    assert_solved(values, x, b_values, torch.float64, trans=bool(trans), what=f"b {b_layout}")


@pytest.mark.parametrize("layout", ["row", "col"])
def test_lu_solve_overwrite_b(layout: Layout, device: str) -> None:
    values = gaussian((9, 9), "overwrite-b")
    lu_piv = dl.lu_factor(place(values, torch.float32, device))
    b_values = rounded(gaussian((9, 2), "overwrite-b", "b"), torch.float32)
    b = place(b_values, torch.float32, device, layout)
    x = dl.lu_solve(lu_piv, b, overwrite_b=True)
    assert_solved(rounded(values, torch.float32), x, b_values, torch.float32, what="overwrite_b")
    assert torch.equal(b, torch.from_numpy(b_values).to(b)) or torch.equal(b, x), "b holds neither b nor x"


@pytest.mark.parametrize(
    ("dtype", "trans", "rhs"),
    [(torch.float64, 0, "vector"), (torch.float64, 1, "matrix"), (torch.float32, 0, "matrix"),
     (torch.float32, 1, "vector")],
    ids=str,
)  # fmt: skip
def test_lu_solve_batched(dtype: torch.dtype, trans: int, rhs: str, device: str) -> None:
    values = rounded(gaussian((3, 8, 8), "batched-solve"), dtype)
    a = place(values, dtype, device)
    lu, piv = dl.lu_factor(a)
    b_shape = (3, 8) if rhs == "vector" else (3, 8, 2)
    b_values = rounded(gaussian(b_shape, "batched-solve-b"), dtype)
    b = torch.from_numpy(b_values).to(dtype).to(device)
    x = dl.lu_solve((lu, piv), b, trans=trans)
    assert tuple(x.shape) == b_shape
    assert_solved(values, x, b_values, dtype, trans=bool(trans), what=f"batched {rhs} trans={trans}")
    for i in range(3):  # each matrix solved against its own right-hand sides
        assert_solved(values[i], x[i], b_values[i], dtype, trans=bool(trans), what=f"matrix {i}")


def spy_inverse_solves(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The ``lower`` argument of every ``_inverse_solve`` call from now on (the blocked solves by inverses)."""
    calls: list[bool] = []
    original = densela.lu._inverse_solve

    def spy(*args: object, **kwargs: object) -> None:
        calls.append(bool(kwargs["lower"]))
        original(*args, **kwargs)

    monkeypatch.setattr(densela.lu, "_inverse_solve", spy)
    return calls


def expected_inverse_solves(n: int) -> list[bool]:
    """Both triangles by the inverses of their diagonal blocks when there are several blocks, else neither."""
    return [True, False] if n > densela.lu._inverse_block() else []


def assert_forward_error(values: np.ndarray, x: object, b: np.ndarray, dtype: torch.dtype, trans: int) -> None:
    """x against float64 solves of each matrix of ``values``: the normwise (1-norm) error within
    RATIO n cond_1 u, the reference itself passing LAPACK's ratio."""
    a64 = torch.from_numpy(values)
    op = a64.mT if trans else a64
    b64 = torch.from_numpy(b)
    ref = torch.linalg.solve(op, b64)
    assert bool((solve_ratio(values, ref, b, EPS64, trans=bool(trans)) < RATIO).all())
    got = f64_here(x).cpu()
    if got.ndim == op.ndim - 1:
        got, ref = got.unsqueeze(-1), ref.unsqueeze(-1)
    err = (got - ref).abs().sum(dim=-2).amax(-1) / ref.abs().sum(dim=-2).amax(-1)
    bound = RATIO * values.shape[-1] * torch.linalg.cond(op, 1) * UNIT_ROUNDOFF[dtype]
    assert bool((err <= bound).all()), f"forward error {err.tolist()} above {bound.tolist()}"


@pytest.mark.parametrize(
    ("batch", "n", "k"),
    [(None, 1, 33), (None, 7, 33), (None, 8, 33), (None, 9, 33), (None, 50, 40), (3, 9, 33), (2, 33, 1),
     (2, 42, 3), gpu_only(None, 1025, 64), gpu_only(None, 2048, 200), gpu_only(3, 700, 40)],
    ids=str,
)  # fmt: skip
@pytest.mark.parametrize("trans", [0, 1])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_solve_blocked(
    dtype: torch.dtype, trans: int, batch: int | None, n: int, k: int, monkeypatch: pytest.MonkeyPatch, device: str
) -> None:
    """More right-hand sides than SWEEP_COLUMNS, or a batch (k = 1: b a vector per matrix): the blocked solves,
    by the inverses of diagonal blocks of 8 rows in the interpreter (n = 1, 7, 8: one block, solved directly;
    9: a block and a row; 33, 42 and 50: several, the last one partial; 256 rows on a GPU), from LAPACK's own
    factors: the xGET02 ratio and the forward error against float64 solves. SWEEP_COLUMNS is held at 32 so that
    one matrix with 33 or more right-hand sides takes this path."""
    monkeypatch.setattr(densela.lu, "SWEEP_COLUMNS", 32)
    shape = (n, n) if batch is None else (batch, n, n)
    values = rounded(gaussian(shape, "blocked-solve"), dtype)
    factors = [scipy_factor(v, dtype) for v in values.reshape(-1, n, n)]
    lu = place(np.stack([f[0] for f in factors]).reshape(shape), dtype, device, "col")
    piv = torch.from_numpy(np.stack([f[1] for f in factors]).reshape(shape[:-1])).to(device)
    b_values = rounded(gaussian((*shape[:-1], k) if k > 1 else shape[:-1], "blocked-solve-b"), dtype)
    b = place(b_values, dtype, device) if k > 1 else torch.from_numpy(b_values).to(dtype).to(device)
    calls = spy_inverse_solves(monkeypatch)
    x = dl.lu_solve((lu, piv), b, trans=trans)
    assert calls == expected_inverse_solves(n)
    assert isinstance(x, torch.Tensor) and x.dtype == dtype and tuple(x.shape) == b_values.shape
    assert_solved(values, x, b_values, dtype, trans=bool(trans), what=f"trans={trans} batch={batch} n={n} k={k}")
    assert_forward_error(values, x, b_values, dtype, trans)


SOLVABLE_KINDS = [kind for kind in MATRIX_KINDS if not zero_columns(kind, 2) and kind != "wilkinson"]
"""The nonsingular matrix types but Wilkinson's, whose solve fails the xGET02 ratio in LAPACK too (n = 33:
3e4 in float32, 4e5 in float64; growth 2**(n-1))."""


@pytest.mark.parametrize("kind", SOLVABLE_KINDS)
@pytest.mark.parametrize(
    ("dtype", "n"), [(torch.float32, 20), (torch.float64, 20), gpu_only(torch.float64, 300)], ids=str
)
def test_lu_solve_blocked_matrix_types(dtype: torch.dtype, n: int, kind: str, monkeypatch: pytest.MonkeyPatch,
                                       device: str) -> None:  # fmt: skip
    """LAPACK's matrix types (condition numbers near 1/sqrt(eps) and 1/eps, entries near underflow and
    overflow, triangular with condition numbers growing like 2**n) through the blocked solves by inverses of
    diagonal blocks (their rounding grows with the blocks' condition numbers, Du Croz and Higham), both
    ``trans``, from LAPACK's own factors: the xGET02 ratio below 30. On a GPU float64 only: at n = 300 the
    triangular types' solutions overflow float32, and near_overflow's entries leave too little headroom."""
    values = lapack_matrix(kind, n, n, dtype)
    ref_lu, ref_piv = scipy_factor(values, dtype)
    lu, piv = place(ref_lu, dtype, device, "col"), torch.from_numpy(ref_piv).to(device)
    monkeypatch.setattr(densela.lu, "SWEEP_COLUMNS", 32)
    k = densela.lu.SWEEP_COLUMNS + 1
    b_values = rounded(gaussian((n, k), "blocked-types-b", kind), dtype)
    b = place(b_values, dtype, device)
    calls = spy_inverse_solves(monkeypatch)
    for trans in (0, 1):
        x = dl.lu_solve((lu, piv), b, trans=trans)
        assert_solved(values, x, b_values, dtype, trans=bool(trans), what=f"{kind} n={n} trans={trans}")
    assert calls == 2 * expected_inverse_solves(n)


@pytest.mark.parametrize(("block", "n"), [(4, 1), (4, 9), (64, 100)], ids=str)
@pytest.mark.parametrize("transposed", [False, True])
def test_diagonal_inverses(block: int, n: int, transposed: bool, device: str) -> None:
    """The float64 inverses of the diagonal blocks of both triangles of a batch (float32, ``.mT`` views too),
    the last block padded by the identity: 64-row blocks take one launch of 32-row diagonal solves and a pair's
    two GEMMs each."""
    # every triangle far from singular, with a unit diagonal too: small entries off the diagonal
    values = rounded(gaussian((2, n, n), "diagonal-inverses") / n + 2 * np.eye(n), torch.float32)
    t = place(values, torch.float32, device, "col")
    t64 = torch.from_numpy(values)
    if transposed:
        t, t64 = t.mT, t64.mT
    for unit_lower in (False, True):
        lower, upper = densela.lu._diagonal_inverses(t, block, unit_lower=unit_lower)
        count = cdiv(n, block)
        for got, triangle, unit in ((lower, torch.tril, unit_lower), (upper, torch.triu, not unit_lower)):
            assert got.dtype == torch.float64 and tuple(got.shape) == (2, count, block, block)
            assert got.is_contiguous()
            for j in range(count):
                s, e = j * block, min((j + 1) * block, n)
                diagonal = torch.eye(block, dtype=torch.float64).repeat(2, 1, 1)
                part = triangle(t64[:, s:e, s:e])
                if unit:
                    part = part - torch.diag_embed(part.diagonal(dim1=-2, dim2=-1)) + torch.eye(e - s)
                diagonal[:, : e - s, : e - s] = part
                want = torch.linalg.inv(diagonal)
                np.testing.assert_allclose(got[:, j].cpu().numpy(), want.numpy(), rtol=0,
                                           atol=1e-13 * float(want.abs().max()))  # fmt: skip


def test_lu_solve_numpy_and_scipy_interchange() -> None:
    """dl.lu_solve takes SciPy's (lu, piv), and SciPy's lu_solve takes densela's: the same conventions."""
    values = gaussian((11, 11), "interchange")
    b = gaussian((11, 2), "interchange-b")
    for trans in (0, 1):
        x = dl.lu_solve(scipy.linalg.lu_factor(values), b, trans=trans)
        assert isinstance(x, np.ndarray) and x.dtype == np.float64
        assert_solved(values, x, b, torch.float64, trans=bool(trans), what=f"scipy factors trans={trans}")
        x = scipy.linalg.lu_solve(dl.lu_factor(values), b, trans=trans)
        assert_solved(values, x, b, torch.float64, trans=bool(trans), what=f"densela factors trans={trans}")
    x32 = dl.lu_solve(dl.lu_factor(values.astype(np.float32)), b[:, 0].astype(np.float32))
    assert isinstance(x32, np.ndarray) and x32.dtype == np.float32 and x32.shape == (11,)
    assert_solved(values.astype(np.float32), x32, b[:, 0].astype(np.float32), torch.float32)


# --- solve and solve_ex -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "rhs", "n"),
    [(torch.float64, "vector", 7), (torch.float32, "matrix", 7), (torch.float64, "matrix", 1),
     (torch.float32, "vector", 2), (torch.float64, "matrix", 17), gpu_only(torch.float32, "matrix", 33)],
    ids=str,
)  # fmt: skip
def test_solve(dtype: torch.dtype, rhs: str, n: int, device: str) -> None:
    values = rounded(gaussian((n, n), "solve"), dtype)
    b_values = rounded(gaussian((n,) if rhs == "vector" else (n, 2), "solve-b"), dtype)
    a = place(values, dtype, device, "col")
    b = torch.from_numpy(b_values).to(dtype).to(device)
    snaps = snapshot(a), snapshot(b)
    x = dl.solve(a, b)
    for snap in snaps:
        assert_untouched(snap)
    assert isinstance(x, torch.Tensor) and x.dtype == dtype and x.device == a.device
    assert_solved(values, x, b_values, dtype, what=f"solve {rhs} n={n}")
    x_np = dl.solve(values.astype(NP_DTYPES[dtype]), b_values.astype(NP_DTYPES[dtype]))
    assert isinstance(x_np, np.ndarray) and x_np.dtype == NP_DTYPES[dtype]
    assert_solved(values, x_np, b_values, dtype, what=f"solve numpy {rhs} n={n}")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_solve_ex_without_refinement(dtype: torch.dtype, device: str) -> None:
    n = 16
    values = rounded(gaussian((n, n), "solve_ex"), dtype)
    b_values = rounded(gaussian((n,), "solve_ex-b"), dtype)
    x, info = dl.solve_ex(place(values, dtype, device), torch.from_numpy(b_values).to(dtype).to(device))
    assert isinstance(info, dl.SolveInfo)
    assert info.refine is None and info.iterations == 0 and info.fell_back is False
    assert isinstance(info.converged, bool) and isinstance(info.backward_error, float)
    assert_solved(values, x, b_values, dtype, what="solve_ex")
    ours = backward_error(values, x, b_values)
    eps = UNIT_ROUNDOFF[dtype]
    assert 0.0 <= info.backward_error <= RATIO * n * eps, info.backward_error
    assert info.backward_error <= 4 * n * max(ours, 2 * n * EPS64), (info.backward_error, ours)
    if dtype == torch.float32:  # large enough above float64 rounding to be checked from below as well
        assert info.backward_error >= ours / (8 * n), (info.backward_error, ours)


def _conditioned_system(n: int, cond: float, device: str, *key: object) -> tuple[torch.Tensor, torch.Tensor]:
    a = torch.from_numpy(with_condition(n, n, cond, rng_for("cond", n, cond, *key))).to(device)
    b = torch.from_numpy(gaussian((n,), "cond-b", n, cond, *key)).to(device)
    return a, b


@pytest.mark.parametrize("n", [12, gpu_only(24)])
@pytest.mark.parametrize("cond", [1e2, 1e6], ids=["cond1e2", "cond1e6"])
@pytest.mark.parametrize("refine", ["fp32", "tf32", "bf16"])
def test_solve_refined_reaches_float64_accuracy(refine: str, cond: float, n: int, device: str) -> None:
    """Factored in lower precision, refined to float64's accuracy: backward error <= 30 n eps64, converged,
    no fallback, at least one refinement step, no RefinementWarning. (n = 12 crosses the interpreter's
    8-column panel, so the lower-precision block update runs; n = 24 costs ~45 s there, so it runs on a GPU.)"""
    a, b = _conditioned_system(n, cond, device, refine)
    snaps = snapshot(a), snapshot(b)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dl.RefinementWarning)
        x, info = dl.solve_ex(a, b, refine=refine)
    for snap in snaps:
        assert_untouched(snap)
    assert isinstance(x, torch.Tensor) and x.dtype == torch.float64 and x.device == a.device
    bound = RATIO * n * EPS64
    err = backward_error(a, x, b)
    assert err <= bound, f"refine={refine} cond={cond:.0e}: backward error {err:.2e} > {bound:.2e}"
    assert info.refine == refine
    assert info.converged is True and info.fell_back is False, info
    assert info.iterations >= 1, info
    assert 0.0 <= info.backward_error <= bound, info
    assert info.backward_error <= 4 * n * max(backward_error(a, x, b), 2 * n * EPS64), info


@pytest.mark.parametrize("refine", [gpu_only("fp32"), "bf16"])
def test_solve_refined_matrix_rhs_and_numpy(refine: str) -> None:
    """dl.solve (no info) with refinement, several right-hand sides, NumPy in and out."""
    n = 8
    a = with_condition(n, n, 1e4, rng_for("refine-matrix"))
    b = gaussian((n, 2), "refine-matrix-b")
    with warnings.catch_warnings():
        warnings.simplefilter("error", dl.RefinementWarning)
        x = dl.solve(a, b, refine=refine)
    assert isinstance(x, np.ndarray) and x.dtype == np.float64 and x.shape == (n, 2)
    err = backward_error(a, x, b)
    assert err <= RATIO * n * EPS64, f"backward error {err:.2e}"


def _column_below_float32(n: int, device: str, *key: object) -> tuple[torch.Tensor, torch.Tensor]:
    """A float64 system whose middle column is ~1e-60 times a random one: harmless in float64 (partial pivoting
    is backward stable whatever the scaling), exactly zero once rounded to float32 or bfloat16 (also after
    scaling by a power of two into their range), so any lower-precision factorization meets an exactly zero
    pivot and refinement cannot start. (A merely ill-conditioned matrix, cond 1e15, does not do: GMRES with n or
    more iterations can refine from almost any nonsingular factors, and it did so on an H100 for n = 12. Equal
    rows do not do either: blocked updates round the two copies differently.)"""
    a = gaussian((n, n), "tiny-column", n, *key)
    a[:, n // 2] *= 1e-60
    peak = np.abs(a).max()
    scaled = a * 2.0 ** -np.floor(np.log2(peak))
    assert not (a[:, n // 2] == 0).any() and (scaled[:, n // 2].astype(np.float32) == 0).all()
    b = gaussian((n,), "tiny-column-b", n, *key)
    return torch.from_numpy(a).to(device), torch.from_numpy(b).to(device)


@pytest.mark.parametrize("n", [1, 4, 7, 9, 33, gpu_only(100), gpu_only(300)])
@pytest.mark.parametrize("layout", ["col", "row", "strided"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_triangle_inverse(dtype: torch.dtype, layout: Layout, n: int, device: str, monkeypatch: pytest.MonkeyPatch):
    """Inverses of both triangles of a batch of three, unit diagonal or not, against float64: diagonal blocks of
    4 rows in the interpreter (32 on a GPU), combined in pairs of every size, the last pair of a size short; the
    entries outside the triangle are never read into the result."""
    if densela.lu.INTERPRET:
        monkeypatch.setattr(densela.lu, "SOLVE_BLOCK", 4)
    values = rounded(gaussian((3, n, n), "triangle-inverse") / n + 2 * np.eye(n), dtype)
    t = place(values, dtype, device, layout)
    t64 = torch.from_numpy(values)
    for lower in (True, False):
        for unit in (True, False):
            part = torch.tril(t64) if lower else torch.triu(t64)
            if unit:
                part = part - torch.diag_embed(part.diagonal(dim1=-2, dim2=-1)) + torch.eye(n, dtype=torch.float64)
            want = torch.linalg.inv(part)
            got = densela.lu._triangle_inverse(t, lower=lower, unit=unit, precision="ieee")
            assert got.dtype == dtype and got.is_contiguous() and tuple(got.shape) == (3, n, n)
            bound = 8 * n * UNIT_ROUNDOFF[dtype] * float(want.abs().max())
            np.testing.assert_allclose(f64_here(got).cpu().numpy(), want.numpy(), rtol=0, atol=bound,
                                       err_msg=f"lower={lower} unit={unit}")  # fmt: skip


@pytest.mark.parametrize("n", [37, gpu_only(1001)])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lu_factor_block_rows_by_combined_inverses(
    dtype: torch.dtype, n: int, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A factorization whose block rows U12 = L11^-1 A12 take inverses combined from pairs of inverted diagonal
    blocks (4 rows in the interpreter, under blocks of 16 columns; 32 under 128 on a GPU): LAPACK's ratio, and
    LAPACK's pivots but in float32 at n = 1001, where six pivots of the last columns differed on an H200
    (2026-11-26, rows 976 .. 981, ratio below 30; float32 pivots at n = 4096 and 8192 differ from cuSOLVER's
    with the block solves before this path too: rounding, not investigated further)."""
    if densela.lu.INTERPRET:
        monkeypatch.setattr(densela.lu, "SOLVE_BLOCK", 4)
    values = rounded(gaussian((n, n), "combined-inverses"), dtype)
    a = place(values, dtype, device, "col")
    lu, piv = dl.lu_factor(a)
    assert_lu_valid(a, lu, piv, dtype, f"n={n}")
    if dtype == torch.float64 or n < 1000:
        assert_pivots_match(piv, scipy_factor(values, dtype)[1], f"n={n}")


@pytest.mark.parametrize("n", [1, 3, 4, 7, 9, 33])
@pytest.mark.parametrize("layout", ["col", "row", "strided"])
def test_diagonal_blocks_copies_the_blocks_along_the_diagonal(n: int, layout: Layout) -> None:
    """``_diagonal_blocks`` (the blocks that the blocked solves invert): block j of the 4 x 4 grid in entry j, the
    short last one cut at n and padded by the identity's entries, as from a padded copy."""
    block, count = 4, cdiv(n, 4)
    values = np.random.default_rng(n).standard_normal((n, n))
    t = place(values, torch.float64, "cpu", layout).unsqueeze(0)
    padded = np.eye(count * block)
    padded[:n, :n] = values
    want = np.stack([padded[j * block : (j + 1) * block, j * block : (j + 1) * block] for j in range(count)])
    np.testing.assert_array_equal(densela.lu._diagonal_blocks(t, block).numpy(), want[None])


@pytest.mark.parametrize(("block", "n"), [(4, 1), (4, 9), (4, 33), (16, 40), (64, 100), gpu_only(64, 4097)], ids=str)
@pytest.mark.parametrize("layout", ["col", "row", "strided"])
@pytest.mark.parametrize("unit_lower", [True, False])
def test_sweep_factors_invert_the_diagonal_blocks(block: int, n: int, layout: Layout, unit_lower: bool,
                                                  device: str) -> None:  # fmt: skip
    """``_sweep_factors`` (one launch of ``sweep_factors_kernel``) against float64 references: the inverse of each
    diagonal block of both triangles of a float32 ``t`` (one diagonal taken as ones, the last block padded by the
    identity), and that inverse times the tile the sweep solves before the block (left of it in the lower triangle,
    right in the upper; zeros where there is none, cut at n)."""
    values = rounded(gaussian((n, n), "sweep-factors") / 4 + 2 * np.eye(n), torch.float32)
    t = place(values, torch.float32, device, layout)
    count = cdiv(n, block)
    padded = np.eye(count * block)
    padded[:n, :n] = values
    real = np.zeros((count * block, count * block))
    real[:n, :n] = values
    (lower, lower_beside), (upper, upper_beside) = densela.lu._sweep_factors(t, block, unit_lower=unit_lower)
    for got, got_beside, triangle, unit, shift in (
        (lower, lower_beside, np.tril, unit_lower, -1), (upper, upper_beside, np.triu, not unit_lower, 1)
    ):  # fmt: skip
        assert got.dtype == got_beside.dtype == torch.float64
        assert tuple(got.shape) == tuple(got_beside.shape) == (count, block, block)
        for j in range(count):
            rows = slice(j * block, (j + 1) * block)
            diagonal = triangle(padded[rows, rows])
            if unit:
                diagonal = diagonal - np.diag(np.diag(diagonal)) + np.eye(block)
            want = np.linalg.inv(diagonal)
            q = j + shift
            tile = real[rows, q * block : (q + 1) * block] if 0 <= q < count else np.zeros((block, block))
            scale = float(np.abs(want).max())
            np.testing.assert_allclose(got[j].cpu().numpy(), want, rtol=0, atol=1e-13 * scale, err_msg=f"inverse {j}")
            np.testing.assert_allclose(got_beside[j].cpu().numpy(), want @ tile, rtol=0,
                                       atol=1e-13 * scale * max(1.0, float(np.abs(tile).sum(0).max())),
                                       err_msg=f"beside {j}")  # fmt: skip


@pytest.mark.parametrize("n", [1, 4, 7, 33, gpu_only(4097), gpu_only(8192)])
@pytest.mark.parametrize("layout", ["col", "row", "strided"])
@pytest.mark.parametrize("k", [1, 3, 40])
def test_sweep_solves_match_triangular_solves(
    n: int, layout: Layout, k: int, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one-launch triangular solves (``sweep_solve_kernel``, blocks of 4 rows in the interpreter, 64 on a
    GPU) against float64 triangular solves of the same float32 triangles, k right-hand sides in groups of
    ``_sweep_columns(k)`` per program (k = 40: 16 a group and blocks of 16 rows in the interpreter too, so that
    the tile products go through ``tl.dot``): the unit lower one reading its right-hand sides through a
    permutation and scaled, into a NaN-poisoned strided output, then the upper one in place."""
    if k == 40:
        monkeypatch.setattr(densela.lu, "INTERPRET_SWEEP_BLOCK", 16)
        monkeypatch.setattr(densela.lu, "SWEEP_TILE_COLUMNS", 16)
    rng = rng_for("sweep", n, layout, k)
    g = rng.standard_normal((n, n))
    # both triangles far from singular: a strong diagonal above, small entries below (a unit lower triangle
    # of standard normal entries has a condition number growing like 2^n)
    values = np.triu(g) + 4 * np.sqrt(n) * np.eye(n) + np.tril(g, -1) / n
    t = place(values, torch.float32, device, layout)
    t64 = torch.from_numpy(rounded(values, torch.float32))
    perm = torch.from_numpy(rng.permutation(n).astype(np.int32)).to(device)
    v_values = rng.standard_normal((n, k))
    v = place(v_values, torch.float64, device, "col")
    block = densela.lu._sweep_block()
    factors = densela.lu._sweep_factors(t, block, unit_lower=True)
    groups = cdiv(k, densela.lu._sweep_columns(k))
    # k = 40 takes two groups everywhere; tl.dot serves every k > 1 on a GPU, only k = 40 in the interpreter
    dot = densela.lu._sweep_columns(k) >= 16
    assert (groups > 1) == (k == 40) and dot == (k == 40 or (k > 1 and not densela.lu.INTERPRET))
    state = torch.zeros(4 * groups, dtype=torch.int32, device=device)
    out = place(np.full((n, k), np.nan), torch.float64, device, "strided")
    densela.lu._launch_sweep(t, factors[0], v, out, perm, state[: 2 * groups], 0.5, lower=True)
    lower = torch.tril(t64, -1) + torch.eye(n, dtype=torch.float64)
    rhs = 0.5 * torch.from_numpy(v_values)[perm.cpu().long()]
    want = torch.linalg.solve_triangular(lower, rhs, upper=False, unitriangular=True)
    np.testing.assert_allclose(out.cpu().numpy(), want.numpy(), rtol=0, atol=1e-13 * float(want.abs().max()))
    densela.lu._launch_sweep(t, factors[1], out, out, None, state[2 * groups :], 1.0, lower=False)
    want = torch.linalg.solve_triangular(torch.triu(t64), want, upper=True)
    np.testing.assert_allclose(out.cpu().numpy(), want.numpy(), rtol=0, atol=1e-13 * float(want.abs().max()))
    blocks = cdiv(n, block)
    assert state.tolist() == [blocks, blocks] * 2 * groups  # every program took a ticket and released its block


@pytest.mark.parametrize("trans", [0, 1])
@pytest.mark.parametrize("columns", [0, 1])
def test_lu_solve_blocked_and_sweep_paths(columns: int, trans: int, monkeypatch: pytest.MonkeyPatch, device: str):
    """One matrix, three right-hand sides, through the blocked solves (SWEEP_COLUMNS 0, all three at once) and
    through the sweeps (SWEEP_COLUMNS 1, each column a call of its own) alike."""
    monkeypatch.setattr(densela.lu, "SWEEP_COLUMNS", columns)
    values = gaussian((13, 13), "solve-paths")
    b_values = gaussian((13, 3), "solve-paths-b")
    lu_piv = dl.lu_factor(place(values, torch.float64, device))
    for j in range(3) if columns else [slice(None)]:
        b = torch.from_numpy(b_values[:, j]).to(device)
        x = dl.lu_solve(lu_piv, b, trans=trans)
        assert_solved(values, x, b_values[:, j], torch.float64, trans=bool(trans), what=f"columns={columns}")


@pytest.mark.parametrize("shape", [(1, 1), (7, 33), (33, 7), (130, 300), gpu_only((8192, 8192))], ids=str)
@pytest.mark.parametrize("layout", ["row", "col", "strided"])
def test_matvec_matches_float64(shape: tuple[int, int], layout: Layout, device: str) -> None:
    """Refinement's residual product (``matvec_kernel``) in every layout against NumPy in float64; the output
    is a new array, so every entry must have been written."""
    m, n = shape
    rng = rng_for("matvec", m, n, layout)
    values = rng.standard_normal((m, n))
    a = place(values, torch.float64, device, layout)
    x = rng.standard_normal(n)
    got = densela.lu._matvec(a, torch.from_numpy(x).to(device)).cpu().numpy()
    want = values @ x
    bound = 4 * n * EPS64 * float(np.abs(values).sum(1).max() * np.abs(x).max())
    np.testing.assert_allclose(got, want, rtol=0, atol=bound)


@pytest.mark.parametrize(
    ("fn", "refine", "n"), [("solve_ex", "bf16", 24), ("solve_ex", "tf32", 12), ("solve", "fp32", 8)]
)
def test_solve_refinement_fails_and_falls_back(fn: str, refine: str, n: int, device: str) -> None:
    """Refinement that cannot succeed: RefinementWarning, a float64 factorization instead, and still a
    backward-stable answer."""
    a, b = _column_below_float32(n, device, refine)
    snaps = snapshot(a), snapshot(b)
    with pytest.warns(dl.RefinementWarning):
        result = getattr(dl, fn)(a, b, refine=refine)
    for snap in snaps:
        assert_untouched(snap)
    x = result[0] if fn == "solve_ex" else result
    assert isinstance(x, torch.Tensor) and x.dtype == torch.float64 and tuple(x.shape) == (n,)
    err = backward_error(a, x, b)
    assert err <= RATIO * n * EPS64, f"backward error {err:.2e} after the fallback"
    if fn == "solve_ex":
        info = result[1]
        assert info.refine == refine and info.fell_back is True and info.converged is False, info
        assert 0.0 <= info.backward_error <= RATIO * n * EPS64, info


@pytest.mark.parametrize("budget", [2, 3, 5])
def test_solve_refinement_stays_within_its_budget(monkeypatch: pytest.MonkeyPatch, budget: int, device: str) -> None:
    """A refinement applies its preconditioner at most ``lu.MAX_APPLICATIONS`` times, then converged or falls back to
    float64 with the warning, either way backward-stable (TF32 factors at cond 1e6, n = 12: 8 applications without
    a budget). With a budget of 2 (the first solve, then no GMRES) it must fall back."""
    applied = []
    call = densela.lu._Preconditioner.__call__
    monkeypatch.setattr(densela.lu._Preconditioner, "__call__", lambda self, v: applied.append(1) or call(self, v))
    monkeypatch.setattr(densela.lu, "MAX_APPLICATIONS", budget)
    a, b = _conditioned_system(12, 1e6, device, "tf32")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", dl.RefinementWarning)
        x, info = dl.solve_ex(a, b, refine="tf32")
    warned = any(issubclass(w.category, dl.RefinementWarning) for w in caught)
    assert len(applied) <= budget, f"{len(applied)} applications with a budget of {budget}"
    assert info.fell_back is warned and info.converged is not warned, (info, warned)
    assert info.fell_back or budget > 2, info
    assert backward_error(a, x, b) <= RATIO * 12 * EPS64


@pytest.mark.parametrize(("spread", "budget", "stalls"), [(1e4, 60, True), (2.0, 60, False), (1e4, 400, False)])
def test_gmres_gives_up_only_when_its_budget_cannot_reach(
    spread: float, budget: int, stalls: bool, device: str
) -> None:
    """``_gmres`` on A = diag(1 .. spread) (n = 200) with no preconditioner: eigenvalues spread over 1e4 converge too
    slowly for a budget of 60 iterations to shrink the residual by 1e-12, and GMRES gives up after
    GMRES_PREDICT_FROM iterations, returning no correction; over [1, 2] it converges (relative residual 1e-8); with a
    budget longer than n it does not give up (GMRES ends within n iterations) and converges too."""
    n = 200
    a = torch.diag(torch.linspace(1.0, spread, n, dtype=torch.float64)).to(device)
    r = torch.from_numpy(gaussian((n,), "gmres", spread)).to(device)
    applied = []
    d, stalled = densela.lu._gmres(a, r, lambda v: applied.append(1) or v, 100, 1e-12, budget)
    assert stalled is stalls
    if stalls:
        assert len(applied) == 1 + densela.lu.GMRES_PREDICT_FROM, len(applied)
        assert not bool(d.any())
    else:  # converged (the spread one within its 100 iterations, past the point where a budget of 60 gave up)
        residual = float((r - a @ d).norm() / r.norm())
        assert residual <= 1e-7, residual
        assert len(applied) > 1 + densela.lu.GMRES_PREDICT_FROM or spread < 10, len(applied)


def test_solve_falls_back_when_gmres_stalls(monkeypatch: pytest.MonkeyPatch, device: str) -> None:
    """A refinement whose GMRES gives up (``_gmres``'s ``stalled``) falls back to float64 at once: one GMRES call, the
    warning, ``fell_back``, a backward-stable answer."""
    calls = []
    monkeypatch.setattr(densela.lu, "_gmres", lambda a, r, *args: calls.append(args) or (torch.zeros_like(r), True))
    a, b = _conditioned_system(12, 1e6, device, "tf32")
    with pytest.warns(dl.RefinementWarning):
        x, info = dl.solve_ex(a, b, refine="tf32")
    assert len(calls) == 1 and info.fell_back and not info.converged, (calls, info)
    assert backward_error(a, x, b) <= RATIO * 12 * EPS64


@pytest.mark.parametrize(
    ("fn", "refine"), [("solve", None), ("solve", "fp32"), ("solve_ex", None), ("solve_ex", "bf16")]
)
def test_solve_singular_raises(fn: str, refine: str | None, device: str) -> None:
    singular = place(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]), torch.float64, device)
    b = torch.ones(3, dtype=torch.float64, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dl.LinAlgWarning)
        with pytest.raises(dl.LinAlgError):
            getattr(dl, fn)(singular, b, refine=refine)
        zero_col = place(gaussian((6, 6), "zero-col-solve"), torch.float64, device)
        zero_col[:, 4] = 0.0
        with pytest.raises(np.linalg.LinAlgError):
            getattr(dl, fn)(zero_col, torch.ones(6, dtype=torch.float64, device=device), refine=refine)


# --- the PyTorch path (no GPU, no interpreter) --------------------------------------------------------------


def test_lu_torch_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a GPU and without the interpreter the same calls run on PyTorch's LAPACK: same conventions."""
    monkeypatch.setattr(densela._arrays, "INTERPRET", False)
    values = gaussian((9, 9), "torch-backend")
    a = place(values, torch.float64, "cpu", "col")
    lu, piv = dl.lu_factor(a)
    assert piv.dtype == torch.int32
    assert_pivots_match(piv, scipy_factor(values, torch.float64)[1], "torch backend")
    assert_lu_valid(a, lu, piv, torch.float64, "torch backend")
    singular = values.copy()
    singular[:, 2] = 0.0
    with pytest.warns(dl.LinAlgWarning, match="Diagonal number 3 is exactly zero"):
        dl.lu_factor(torch.from_numpy(singular))
    _, _, info = dl.lu_factor_ex(torch.from_numpy(np.stack([values, singular])))
    assert int64_cpu(info).tolist() == [0, 3]
    b = torch.from_numpy(gaussian((9, 2), "torch-backend-b"))
    for trans in (0, 1):
        assert_solved(values, dl.lu_solve((lu, piv), b, trans=trans), b, torch.float64, trans=bool(trans))
    assert_solved(values, dl.solve(a, b), b, torch.float64)
    with pytest.raises(dl.LinAlgError):
        dl.solve(torch.from_numpy(singular), b)


# --- property -----------------------------------------------------------------------------------------------


@settings(max_examples=60 if GPU else 10)
@given(
    m=st.integers(1, 12),
    n=st.integers(1, 12),
    layout=st.sampled_from(["row", "col", "strided", "strided_col"]),
    dtype=st.sampled_from(DTYPES),
    seed=st.integers(0, 2**16),
)
def test_lu_factor_property(m: int, n: int, layout: Layout, dtype: torch.dtype, seed: int) -> None:
    values = rounded(gaussian((m, n), "property", seed), dtype)
    a = place(values, dtype, DEVICE, layout)
    lu, piv = dl.lu_factor(a)
    assert_lu_valid(a, lu, piv, dtype, f"{m}x{n} {layout}")
    assert_pivots_match(piv, scipy_factor(values, dtype)[1], f"{m}x{n} {layout}")
    if m == n:
        b = rounded(gaussian((n,), "property-b", seed), dtype)
        x = dl.lu_solve((lu, piv), torch.from_numpy(b).to(dtype).to(DEVICE))
        assert_solved(values, x, b, dtype, what=f"{n}x{n} {layout}")


# --- large sizes: GPU only ----------------------------------------------------------------------------------


def _random_gpu(shape: tuple[int, ...], dtype: torch.dtype, device: str, seed: int) -> torch.Tensor:
    g = torch.Generator(device=device).manual_seed(seed)
    return torch.randn(shape, dtype=torch.float64, device=device, generator=g).to(dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(64, 64), (4, 16, 16), (300, 200)], ids=str)
def test_lu_factor_ex_does_not_synchronize(shape: tuple[int, ...], device: str) -> None:
    """lu_factor_ex leaves info on the device: no torch operation that waits for the GPU (sync debug mode
    turns one into an error); the factorization is still right afterwards."""
    a = _random_gpu(shape, torch.float64, device, 11)
    a[..., 7] = 0.0
    dl.lu_factor_ex(a)  # compiles the kernels first
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        lu, piv, info = dl.lu_factor_ex(a)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert info.device == a.device
    assert bool((int64_cpu(info) == 8).all())
    assert_lu_valid(a, lu, piv, torch.float64, f"no-sync {shape}")


@pytest.mark.large
@pytest.mark.parametrize("n", [1000, 1025, 2048, 4096])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_large_square(dtype: torch.dtype, n: int, device: str) -> None:
    a = _random_gpu((n, n), dtype, device, n)
    lu, piv = dl.lu_factor(a)
    assert_lu_valid(a, lu, piv, dtype, f"n={n}")
    b = _random_gpu((n, 3), dtype, device, n + 1)
    for trans in (0, 1):
        assert_solved(a, dl.lu_solve((lu, piv), b, trans=trans), b, dtype, trans=bool(trans), what=f"n={n}")
    _, _, info = dl.lu_factor_ex(a)
    assert int(info) == 0


@pytest.mark.large
@pytest.mark.parametrize("shape", [(3000, 1000), (1000, 3000)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_large_rectangular(dtype: torch.dtype, shape: tuple[int, int], device: str) -> None:
    a = _random_gpu(shape, dtype, device, sum(shape))
    lu, piv = dl.lu_factor(a)
    assert_lu_valid(a, lu, piv, dtype, str(shape))
    if dtype == torch.float64:
        assert_pivots_match(piv, scipy_factor(a.cpu().numpy().astype(np.float64), dtype)[1], str(shape))


@pytest.mark.large
@pytest.mark.parametrize("shape", [(1000, 32, 32), (100, 128, 128)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_large_batched(dtype: torch.dtype, shape: tuple[int, int, int], device: str) -> None:
    a = _random_gpu(shape, dtype, device, shape[1])
    a[shape[0] // 2, :, 5] = 0.0  # one singular matrix in the middle of the batch
    lu, piv, info = dl.lu_factor_ex(a)
    assert_lu_valid(a, lu, piv, dtype, str(shape))
    expected = torch.zeros(shape[0], dtype=torch.int64)
    expected[shape[0] // 2] = 6
    assert torch.equal(int64_cpu(info), expected)
    if dtype == torch.float64:
        host = a.cpu().numpy()
        ref = np.stack([scipy_factor(host[i], dtype)[1] for i in range(shape[0])])
        assert_pivots_match(piv, ref, str(shape))
    b = _random_gpu(shape[:2], dtype, device, 7)
    keep = torch.arange(shape[0], device=device) != shape[0] // 2
    x = dl.lu_solve((lu[keep], piv[keep]), b[keep])
    assert_solved(a[keep], x, b[keep], dtype, what=f"batched solve {shape}")


@pytest.mark.large
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_large_pivots_match_lapack(dtype: torch.dtype, device: str) -> None:
    n = 500
    values = rounded(gaussian((n, n), "pivots-500"), dtype)
    a = place(values, dtype, device)
    lu, piv = dl.lu_factor(a)
    assert_pivots_match(piv, scipy_factor(values, dtype)[1], "n=500")
    assert_lu_valid(a, lu, piv, dtype, "n=500")


_STALLS = pytest.mark.xfail(
    strict=True,
    raises=dl.RefinementWarning,
    reason="issue 6 not met: factors with TF32 or bfloat16 updates have backward errors near 1e-3, and GMRES-IR "
    "stalls at cond 1e6 within lu.MAX_APPLICATIONS, so solve falls back to float64 (H100, 2026-11-22)",
)


@pytest.mark.large
@pytest.mark.parametrize("refine", ["fp32", pytest.param("tf32", marks=_STALLS), pytest.param("bf16", marks=_STALLS)])
def test_large_refined_solve(refine: str, device: str) -> None:
    n = 2048
    a, b = _conditioned_system(n, 1e6, device, "large")
    with warnings.catch_warnings():
        warnings.simplefilter("error", dl.RefinementWarning)
        x, info = dl.solve_ex(a, b, refine=refine)
    err = backward_error(a, x, b)
    assert err <= RATIO * n * EPS64, f"backward error {err:.2e}"
    assert info.converged and not info.fell_back and info.iterations >= 1, info


# --- the factorization's internal paths, each forced on small matrices ---------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(33, 33), (40, 17), (9, 20)])
def test_panel_exchange_through_memory(
    monkeypatch: pytest.MonkeyPatch, shape: tuple[int, int], dtype: torch.dtype
) -> None:
    # every panel takes the multi-program path (GRID_SYNC): candidates, counters and the winning row go
    # through global memory (one program in the interpreter, up to one per SM on a GPU)
    monkeypatch.setattr(densela.lu, "ONE_PROGRAM_ELEMENTS", 4)
    values = np.random.default_rng(7).standard_normal(shape).astype(NP_DTYPES[dtype])
    lu, piv = dl.lu_factor(values)
    assert_pivots_match(piv, scipy_factor(values, dtype)[1], f"{shape}")
    assert_lu_valid(values, lu, piv, dtype, f"{shape}")


def recorded_copies(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    """The strides of every array ``lu.column_major`` copies from, from now on (the working arrays' copies in and
    out)."""
    made, column_major = [], densela.lu.column_major

    def recorded(t: torch.Tensor, *args: object, **kwargs: object) -> torch.Tensor:
        made.append(t.stride())
        return column_major(t, *args, **kwargs)

    monkeypatch.setattr(densela.lu, "column_major", recorded)
    return made


@pytest.mark.parametrize("ahead", [False, True], ids=["plain", "look-ahead"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [17, 40, gpu_only(1000), gpu_only(4097)])
def test_row_major_working_array_factors_like_the_column_major_one(
    monkeypatch: pytest.MonkeyPatch, n: int, dtype: torch.dtype, ahead: bool
) -> None:
    """ROW_MAJOR_FROM (set here to n, then to none): a square matrix factored in a row-major working array gives the
    same pivots as the column-major one, LAPACK's up to n = 1000, valid factors, and a column-major ``lu``; with and
    without look-ahead."""
    values = np.random.default_rng(n).standard_normal((n, n)).astype(NP_DTYPES[dtype])
    values[:, n // 3] *= 1e-3  # small entries: later pivots come from far below the diagonal
    monkeypatch.setattr(densela.lu, "LOOKAHEAD_FROM", 1 if ahead else n + 1)
    monkeypatch.setattr(densela.lu, "ROW_MAJOR_FROM", {})
    plain = dl.lu_factor(values)[1]
    made = recorded_copies(monkeypatch)
    monkeypatch.setattr(densela.lu, "ROW_MAJOR_FROM", {dtype: n})
    lu, piv = dl.lu_factor(torch.from_numpy(values).to(DEVICE))
    # copied in from the (row-major) input, then out of the row-major working array
    assert len(made) == 2 and made[1] == (n * n, n, 1), "no row-major working array was copied back"
    assert lu.stride() == (1, n)
    assert_pivots_match(piv, plain, f"n={n}, against the column-major working array")
    if n <= 1000:
        assert_pivots_match(piv, scipy_factor(values, dtype)[1], f"n={n}")
    assert_lu_valid(values, lu, piv, dtype, f"n={n}")


def test_torch_backend_factors_without_a_row_major_working_array(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a GPU and without the interpreter torch's LU factors (it copies into LAPACK's order itself): no
    row-major working array whatever ROW_MAJOR_FROM says, and LAPACK's pivots and factors."""
    monkeypatch.setattr(densela._arrays, "INTERPRET", False)
    monkeypatch.setattr(densela._arrays, "cuda_available", lambda: False)
    monkeypatch.setattr(densela.lu, "ROW_MAJOR_FROM", {torch.float64: 1})
    values = np.random.default_rng(7).standard_normal((33, 33))
    made = recorded_copies(monkeypatch)
    lu, piv = dl.lu_factor(torch.from_numpy(values))
    assert len(made) == 1, f"{len(made)} copies: a row-major working array was made for torch's LU"
    assert lu.stride() == (1, 33)
    assert_pivots_match(piv, scipy_factor(values, torch.float64)[1], "torch backend")
    assert_lu_valid(values, lu, piv, torch.float64, "torch backend")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [17, 40, gpu_only(1000), gpu_only(4097), gpu_only(8192)])
def test_lookahead_factors_like_lapack(monkeypatch: pytest.MonkeyPatch, n: int, dtype: torch.dtype) -> None:
    """Look-ahead (``LOOKAHEAD_FROM``, lowered here): each column block factored with its interchanges confined to
    its columns (on a second stream on a GPU, beside the trailing update), then applied to the rest: the same pivots
    as without it, and valid factors. At n = 4097 float32 both paths choose another pivot than LAPACK's sgetrf at
    column 2449 (rounding of a near tie: the factors agree bit for bit, H100 2026-11-23), so LAPACK's pivots are the
    reference up to n = 1000 only. The update beside each panel goes to the tiles kernel (AHEAD_UPDATE_TILES_FROM,
    lowered here too) wherever it sums as the plain path's update does: float64 (both kernels' DMMA sums run along K
    in the same order) and products too small for the warp-specialized kernel. float32 at n = 8192 keeps the tables'
    threshold: there the plain path's updates run on the warp-specialized FMA kernel, whose sums round otherwise than
    the tiles kernel's, so the pivots part at a near tie (H100, 2026-11-26: from column 6409)."""
    values = np.random.default_rng(n).standard_normal((n, n)).astype(NP_DTYPES[dtype])
    values[:, n // 3] *= 1e-3  # small entries: later pivots come from far below the diagonal
    monkeypatch.setattr(densela.lu, "LOOKAHEAD_FROM", n + 1)
    plain = dl.lu_factor(values)[1]
    monkeypatch.setattr(densela.lu, "LOOKAHEAD_FROM", 1)
    tiles_beside = dtype == torch.float64 or n < 8192
    if tiles_beside:
        monkeypatch.setattr(densela.lu, "AHEAD_UPDATE_TILES_FROM", {dtype: 1})
    finish, calls = densela.lu._finish_block, []
    launch, persistent = densela.lu.launch_gemm, []

    def counted(work: object, k: int, end: int) -> None:
        calls.append(k)
        finish(work, k, end)

    def recorded(*args: object, tma: bool = True) -> None:
        persistent.append(tma)
        launch(*args, tma=tma)

    monkeypatch.setattr(densela.lu, "_finish_block", counted)
    monkeypatch.setattr(densela.lu, "launch_gemm", recorded)
    lu, piv = dl.lu_factor(values)
    blocks = cdiv(n, densela.lu._blocks(n, n)[0])
    assert len(calls) == blocks, "the look-ahead path was not taken"
    # the update beside each block's look-ahead panel asks for the tiles kernel (AHEAD_UPDATE_TILES_FROM), once a
    # block but the last two (whose updates beside the panel are empty or absent)
    beside = max(blocks - 2, 0) if tiles_beside else 0
    assert persistent.count(False) == beside, "the updates beside the panels were not on the kernel asked for"
    assert_pivots_match(piv, plain, f"n={n}, against the factorization without look-ahead")
    if n <= 1000:
        assert_pivots_match(piv, scipy_factor(values, dtype)[1], f"n={n}")
    assert_lu_valid(values, lu, piv, dtype, f"n={n}")


@pytest.mark.large
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [1000, 2049])
def test_large_blocks_factor_like_lapack(monkeypatch: pytest.MonkeyPatch, n: int, dtype: torch.dtype) -> None:
    """LARGE_BLOCKS (three levels of blocks, taken from LARGE_FROM on; lowered here), with and without look-ahead:
    LAPACK's pivots and valid factors."""
    values = np.random.default_rng(n + 1).standard_normal((n, n)).astype(NP_DTYPES[dtype])
    values[:, n // 5] *= 1e-3
    monkeypatch.setattr(densela.lu, "LARGE_FROM", n)
    assert len(densela.lu._blocks(n, n)) == 3
    reference = scipy_factor(values, dtype)[1]
    for ahead in (n + 1, n):
        monkeypatch.setattr(densela.lu, "LOOKAHEAD_FROM", ahead)
        lu, piv = dl.lu_factor(values)
        assert_pivots_match(piv, reference, f"n={n}, look-ahead from {ahead}")
        assert_lu_valid(values, lu, piv, dtype, f"n={n}, look-ahead from {ahead}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_batch_through_the_blocked_algorithm(monkeypatch: pytest.MonkeyPatch, dtype: torch.dtype) -> None:
    # matrices too large to be factored whole by one program: panels, interchanges, triangular solves and
    # GEMM updates each launched once for the whole batch
    monkeypatch.setattr(densela.lu, "BATCHED_BYTES", 64)
    values = np.random.default_rng(8).standard_normal((3, 21, 21)).astype(NP_DTYPES[dtype])
    values[1, :, 4] = 0.0
    lu, piv, info = dl.lu_factor_ex(values)
    np.testing.assert_array_equal(info, [0, 5, 0])
    assert_lu_valid(values, lu, piv, dtype, "batch")
    for i in (0, 2):
        assert_pivots_match(piv[i], scipy_factor(values[i], dtype)[1], f"matrix {i}")


@pytest.mark.gpu
def test_large_float64_batches_of_warp_sized_matrices_go_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    # from WARP_FLOAT64_BATCH matrices on, float64 matrices, square or tall, that lu_warp_kernel would take whole
    # across warps go through the blocked path (its panels by the same kernel); float32, wide matrices and smaller
    # batches stay whole
    monkeypatch.setattr(densela.lu, "WARP_FLOAT64_BATCH", 3)
    blocked = []
    factor_large = densela.lu._factor_large
    monkeypatch.setattr(densela.lu, "_factor_large", lambda call, src, *rest: blocked.append(src.shape) or
                        factor_large(call, src, *rest))  # fmt: skip
    values = np.random.default_rng(12).standard_normal((3, 64, 64))
    values[1, :, 9] = 0.0
    for dtype, batch, m, n in ((torch.float64, 3, 64, 64), (torch.float64, 2, 64, 64), (torch.float32, 3, 64, 64),
                               (torch.float64, 3, 64, 32), (torch.float64, 3, 32, 64)):  # fmt: skip
        part = values[:batch, :m, :n]
        lu, piv, info = dl.lu_factor_ex(torch.from_numpy(part).to("cuda", dtype))
        assert int64_cpu(info).tolist() == [0, 10, 0][:batch]
        assert_lu_valid(part, lu, piv, dtype, f"{batch} of {m} x {n} {dtype}")
        for i in (0, 2)[: batch - 1]:
            assert_pivots_match(piv[i], scipy_factor(part[i], dtype)[1], f"{batch} of {m} x {n} {dtype}, matrix {i}")
    assert blocked == [(3, 64, 64), (3, 64, 32)]


@pytest.mark.parametrize("shape", [(3, 200, 12), (3, 9, 9), (1, 40, 24), gpu_only((3, 128, 128))], ids=str)
def test_factor_writes_every_pivot_and_info(shape: tuple[int, int, int], device: str) -> None:
    """The factorization's launches write all of piv and info, whatever they held (a replay's new arrays are
    uninitialized): pivots and info of poisoned arrays as LAPACK's, one matrix with a zero column."""
    batch, m, n = shape
    values = gaussian(shape, "poisoned")
    values[-1, :, 3] = 0.0
    a = place(values, torch.float64, device).mT.contiguous().mT  # column-major, as the kernels want it
    piv = torch.full((batch, min(m, n)), -7, dtype=torch.int32, device=device)
    info = torch.full((batch,), 99, dtype=torch.int32, device=device)
    densela.lu._run_factor(a, piv, info, "ieee")
    assert int64_cpu(info).tolist() == [0] * (batch - 1) + [4]
    for i in range(batch):
        assert_pivots_match(piv[i], scipy_factor(values[i], torch.float64)[1], f"matrix {i}")
    assert_lu_valid(values, a, piv, torch.float64, "poisoned piv and info")


@pytest.mark.gpu
def test_repeated_shapes_replay_identically() -> None:
    # first call eager, second captured as a CUDA graph, later ones replayed; more shapes than the cache keeps
    gen = torch.Generator(device="cuda").manual_seed(3)
    mats = {n: torch.randn(n, n, dtype=torch.float64, device="cuda", generator=gen) for n in (300, 301, 302, 303, 304)}
    first = {n: dl.lu_factor(a) for n, a in mats.items()}
    for _ in range(3):
        for n, a in mats.items():
            lu, piv = dl.lu_factor(a)
            assert torch.equal(lu, first[n][0]) and torch.equal(piv, first[n][1])
    assert_pivots_match(first[300][1], scipy_factor(mats[300].cpu().numpy(), torch.float64)[1], "n=300")
    # the graph's info buffer is not cleared between replays: its first panel writes info whatever it held
    singular = mats[301].clone()
    singular[:, 7] = 0.0
    for a, want in ((singular, 8), (mats[301], 0), (singular, 8), (mats[301], 0)):
        assert int(dl.lu_factor_ex(a)[2]) == want
