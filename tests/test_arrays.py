"""The array layer: every accepted array type in, the first argument's type out, ``out=`` written in place.

Host arrays (NumPy, CPU tensors) go to the GPU and back on a GPU machine, so these tests exercise that path
there; under ``TRITON_INTERPRET=1`` they run the kernels on the CPU.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np
import pytest
import torch

import densela as dl
from _reference import as_f64, assert_normwise, gemm_reference, gemm_tolerance, make
from densela._arrays import INT32_LIMIT, needs_int64, overlaps, span

NP_DTYPES = (np.float16, np.float32, np.float64)


def host_data(shape: tuple[int, ...], dtype: Any = np.float64, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def assert_product(result: Any, a: Any, b: Any, c: Any = None, **kw: Any) -> None:
    """``result`` is alpha * a @ b + beta * c within the normwise bound of its dtype."""
    ref, scale = gemm_reference(a, b, c, **kw)
    got = torch.from_numpy(np.array(result)) if isinstance(result, np.ndarray) else torch.from_dlpack(result)
    assert_normwise(got, ref, scale, gemm_tolerance(got.dtype, as_f64(a).shape[-1]), "product")


class Producer:
    """A minimal DLPack producer (what JAX and other libraries hand over), wrapping a torch tensor."""

    def __init__(self, t: torch.Tensor) -> None:
        self.t = t

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.t.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Any:
        return self.t.__dlpack_device__()


# --- result type and device ---------------------------------------------------------------------------------


def host_array(kind: str, x: np.ndarray) -> Any:
    return torch.from_numpy(x.copy()) if kind == "torch" else x.copy()


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize(
    "kind_a, kind_b", [("numpy", "numpy"), ("torch", "torch"), ("numpy", "torch"), ("torch", "numpy")]
)
def test_result_has_the_first_arguments_type(kind_a, kind_b, dtype):
    a, b = host_array(kind_a, host_data((9, 6), dtype)), host_array(kind_b, host_data((6, 5), dtype, seed=1))
    a_before, b_before = as_f64(a).clone(), as_f64(b).clone()
    result = dl.matmul(a, b)
    assert type(result) is type(a)
    if isinstance(result, np.ndarray):
        assert result.dtype == dtype
        assert result.flags.writeable
    else:
        assert result.dtype == a.dtype
        assert result.device == torch.device("cpu"), "host data comes back to the host"
    assert_product(result, a, b)
    assert torch.equal(as_f64(a), a_before) and torch.equal(as_f64(b), b_before), "an input was written"


def test_device_tensors_give_a_tensor_on_the_same_device(device):
    a, b = make((9, 6), torch.float32, device), make((6, 5), torch.float32, device, "col")
    result = dl.matmul(a, b)
    assert isinstance(result, torch.Tensor)
    assert result.device == a.device
    assert_product(result, a, b)


# --- NumPy layouts ----------------------------------------------------------------------------------------------


def numpy_variant(x: np.ndarray, variant: str) -> np.ndarray:
    """``x``'s values in a NumPy layout: C or Fortran order, a stepped slice, negative strides, read-only."""
    if variant == "C":
        return np.ascontiguousarray(x)
    if variant == "F":
        return np.asfortranarray(x)
    if variant == "slice":  # every second row, every third column of a larger array
        big = np.zeros((2 * x.shape[0], 3 * x.shape[1]), dtype=x.dtype)
        big[::2, ::3] = x
        return big[::2, ::3]
    if variant == "negative":
        return np.ascontiguousarray(x[::-1, ::-1])[::-1, ::-1]
    if variant == "readonly":
        y = x.copy()
        y.flags.writeable = False
        return y
    raise AssertionError(variant)


VARIANTS = ("C", "F", "slice", "negative", "readonly")


@pytest.mark.parametrize("variant_b", VARIANTS)
@pytest.mark.parametrize("variant_a", VARIANTS)
def test_numpy_layouts(variant_a, variant_b):
    a0, b0 = host_data((7, 5), np.float32), host_data((5, 6), np.float32, seed=1)
    a, b = numpy_variant(a0, variant_a), numpy_variant(b0, variant_b)
    assert np.array_equal(a, a0) and np.array_equal(b, b0)
    result = dl.matmul(a, b)
    assert isinstance(result, np.ndarray) and result.shape == (7, 6) and result.dtype == np.float32
    assert_product(result, a0, b0)
    assert np.array_equal(a, a0) and np.array_equal(b, b0), "an input was written"


