"""Configuration choice and launches: shape buckets, the tuned file, the candidates `densela tune` tries, and the
launcher's cache key against Triton's own specialization."""

from __future__ import annotations

import itertools
import json

import pytest
import torch
from triton._C.libtriton import native_specialize_impl
from triton.backends.compiler import BaseBackend
from triton.tools.tensor_descriptor import TensorDescriptor

from densela import tuning
from densela._launch import _arg_key, _int_key, cdiv
from densela.tuning import GemmConfig, bucket, gemm_config
from densela.tuning import tune as tuning_tune
from densela.tuning.tune import Shape, candidates

INTS = [0, 1, 2, 3, 15, 16, 17, 32, 48, 1000, 1024, -1, -16, -17, 2**31 - 16, 2**31 - 1, 2**31, 2**31 + 16,
        -(2**31), -(2**31) - 1, 2**40, 2**63 - 16, 2**63]  # fmt: skip


def triton_key(x: object) -> tuple:
    return native_specialize_impl(BaseBackend, x, False, True, True)


def test_integer_keys_separate_what_triton_specializes():
    """Two integers with one launch key get one Triton specialization (so a cached kernel is the right one)."""
    for x, y in itertools.product(INTS, repeat=2):
        if _int_key(x) == _int_key(y):
            assert triton_key(x) == triton_key(y), (x, y)


def test_tensor_and_descriptor_keys_separate_what_triton_specializes():
    base = torch.empty(256, dtype=torch.float32)
    tensors = [base, base[1:], base[4:], base.to(torch.float16), base.to(torch.float16)[8:], base.to(torch.float64)]
    descriptors = [
        TensorDescriptor(base.view(16, 16), [16, 16], [16, 1], [8, 8]),
        TensorDescriptor(base.view(16, 16), [15, 16], [16, 1], [8, 8]),
        TensorDescriptor(base.view(16, 16), [16, 16], [16, 1], [16, 8]),
        TensorDescriptor(base.to(torch.float16).view(16, 16), [16, 16], [16, 1], [8, 8]),
    ]
    for x, y in itertools.product([*tensors, *descriptors, 1.5, True, None], repeat=2):
        if type(x) is type(y) and _arg_key(x) == _arg_key(y):
            assert triton_key(x) == triton_key(y), (x, y)


def test_cdiv():
    assert [cdiv(a, 4) for a in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]


def test_buckets_group_sizes_by_powers_of_two():
    assert bucket(1000, 1000, 1000, 1) == bucket(600, 900, 1023, 1) == "10-10-10-1"
    assert bucket(1024, 1000, 1000, 1) == "11-10-10-1"
    assert bucket(100000, 1, 1, 5) == "15-1-1-n"


def test_gemm_config_prefers_the_tuned_file(tmp_path, monkeypatch):
    """A configuration `densela tune` stored for a bucket is what ``gemm_config`` returns for shapes in it."""
    stored = GemmConfig(64, 32, 16, 4, 2, 3, split_k=2)
    path = tmp_path / "gemm-test-gpu.json"
    path.write_text(json.dumps({"gpu": "test", "entries": {"ieee": {bucket(700, 700, 700, 1): stored._asdict()}}}))
    monkeypatch.setattr(tuning, "tuned_path", lambda device: path)
    tuning.clear_cache()
    try:
        assert gemm_config(700, 700, 700, torch.float32, "ieee", device=0) == stored
        assert gemm_config(600, 1000, 520, torch.float32, "ieee", device=0) == stored  # same bucket
        assert gemm_config(700, 700, 700, torch.float64, None, device=0) != stored  # another arithmetic
        assert gemm_config(2000, 700, 700, torch.float32, "ieee", device=0) != stored  # another bucket
    finally:
        tuning.clear_cache()


def test_an_unreadable_tuned_file_is_ignored_with_a_warning(tmp_path, monkeypatch):
    path = tmp_path / "gemm-broken.json"
    path.write_text("{not json")
    monkeypatch.setattr(tuning, "tuned_path", lambda device: path)
    tuning.clear_cache()
    try:
        with pytest.warns(UserWarning, match="unreadable tuning file"):
            assert tuning.tuned(0) == {}
    finally:
        tuning.clear_cache()


