"""transpose and transpose_: bit-exact moves of every item size and layout, scaling, out=, bad input."""

from __future__ import annotations

import contextlib
import importlib
import math
from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import densela as dl
import densela._arrays
from _reference import LAYOUTS, UNIT_ROUNDOFF, Layout, assert_identical, assert_normwise, make, poisoned
from conftest import DEVICE
from densela.bench.timing import peak_extra_bytes
from densela.tuning import THIN_SIDE

TRANSPOSE_MODULE = importlib.import_module("densela.transpose")  # densela.transpose is the function

ITEM_DTYPES = (
    torch.bool, torch.int8, torch.int16, torch.float16, torch.bfloat16, torch.int32, torch.float32,
    torch.int64, torch.float64, torch.complex64, torch.complex128,
)  # fmt: skip
SCALABLE = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128)
ODD_SHAPES = ((1, 1), (1, 19), (19, 1), (7, 33), (33, 7), (0, 5), (5, 0))


def bits(shape: tuple[int, int], dtype: torch.dtype, device: str = "cpu", layout: Layout = "row") -> torch.Tensor:
    """Random bit patterns of ``dtype`` (NaNs with payloads, infinities, -0.0 included) laid out as ``make`` does."""
    if layout in ("strided", "strided_col"):
        inner: Layout = "col" if layout == "strided_col" else "row"
        return bits((2 * shape[0], 2 * shape[1]), dtype, device, inner)[::2, ::2]
    rows, cols = shape if layout == "row" else shape[::-1]
    if dtype == torch.bool:
        t = torch.randint(0, 2, (rows, cols), device=device).bool()
    else:
        raw = torch.randint(0, 256, (rows, max(cols, 1) * dtype.itemsize), dtype=torch.uint8, device=device)
        t = raw.view(dtype)[:, :cols]
    return t if layout == "row" else t.T


def fill_poison(shape: tuple[int, int], dtype: torch.dtype, device: str, layout: Layout) -> torch.Tensor:
    """An output to be overwritten: NaN for float and complex dtypes, else a fixed bit pattern."""
    if dtype.is_floating_point or dtype.is_complex:
        return poisoned(shape, dtype, device, layout)
    return bits(shape, dtype, device, layout).fill_(True if dtype == torch.bool else -7)


def memory_order(t: torch.Tensor) -> str:
    return "col" if t.stride(0) < t.stride(1) else "row"


def real_f64(t: torch.Tensor) -> torch.Tensor:
    """``t`` in float64 on the CPU; complex items as a trailing axis of (real, imaginary)."""
    t = t.cpu()
    return torch.view_as_real(t.to(torch.complex128)) if t.is_complex() else t.to(torch.float64)


def assert_scaled(out: torch.Tensor, a: torch.Tensor, alpha: float) -> None:
    """alpha * a.T to within one rounding of out's dtype (16-bit floats: float32 arithmetic, then one rounding)."""
    real = a.real.dtype if a.is_complex() else a.dtype
    ref = alpha * real_f64(a).transpose(0, 1)
    assert_normwise(real_f64(out), ref, float(ref.norm()), 2.0 * UNIT_ROUNDOFF[real], f"alpha={alpha}")


@pytest.mark.parametrize("shape", ODD_SHAPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ITEM_DTYPES, ids=str)
def test_transpose_moves_bits_of_every_item_size(dtype: torch.dtype, layout: Layout, shape, device: str) -> None:
    a = bits(shape, dtype, device, layout)
    out = dl.transpose(a)
    assert isinstance(out, torch.Tensor)
    assert_identical(out, a.T, f"{dtype} {layout} {shape}")
    if out.numel() > 1 and 1 not in out.shape:
        assert memory_order(out) == memory_order(a)


@pytest.mark.parametrize("chunk", [65535, 2])
@pytest.mark.parametrize("shape", [(5, 7, 33), (3, 1, 19), (4, 19, 1), (2, 33, 7)], ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype, alpha", [(torch.bfloat16, 1.0), (torch.float64, 1.0), (torch.complex64, 1.0),
                                          (torch.float32, -0.5)], ids=str)  # fmt: skip
