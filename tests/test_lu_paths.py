"""The LU factorization's internal paths, each forced on small matrices: the panel spread over programs that
exchange pivot candidates through global memory, the blocked algorithm over a whole batch, and (on a GPU)
the CUDA-graph replay of repeated shapes."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import torch

import densela as dl
import densela.lu


def _check_against_scipy(a: np.ndarray, lu: np.ndarray, piv: np.ndarray) -> None:
    ref_lu, ref_piv = scipy.linalg.lu_factor(a)
    np.testing.assert_array_equal(piv, ref_piv)
    eps = np.finfo(a.dtype).eps
    assert np.abs(lu - ref_lu).max() <= 100 * a.shape[0] * eps * max(1.0, np.abs(ref_lu).max())


@pytest.mark.parametrize("shape", [(33, 33), (40, 17), (9, 20)])
def test_panel_exchange_through_memory(monkeypatch: pytest.MonkeyPatch, shape: tuple[int, int]) -> None:
    # every panel takes the multi-program path (GRID_SYNC): candidates, counters and the winning row go
    # through global memory (one program in the interpreter, up to one per SM on a GPU)
    monkeypatch.setattr(densela.lu, "ONE_PROGRAM_ELEMENTS", 4)
    a = np.random.default_rng(7).standard_normal(shape)
    lu, piv = dl.lu_factor(a)
    _check_against_scipy(a, lu, piv)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_through_the_blocked_algorithm(monkeypatch: pytest.MonkeyPatch, dtype: type) -> None:
    # matrices too large to be factored whole by one program: panels, interchanges, triangular solves and
    # GEMM updates each launched once for the whole batch
    monkeypatch.setattr(densela.lu, "BATCHED_BYTES", 64)
    a = np.random.default_rng(8).standard_normal((3, 21, 21)).astype(dtype)
    a[1, :, 4] = 0.0
    lu, piv, info = dl.lu_factor_ex(a)
    np.testing.assert_array_equal(info, [0, 5, 0])
    for i in (0, 2):
        _check_against_scipy(a[i], lu[i], piv[i])


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
    ref_piv = torch.linalg.lu_factor(mats[300])[1] - 1
    assert torch.equal(first[300][1], ref_piv.to(torch.int32))