@pytest.mark.parametrize("hopper", [True, False])
@pytest.mark.parametrize(
    "n, dtype, precision",
    [(1280, torch.bfloat16, None), (1792, torch.float64, None), (1000, torch.float32, "tf32"),
     (2000, torch.float32, "ieee")],
)  # fmt: skip
def test_mid_sized_candidates_include_both_warp_specialized_tiles(monkeypatch, hopper, n, dtype, precision):
    """`densela tune` weighs a mid-sized product's wide and narrow warp-specialized tiles (``tuning._mid_ws``) against
    the tiles kernel's, on Hopper only, and not for batches."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning_tune, "warp_specialized", lambda device: hopper)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: hopper)
    arith = tuning.arithmetic(dtype, precision)
    cands = candidates(n, n, n, dtype, precision, 1, None)
    ws = set(tuning.mid_ws_tiles(arith))
    assert tuning._GEMM_LARGE[arith] in ws
    assert ws <= set(cands) if hopper else not any(c.kernel == "ws" for c in cands)
    assert any(c.kernel == "tiles" for c in cands)
    assert not any(c.kernel == "ws" for c in candidates(n, n, n, dtype, precision, 2, None))


@pytest.mark.parametrize(
    "shape, kernels",
    [(Shape(4096, 4096, 4096, torch.float16), {"tma", "tiles"}),
     (Shape(4096, 4096, 4096, torch.float32, "tf32x3"), {"tma", "tiles"}),
     (Shape(4096, 4096, 4096, torch.float16, batch=4), {"tiles"}),
     (Shape(20, 20, 5000, torch.float32, "ieee"), {"tiles"})],
)  # fmt: skip
def test_candidates_fit_the_shape(monkeypatch, shape, kernels):
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    cands = candidates(shape.m, shape.n, shape.k, shape.dtype, shape.precision, shape.batch, None)
    assert {c.kernel for c in cands} == kernels
    assert len(cands) == len(set(cands)) >= 4
    if shape.k == 5000:  # few output tiles: split-K candidates, each leaving two or more K blocks per slice
        splits = [c for c in cands if c.split_k > 1]
        assert splits and all(cdiv(shape.k, c.block_k) >= 2 * c.split_k for c in splits)


@pytest.mark.parametrize(
    "m, n, k, dtype, precision, want",
    [(8192, 8192, 8192, torch.bfloat16, None, "tma"), (4096, 4096, 4096, torch.float32, "tf32", "tma"),
     (2048, 2048, 2048, torch.float16, None, "tiles"), (4096, 4096, 4096, torch.float64, None, "tiles"),
     (50, 50, 5000, torch.float32, "ieee", "split"), (5000, 5000, 50, torch.float32, "ieee", "thin"),
     (128, 128, 128, torch.float32, "ieee", "tiles"), (1024, 1024, 1024, torch.bfloat16, None, "tiles"),
     (1000, 1000, 1000, torch.bfloat16, None, "tma"), (256, 256, 8192, torch.bfloat16, None, "split"),
     (1024, 1024, 1024, torch.float32, "ieee", "tiles"), (1050, 1050, 1050, torch.float32, "ieee", "split"),
     (1100, 1100, 1100, torch.float64, None, "split"), (4096, 4096, 4096, torch.float32, "ieee", "tiles")],
)  # fmt: skip
def test_untuned_choices(monkeypatch, m, n, k, dtype, precision, want):
    """The tables' choice per size class (what docs/performance.md describes): 1050^3 in 64 x 64 tiles is 289
    tiles, three on some of 132 SMs and two on most, and is split in three; 1024^3 is 256 tiles, two per SM."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    cfg = tuning.choose_gemm_config(m, n, k, dtype, precision)
    if want == "split":
        assert cfg.kernel == "tiles" and cfg.split_k >= 2
        if m > 1000:  # many output tiles, balanced over the SMs
            arith = tuning.arithmetic(dtype, precision)
            assert cfg.split_k in tuning.BALANCE_SPLITS_BY_ARITH.get(arith, tuning.BALANCE_SPLITS)
    elif want == "thin":
        assert cfg.kernel == "tiles" and cfg.block_k <= 16 and cfg.split_k == 1
    else:
        assert cfg.kernel == want and cfg.split_k == 1


@pytest.mark.parametrize(
    "dtype, precision",
    [(torch.float16, None), (torch.float32, "tf32"), (torch.float32, "tf32x3"), (torch.float32, "ieee")],
)
def test_warp_specialized_from_its_least_work(monkeypatch, dtype, precision):
    """On Hopper, 2-D products from WS_MIN_WORK (2048^3) on outputs of LARGE_MN or more run on the
    warp-specialized kernel (half the TMA kernel's threshold); less work, or a batch, does not, unless it is a
    16-bit or TF32 product of at least MID_WS_FROM_WORK (``_mid_ws``)."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: True)
    mid = tuning.MID_WS_FROM_WORK.get(tuning.arithmetic(dtype, precision), 1 << 62) <= 2048 * 2048 * 1024
    assert tuning.choose_gemm_config(2048, 2048, 2048, dtype, precision).kernel == "ws"
    assert tuning.choose_gemm_config(4096, 4096, 512, dtype, precision).kernel == "ws"
    assert tuning.choose_gemm_config(2048, 2048, 1024, dtype, precision).kernel == ("ws" if mid else "tiles")
    assert tuning.choose_gemm_config(2048, 2048, 2048, dtype, precision, batch=2).kernel == "tiles"


@pytest.mark.parametrize(("n", "wide"), [(768, False), (1024, False), (1280, True), (1536, False), (2000, True)])
def test_medium_3xtf32_products_take_narrow_tiles_where_wide_ones_leave_sms_idle(monkeypatch, n, wide):
    """3xTF32 products below WS_MIN_WORK take ``_GEMM_MEDIUM``'s 128 x 128 tiles where those fill at least
    MEDIUM_MIN_FILL of their last wave of 132 SMs (1280^3: 100 tiles, 0.76; 2000^3: 256, 0.97), else 64 x 64 tiles
    (768^3: 36 tiles, 1024^3: 64, 1536^3: 144 over two waves, 0.55), which ``_balanced`` may then split along K."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: True)
    cfg = tuning.choose_gemm_config(n, n, n, torch.float32, "tf32x3")
    want = tuning._GEMM_MEDIUM["tf32x3"] if wide else tuning._GEMM_MEDIUM_NARROW["tf32x3"]
    assert cfg._replace(split_k=1) == want, cfg
    assert cfg.split_k == 1 or not wide, "128 x 128 tiles are never split (BALANCE_MAX_TILE)"


