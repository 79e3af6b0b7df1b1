"""The ``densela`` command: ``densela info`` (versions, GPU, backend) and ``densela check`` (correctness).

Run ``densela --help`` for the commands. ``python -m densela.cli`` works the same.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence

from densela import _arrays
from densela._env import environment, format_environment


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