@pytest.mark.parametrize("role", ["a", "b"])
def test_numpy_non_native_byte_order(role):
    """A big-endian float32 array is a float32 NumPy array: read like any other (a copy, as for negative strides)."""
    a0, b0 = host_data((4, 6), np.float32), host_data((6, 3), np.float32, seed=1)
    swapped = {"a": a0, "b": b0}[role].astype(np.dtype(np.float32).newbyteorder())
    a, b = (swapped, b0) if role == "a" else (a0, swapped)
    result = dl.matmul(a, b)
    assert isinstance(result, np.ndarray) and result.shape == (4, 3)
    assert_product(result, a0, b0)


@pytest.mark.parametrize(
    "build",
    [
        pytest.param(lambda d: make((1, 6), torch.float64, d).expand(5, 6), id="expanded-stride-0"),
        pytest.param(lambda d: make((6, 5), torch.float64, d).T, id="transposed"),
        pytest.param(lambda d: make((15, 12), torch.float64, d)[1::3, ::2], id="stepped-slice"),
        pytest.param(lambda d: make((5, 6), torch.float64, d).requires_grad_(), id="requires-grad"),
    ],
)
def test_torch_input_views(device, build):
    a, b = build(device), make((6, 4), torch.float64, device)
    result = dl.matmul(a, b)
    assert_product(result, a, b)
    assert not result.requires_grad, "densela does not record autograd history"
    assert a.grad is None


# --- DLPack producers -----------------------------------------------------------------------------------------


def test_dlpack_producers_in(device):
    ta, tb = make((5, 6), torch.float32, device), make((6, 4), torch.float32, device, "col")
    result = dl.matmul(Producer(ta), Producer(tb))
    # a bare producer class cannot be constructed from a result, so the result is a torch tensor (which
    # itself speaks DLPack)
    assert isinstance(result, torch.Tensor)
    assert result.device == ta.device
    assert_product(result, ta, tb)


def test_dlpack_producer_second_keeps_the_first_type():
    a, tb = host_data((5, 6)), make((6, 4), torch.float64)
    result = dl.matmul(a, Producer(tb))
    assert isinstance(result, np.ndarray)
    assert_product(result, a, tb)


def test_dlpack_producer_of_a_library_with_from_dlpack_gets_its_own_type(device, monkeypatch):
    """A library offering ``from_dlpack`` at its top level (CuPy, JAX) gets its own array type back."""
    module = types.ModuleType("fakearrays")

    class FakeArray(Producer):
        pass

    FakeArray.__module__ = "fakearrays.core"
    module.from_dlpack = lambda x: FakeArray(torch.from_dlpack(x))
    monkeypatch.setitem(sys.modules, "fakearrays", module)
    ta, tb = make((5, 6), torch.float64, device), make((6, 4), torch.float64, device)
    result = dl.matmul(FakeArray(ta), tb)
    assert type(result) is FakeArray
    assert_product(result.t, ta, tb)


def test_dlpack_producer_from_a_module_that_cannot_be_imported(device):
    """Classes built at run time (or whose ``__module__`` names nothing importable) still work."""
    Orphan = type("Orphan", (Producer,), {"__module__": "densela_no_such_module"})
    ta, tb = make((5, 6), torch.float64, device), make((6, 4), torch.float64, device)
    result = dl.matmul(Orphan(ta), tb)
    assert hasattr(result, "__dlpack__")
    assert_product(torch.from_dlpack(result), ta, tb)


def test_dlpack_producer_as_out(device):
    a, b = make((5, 6), torch.float64, device), make((6, 4), torch.float64, device)
    target = torch.full((5, 4), float("nan"), dtype=torch.float64, device=device)
    out = Producer(target)
    assert dl.matmul(a, b, out=out) is out
    assert_product(target, a, b)


# --- out= ----------------------------------------------------------------------------------------------------