@pytest.mark.parametrize(
    "n, dtype, precision, want",
    [
        (1000, torch.bfloat16, None, "tma"),
        (1280, torch.bfloat16, None, "narrow"),
        (1536, torch.bfloat16, None, "wide"),
        (2000, torch.float16, None, "wide"),
        (896, torch.float32, "tf32", "narrow"),
        (1000, torch.float32, "tf32", "narrow"),
        (1792, torch.float32, "tf32", "wide"),
        (896, torch.float64, None, "tiles"),
        (1000, torch.float64, None, "narrow"),
        (1280, torch.float64, None, "wide"),
        (1536, torch.float64, None, "tiles"),
        (1792, torch.float64, None, "narrow"),
        (2000, torch.float64, None, "wide"),
        (1792, torch.float32, "ieee", "tiles"),
        (1920, torch.float32, "ieee", "tiles"),
        (1984, torch.float32, "ieee", "wide"),
        (1792, torch.float32, "tf32x3", "tiles"),
        (700, torch.float32, "tf32", "tiles"),
        (768, torch.float32, "tf32", "narrow"),
    ],
)
def test_mid_sized_products_on_the_warp_specialized_kernel(monkeypatch, n, dtype, precision, want):
    """n^3 products below WS_MIN_WORK from MID_WS_FROM_WORK (16-bit above the TMA kernel's mid tiles): the
    warp-specialized kernel, on the large products' tiles or the narrower ones where those fill the last wave of
    132 SMs better (1280^3: 50 tiles of 128 x 256, 100 of 128 x 128; 1536^3 fills 72 of 132 SMs either way and takes
    the wide ones); float64 only where its tiles fill at least MID_WS_MIN_FILL of that wave (1536^3 does not);
    never batches, products TMA cannot read (``tma=False``) or GPUs before Hopper."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: True)
    arith = tuning.arithmetic(dtype, precision)
    cfg = tuning.choose_gemm_config(n, n, n, dtype, precision)
    expected = {"wide": tuning._GEMM_LARGE.get(arith), "narrow": tuning._GEMM_MID_WS_NARROW.get(arith)}.get(want)
    if expected is None:
        assert cfg.kernel == want, cfg
        return
    assert cfg == expected
    assert tuning._mid_ws(arith, 4 * n, 4 * n, tuning.MID_WS_MIN_K - 1, 1, 0, True) is None  # short K: LU's updates
    assert tuning.choose_gemm_config(n, n, n, dtype, precision, batch=2).kernel == "tiles"
    assert tuning.choose_gemm_config(n, n, n, dtype, precision, tma=False).kernel == "tiles"
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: False)
    assert tuning.choose_gemm_config(n, n, n, dtype, precision).kernel != "ws"


def test_mid_sized_fma_products_need_a_full_last_wave(monkeypatch):
    """float32 FMA products below WS_MIN_WORK go to the warp-specialized kernel only where its 128 x 128 tiles fill at
    least MID_WS_MIN_FILL of the last wave: 2000^3 (256 tiles of 264 places) does, 1000 x 3000 x 4000 (192 of 264)
    and 2500 x 2500 x 1250 (400 of 528) do not, and ran slower there."""
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: True)
    assert tuning._mid_ws("ieee", 2000, 2000, 2000, 1, 0, True) == tuning._GEMM_LARGE["ieee"]
    assert tuning._mid_ws("ieee", 1000, 3000, 4000, 1, 0, True) is None
    assert tuning._mid_ws("ieee", 2500, 2500, 1250, 1, 0, True) is None
    assert tuning._mid_ws("float64", 1000, 3000, 4000, 1, 0, True) == tuning._GEMM_MID_WS_NARROW["float64"]


@pytest.mark.parametrize("dtype, precision", [(torch.bfloat16, None), (torch.float32, "tf32"), (torch.float32, "ieee")])
def test_only_small_tiles_split_to_balance_the_waves(monkeypatch, dtype, precision):
    """``_balanced`` splits tiles of at most BALANCE_MAX_TILE elements (float32 FMA's 64 x 64: a batch of two 1050^3
    products, 578 tiles, 4.4 waves on 132 SMs, split in two), never the 128 x 128 tensor-core tiles (split in three
    they ran at half speed)."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    cfg = tuning.choose_gemm_config(1050, 1050, 1050, dtype, precision, batch=2)
    assert cfg.kernel == "tiles", cfg
    small = cfg.block_m * cfg.block_n <= tuning.BALANCE_MAX_TILE
    assert small == (precision == "ieee") and (cfg.split_k > 1) == small, cfg


