"""Test settings shared by every file: where tensors live, hypothesis profiles, GPU-only markers.

`make test` runs this suite with TRITON_INTERPRET=1 on the CPU (a plain `pytest` on a machine without a CUDA GPU
sets it too: the suite tests densela's kernels, which without a GPU run only in the interpreter; the PyTorch
fallback has its own tests, which patch ``INTERPRET``); the same files run on a CUDA GPU, where tests marked
`large` also run.
"""

from __future__ import annotations

import os

import pytest
import torch
from hypothesis import HealthCheck, settings

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before densela and its kernels are imported

import densela.tuning
from densela._arrays import INTERPRET

GPU = torch.cuda.is_available() and not INTERPRET
DEVICE = "cuda" if GPU else "cpu"

settings.register_profile(
    "interpret", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("gpu", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "gpu" if GPU else "interpret"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason="needs a CUDA GPU without TRITON_INTERPRET (sizes the interpreter cannot reach)")
    for item in items:
        if ("large" in item.keywords or "gpu" in item.keywords) and not GPU:
            item.add_marker(skip)


@pytest.fixture
def device() -> str:
    """'cuda' on a GPU machine, else 'cpu' (Triton's interpreter or the PyTorch path)."""
    return DEVICE


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(1234)


@pytest.fixture(autouse=True)
def _fresh_plans() -> None:
    """Every test chooses its configurations and plans its launches anew (tests patch the choice)."""
    densela.tuning.clear_cache()