def out_variant(kind: str, shape: tuple[int, int], device: str) -> tuple[Any, Any, Any]:
    """(out, buffer, view): a NaN-filled ``out`` of ``kind``; ``buffer`` the whole memory it lives in, where
    every element outside ``view`` (an index into buffer) holds -7."""
    m, n = shape
    if kind.startswith("numpy"):
        order = "F" if kind == "numpy-F" else "C"
        big = kind == "numpy-slice"
        buffer = np.full((2 * m, 3 * n) if big else shape, -7.0, order=order)
        view = np.s_[::2, ::3] if big else np.s_[:, :]
    else:
        big = kind == "torch-slice"
        full = (2 * m, 3 * n) if big else shape
        buffer = torch.full(full[::-1] if kind == "torch-col" else full, -7.0, dtype=torch.float64, device=device)
        if kind == "torch-col":
            buffer = buffer.T
        view = np.s_[::2, ::3] if big else np.s_[:, :]
    out = buffer[view]
    out[...] = float("nan")
    return out, buffer, view


@pytest.mark.parametrize("kind", ["numpy-C", "numpy-F", "numpy-slice", "torch-row", "torch-col", "torch-slice"])
@pytest.mark.parametrize("first", ["numpy", "torch"])
def test_out_is_written_in_place_and_returned(device, kind, first):
    a0, b0 = host_data((7, 5)), host_data((5, 6), seed=1)
    host = kind.startswith("numpy") or first == "numpy"
    a = a0 if first == "numpy" else torch.from_numpy(a0).to("cpu" if host else device)
    b = torch.from_numpy(b0).to(a.device) if isinstance(a, torch.Tensor) else b0
    out, buffer, view = out_variant(kind, (7, 6), "cpu" if host else device)
    assert dl.matmul(a, b, out=out) is out
    assert_product(out, a0, b0)
    written = as_f64(buffer)
    assert torch.equal(as_f64(buffer[view]), as_f64(out)), "the caller's memory holds the result"
    mask = torch.ones(written.shape, dtype=torch.bool)
    mask[view] = False
    assert bool((written[mask] == -7.0).all()), "memory outside out was written"


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda x, y: dl.matmul(x, x, out=y), id="matmul"),
        pytest.param(lambda x, y: dl.gemm(x, x, y, beta=0.5, out=y), id="gemm-c"),
        pytest.param(lambda x, y: dl.add(x, x, beta=-1.0, out=y), id="add"),
        pytest.param(lambda x, y: dl.transpose(x, out=y), id="transpose"),
        pytest.param(lambda x, y: dl.transpose_(y), id="transpose_-square"),
        pytest.param(lambda x, y: dl.transpose_(y.view(4, 16)), id="transpose_-rectangle"),
        pytest.param(lambda x, y: dl.lu_factor(y.T, overwrite_a=True), id="lu_factor-overwrite"),
    ],
)
def test_in_place_writes_advance_torch_version_counter(write, device):
    """densela's kernels write ``out`` (and ``transpose_``'s and ``lu_factor(overwrite_a=True)``'s array) through a
    pointer, which torch does not see; they advance its version counter as torch's in-place operations do, on the
    first call and on replays, so autograd refuses a backward pass through a tensor densela overwrote."""
    x = make((8, 8), torch.float64, device)
    y = make((8, 8), torch.float64, device)
    w = torch.ones(8, 8, dtype=torch.float64, device=device, requires_grad=True)
    product = w * y  # saves y for w's gradient
    for _ in range(2):  # the first call, then its replay
        before = y._version
        write(x, y)
        assert y._version > before
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        product.sum().backward()


def test_numpy_out_is_c_updates_in_place():
    a, b = host_data((6, 4)), host_data((4, 5), seed=1)
    c = np.asfortranarray(host_data((6, 5), seed=2))
    c_before = c.copy()
    assert dl.gemm(a, b, c, alpha=2.0, beta=-1.0, out=c) is c
    assert_product(c, a, b, c_before, alpha=2.0, beta=-1.0)


def _readonly(x: np.ndarray) -> np.ndarray:
    x.flags.writeable = False
    return x