@pytest.mark.parametrize(
    "n, dtype, splits", [(1058, torch.float32, 4), (1026, torch.float32, 4), (1100, torch.float32, 2),
                         (1060, torch.float64, 3), (1100, torch.float64, 2)],
)  # fmt: skip
def test_balance_splits_by_arithmetic(monkeypatch, n: int, dtype: torch.dtype, splits: int) -> None:
    """``_balanced``: 289 tiles of 64 x 64 (1026^3 .. 1088^3) split in four in float32 FMA, in three in float64 (its
    partial sums cost more); 324 tiles (1090^3 .. 1152^3) in two either way."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: False)
    cfg = tuning.choose_gemm_config(n, n, n, dtype, "ieee")
    assert cfg.kernel == "tiles" and (cfg.block_m, cfg.block_n) == (64, 64) and cfg.split_k == splits, cfg


@pytest.mark.parametrize("hopper", [True, False])
def test_large_fma_products_off_the_warp_specialized_kernel(monkeypatch, hopper):
    """Large float32 FMA products on the tiles kernel: on Hopper only those whose output TMA cannot write
    (``tma=False``), in K steps of 16; elsewhere every one, on the tiles of the earlier sweeps."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: hopper)
    cfg = tuning.choose_gemm_config(4097, 4097, 4097, torch.float32, "ieee", tma=False)
    want = tuning._GEMM_LARGE_UNWRITABLE if hopper else tuning._GEMM_LARGE_ELSEWHERE
    assert cfg.kernel == "tiles" and cfg._replace(split_k=1) == want["ieee"], cfg
    assert tuning.choose_gemm_config(4096, 4096, 4096, torch.float32, "ieee").kernel == ("ws" if hopper else "tiles")


@pytest.mark.parametrize("k, block_k", [(32, 32), (48, 16), (36, 16), (50, 32), (64, 32), (25, 32)])
def test_thin_fma_k_steps_pad_k_by_at_most_half_a_step(monkeypatch, k, block_k):
    """float32 FMA products with a short K and a large output, on Hopper: the warp-specialized kernel's FMA tiles,
    in K steps of 16 where steps of 32 would pad K by more than 16 (48 -> 64, 36 -> 64), else steps of 32."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: True)
    cfg = tuning.choose_gemm_config(8192, 8192, k, torch.float32, "ieee")
    assert cfg.kernel == "ws" and cfg.block_k == block_k and cfg.split_k == 1, cfg
    assert cfg._replace(block_k=32, num_stages=4) == tuning._GEMM_LARGE["ieee"]


@pytest.mark.parametrize(
    "m, n, k, batch, tma, hopper, ws",
    [(8192, 8192, 32, 1, True, True, True), (20480, 20480, 64, 1, True, True, True),
     (2048, 2048, 48, 1, True, True, True), (5000, 5000, 50, 1, True, True, True),
     (2047, 2048, 64, 1, True, True, False), (8192, 8192, 16, 1, True, True, False),
     (8192, 8192, 64, 2, True, True, False), (8192, 8192, 64, 1, False, True, False),
     (8192, 8192, 64, 1, True, False, False)],
)  # fmt: skip
@pytest.mark.parametrize("dtype, precision", [(torch.float64, None), (torch.float32, "tf32x3")], ids=str)
def test_thin_products_on_the_warp_specialized_kernel(monkeypatch, m, n, k, batch, tma, hopper, ws, dtype, precision):
    """float64 and 3xTF32 products with THIN_WS_FROM's 32 <= k <= THIN_K and an output of at least LARGE_MN take the
    warp-specialized kernel's tiles of the large products, on Hopper, 2-D, where TMA may be used; smaller outputs,
    shorter K, batches and the others keep the tiles kernel's thin-K tiles; TF32 the same from k = 49."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: hopper)
    cfg = tuning._table_choice(m, n, k, dtype, precision, batch, None, tma)
    assert cfg == (tuning._GEMM_LARGE[tuning.arithmetic(dtype, precision)] if ws else tuning._GEMM_THIN_K), cfg
    tf32 = tuning._table_choice(m, n, k, torch.float32, "tf32", batch, None, tma)
    assert tf32 == (tuning._GEMM_LARGE["tf32"] if ws and k >= 49 else tuning._GEMM_THIN_K), tf32