def test_launch_transpose_of_batches(
    dtype: torch.dtype, alpha: float, layout: Layout, shape, chunk: int, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches (LU's column-major copies) move each matrix, in launches of at most MAX_GRID_Y of them."""
    monkeypatch.setattr(TRANSPOSE_MODULE, "MAX_GRID_Y", chunk)
    batch, m, n = shape
    a = make(shape, dtype, device, layout)
    out = poisoned((batch, n, m), dtype, device)
    TRANSPOSE_MODULE.launch_transpose(a, out, alpha)
    for i in range(batch):
        if alpha == 1.0:
            assert_identical(out[i], a[i].T, f"matrix {i}")
        else:
            assert_scaled(out[i], a[i], alpha)


@pytest.mark.parametrize("shape", [(1030, 100), (100, 1030), (1030, 6), (44, 2)], ids=str)
@pytest.mark.parametrize("layout", ["row", "col", "strided"])
@pytest.mark.parametrize(
    "dtype, alpha", [(torch.int8, 1.0), (torch.int16, 1.0), (torch.complex64, 1.0), (torch.float32, -0.5)], ids=str
)
def test_transpose_of_thin_matrices_with_hints(
    dtype: torch.dtype, alpha: float, layout: Layout, shape, device: str
) -> None:
    """Thin matrices (a side of at most THIN_SIDE) declare their sizes and strides multiples of their power-of-two
    factors to the kernel (``_hints``): every item written, bit-exact, or scaled; a wrong declaration would
    misplace rows."""
    a = bits(shape, dtype, device, layout) if alpha == 1.0 else make(shape, dtype, device, layout)
    out = fill_poison(shape[::-1], dtype, device, layout)
    hints = TRANSPOSE_MODULE._hints(*a.shape, (*a.stride(), *out.stride()), dtype.itemsize)
    assert any(h > 1 for h in hints) == (dtype.itemsize <= 4)
    assert dl.transpose(a, out=out, alpha=alpha) is out
    if alpha == 1.0:
        assert_identical(out, a.T, f"{dtype} {layout} {shape}")
    else:
        assert_scaled(out, a, alpha)


@pytest.mark.parametrize("shape", [(132, 136), (260, 132)], ids=str)
@pytest.mark.parametrize("layout", ["row", "col"])
@pytest.mark.parametrize("dtype", [torch.bool, torch.int8, torch.float16, torch.bfloat16], ids=str)
def test_transpose_packs_small_items_into_words(dtype: torch.dtype, layout: Layout, shape, device: str) -> None:
    """1- and 2-byte items with sides that are multiples of 4 / itemsize, rows on word boundaries and more than
    THIN_SIDE rows move packed in 32-bit words (``_packed``): the half exchanges put every item in its place,
    and every item of out is written."""
    a = bits(shape, dtype, device, layout)
    out = fill_poison(shape[::-1], dtype, device, layout)
    assert TRANSPOSE_MODULE._packed(a, out)[0] == 4 // dtype.itemsize
    assert dl.transpose(a, out=out) is out
    assert_identical(out, a.T, f"{dtype} {layout} {shape}")


@pytest.mark.parametrize(
    "layout, shape",
    [("row", (100, 260)), ("col", (260, 100)), ("row", (4, 36)), ("col", (44, 8)), ("row", (128, 1028))],
)
@pytest.mark.parametrize("dtype", [torch.bool, torch.int8], ids=str)
def test_transpose_packs_thin_byte_matrices_into_words(dtype: torch.dtype, layout: Layout, shape, device: str) -> None:
    """1-byte items with at most THIN_SIDE rows (of ``a``, or of ``a.T`` for column-major ones) move packed too,
    the four rows of out that each row of words fills stored as one tile (the kernel's JOIN): every item in its
    place, every item of out written."""
    a = bits(shape, dtype, device, layout)
    out = fill_poison(shape[::-1], dtype, device, layout)
    pack, rows, _, _ = TRANSPOSE_MODULE._packed(a, out)
    assert pack == 4 and rows == min(shape) <= THIN_SIDE
    assert dl.transpose(a, out=out) is out
    assert_identical(out, a.T, f"{dtype} {layout} {shape}")


def test_transpose_moves_items_one_by_one_where_words_do_not_fit(device: str) -> None:
    """Where 32-bit words would split items across rows, start off a word boundary, or be written by stores that
    share sectors (few rows), items move one by one, and still bit-exact."""
    bf16 = torch.bfloat16

    def poison(shape: tuple[int, int], dtype: torch.dtype = bf16) -> torch.Tensor:
        return fill_poison(shape, dtype, device, "row")

    cases = {
        "odd side": (bits((133, 136), bf16, device), poison((136, 133))),
        "rows off word boundaries": (bits((132, 138), bf16, device)[:, 1:137], poison((136, 132))),
        "out rows off word boundaries": (bits((132, 136), bf16, device), poison((136, 133))[:, :132]),
        "layouts differ": (bits((132, 136), bf16, device), fill_poison((136, 132), bf16, device, "col")),
        "sides not multiples of 4": (bits((134, 136), torch.int8, device), poison((136, 134), torch.int8)),
        "few rows": (bits((8, 260), bf16, device), poison((260, 8))),
    }
    for name, (a, out) in cases.items():
        assert TRANSPOSE_MODULE._packed(a, out) is None, name
        assert dl.transpose(a, out=out) is out
        assert_identical(out, a.T, name)


def test_transpose_keeps_nan_payloads_and_signed_zeros(device: str) -> None:
    patterns = np.array([[0x7F800001, 0x7FC12345], [0xFFBADBAD, 0x80000000]], dtype=np.uint32)  # sNaN, qNaN, -0.0
    a = torch.from_numpy(patterns.view(np.float32)).to(device)
    assert_identical(dl.transpose(a), a.T)


@pytest.mark.parametrize("alpha", [-2.5, 0.0, 3.0])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SCALABLE, ids=str)
def test_transpose_scales(dtype: torch.dtype, layout: Layout, alpha: float, device: str) -> None:
    a = make((7, 33), torch.complex128 if dtype.is_complex else torch.float64, device, layout).to(dtype)
    out = dl.transpose(a, alpha=alpha)
    assert out.dtype == dtype and memory_order(out) == memory_order(a)
    assert_scaled(out, a, alpha)


@pytest.mark.parametrize("out_layout", LAYOUTS)
@pytest.mark.parametrize("layout", ["row", "col"])
@pytest.mark.parametrize("dtype", [torch.bool, torch.float16, torch.int32, torch.complex128], ids=str)
def test_transpose_into_out(dtype: torch.dtype, layout: Layout, out_layout: Layout, device: str) -> None:
    a = bits((17, 9), dtype, device, layout)
    out = fill_poison((9, 17), dtype, device, out_layout)
    strides = out.stride()
    assert dl.transpose(a, out=out) is out
    assert out.stride() == strides
    assert_identical(out, a.T)


@pytest.mark.parametrize("out_layout", ["row", "col"])
def test_transpose_scaled_into_out(out_layout: Layout, device: str) -> None:
    a = make((20, 3), torch.complex64, device)
    out = poisoned((3, 20), torch.complex64, device, out_layout)
    assert dl.transpose(a, out=out, alpha=-0.5) is out
    assert_scaled(out, a, -0.5)


def test_transpose_numpy_in_numpy_out() -> None:
    a = np.arange(12, dtype=np.int16).reshape(3, 4)
    out = dl.transpose(a)
    assert isinstance(out, np.ndarray) and out.flags.c_contiguous
    np.testing.assert_array_equal(out, a.T)
    f = np.asfortranarray(a.astype(np.complex128) * (1 + 2j))
    out = dl.transpose(f, alpha=2.0)
    assert isinstance(out, np.ndarray) and out.flags.f_contiguous
    np.testing.assert_array_equal(out, 2.0 * f.T)
    target = np.full((4, 3), -1, dtype=np.int16)
    assert dl.transpose(a, out=target) is target
    np.testing.assert_array_equal(target, a.T)


@pytest.mark.parametrize("n", [1, 16, 17, 20, 33])
@pytest.mark.parametrize("layout", ["row", "col"])
@pytest.mark.parametrize("dtype", [torch.bool, torch.int8, torch.bfloat16, torch.float32, torch.complex128], ids=str)
def test_transpose_inplace_square(dtype: torch.dtype, layout: Layout, n: int, device: str) -> None:
    """Squares in place, bit for bit; n = 20 declares its side and stride multiples of 4 (``_square_hints``)."""
    a = bits((n, n), dtype, device, layout)
    expected, strides = a.T.clone(), a.stride()
    assert dl.transpose_(a) is a
    assert a.stride() == strides
    assert_identical(a, expected, f"{dtype} {layout} n={n}")


def test_transpose_inplace_numpy() -> None:
    for a in (np.arange(9.0).reshape(3, 3), np.asfortranarray(np.arange(289, dtype=np.int8).reshape(17, 17))):
        expected = a.T.copy()
        assert dl.transpose_(a) is a
        np.testing.assert_array_equal(a, expected)


def test_transpose_inplace_empty(device: str) -> None:
    a = torch.empty((0, 0), device=device)
    assert dl.transpose_(a) is a


@pytest.mark.parametrize("shape", [(1, 7), (7, 1), (0, 5), (5, 0)])
@pytest.mark.parametrize("kind", ["torch", "numpy"])
def test_transpose_inplace_vectors_and_empty_are_views(shape: tuple[int, int], kind: str, device: str) -> None:
    """A vector or an empty matrix transposes in place without moving data: a view of the same memory."""
    t = make(shape, torch.float32, device)
    a = t.cpu().numpy() if kind == "numpy" else t
    expected = np.array(a.T) if kind == "numpy" else a.T.clone()
    result = dl.transpose_(a)
    assert type(result) is type(a) and tuple(result.shape) == shape[::-1]
    if kind == "numpy":
        np.testing.assert_array_equal(result, expected)
        assert result.size == 0 or np.shares_memory(result, a)
    else:
        assert_identical(result, expected)
        assert result.numel() == 0 or result.data_ptr() == a.data_ptr()


RECTANGLES = [(2, 3), (5, 7), (13, 17), (8, 12), (6, 4), (27, 8), (4, 27), (48, 18), (33, 66), (1, 2), (12, 4),
              (5, 15)]  # fmt: skip
"""Coprime sides, primes, 2**k x 3**j both ways, a common divisor above and below the block size, one side
dividing the other."""


RECTANGULAR_PATHS = {
    "auto": {},
    "chunks": {"C2R_MAX_GCD": 0},  # blocks of gcd x gcd, then chunks along cycles
    # the same with cycles cut into many short segments (copied starts), walked two chunks at a time
    "chunks-cut": {"C2R_MAX_GCD": 0, "WORKSPACE_ITEMS": 1, "CHUNK_AHEAD_MAX": 2},
    "chunks-single": {"C2R_MAX_GCD": 0, "WORKSPACE_ITEMS": 1, "CHUNK_AHEAD_MAX": 1},  # 1 a step
    # rotation, row and column permutations on chip, whatever the gcd, never split
    "c2r": {"C2R_MAX_GCD": 10**9, "SPLIT_MIN_GCD": 10**9},
    # long sides through scratch
    "c2r-staged": {"C2R_MAX_GCD": 10**9, "SPLIT_MIN_GCD": 10**9, "ONCHIP_ITEMS": 8, "STAGE_ITEMS": 4},
    # 64-bit index arithmetic (sizes beyond 2^31)
    "c2r-wide": {"C2R_MAX_GCD": 10**9, "SPLIT_MIN_GCD": 10**9, "WIDE_INDEX": 0},
    # split: a part whose sides share 2 or more by blocks and chunks, the rest aside, the rows restrided
    "split": {"SPLIT_MIN_GCD": 2},
    "split-blocks": {"SPLIT_MIN_GCD": 2, "RESTRIDE_BYTES": 8},  # restrided 8 bytes (at least a word) a program
}


@pytest.mark.parametrize("shape", RECTANGLES, ids=str)
@pytest.mark.parametrize("layout", ["row", "col"])
@pytest.mark.parametrize("path", list(RECTANGULAR_PATHS))
def test_transpose_inplace_rectangular(
    shape: tuple[int, int], layout: Layout, path: str, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rectangular m x n array: its memory now holds a.T in a's memory order; the result views it."""
    for name, value in RECTANGULAR_PATHS[path].items():
        monkeypatch.setattr(TRANSPOSE_MODULE, name, value)
    dtype = torch.float32 if layout == "row" else torch.int16
    a = bits(shape, dtype, device, layout)
    expected = a.T.clone()
    result = dl.transpose_(a)
    assert result.shape == shape[::-1] and result.data_ptr() == a.data_ptr()
    assert result.is_contiguous() if layout == "row" else result.T.is_contiguous(), result.stride()
    assert_identical(result, expected, f"{shape} {layout}")


@given(
    m=st.integers(1, 12),
    n=st.integers(1, 12),
    common=st.sampled_from([1, 2, 3, 6, 33]),
    layout=st.sampled_from(["row", "col"]),
    dtype=st.sampled_from(ITEM_DTYPES),
    path=st.sampled_from(list(RECTANGULAR_PATHS)),
)
def test_transpose_inplace_rectangular_property(m: int, n: int, common: int, layout: Layout, dtype, path: str) -> None:
    """Any shape (sides multiplied by a common divisor), item size, memory order and path: a.T, bit for bit."""
    m, n = m * common, n * common
    settings = RECTANGULAR_PATHS[path]
    with mock.patch.multiple(TRANSPOSE_MODULE, **settings) if settings else contextlib.nullcontext():
        a = bits((m, n), dtype, DEVICE, layout)
        expected = a.T.clone()
        assert_identical(dl.transpose_(a), expected, f"{(m, n)} {layout} {dtype} {path}")


@pytest.mark.parametrize("dtype", [torch.bool, torch.int8, torch.float64, torch.complex128], ids=str)
@pytest.mark.parametrize("shape", [(12, 20), (9, 7)], ids=str)
@pytest.mark.parametrize("path", ["auto", "chunks", "c2r-staged"])
def test_transpose_inplace_rectangular_item_sizes(
    dtype: torch.dtype, shape: tuple[int, int], path: str, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in RECTANGULAR_PATHS[path].items():
        monkeypatch.setattr(TRANSPOSE_MODULE, name, value)
    a = bits(shape, dtype, device)
    expected = a.T.clone()
    assert_identical(dl.transpose_(a), expected, str(dtype))


@pytest.mark.parametrize("path", ["auto", pytest.param("c2r-staged", marks=pytest.mark.large)])  # 8 min interpreted
def test_transpose_inplace_wide_row_step(path: str, device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """3 x 100000 (coprime sides): the C2R row step multiplies column differences up to 10^5 by the inverse of 3
    modulo 10^5 (66667), beyond 32-bit integers; a 32-bit product permuted the rows wrongly (caught
    2026-11-23 on the CPU, before any GPU run of the C2R steps)."""
    for name, value in RECTANGULAR_PATHS[path].items():
        monkeypatch.setattr(TRANSPOSE_MODULE, name, value)
    a = bits((3, 100_000), torch.float32, device)
    expected = a.T.clone()
    assert_identical(dl.transpose_(a), expected, f"3 x 100000 {path}")


def test_transpose_inplace_rectangular_numpy() -> None:
    """A NumPy array (copied to the GPU and back where there is one): the result views the caller's memory."""
    for a in (np.arange(15.0).reshape(3, 5), np.asfortranarray(np.arange(28, dtype=np.int8).reshape(4, 7))):
        expected = a.T.copy()
        result = dl.transpose_(a)
        assert type(result) is np.ndarray and np.shares_memory(result, a)
        np.testing.assert_array_equal(result, expected)
        assert result.flags.c_contiguous == a.flags.c_contiguous


def test_transpose_inplace_workspace_bytes() -> None:
    assert dl.transpose_.workspace_bytes((1000, 1000), torch.float32) == 0
    assert (
        dl.transpose_.workspace_bytes((1, 9), torch.float64) == dl.transpose_.workspace_bytes((0, 4), torch.int8) == 0
    )
    # sides sharing no divisor above C2R_MAX_GCD and not split, each on chip: the C2R steps, no workspace
    for m, n in [(1000, 7), (9, 7), (6, 4), (31, 33)]:
        assert TRANSPOSE_MODULE._split_plan(m, n) is None
        assert dl.transpose_.workspace_bytes((m, n), torch.float32) == 0
    # longer sides: the C2R steps stage them through scratch, within WORKSPACE_ITEMS * (m + n) items or one
    # block of columns (8 float32 columns per program)
    for m, n in [(30011, 19997), (19997, 30011), (100000, 7), (7, 100000)]:
        assert TRANSPOSE_MODULE._split_plan(m, n) is None
        used = dl.transpose_.workspace_bytes((m, n), torch.float32)
        assert 0 < used <= 4 * max(TRANSPOSE_MODULE.WORKSPACE_ITEMS * (m + n), 8 * max(m, n)), (m, n, used)
    assert dl.transpose_.workspace_bytes((9, 7), torch.complex128) == 0  # 16-byte items: two words each
    assert dl.transpose_.workspace_bytes((30011, 19997), torch.complex128) > 0
    # split: the rest aside (one row of 4095 items here), the restride's epoch, counter and flag per block of
    # RESTRIDE_BYTES (8 KiB: 2 x 4095 of them for float32, 8 x 4095 for complex128), the part's chunk workspace
    # (none for a square)
    assert TRANSPOSE_MODULE.RESTRIDE_BYTES == 8192
    assert dl.transpose_.workspace_bytes((4096, 4095), torch.float32) == 4 * 4095 + 4 * (2 * 4095 + 2)
    assert dl.transpose_.workspace_bytes((4096, 4095), torch.complex128) == 16 * 4095 + 4 * (8 * 4095 + 2)
    for m, n in [(4099, 4097), (2**12, 3**7), (3**7, 2**12), (12288, 8190), (20000, 19999)]:
        split = TRANSPOSE_MODULE._split_plan(m, n)
        used = dl.transpose_.workspace_bytes((m, n), torch.float32)
        assert split is not None and 4 * split.side_items < used <= 4 * 2 * TRANSPOSE_MODULE.WORKSPACE_ITEMS * (m + n)
    for m, n in [(3000, 2000), (2000, 3000), (4096, 96), (17000, 34)]:
        used = dl.transpose_.workspace_bytes((m, n), torch.float32)
        plan = TRANSPOSE_MODULE._chunk_plan(m, n)
        table = 16 * plan.table.shape[1]
        assert used == 4 * plan.t * plan.copied + table
        assert 0 < used <= 4 * TRANSPOSE_MODULE.WORKSPACE_ITEMS * (m + n) + table
        assert dl.transpose_.workspace_bytes((m, n), torch.float64) == used + 4 * plan.t * plan.copied
    with pytest.raises(ValueError, match="two sizes"):
        dl.transpose_.workspace_bytes((3, 3, 3), torch.float32)
    with pytest.raises(TypeError, match="not a dtype"):
        dl.transpose_.workspace_bytes((3, 5), "no such type")


def test_transpose_inplace_refuses_a_plan_beyond_host_memory(monkeypatch: pytest.MonkeyPatch, device: str) -> None:
    """A shape whose chunk plan would exhaust the host gets a clear ValueError, before anything moves."""
    monkeypatch.setattr(TRANSPOSE_MODULE, "MAX_PLAN_CHUNKS", 100)
    TRANSPOSE_MODULE._cut_cycles.cache_clear()
    a = bits((64, 96), torch.complex128, device)  # sides sharing 32: chunks, 192 of them
    before = a.clone()
    for call in (lambda: dl.transpose_(a), lambda: dl.transpose_.workspace_bytes((64, 96), torch.complex128)):
        with pytest.raises(ValueError, match=r"192 chunks.*host memory.*transpose\(a\)"):
            call()
    assert_identical(a, before)
    TRANSPOSE_MODULE._cut_cycles.cache_clear()


@given(m=st.integers(2, 5000), n=st.integers(2, 5000))
def test_split_plan_keeps_a_part_sharing_at_least_split_min_gcd(m: int, n: int) -> None:
    """A split keeps the first rows (or columns) of a part whose sides share at least SPLIT_MIN_GCD, and sets
    aside at most WORKSPACE_ITEMS * (m + n) items; sides sharing more than C2R_MAX_GCD are not split."""
    split = TRANSPOSE_MODULE._split_plan(m, n)
    if split is None:
        return
    kept_shape = (split.kept, n) if split.rows else (m, split.kept)
    assert 0 < split.kept < (m if split.rows else n)
    assert math.gcd(*kept_shape) >= TRANSPOSE_MODULE.SPLIT_MIN_GCD
    assert split.side_items == m * n - kept_shape[0] * kept_shape[1]
    assert split.side_items <= TRANSPOSE_MODULE.WORKSPACE_ITEMS * (m + n)


def test_split_plan_picks_the_largest_common_divisor() -> None:
    """Issue 5's shapes with coprime or nearly coprime sides: a square where one row or column aside makes one,
    else the part sharing the most (4096 x 4352 share 256, 4096 x 2176 share 128)."""
    plan = TRANSPOSE_MODULE._split_plan
    assert plan(4096, 4095) == (True, 4095, 4095) and plan(4095, 4096) == (False, 4095, 4095)
    assert plan(4099, 4097) == (True, 4097, 2 * 4097)
    assert plan(4096, 4374) == (False, 4352, 22 * 4096)
    assert plan(4096, 2187) == (False, 2176, 11 * 4096)
    assert plan(100000, 7) is None and plan(7, 1_000_003) is None


@pytest.mark.parametrize("shape", [(64, 33), (33, 64), (48, 18), (12, 20), (9, 7)], ids=str)
def test_transpose_inplace_replays(shape: tuple[int, int], device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shape's first call records its launches, later calls on other arrays replay them: every result exact."""
    monkeypatch.setattr(TRANSPOSE_MODULE, "SPLIT_MIN_GCD", 2)  # (48, 18) keeps its chunk steps, (9, 7) is split
    for _ in range(3):
        a = bits(shape, torch.float32, device)
        expected = a.T.clone()
        assert_identical(dl.transpose_(a), expected, str(shape))
    plans = [p for k, p in importlib.import_module("densela._launch").PLANS.items() if k[:3] == ("transpose_", *shape)]
    assert plans and all(p is not None for p in plans)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(4096, 2187), (999, 1000), (3000, 2000)], ids=str)
def test_transpose_inplace_graph_replays(shape: tuple[int, int], device: str) -> None:
    """Calls transposing one matrix's memory back and forth (split, and chunk steps): from the third call of each
    direction they replay a CUDA graph of that memory; every result exact, for another matrix of the shape (its own
    memory), on a side stream, and inside a caller's own graph capture (which densela then does not capture)."""
    graphs = importlib.import_module("densela._launch").REPLAY_GRAPHS

    def back_and_forth(a: torch.Tensor, calls: int) -> torch.Tensor:
        for i in range(calls):
            expected = a.T.contiguous()
            a = dl.transpose_(a)
            assert_identical(a, expected, f"{shape}, call {i}")
        return a

    a = back_and_forth(bits(shape, torch.float32, device), 8)
    captured = [k for k, v in graphs.entries.items() if v is not None and k[0][0] == "transpose_"]
    assert len(captured) == 2, captured
    back_and_forth(bits(shape, torch.float32, device), 6)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        back_and_forth(a, 6)
    torch.cuda.synchronize()
    expected, graph = a.T.contiguous(), torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        dl.transpose_(a)
    graph.replay()
    assert_identical(a.view(a.shape[1], a.shape[0]), expected, f"{shape}, in a caller's graph")


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8, 16])
@pytest.mark.parametrize(
    "m, n", [(2, 3), (4096, 4095), (16383, 16381), (16385, 7), (7, 16385), (20000, 19999), (10**6, 3), (3, 10**6)]
)
def test_c2r_plan_covers_the_matrix_within_its_scratch(m: int, n: int, itemsize: int) -> None:
    """Every row and column gets a program, blocks are powers of two that fit on chip, and scratch stays
    within WORKSPACE_ITEMS * (m + n) items or one row or block of columns."""
    plan = TRANSPOSE_MODULE._c2r_plan(m, n, itemsize)
    words = 2 if itemsize == 16 else 1
    onchip = TRANSPOSE_MODULE.ONCHIP_ITEMS
    for block in (plan.block_n, plan.block_m):
        assert block & (block - 1) == 0 and block * words <= onchip
    rows_held = plan.row_programs * plan.per_program_rows
    assert (rows_held >= m) if not plan.rows_staged else (1 <= plan.row_programs <= m and plan.per_program_rows == 1)
    if not plan.rows_staged:
        assert plan.block_n >= n
    if not plan.cols_staged:
        assert plan.block_m >= m and plan.col_programs * plan.per_program_cols >= n
    assert plan.col_programs >= 1 and plan.per_program_cols >= 1
    bound = max(TRANSPOSE_MODULE.WORKSPACE_ITEMS * (m + n), n, m * plan.per_program_cols)
    assert plan.scratch_items <= bound
    assert (plan.scratch_items > 0) == (plan.rows_staged or plan.cols_staged)


@pytest.mark.parametrize("budget", [1, 7, None])
@pytest.mark.parametrize("m, n", [(7, 5), (6, 4), (12, 18), (30, 21), (64, 96), (3000, 2000), (100, 100000)])
def test_chunk_plan_walks_every_moving_chunk_once(m: int, n: int, budget: int | None) -> None:
    """The plan's segments, walked as the kernel walks them, write every chunk that moves once, each from its
    predecessor on the cycle; every segment is at most as long as the plan's longest cut one; cut cycles come
    first, only they are copied, and the copies stay within the budget (None: the default one)."""
    if budget is None:
        plan = TRANSPOSE_MODULE._chunk_plan(m, n)
        budget = TRANSPOSE_MODULE.WORKSPACE_ITEMS * (m + n) // plan.t
    else:
        plan = TRANSPOSE_MODULE._cut_cycles(m, n, budget)
    count = m * n // plan.t

    def target(p: int) -> int:
        i, c, j = p // (plan.t * plan.b), (p // plan.b) % plan.t, p % plan.b
        return (j * plan.t + c) * plan.a + i

    starts, moves = plan.table.tolist()
    first = set(starts)
    written = []
    for k, (p, steps) in enumerate(zip(starts, moves)):
        assert steps >= 1
        for _ in range(steps):
            p = target(p)
            written.append(p)
        assert p in first  # the last move writes a segment's saved start, or its own cycle's
        if k >= plan.copied:
            assert p == starts[k]  # an uncut cycle comes back to its start
    moving = [p for p in range(count) if target(p) != p]
    assert sorted(written) == moving
    assert plan.longest == max(moves, default=0)
    if plan.copied:
        assert max(moves) == max(moves[: plan.copied])  # cut segments are the longest: the walk is balanced
        assert plan.copied <= max(1, budget)


@pytest.mark.parametrize(
    ("make_a", "error", "match"),
    [
        pytest.param(lambda d: make((4, 4), torch.float32, d, "strided"), ValueError, "non-contiguous", id="strided"),
        pytest.param(lambda d: make((4, 6), torch.float32, d)[:, :4], ValueError, "non-contiguous", id="sliced"),
        pytest.param(lambda d: make((4, 4), torch.float32, d)[0], ValueError, "2-D", id="1-D"),
        pytest.param(lambda d: [[1.0, 2.0], [3.0, 4.0]], TypeError, "must be an array", id="list"),
        pytest.param(lambda d: np.broadcast_to(np.eye(3), (3, 3)), ValueError, "read-only", id="read-only"),
        pytest.param(lambda d: np.eye(3)[::-1], ValueError, "negative strides", id="reversed"),
    ],
)
def test_transpose_inplace_bad_input(make_a, error: type, match: str, device: str) -> None:
    a = make_a(device)
    before = a.clone() if isinstance(a, torch.Tensor) else np.array(a)
    with pytest.raises(error, match=match):
        dl.transpose_(a)
    if isinstance(a, torch.Tensor):
        assert_identical(a, before)
    else:
        np.testing.assert_array_equal(a, before)


def _f32(shape: tuple[int, ...], device: str) -> torch.Tensor:
    return make(shape, torch.float32, device)


def _nan(shape: tuple[int, ...], device: str, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return poisoned(shape, dtype, device)


def _square_and_out(device: str, transposed: bool) -> tuple[torch.Tensor, torch.Tensor, dict]:
    a = _f32((4, 4), device)
    return a, (a.T if transposed else a), {}


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        pytest.param(lambda d: ([[1.0, 2.0]], _nan((2, 1), d), {}), TypeError, "must be an array", id="list"),
        pytest.param(
            lambda d: (np.ones((3, 4), np.longdouble), _nan((4, 3), d), {}), TypeError, "NumPy dtype", id="longdouble"
        ),
        pytest.param(lambda d: (_f32((4,), d), _nan((4, 1), d), {}), ValueError, "2-D", id="1-D"),
        pytest.param(lambda d: (_f32((2, 3, 4), d), _nan((4, 3), d), {}), ValueError, "2-D", id="3-D"),
        pytest.param(
            lambda d: (_f32((3, 4), d).to(torch.int32), _nan((4, 3), d).to(torch.int32), {"alpha": 2.0}),
            TypeError,
            "int32",
            id="alpha-on-int",
        ),
        pytest.param(
            lambda d: (_f32((3, 4), d) > 0, _nan((4, 3), d) > 0, {"alpha": -1.0}), TypeError, "bool", id="alpha-on-bool"
        ),
        pytest.param(
            lambda d: (_f32((3, 4), d), _nan((4, 3), d), {"alpha": 1j}), TypeError, "real", id="alpha-complex"
        ),
        pytest.param(lambda d: (_f32((3, 4), d), _nan((4, 3), d), {"alpha": True}), TypeError, "real", id="alpha-bool"),
        pytest.param(
            lambda d: (_f32((3, 4), d), _nan((4, 3), d, torch.float64), {}), TypeError, "dtype", id="out-dtype"
        ),
        pytest.param(
            lambda d: (_f32((3, 4), d), _nan((3, 4), d), {}), ValueError, r"\(3, 4\).*\(4, 3\)", id="out-shape"
        ),
        pytest.param(lambda d: _square_and_out(d, False), ValueError, "overlaps", id="out-is-a"),
        pytest.param(lambda d: _square_and_out(d, True), ValueError, "overlaps", id="out-is-a.T"),
        pytest.param(
            lambda d: (torch.empty((3, 4), device="meta"), _nan((4, 3), d), {}), ValueError, "devices", id="devices"
        ),
    ],
)
def test_transpose_bad_input(build, error: type, match: str, device: str) -> None:
    a, out, kwargs = build(device)
    before = out.clone()
    with pytest.raises(error, match=match):
        dl.transpose(a, out=out, **kwargs)
    assert_identical(out, before)


