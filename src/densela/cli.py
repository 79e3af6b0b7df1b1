"""The ``densela`` command: ``densela info`` (versions, GPU, backend) and ``densela check`` (correctness).

Run ``densela --help`` for the commands. ``python -m densela.cli`` works the same.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import torch

from densela import _arrays

BACKEND_GPU = "Triton kernels on {gpu}"
BACKEND_INTERPRETER = "Triton interpreter on the CPU (TRITON_INTERPRET=1)"
BACKEND_CPU = "PyTorch on the CPU (no GPU found)"


def backend_description() -> str:
    """Where densela runs its operations in this process, in words.

    Example:
        >>> from densela.cli import backend_description
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


def _driver_version() -> str | None:
    """The NVIDIA driver version from ``nvidia-smi``, when it is on the PATH."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        done = subprocess.run(
            [smi, "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[0].strip() if lines else None


def environment() -> dict[str, Any]:
    """Versions, GPUs and the backend of this process, as a JSON-ready dict (what ``densela info`` prints).

    Example:
        >>> from densela.cli import environment
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
        >>> from densela.cli import environment, format_environment
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


def _info(args: argparse.Namespace) -> int:
    env = environment()
    print(json.dumps(env, indent=2) if args.json else format_environment(env))
    return 0


def _check(args: argparse.Namespace, argv: Sequence[str]) -> int:
    if not _arrays.INTERPRET and not _arrays.cuda_available():
        # Triton reads TRITON_INTERPRET when the kernels are defined, which importing densela has done:
        # run the check again in a fresh process with the interpreter switched on.
        print("No GPU found: running the check in Triton's interpreter on the CPU (TRITON_INTERPRET=1).", flush=True)
        env = dict(os.environ, TRITON_INTERPRET="1")
        return subprocess.run([sys.executable, "-m", "densela.cli", *argv], env=env, check=False).returncode

    from densela.check import run_check

    return run_check(size=args.size, json_path=args.json)


def _size(text: str) -> str:
    """Validates ``--size`` (the sizes themselves depend on the device, chosen later)."""
    from densela.check import parse_size

    try:
        parse_size(text, gpu=False)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="densela", description="Dense-matrix GPU kernels in Triton.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    info = commands.add_parser("info", help="versions, GPUs and which backend runs the operations here")
    info.add_argument("--json", action="store_true", help="print the information as JSON")

    check = commands.add_parser(
        "check",
        help="check every operation against a float64 reference and against torch",
        description=(
            "Runs each public operation on random matrices, compares it and torch with a float64 reference, "
            "and times both on a GPU. Without a GPU it runs Triton's interpreter on small sizes. "
            "Exits with status 1 when an error exceeds its bound."
        ),
    )
    check.add_argument(
        "--size",
        default=None,
        type=_size,
        help="'small' (64 x 48 x 40), 'large' (4096 cubed) or a number N for N x N x N; "
        "default: large on a GPU, small otherwise",
    )
    check.add_argument("--json", metavar="PATH", default=None, help="also write the results as JSON to PATH")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``densela`` command; returns the exit status.

    Example:
        >>> from densela.cli import main
        >>> main(["info"])  # doctest: +ELLIPSIS
        backend: ...
        0
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    if args.command == "info":
        return _info(args)
    return _check(args, argv)


if __name__ == "__main__":
    sys.exit(main())