@pytest.mark.parametrize(
    "m, n, k, batch, deep",
    [(128, 4096, 4096, 1, True), (4096, 128, 4096, 1, True), (64, 8192, 4096, 1, True), (64, 4096, 4096, 2, True),
     (120, 4096, 8192, 1, True), (128, 2816, 4096, 1, True), (128, 2304, 4096, 1, True), (192, 2048, 1024, 1, True),
     (4096, 64, 8192, 1, False), (64, 4096, 4096, 1, False), (256, 256, 8192, 1, False), (128, 4224, 4096, 1, False),
     (192, 2048, 1000, 1, False)],
)  # fmt: skip
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_16bit_products_of_half_a_wave_or_more_run_unsplit_and_deep(monkeypatch, m, n, k, batch, deep, dtype):
    """16-bit products with K >= SPLIT_K_MIN_K whose 64 x 64 tiles are fewer than the SMs but fill at least
    DEEP_MIN_FILL of them run unsplit with six stages (``_GEMM_DEEP_16BIT``), batches too and in place of the
    mid-sized TMA tiles (128 x 2304 x 4096); fewer tiles split along K or take the mid-sized tiles, as float32 does
    whatever the fill; a full wave of tiles is no split product; a shorter K keeps the other tables."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: True)
    cfg = tuning._table_choice(m, n, k, dtype, None, batch, None, True)
    assert (cfg == tuning._GEMM_DEEP_16BIT) == deep, cfg
    assert tuning._table_choice(m, n, k, torch.float32, "ieee", batch, None, True) != tuning._GEMM_DEEP_16BIT


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize(
    "m, n, k, want",
    [(20480, 20480, 96, "write"), (16384, 16384, 128, "write"), (2048, 2048, 65, "write"), (20480, 20480, 64, "write"),
     (4096, 4096, 32, "write"), (20480, 20480, 16, "other"), (20480, 20480, 129, "other"), (1024, 1024, 96, "other"),
     (1024, 1024, 64, "thin")],
)  # fmt: skip
def test_16bit_products_bound_by_their_output_take_wide_tma_tiles(monkeypatch, dtype, m, n, k, want):
    """16-bit products with k in WRITE_K and an output of at least LARGE_MN write their output more than they
    multiply: 256 x 128 tiles of the TMA kernel, not the warp-specialized kernel of the large products nor the thin
    tiles; shorter and longer k and smaller outputs take their own tables (k = THIN_K its one-step TMA tiles);
    never batches, nor outputs TMA cannot write."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: True)
    cfg = tuning.choose_gemm_config(m, n, k, dtype)
    assert (cfg == tuning._GEMM_WRITE_16BIT) == (want == "write"), cfg
    assert (cfg == tuning._GEMM_THIN_K_TMA) == (want == "thin"), cfg
    if want == "write":
        assert tuning.choose_gemm_config(m, n, k, dtype, batch=2) != tuning._GEMM_WRITE_16BIT
        assert tuning.choose_gemm_config(m, n, k, dtype, tma=False) != tuning._GEMM_WRITE_16BIT


@pytest.mark.parametrize(
    "m, n, k, tma, want",
    [(128, 4096, 4096, True, ("ws", 4)), (256, 4096, 4096, True, ("ws", 2)), (1024, 1024, 8192, True, ("ws", 2)),
     (128, 4096, 4096, False, ("tiles", 4)), (256, 256, 8192, True, ("tiles", 16)),
     (4096, 64, 8192, True, ("tiles", 8))],
)  # fmt: skip
def test_few_tile_fma_splits_on_the_warp_specialized_kernel(monkeypatch, m, n, k, tma, want):
    """float32 FMA products with fewer output tiles than SMs, on Hopper: the warp-specialized kernel's 128 x 128 tiles
    in K slices of at least SPLIT_K_SLICE, about one work item per SM; not with a side under 128 (half-empty tiles),
    nor where the slices would leave less than half a wave of items (256 x 256 x 8192: 4 tiles), nor for the tiles
    kernel (``tma=False``: outputs TMA cannot write), which split on their own tiles."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "warp_specialized", lambda device: True)
    cfg = tuning.choose_gemm_config(m, n, k, torch.float32, "ieee", tma=tma)
    assert (cfg.kernel, cfg.split_k) == want, cfg
    if cfg.kernel == "ws":
        assert cfg._replace(split_k=1) == tuning._GEMM_LARGE["ieee"]


@pytest.mark.parametrize(
    "m, n, k, stages, split",
    [(256, 256, 8192, 4, 8), (4096, 64, 8192, 4, 2), (128, 1536, 8192, 3, 4), (128, 4096, 4096, 6, 1),
     (16, 16, 16384, 4, 32), (25, 25, 2500, 3, 20)],
)  # fmt: skip
def test_few_tile_16bit_splits(monkeypatch, m, n, k, stages, split):
    """16-bit products with few output tiles on 132 SMs: 64 x 64 x 128 tiles split to about one program per SM,
    four stages while the programs fit in one wave and three where two share an SM, none and six stages where the
    tiles alone fill DEEP_MIN_FILL of the SMs; tiny outputs in K steps of 128 only where K allows SPLIT_K_MAX slices
    of two steps (docs/performance.md, the H100 sweeps)."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    cfg = tuning.choose_gemm_config(m, n, k, torch.bfloat16)
    assert (cfg.kernel, cfg.num_stages, cfg.split_k) == ("tiles", stages, split), cfg
    tiny_short = max(m, n) <= 64 and k < 2 * tuning.SPLIT_K_MAX * 128
    assert cfg.block_k == (64 if tiny_short else 128)


