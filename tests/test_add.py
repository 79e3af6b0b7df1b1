"""add: alpha * a + beta * b against float64 references, mixed layouts, out=, bad input."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import densela as dl
import densela._arrays
from _reference import LAYOUTS, UNIT_ROUNDOFF, Layout, as_f64, assert_identical, assert_normwise, make, poisoned
from conftest import DEVICE

ADD_MODULE = importlib.import_module("densela.add")  # densela.add is the function

DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
ODD_SHAPES = ((1, 1), (1, 19), (19, 1), (7, 33), (33, 7), (0, 5), (5, 0))


def assert_sum(out: object, a: object, b: object, alpha: float, beta: float, dtype: torch.dtype) -> None:
    """out == alpha * a + beta * b up to float32 (float64) arithmetic and one rounding to ``dtype``."""
    a64, b64 = as_f64(a), as_f64(b)
    ref = alpha * a64 + beta * b64
    scale = abs(alpha) * float(a64.norm()) + abs(beta) * float(b64.norm())
    u_acc = UNIT_ROUNDOFF[torch.float64 if dtype == torch.float64 else torch.float32]
    tol = 2.0 * (UNIT_ROUNDOFF[dtype] + 2.0 * u_acc)
    assert_normwise(out, ref, scale, tol, f"{dtype} alpha={alpha} beta={beta}")


def memory_order(t: torch.Tensor) -> str:
    return "col" if t.stride(0) < t.stride(1) else "row"


@pytest.mark.parametrize("layout_b", LAYOUTS)
@pytest.mark.parametrize("layout_a", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_add_layouts(dtype: torch.dtype, layout_a: Layout, layout_b: Layout, device: str) -> None:
    a, b = make((7, 33), dtype, device, layout_a), make((7, 33), dtype, device, layout_b)
    out = dl.add(a, b, alpha=1.5, beta=-0.75)
    assert isinstance(out, torch.Tensor) and out.dtype == dtype
    assert memory_order(out) == memory_order(a)
    assert_sum(out, a, b, 1.5, -0.75, dtype)


@pytest.mark.parametrize("shape", ODD_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float64], ids=str)
def test_add_odd_shapes(dtype: torch.dtype, shape: tuple[int, int], device: str) -> None:
    a, b = make(shape, dtype, device), make(shape, dtype, device, "col")
    out = dl.add(a, b)
    assert tuple(out.shape) == shape
    assert_sum(out, a, b, 1.0, 1.0, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_add_transposed_operand(dtype: torch.dtype, device: str) -> None:
    x, y = make((17, 40), dtype, device), make((40, 17), dtype, device)
    out = dl.add(x, y.T)
    assert_sum(out, x, y.T, 1.0, 1.0, dtype)
    out = dl.add(y.T, x, beta=-1.0)  # a column-major view first: the result is column-major
    assert memory_order(out) == "col"
    assert_sum(out, y.T, x, 1.0, -1.0, dtype)


@pytest.mark.parametrize(
    ("alpha", "beta"), [(1.0, 1.0), (0.0, 1.0), (1.0, 0.0), (0.0, 0.0), (-1.0, -1.0), (-2.5, 0.125), (3, np.float32(2))]
)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32, torch.float64], ids=str)
def test_add_alpha_beta(dtype: torch.dtype, alpha: float, beta: float, device: str) -> None:
    a, b = make((9, 21), dtype, device), make((9, 21), dtype, device, "strided")
    out = dl.add(a, b, alpha=alpha, beta=beta)
    assert_sum(out, a, b, float(alpha), float(beta), dtype)


def test_add_alpha_beta_are_not_rounded_to_float32(device: str) -> None:
    a = torch.ones((2, 2), dtype=torch.float64, device=device)
    out = dl.add(a, a, alpha=0.1, beta=1e-300)
    assert torch.equal(out.cpu(), torch.full((2, 2), 0.1 + 1e-300, dtype=torch.float64))


@pytest.mark.parametrize("out_layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32], ids=str)
def test_add_into_out(dtype: torch.dtype, out_layout: Layout, device: str) -> None:
    a, b = make((13, 18), dtype, device, "col"), make((13, 18), dtype, device)
    out = poisoned((13, 18), dtype, device, out_layout)
    strides = out.stride()
    assert dl.add(a, b, alpha=2.0, out=out) is out
    assert out.stride() == strides
    assert_sum(out, a, b, 2.0, 1.0, dtype)


def test_add_numpy_in_numpy_out() -> None:
    x = np.arange(6.0).reshape(2, 3)
    out = dl.add(x, np.ones((3, 2)).T, alpha=2.0)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, 2.0 * x + 1.0)
    target = np.full((2, 3), np.nan)
    assert dl.add(x, x, beta=-3.0, out=target) is target
    np.testing.assert_array_equal(target, -2.0 * x)
    col = dl.add(np.asfortranarray(x.astype(np.float32)), x.astype(np.float32))
    assert col.dtype == np.float32 and col.flags.f_contiguous


def _f32(shape: tuple[int, ...], device: str, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return make(shape, dtype, device)


def _nan(shape: tuple[int, ...], device: str, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return poisoned(shape, dtype, device)


def _pair(device: str) -> tuple[torch.Tensor, torch.Tensor]:
    return _f32((3, 4), device), _f32((3, 4), device)


def _out_is(device: str, which: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, dict]:
    a, b = _f32((3, 4), device), _f32((4, 3), device).T
    return a, b, (a if which == "a" else b), {}


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        pytest.param(lambda d: ([[1.0]], _f32((1, 1), d), _nan((1, 1), d), {}), TypeError, "a must be", id="a-list"),
        pytest.param(lambda d: (_f32((1, 1), d), 2.0, _nan((1, 1), d), {}), TypeError, "b must be", id="b-float"),
        pytest.param(
            lambda d: (_f32((3, 4), d), _f32((3, 4), d, torch.float64), _nan((3, 4), d), {}),
            TypeError,
            "mixed dtypes, a is float32 and b is float64",
            id="mixed",
        ),
        pytest.param(
            lambda d: (_f32((3, 4), d).to(torch.int32), _f32((3, 4), d).to(torch.int32), _nan((3, 4), d), {}),
            TypeError,
            "unsupported dtype int32",
            id="int32",
        ),
        pytest.param(
            lambda d: (_f32((4,), d), _f32((4,), d), _nan((4, 1), d), {}), ValueError, "a must be 2-D", id="1-D"
        ),
        pytest.param(
            lambda d: (_f32((3, 4), d), _f32((1, 3, 4), d), _nan((3, 4), d), {}), ValueError, "b must be 2-D", id="3-D"
        ),
        pytest.param(
            lambda d: (_f32((3, 4), d), _f32((4, 3), d), _nan((3, 4), d), {}),
            ValueError,
            r"shapes differ: a has shape \(3, 4\) and b \(4, 3\)",
            id="shapes",
        ),
        pytest.param(
            lambda d: (_f32((3, 4), d), torch.empty((3, 4), device="meta"), _nan((3, 4), d), {}),
            ValueError,
            "different devices",
            id="devices",
        ),
        pytest.param(lambda d: (*_pair(d), _nan((4, 3), d), {}), ValueError, "out has shape", id="out-shape"),
        pytest.param(
            lambda d: (*_pair(d), _nan((3, 4), d, torch.float16), {}),
            TypeError,
            "out has dtype float16",
            id="out-dtype",
        ),
        pytest.param(lambda d: _out_is(d, "a"), ValueError, "overlaps the memory of a", id="out-is-a"),
        pytest.param(lambda d: _out_is(d, "b"), ValueError, "overlaps the memory of b", id="out-is-b"),
        pytest.param(lambda d: (*_pair(d), _nan((3, 4), d), {"alpha": "2"}), TypeError, "alpha", id="alpha"),
        pytest.param(lambda d: (*_pair(d), _nan((3, 4), d), {"beta": 1 + 1j}), TypeError, "beta", id="beta"),
    ],
)
def test_add_bad_input(build, error: type, match: str, device: str) -> None:
    a, b, out, kwargs = build(device)
    before = out.clone()
    with pytest.raises(error, match=match):
        dl.add(a, b, out=out, **kwargs)
    assert_identical(out, before)


@pytest.mark.parametrize("layout", ["row", "col"])
@pytest.mark.parametrize("shape", [(7, 33), (40, 17), (1, 19), (33, 65)], ids=str)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float64], ids=str)
def test_add_dense_alike_operands_run_flat(
    dtype: torch.dtype, shape: tuple[int, int], layout: Layout, device: str
) -> None:
    """Operands and out of one dense layout are summed as one run of items (``_dense_alike``) in programs of
    ``FLAT_TILE`` items (one to five here), the last program's tail masked; every item of out written."""
    a, b = make(shape, dtype, device, layout), make(shape, dtype, device, layout)
    out = poisoned(shape, dtype, device, layout)
    assert ADD_MODULE._dense_alike(a, b, out)
    assert dl.add(a, b, alpha=0.5, beta=-2.0, out=out) is out
    assert_sum(out, a, b, 0.5, -2.0, dtype)
    strided = make(shape, dtype, device, "strided")
    assert not ADD_MODULE._dense_alike(strided, strided, out)