@pytest.mark.parametrize(
    "make_out, words",
    [
        pytest.param(lambda: np.full((6, 5), np.nan)[::-1], "negative strides", id="negative-rows"),
        pytest.param(lambda: np.full((6, 5), np.nan)[:, ::-1], "negative strides", id="negative-columns"),
        pytest.param(lambda: _readonly(np.full((6, 5), np.nan)), "read-only", id="read-only"),
        pytest.param(lambda: np.full((6, 5), np.nan, dtype=">f8"), "byte order", id="big-endian"),
    ],
)
@pytest.mark.parametrize("as_c", [False, True])
def test_numpy_out_that_cannot_be_written_is_rejected(make_out, words, as_c):
    a, b = host_data((6, 4)), host_data((4, 5), seed=1)
    out = make_out()
    with pytest.raises(ValueError, match=words):
        if as_c:
            dl.gemm(a, b, out, beta=1.0, out=out)
        else:
            dl.gemm(a, b, out=out)
    assert np.isnan(out).all(), "out was written"


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("m, n, k", [(0, 5, 3), (4, 0, 3), (4, 5, 0)])
def test_numpy_empty_arrays(m, n, k, order):
    """Empty NumPy arrays (torch.from_numpy gives them zero strides) in and out."""
    a, b = np.ones((m, k), order=order), np.ones((k, n), order=order)
    result = dl.matmul(a, b)
    assert isinstance(result, np.ndarray) and result.shape == (m, n)
    assert (result == 0).all()
    out = np.full((m, n), np.nan, order=order)
    assert dl.matmul(a, b, out=out) is out
    assert (out == 0).all()


# --- CuPy -----------------------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_cupy_arrays():
    cp = pytest.importorskip("cupy")
    a = cp.asarray(host_data((9, 6), np.float32))
    b = cp.asfortranarray(cp.asarray(host_data((6, 5), np.float32, seed=1)))
    result = dl.matmul(a, b)
    assert isinstance(result, cp.ndarray) and result.dtype == cp.float32
    assert_product(torch.from_dlpack(result), torch.from_dlpack(a), torch.from_dlpack(b))
    out = cp.full((9, 5), cp.nan, dtype=cp.float32)
    assert dl.matmul(a, b, out=out) is out
    assert_product(torch.from_dlpack(out), torch.from_dlpack(a), torch.from_dlpack(b))


# --- span / overlaps / needs_int64 ------------------------------------------------------------------------------


def test_span_of_views():
    x = torch.zeros(4, 6, dtype=torch.float32)
    p, size = x.data_ptr(), 4
    assert span(x) == (p, p + 24 * size)
    assert span(x.T) == span(x)
    assert span(x[1:3, 2:5]) == (p + (6 + 2) * size, p + (2 * 6 + 4 + 1) * size)
    assert span(x[::2, ::3]) == (p, p + (2 * 6 + 3 + 1) * size)
    assert span(x[2]) == (p + 12 * size, p + 18 * size)
    assert span(x[:, 0]) == (p, p + (18 + 1) * size)
    assert span(x[:0]) == (0, 0)
    z = torch.zeros(3, dtype=torch.float64)
    assert span(z[1:2]) == (z.data_ptr() + 8, z.data_ptr() + 16)
    y = torch.zeros(2, 3, 4)
    assert span(y[:, 1]) == (y.data_ptr() + 4 * 4, y.data_ptr() + (12 + 4 + 3 + 1) * 4)