@pytest.mark.parametrize(
    "m, n, k, block_k, split",
    [(1, 1, 100, 64, 1), (1, 1, 1000, 64, 8), (64, 64, 512, 64, 4), (12, 12, 1200, 64, 9), (36, 36, 3600, 64, 16),
     (16, 16, 16384, 128, 32), (100, 100, 1, 16, 1)],
)  # fmt: skip
def test_tiny_float32_fma_outputs(monkeypatch, m, n, k, block_k, split):
    """float32 FMA products of outputs up to TINY_SIDE square, whatever K: 16 x 16 tiles of TINY_FMA_WARPS warps
    split along K as the 16-bit ones are (also below SPLIT_K_MIN_K, down to one slice); k <= 16 on one K step
    of 16 x 16 tiles; bfloat16 keeps its one-warp tiles (the H100 sweeps of 2026-11-24, docs/performance.md)."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    cfg = tuning.choose_gemm_config(m, n, k, torch.float32)
    want = ("tiles", 16, 16, block_k, tuning.TINY_FMA_WARPS, split)
    assert (cfg.kernel, cfg.block_m, cfg.block_n, cfg.block_k, cfg.num_warps, cfg.split_k) == want, cfg
    if max(m, n) <= tuning.TINY_SIDE and k >= tuning.SPLIT_K_MIN_K:
        assert tuning.choose_gemm_config(m, n, k, torch.bfloat16).num_warps == 1


@pytest.mark.parametrize(
    "n, dtype, want",
    [(128, torch.float64, "_GEMM_SMALLER_FLOAT64"), (256, torch.float64, "_GEMM_SMALLER_FLOAT64"),
     (512, torch.float64, "_GEMM_SMALL_FLOAT64"), (256, torch.bfloat16, "_GEMM_SMALL_K_16BIT"),
     (128, torch.float32, "_GEMM_SMALL_K")],
)  # fmt: skip
def test_small_squares(monkeypatch, n, dtype, want):
    """n^3 products up to 512: float64 on 16 x 16 tiles of two warps up to 256^3, 16-bit with both K steps of its
    small tiles in flight (the H100 sweep of 2026-11-24, docs/performance.md)."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    assert tuning.choose_gemm_config(n, n, n, dtype) == getattr(tuning, want)


@pytest.mark.parametrize("m, n, k, split", [(1, 1, 1000, 8), (64, 64, 512, 4), (1, 1, 100, 0), (32, 32, 256, 0)])
def test_tiny_16bit_outputs_split_from_small_k(monkeypatch, m, n, k, split):
    """bfloat16 products of tiny outputs split along K on one-warp 16 x 16 tiles from K > SMALL_K on (below
    SPLIT_K_MIN_K too); with K <= SMALL_K they stay on the small tiles (``split`` 0 here)."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    cfg = tuning.choose_gemm_config(m, n, k, torch.bfloat16)
    if split:
        assert (cfg.block_m, cfg.block_n, cfg.num_warps, cfg.split_k) == (16, 16, 1, split), cfg
    else:
        assert cfg == tuning._GEMM_SMALL_K_16BIT, cfg


@pytest.mark.parametrize("device", [None, 0])
def test_stages_fit_in_shared_memory(monkeypatch, device):
    """On a GPU with an H100's 227 KiB per program, a tiles configuration keeps only the pipeline stages that fit
    beside its output tile (bfloat16 128 x 256 x 64: three of four); configurations that fit, TMA ones and
    choices without a device stay as the tables give them."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    monkeypatch.setattr(tuning, "shared_memory", lambda device: 232448)
    wide = GemmConfig(128, 256, 64, 8, 8, 4)
    fitted = tuning._fitted(wide, 2, device)
    assert fitted == (wide if device is None else wide._replace(num_stages=3))
    assert tuning._fitted(wide, 4, 0).num_stages == 1  # float32: 96 KiB a stage beside a 128 KiB tile
    split = wide._replace(num_stages=3, split_k=2)  # its 128 KiB float32 partial tile does not fit twice
    assert tuning._fitted(split, 2, device) == (split if device is None else split._replace(split_k=1))
    for cfg in (
        GemmConfig(64, 64, 128, 8, 4, 4),
        GemmConfig(128, 128, 64, 8, 8, 3, split_k=3),
        wide._replace(kernel="tma"),
    ):
        assert tuning._fitted(cfg, 2, device) == cfg
    for shape in [(1536, 1536, 1536), (1100, 1100, 1100), (1050, 1050, 1050), (2000, 2000, 1000), (700, 900, 600)]:
        for dtype in (torch.bfloat16, torch.float32, torch.float64):
            cfg = tuning.choose_gemm_config(*shape, dtype, device=device, tma=False)
            tile = cfg.block_m * cfg.block_n
            used = tuning._pipeline_bytes(cfg, dtype.itemsize) + tile * dtype.itemsize
            partials = 2 * tile * max(dtype.itemsize, 4) if cfg.split_k > 1 else 0
            assert device is None or max(used, partials) <= 232448, f"{shape} {dtype}: {cfg}"