@pytest.mark.parametrize("alike", [False, True])
def test_add_int64_offsets(alike: bool, device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 64-bit offset path that large matrices take, forced on small ones (one operand transposed, or all
    three alike: the flat path)."""
    monkeypatch.setattr(ADD_MODULE, "needs_int64", lambda *tensors: True)
    a = make((17, 33), torch.float32, device)
    b = make((17, 33), torch.float32, device) if alike else make((33, 17), torch.float32, device).T
    assert_sum(dl.add(a, b, alpha=2.0, beta=-1.0), a, b, 2.0, -1.0, torch.float32)


def test_add_torch_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a GPU and without the interpreter, the same call runs on PyTorch (half types in float32)."""
    monkeypatch.setattr(densela._arrays, "INTERPRET", False)
    a, b = make((6, 5), torch.float16, "cpu"), make((5, 6), torch.float16, "cpu").T
    assert_sum(dl.add(a, b, alpha=-0.5, beta=3.0), a, b, -0.5, 3.0, torch.float16)


@given(
    m=st.integers(1, 40),
    n=st.integers(1, 40),
    layouts=st.tuples(*[st.sampled_from(LAYOUTS)] * 3),
    dtype=st.sampled_from(DTYPES),
    alpha=st.sampled_from([1.0, 0.0, -1.0, 0.3]),
    beta=st.sampled_from([1.0, 0.0, -2.0, 1e-3]),
)
def test_add_property(m: int, n: int, layouts, dtype: torch.dtype, alpha: float, beta: float) -> None:
    layout_a, layout_b, layout_out = layouts
    a, b = make((m, n), dtype, DEVICE, layout_a), make((m, n), dtype, DEVICE, layout_b)
    out = poisoned((m, n), dtype, DEVICE, layout_out)
    dl.add(a, b, alpha=alpha, beta=beta, out=out)
    assert_sum(out, a, b, alpha, beta, dtype)


@pytest.mark.large
def test_add_beyond_int32_indexing(device: str) -> None:
    m, n = 50_000, 43_000  # 2.15e9 float16 elements (4.3 GB per operand): offsets pass 2**31
    x = torch.randn((m, n), dtype=torch.float16, device=device)
    y = torch.randn((n, m), dtype=torch.float16, device=device)
    out = dl.add(x, y.T)
    assert torch.equal(out, x + y.T)  # both compute in float32 and round once
    del out
    out = dl.add(x, x, beta=-0.5)  # operands alike: the flat path; 0.5 * x exactly, then rounded once
    assert torch.equal(out, x * 0.5)  # torch multiplies half in float32 and rounds once
    del out
    out = dl.add(x, y.T, alpha=0.5, beta=-2.0)
    expected = x.float().mul_(0.5).add_(y.T.float(), alpha=-2.0).half()
    torch.testing.assert_close(out, expected, rtol=2.0**-10, atol=1e-5)  # float32 FMA or not: one half ulp


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_repeated_add_replays_the_plan_on_new_data(dtype: torch.dtype) -> None:
    """A signature's first call records its launches; later calls on other arrays replay them (new results, an
    ``out``, the scalars), every result right; operands sharing memory and a bool beta are handled as without a
    plan."""
    importlib.import_module("densela.tuning").clear_cache()
    shape = (33, 20)
    for _ in range(3):
        a, b = make(shape, dtype, DEVICE), make(shape[::-1], dtype, DEVICE).T
        got = dl.add(a, b, alpha=0.5, beta=-2.0)
        assert_sum(got, a, b, 0.5, -2.0, dtype)
        out = poisoned(shape, dtype, DEVICE)
        assert dl.add(a, b, alpha=0.5, beta=-2.0, out=out) is out
        assert_identical(out, got, "out")
    plans = [p for k, p in importlib.import_module("densela._launch").PLANS.items() if k[0] == "add"]
    assert plans and all(p is not None for p in plans)
    x, y = make((20, 20), dtype, DEVICE), make((20, 20), dtype, DEVICE)
    assert_sum(dl.add(x, y), x, y, 1.0, 1.0, dtype)
    assert_sum(dl.add(x, x), x, x, 1.0, 1.0, dtype)  # the plan of add(x, y) on one operand twice
    with pytest.raises(TypeError, match="beta"):
        dl.add(a, b, alpha=0.5, beta=True)