@pytest.mark.parametrize("dtype", [torch.int8, torch.float32, torch.complex128], ids=str)
def test_transpose_int64_offsets(dtype: torch.dtype, device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 64-bit offset path that large matrices take, forced on small ones."""
    monkeypatch.setattr(TRANSPOSE_MODULE, "needs_int64", lambda *tensors: True)
    a = bits((17, 33), dtype, device, "col")
    assert_identical(dl.transpose(a), a.T)
    sq = bits((33, 33), dtype, device)
    expected = sq.T.clone()
    dl.transpose_(sq)
    assert_identical(sq, expected)
    if dtype.is_complex:
        z = make((17, 33), dtype, device, "strided")
        assert_scaled(dl.transpose(z, alpha=0.5), z, 0.5)


@pytest.mark.parametrize("fn", ["transpose", "transpose_"])
def test_transpose_torch_backend(fn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a GPU and without the interpreter, the same calls run on PyTorch."""
    monkeypatch.setattr(densela._arrays, "INTERPRET", False)
    a = bits((5, 5), torch.float32, "cpu", "col")
    expected = a.T.clone()
    if fn == "transpose_":
        assert dl.transpose_(a) is a
        assert_identical(a, expected)
        r = bits((5, 3), torch.float32, "cpu", "col")
        expected = r.T.clone()
        assert_identical(dl.transpose_(r), expected)
    else:
        assert_identical(dl.transpose(a), expected)
        z = make((5, 3), torch.complex64, "cpu", "col")
        assert_scaled(dl.transpose(z, alpha=2.0), z, 2.0)


@given(
    m=st.integers(1, 40),
    n=st.integers(1, 40),
    layout=st.sampled_from(LAYOUTS),
    out_layout=st.sampled_from(LAYOUTS),
    dtype=st.sampled_from(ITEM_DTYPES),
    scaled=st.booleans(),
)
def test_transpose_property(m: int, n: int, layout: Layout, out_layout: Layout, dtype, scaled: bool) -> None:
    device = DEVICE
    a = bits((m, n), dtype, device, layout)
    out = fill_poison((n, m), dtype, device, out_layout)
    if scaled and dtype in SCALABLE:
        a = make((m, n), torch.complex128 if dtype.is_complex else torch.float64, device, layout).to(dtype)
        dl.transpose(a, out=out, alpha=-1.5)
        assert_scaled(out, a, -1.5)
    else:
        dl.transpose(a, out=out)
        assert_identical(out, a.T)
    if m > 1 and n > 1:
        a_sq = bits((m, m), dtype, device, "col" if layout.endswith("col") else "row")
        expected = a_sq.T.clone()
        dl.transpose_(a_sq)
        assert_identical(a_sq, expected)


@pytest.mark.large
def test_transpose_beyond_int32_indexing(device: str) -> None:
    m, n = 2**16 + 3, 2**15 + 5  # 2.15e9 int8 elements: offsets pass 2**31
    a = torch.randint(-128, 128, (m, n), dtype=torch.int8, device=device)
    assert torch.equal(dl.transpose(a), a.T)
    col = a.T  # column-major n x m view: the kernel reads down columns
    assert torch.equal(dl.transpose(col), a)
    del a, col
    thin = torch.randint(-128, 128, (100, 2**31 // 100 + 8), dtype=torch.int8, device=device)  # packed, joined stores
    assert TRANSPOSE_MODULE._packed(thin, thin.view(thin.shape[::-1])) is not None  # out's strides, no copy
    assert torch.equal(dl.transpose(thin), thin.T)


@pytest.mark.large
@pytest.mark.parametrize("shape", [(8192, 4096), (32768, 1024), (100000, 100), (100, 100000)], ids=str)
@pytest.mark.parametrize("layout", ["row", "col"])
@pytest.mark.parametrize("dtype", [torch.int8, torch.bfloat16, torch.float32, torch.float64], ids=str)
def test_transpose_issue_shapes_large(dtype: torch.dtype, layout: Layout, shape: tuple[int, int], device: str) -> None:
    """Issue 5's shapes on the GPU (1- and 2-byte items packed in words where they allow, thin ones on tiles that span
    the short side): identical to torch."""
    a = bits(shape, dtype, device, layout)
    out = fill_poison(shape[::-1], dtype, device, layout)
    assert dl.transpose(a, out=out) is out
    assert_identical(out, a.T, f"{dtype} {layout} {shape}")


LARGE_RECTANGLES = [(32768, 1024), (100000, 100), (8192, 3072), (4099, 4097), (2**12, 3**7), (16383, 16381),
                    (12288, 8190), (20000, 19999), (100000, 7), (7, 1_000_003)]  # fmt: skip
"""Issue 5's shapes (chunks of gcd items), coprime and small-gcd ones split into a part sharing a large divisor and
a rest (4099 x 4097, 2**12 x 3**7, 16383 x 16381, 12288 x 8190, 20000 x 19999), and the C2R steps: rows and columns
staged through scratch (100000 x 7), rows whose row-step products need 64 bits (7 x 1000003)."""


@pytest.mark.large
@pytest.mark.parametrize("shape", LARGE_RECTANGLES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
def test_transpose_inplace_rectangular_large(shape: tuple[int, int], dtype: torch.dtype, device: str) -> None:
    """Issue 5 sizes on the GPU: identical to torch's transpose, and no more extra memory than workspace_bytes."""
    a = bits(shape, dtype, device)
    expected = a.T.contiguous()
    result, extra = peak_extra_bytes(lambda: dl.transpose_(a))
    assert_identical(result, expected, f"{shape} {dtype}")
    budget = dl.transpose_.workspace_bytes(shape, dtype)
    # PyTorch's caching allocator rounds each of the four blocks (the rest, the chunk copies, the restride's flags,
    # the chunk table) to 512 bytes, and one of 10 MiB or more to its 2 MiB segment
    rounding = 4 * 512 + (2**21 if budget >= 10 * 2**20 else 0)
    assert extra <= budget + rounding, f"{extra} bytes allocated, workspace_bytes says {budget}"
    assert budget <= 8 * dtype.itemsize * 64 * sum(shape), "workspace beyond O(m + n)"


@pytest.mark.large
@pytest.mark.parametrize("dtype", [torch.float32, torch.int8, torch.complex128], ids=str)
def test_transpose_inplace_split_small_blocks(dtype: torch.dtype, device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Split transposes restrided 64 bytes a program: thousands of programs in flight, each waiting for the ones
    whose sources its destination covers; any store before such a load shows as a wrong item."""
    monkeypatch.setattr(TRANSPOSE_MODULE, "RESTRIDE_BYTES", 64)
    for shape in [(1000, 999), (999, 1000), (4096, 2187), (2187, 4096), (777, 65), (65, 777)]:
        assert TRANSPOSE_MODULE._split_plan(*shape) is not None
        for _ in range(3):
            a = bits(shape, dtype, device)
            expected = a.T.clone()
            assert_identical(dl.transpose_(a), expected, f"{shape} {dtype}")


@pytest.mark.large
def test_transpose_inplace_beyond_int32_indexing(device: str) -> None:
    n = 46_341  # n * n > 2**31
    a = torch.randint(-128, 128, (n, n), dtype=torch.int8, device=device)
    expected = a.T.contiguous()
    assert dl.transpose_(a) is a
    assert torch.equal(a, expected)


def _plans(op: str) -> list:
    return [p for k, p in importlib.import_module("densela._launch").PLANS.items() if k[0] == op]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int8, torch.complex64])
def test_repeated_transpose_replays_the_plan_on_new_data(dtype: torch.dtype, device: str) -> None:
    """A signature's first call records its launches; later calls on other arrays replay them (new results, an
    ``out``, the same alpha), every result exact; a bool alpha is refused even where a plan of alpha = 1 exists."""
    importlib.import_module("densela.tuning").clear_cache()
    shape = (37, 20)
    for _ in range(3):
        a = bits(shape, dtype, device)
        assert_identical(dl.transpose(a), a.T.contiguous(), "new result")
        into = bits(shape[::-1], dtype, device)  # whatever it held must go
        assert dl.transpose(a, out=into) is into
        assert_identical(into, a.T.contiguous(), "out")
    assert _plans("transpose") and all(p is not None for p in _plans("transpose"))
    with pytest.raises(TypeError, match="alpha"):
        dl.transpose(a, alpha=True)
    if dtype in (torch.float32, torch.float64):
        for _ in range(2):
            a = make(shape, dtype, device)
            assert_identical(dl.transpose(a, alpha=-2.0), -2.0 * a.T, "alpha")
    if dtype == torch.int8:
        for _ in range(2):  # refused every time: the failing first call leaves no plan behind
            with pytest.raises(TypeError, match="alpha"):
                dl.transpose(a, alpha=2.0)