def test_tune_keeps_the_best_configuration_per_bucket(tmp_path, monkeypatch):
    """tune()'s bookkeeping with the timing replaced: per bucket, the configuration with the best geometric mean
    of (fastest / its time) over the bucket's shapes; other buckets in the file are kept; records name the shapes."""
    from densela.tuning import tune as tune_module

    path = tmp_path / "gemm-test.json"
    kept = {"16-bit": {"13-13-13-1": GemmConfig(128, 256, 64, 8, 8, 3, "tma")._asdict()}}
    path.write_text(json.dumps({"entries": kept}))
    monkeypatch.setattr(tune_module, "tuned_path", lambda device: path)
    monkeypatch.setattr(tune_module.torch.cuda, "get_device_name", lambda device: "Test GPU")
    fast, slow = GemmConfig(32, 32, 32, 8, 2, 3), GemmConfig(64, 64, 32, 8, 4, 3)
    timings = {  # fast wins on one shape by 10%, loses on the other by 50%: slow has the better mean
        (700, 700, 700): {fast: 1.0, slow: 1.1},
        (600, 1000, 520): {fast: 3.0, slow: 2.0},
    }
    monkeypatch.setattr(tune_module, "time_candidates", lambda shape, device: timings[(shape.m, shape.n, shape.k)])
    shapes = [Shape(700, 700, 700, torch.float32, "ieee"), Shape(600, 1000, 520, torch.float32, "ieee")]
    try:
        records = tune_module.tune(shapes, device=0, progress=False)
        stored = json.loads(path.read_text())
        assert stored["gpu"] == "Test GPU"
        assert stored["entries"]["ieee"] == {bucket(700, 700, 700, 1): slow._asdict()}
        assert stored["entries"]["16-bit"] == kept["16-bit"]
        assert [r["shape"] for r in records] == [str(s) for s in shapes]
        assert {r["ms"] for r in records} == {1.1, 2.0}
        # already tuned: skipped unless forced
        assert tune_module.tune(shapes, device=0, progress=False) == []
        assert len(tune_module.tune(shapes, device=0, force=True, progress=False)) == 2
    finally:
        tuning.clear_cache()


@pytest.mark.parametrize(
    "m, n, strides, want",
    [(100000, 100, (100, 1), (128, 128, 8)), (100000, 100, (1, 100000), (32, 128, 4)),
     (100, 100000, (100000, 1), (128, 32, 4)), (100, 100000, (1, 100), (128, 128, 8)),
     (4096, 4096, (4096, 1), None), (300, 200, (200, 1), None)],
)  # fmt: skip
def test_thin_transposes_get_tiles_spanning_the_short_side(monkeypatch, m, n, strides, want):
    """float32 matrices with a side of at most 128 (and a long one) are tiled across that side whole, float64 ones
    where that side is the rows; others take the large transposes' tiles (both sides above 128)."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    large = tuning._LARGE_TRANSPOSE_TILES
    cfg = tuning.transpose_tiles(m, n, *strides, 4)
    assert tuple(cfg) == (want or tuple(large[4]))
    few_rows_8 = {(100000, 1): (128, 32, 4), (1, 100): (128, 16, 2)}  # 8-byte items: matrices of few rows only
    want_8 = few_rows_8.get(strides) if m == 100 else None
    square_8 = large[8] if min(m, n) > tuning.THIN_SIDE else tuning.tile_config(8)
    assert tuple(tuning.transpose_tiles(m, n, *strides, 8)) == (want_8 or tuple(square_8))
    assert tuning.transpose_tiles(128, 512, 512, 1, 8) == tuning.tile_config(8)  # a side of 128: the old tiles


@pytest.mark.parametrize(
    "m, n, strides, pack, want",
    [(100, 700000, (700000, 1), 1, (128, 128, 4)), (700000, 100, (1, 700000), 1, (128, 128, 4)),
     (700000, 100, (100, 1), 1, None), (100, 700000, (1, 100), 1, None),
     (100, 700000, (700000, 1), 4, None), (8192, 8192, (8192, 1), 1, None)],
)  # fmt: skip
def test_thin_byte_transposes_read_along_the_long_side_take_four_warps(monkeypatch, m, n, strides, pack, want):
    """1-byte items moved one by one, a side of at most 128 read along the long side (rows of 100 items written):
    128 x 128 tiles of 4 warps; read along the short side, packed, or with no short side: the tiles before."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    before = tuning._PACKED_TILES[pack] if pack > 1 else tuning.tile_config(1)
    assert tuple(tuning.transpose_tiles(m, n, *strides, 1, pack)) == (want or tuple(before))