@pytest.mark.parametrize(
    "pick, expected",
    [
        pytest.param(lambda x, y: (x, x), True, id="same"),
        pytest.param(lambda x, y: (x, x.T), True, id="transposed"),
        pytest.param(lambda x, y: (x[1:3], x[2:]), True, id="shared-row"),
        pytest.param(lambda x, y: (x[:, 2], x[3]), True, id="column-and-row"),
        pytest.param(lambda x, y: (x[:2], x[2:]), False, id="adjacent-rows"),
        pytest.param(lambda x, y: (x[1], x[2]), False, id="different-rows"),
        pytest.param(lambda x, y: (x, y), False, id="different-tensors"),
        pytest.param(lambda x, y: (x[:0], x), False, id="empty"),
        pytest.param(lambda x, y: (x[2:, :3], x[2:, 3:]), False, id="side-by-side-blocks"),
        pytest.param(lambda x, y: (x[:2, 3:], x[2:, 3:]), False, id="stacked-blocks"),
        pytest.param(lambda x, y: (x[1:4, 1:4], x[3:, 3:]), True, id="corner-shared"),
        pytest.param(lambda x, y: (x[:, ::2], x[:, 1::2]), False, id="interleaved-columns"),
        pytest.param(lambda x, y: (x[:, ::2], x[:, 2::2]), True, id="shifted-columns"),
        pytest.param(lambda x, y: (x.T[2:, :3], x.T[2:, 3:]), False, id="column-major-blocks"),
        pytest.param(lambda x, y: (x.T[:3, :3], x.T[2:, 2:]), True, id="column-major-corner"),
    ],
)
def test_overlaps(pick, expected):
    x, y = torch.zeros(5, 6), torch.zeros(5, 6)
    p, q = pick(x, y)
    assert overlaps(p, q) is expected
    assert overlaps(q, p) is expected


@pytest.mark.parametrize("order", ["C", "F"])
def test_blocked_update_in_place_on_blocks_of_one_matrix(device, order):
    """The trailing update of a blocked factorization: A22 -= A21 @ A12, all three blocks views of A."""
    a = make((9, 9), torch.float64, device, "col" if order == "F" else "row")
    k, expected = 4, a.clone()
    expected[k:, k:] -= expected[k:, :k] @ expected[:k, k:]
    block = a[k:, k:]
    dl.gemm(a[k:, :k], a[:k, k:], block, alpha=-1.0, beta=1.0, out=a[k:, k:])  # out: another view object of c
    assert_normwise(a, expected.cpu(), float(expected.norm()), 1e-14, "blocked update")


def test_out_that_aliases_itself_is_rejected(device):
    out = torch.full((9,), float("nan"), device=device).as_strided((3, 3), (2, 1))
    with pytest.raises(ValueError, match="alias"):
        dl.matmul(make((3, 3), torch.float32, device), make((3, 3), torch.float32, device), out=out)
    assert torch.isnan(out).all()


def test_interleaved_columns_as_out(device):
    buf = make((6, 8), torch.float32, device)
    x, y = buf[:, ::2], buf[:, 1::2]
    expected = 2 * x.double()
    dl.add(x, x, out=y)
    assert torch.equal(y.double(), expected)


def meta(shape: tuple[int, ...], strides: tuple[int, ...] | None = None) -> torch.Tensor:
    """Shape and strides without memory: offsets past 2**31 can be reasoned about safely."""
    if strides is None:
        return torch.empty(shape, dtype=torch.float16, device="meta")
    return torch.empty_strided(shape, strides, dtype=torch.float16, device="meta")


@pytest.mark.parametrize(
    "tensors, expected",
    [
        pytest.param(lambda: [meta((46340, 46340))], False, id="46340^2"),
        pytest.param(lambda: [meta((46341, 46341))], True, id="46341^2"),
        pytest.param(lambda: [meta((1, INT32_LIMIT + 1))], False, id="last-offset-2^31-1"),
        pytest.param(lambda: [meta((1, INT32_LIMIT + 2))], True, id="last-offset-2^31"),
        pytest.param(lambda: [meta((65600, 32800)).T], True, id="fp16-65600x32800-transposed"),
        pytest.param(lambda: [meta((65600, 32800))[:, :8]], True, id="thin-view-of-large"),
        pytest.param(lambda: [meta((2, 4, 4), (2**31, 4, 1))], True, id="batch-stride-2^31"),
        pytest.param(lambda: [meta((1, 4, 4), (2**31, 4, 1))], False, id="single-batch-entry"),
        pytest.param(lambda: [meta((5, 5)), meta((2**16, 2**16))], True, id="any-of-several"),
        pytest.param(lambda: [meta((0, 7))], False, id="empty"),
        pytest.param(lambda: [torch.zeros(3, 4)], False, id="small"),
    ],
)
def test_needs_int64(tensors, expected):
    assert needs_int64(*tensors()) is expected
