"""This process's environment: versions, GPUs, driver and which backend runs densela's operations.

Used by ``densela info`` and recorded with every benchmark row.
"""

from __future__ import annotations

import importlib
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import torch

from densela import _arrays

BACKEND_GPU = "Triton kernels on {gpu}"
BACKEND_INTERPRETER = "Triton interpreter on the CPU (TRITON_INTERPRET=1)"
BACKEND_CPU = "PyTorch on the CPU (no GPU found)"


def gpu_slug(name: str) -> str:
    """A file-name form of a GPU name: 'NVIDIA H200' -> 'nvidia-h200'.

    Example:
        >>> gpu_slug("NVIDIA H100 80GB HBM3")
        'nvidia-h100-80gb-hbm3'
    """
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def cache_dir() -> Path:
    """Where densela keeps what it measured about a GPU: ``$XDG_CACHE_HOME/densela`` (~/.cache/densela)."""
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "densela"


def backend_description() -> str:
    """Where densela runs its operations in this process, in words.

    Example:
        >>> from densela._env import backend_description
        >>> backend_description().startswith(("Triton kernels on", "Triton interpreter", "PyTorch on the CPU"))
        True
    """
    if _arrays.INTERPRET:
        return BACKEND_INTERPRETER
    if _arrays.cuda_available():
        return BACKEND_GPU.format(gpu=torch.cuda.get_device_name(torch.cuda.current_device()))
    return BACKEND_CPU


def _version(module: str) -> str | None:
    """The version of an importable module, or None when it is not installed or fails to import."""
    try:
        return str(importlib.import_module(module).__version__)
    except Exception:  # an optional library that is missing or broken is simply absent
        return None


def _first_line(program: str, *args: str, cwd: Path | None = None) -> str | None:
    """The first line a program prints, or None when it is missing, fails or prints nothing."""
    path = shutil.which(program)
    if path is None:
        return None
    try:
        done = subprocess.run([path, *args], cwd=cwd, capture_output=True, text=True, timeout=20, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[0].strip() if lines else None


def _driver_version() -> str | None:
    """The NVIDIA driver version from ``nvidia-smi``, when it is on the PATH."""
    return _first_line("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader")


def environment() -> dict[str, Any]:
    """Versions, GPUs and the backend of this process, as a JSON-ready dict (what ``densela info`` prints).

    Example:
        >>> from densela._env import environment
        >>> env = environment()
        >>> sorted(env)
        ['backend', 'cuda', 'driver', 'gpus', 'python', 'triton_interpret', 'versions']
    """
    gpus = []
    if _arrays.cuda_available():
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            gpus.append(
                {
                    "index": index,
                    "name": props.name,
                    "compute_capability": f"{props.major}.{props.minor}",
                    "sm_count": props.multi_processor_count,
                    "memory_gib": round(props.total_memory / 2**30, 1),
                }
            )
    return {
        "backend": backend_description(),
        "triton_interpret": _arrays.INTERPRET,
        "python": f"{platform.python_version()} ({platform.python_implementation()}, {platform.machine()})",
        "versions": {name: _version(name) for name in ("densela", "torch", "triton", "numpy", "cupy")},
        "gpus": gpus,
        "cuda": torch.version.cuda,
        "driver": _driver_version() if gpus else None,
    }


def format_environment(env: dict[str, Any]) -> str:
    """``environment()`` as the lines ``densela info`` prints.

    Example:
        >>> from densela._env import environment, format_environment
        >>> print(format_environment(environment()))  # doctest: +ELLIPSIS
        backend: ...
    """
    lines = [f"backend: {env['backend']}", f"python: {env['python']}"]
    for name, version in env["versions"].items():
        lines.append(f"{name}: {version if version is not None else 'not installed'}")
    if env["gpus"]:
        for gpu in env["gpus"]:
            lines.append(
                f"gpu {gpu['index']}: {gpu['name']}, compute capability {gpu['compute_capability']}, "
                f"{gpu['sm_count']} SMs, {gpu['memory_gib']} GiB"
            )
    else:
        lines.append("gpu: none found")
    lines.append(f"cuda (torch built with): {env['cuda'] or 'none (CPU build)'}")
    if env["driver"] is not None:
        lines.append(f"driver: {env['driver']}")
    return "\n".join(lines)


def git_commit() -> str | None:
    """The git commit of the densela checkout this process runs (None for an installed copy).

    ``DENSELA_GIT_COMMIT`` in the environment names it where the checkout travelled without its ``.git``.

    Example:
        >>> from densela._env import git_commit
        >>> commit = git_commit()
        >>> commit is None or len(commit) == 40
        True
    """
    checkout = Path(__file__).resolve().parents[2]  # src/densela/_env.py -> the repository root
    if os.environ.get("DENSELA_GIT_COMMIT") or not (checkout / ".git").exists():
        return os.environ.get("DENSELA_GIT_COMMIT")
    return _first_line("git", "rev-parse", "HEAD", cwd=checkout)