def test_in_place_squares_of_8_byte_items_take_64_wide_tiles(monkeypatch):
    """In-place squares of 8-byte items take 64 x 64 tiles (the out-of-place kernels keep 32 x 64); others share
    ``tile_config``'s."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    assert tuple(tuning.square_tiles(8)) == (64, 64, 4) != tuple(tuning.tile_config(8))
    assert all(tuning.square_tiles(size) == tuning.tile_config(size) for size in (1, 2, 4, 16))


@pytest.mark.parametrize("k, block_k", [(32, 32), (8, 16), (48, 64), (100, 128), (256, 128)])
def test_tiles_k_steps_no_longer_than_k(monkeypatch, k, block_k):
    """Tiles configurations step through K no further than K's next power of two (at least 16): batched LU's
    trailing updates (k = 32 on the small-K tiles) took half the time with it on the H100 (docs/lu.md)."""
    monkeypatch.setattr(tuning, "INTERPRET", False)
    monkeypatch.setattr(tuning, "multiprocessors", lambda device: 132)
    for dtype in (torch.float64, torch.float32, torch.bfloat16):
        cfg = tuning.choose_gemm_config(96, 96, k, dtype, batch=10000)
        assert cfg.kernel == "tiles" and cfg.split_k == 1
        assert cfg.block_k == block_k, (dtype, cfg)
        assert cfg == tuning._table_choice(96, 96, k, dtype, None, 10000, None, True)._replace(block_k=block_k)


def test_time_candidates_raises_when_no_candidate_can_be_timed(monkeypatch):
    """A shape none of whose candidates could be timed is an error naming it, chained to the last failure (not an
    empty result that tune() would pass over)."""
    from densela.tuning import tune as tune_module

    def fail(fn, **kw):
        raise ValueError("out of shared memory")

    monkeypatch.setattr(tune_module, "operands", lambda shape, device: (None, None, None))
    monkeypatch.setattr(tune_module, "graph_ms", fail)
    shape = Shape(64, 64, 64, torch.float32, "ieee")
    with pytest.raises(RuntimeError, match="64x64 \\* 64x64 ieee could be timed") as err:
        tune_module.time_candidates(shape, 0, configs=[GemmConfig(32, 32, 32, 8, 2, 3)])
    assert isinstance(err.value.__cause__, ValueError)


@pytest.mark.gpu
def test_time_candidates_times_graph_replays_on_the_gpu():
    """On a GPU every candidate of a small product is timed (as CUDA-graph replays: GPU time, positive)."""
    from densela.tuning import tune as tune_module

    shape = Shape(256, 192, 320, torch.float32, "ieee")
    configs = [GemmConfig(32, 32, 32, 8, 2, 3), GemmConfig(64, 64, 32, 8, 4, 3)]
    times = tune_module.time_candidates(shape, torch.cuda.current_device(), configs=configs)
    assert set(times) == set(configs) and all(0 < ms < 100 for ms in times.values())


def test_described_configurations_tell_every_field_apart() -> None:
    """``GemmConfig.describe`` (what ``densela tune`` prints for its choices) names each field that differs from its
    default, so configurations that differ in any field read differently."""
    full = GemmConfig(128, 128, 64, 8, 4, 5, "ws", split_k=2, flatten=False, epilogue_split=2, pingpong=True)
    assert full.describe() == (
        "ws 128x128x64, group 8, 4 warps, 5 stages, split 2, not flattened, epilogue in 2, ping-pong"
    )
    variants = [full] + [full._replace(**{field: default}) for field, default in GemmConfig._field_defaults.items()]
    variants += [full._replace(block_k=32), full._replace(group_m=16), full._replace(num_warps=8)]
    assert len({v.describe() for v in variants}) == len(set(variants))


@pytest.mark.parametrize(
    "cfg",
    [tuning._GEMM_DEEP_16BIT, tuning._GEMM_LARGE["tf32"], tuning._GEMM_THIN_K_WS16,
     GemmConfig(16, 16, 16, 4, 1, 1, "tma", flatten=False, epilogue_split=2),
     GemmConfig(128, 128, 64, 8, 4, 5, "ws", split_k=3, epilogue_split=2, pingpong=True)],
)  # fmt: skip
def test_configurations_read_back_from_their_description(cfg):
    """``GemmConfig.parse`` reads what ``describe`` writes (the scripts' forced configurations), field for field."""
    assert GemmConfig.parse(cfg.describe()) == cfg


@pytest.mark.parametrize(
    "text",
    ["tiles 64x64x128, group 8", "tiles 64x64x128, group 8, 4 warps, 3 stages, bogus 2",
     "tiles 64x64x128, group x, 4 warps, 3 stages", "tiles 64x64, group 8, 4 warps, 3 stages"],
)  # fmt: skip
def test_configuration_descriptions_that_name_no_configuration_raise(text):
    """A description missing a required field, with a word ``describe`` never writes, or a malformed block shape is a
    ValueError that quotes it."""
    with pytest.raises(ValueError, match=r"GemmConfig\.parse"):
        GemmConfig.parse(text)
