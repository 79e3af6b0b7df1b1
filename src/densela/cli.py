"""The ``densela`` command: ``info``, ``check``, ``tune`` and the benchmark lab (``bench``, ``report``, ``roofline``).

Run ``densela --help`` for the commands. ``python -m densela.cli`` works the same.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from densela import _arrays
from densela._env import environment, format_environment


def _info(args: argparse.Namespace) -> int:
    env = environment()
    print(json.dumps(env, indent=2) if args.json else format_environment(env))
    return 0


def _interpreter_rerun(what: str, argv: Sequence[str]) -> int | None:
    """Without a GPU, reruns this command in a fresh process with Triton's interpreter; None on a GPU.

    Triton reads TRITON_INTERPRET when the kernels are defined, which importing densela has done.
    """
    if _arrays.INTERPRET or _arrays.cuda_available():
        return None
    print(f"No GPU found: running the {what} in Triton's interpreter on the CPU (TRITON_INTERPRET=1).", flush=True)
    env = dict(os.environ, TRITON_INTERPRET="1")
    return subprocess.run([sys.executable, "-m", "densela.cli", *argv], env=env, check=False).returncode


def _check(args: argparse.Namespace, argv: Sequence[str]) -> int:
    rerun = _interpreter_rerun("check", argv)
    if rerun is not None:
        return rerun
    from densela.check import run_check

    return run_check(size=args.size, json_path=args.json)


def _bench(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from densela.bench.suites import SUITES

    if args.list:
        for suite in SUITES.values():
            print(f"{suite.name:<22} {len(suite.cases):>4} cases  base {suite.base:<9} {suite.description}")
        return 0
    unknown = [name for name in args.suites if name not in SUITES]
    if unknown:
        print(f"densela bench: unknown suite(s) {', '.join(unknown)}; see densela bench --list", file=sys.stderr)
        return 2
    from densela.bench.providers import PROVIDERS

    unknown = [name for name in args.provider or () if name not in PROVIDERS]
    if unknown:
        known = ", ".join(PROVIDERS)
        print(f"densela bench: unknown provider(s) {', '.join(unknown)}; known: {known}", file=sys.stderr)
        return 2
    rerun = _interpreter_rerun("benchmark", argv)
    if rerun is not None:
        return rerun
    from densela._env import gpu_slug
    from densela.bench.run import context, gpu_present, run_suites

    names = args.suites or ["quick"]
    out = args.out
    if out is None:
        where = gpu_slug(context()["gpu"]) if gpu_present() else "no-gpu"
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M")
        out = Path("bench-results") / where / f"{stamp}-{'+'.join(names)}"
    rows = run_suites(
        [SUITES[n] for n in names], out, providers=args.provider, max_seconds=args.max_seconds, progress=not args.quiet
    )
    return 0 if rows else 1


def _rows_path(results: str) -> Path:
    """A run folder's rows.jsonl, or the file itself."""
    path = Path(results)
    return path / "rows.jsonl" if path.is_dir() else path


def _report(args: argparse.Namespace) -> int:
    from densela.bench.report import issue_targets, write_report
    from densela.bench.rows import read_rows

    rows_path = _rows_path(args.results)
    ceilings_path = rows_path.parent / "ceilings.json"
    ceilings = json.loads(ceilings_path.read_text()) if ceilings_path.exists() else None
    out = Path(args.out) if args.out else rows_path.parent
    rows = read_rows(rows_path)
    for path in write_report(rows, out, ceilings):
        print(path)
    if targets := issue_targets(rows):
        print(targets)
    return 0


def _roofline(args: argparse.Namespace) -> int:
    if not _arrays.cuda_available():
        print("densela roofline: measuring ceilings needs a CUDA GPU; none found", file=sys.stderr)
        return 1
    from densela.bench import roofline

    c = roofline.ceilings(refresh=args.refresh)
    print(roofline.format_ceilings(c))
    if args.results:
        from densela.bench.report import write_report
        from densela.bench.rows import read_rows

        rows_path = _rows_path(args.results)
        for path in write_report(read_rows(rows_path), Path(args.out or rows_path.parent), c):
            print(path)
    return 0


def _tune(args: argparse.Namespace) -> int:
    from densela.bench.providers import TORCH_DTYPES
    from densela.bench.suites import SUITES
    from densela.tuning import GemmConfig
    from densela.tuning.tune import Shape, tune

    unknown = [name for name in args.suites if name not in SUITES]
    if unknown:
        print(f"densela tune: unknown suite(s) {', '.join(unknown)}; see densela bench --list", file=sys.stderr)
        return 2
    shapes = [
        Shape(*c.shape, TORCH_DTYPES[c.dtype], c.precision if c.dtype == "float32" else None)
        for name in args.suites
        for c in SUITES[name].cases
        if c.op == "gemm"
    ]
    dtype = TORCH_DTYPES[args.dtype]
    precision = args.precision if args.dtype == "float32" else None
    for text in args.shape or ():
        sizes = [int(x) for x in text.lower().split("x")]
        if len(sizes) not in (3, 4) or min(sizes) < 1:
            print(f"densela tune: --shape wants MxNxK or MxNxKxBATCH, got {text!r}", file=sys.stderr)
            return 2
        shapes.append(Shape(*sizes[:3], dtype, precision, *sizes[3:]))
    if _arrays.INTERPRET or not _arrays.cuda_available():
        print("densela tune: tuning measures kernels on a CUDA GPU; none found", file=sys.stderr)
        return 1
    import torch

    if not shapes:
        shapes = [Shape(*c.shape, TORCH_DTYPES[c.dtype], c.precision) for c in SUITES["quick"].cases if c.op == "gemm"]
    records = tune(shapes, device=torch.cuda.current_device(), force=args.force, progress=not args.quiet)
    for r in records:
        untuned = f"{r['untuned_ms']:.4f}" if r["untuned_ms"] else "-"
        chosen = GemmConfig(**r["config"]).describe()
        print(f"{r['shape']:<40} bucket {r['bucket']:<14} {r['ms']:.4f} ms (untuned {untuned} ms): {chosen}")
    return 0


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

    bench = commands.add_parser(
        "bench",
        help="run benchmark suites (default: quick) against the vendor libraries; write rows, report and plots",
        description=(
            "Runs the named suites (see --list): every case with every provider, base provider first; each row "
            "has the median time with p20/p80, TFLOP/s or GB/s, %% of the measured ceiling, speedup against the "
            "base and the error against a float64 reference. Without a GPU, densela runs in Triton's interpreter "
            "on small shapes (correctness only) and the CPU providers are timed. Ctrl-C keeps what was measured."
        ),
    )
    bench.add_argument("suites", nargs="*", metavar="SUITE", help="suite names (default: quick)")
    bench.add_argument("--list", action="store_true", help="list the suites and exit")
    bench.add_argument("--out", default=None, help="output folder (default: bench-results/<gpu>/<date>-<suites>)")
    bench.add_argument("--provider", action="append", default=None, help="run only this provider (repeatable)")
    bench.add_argument(
        "--max-seconds", type=float, default=3.0, help="time limit per measurement while the spread is above 5%%"
    )
    bench.add_argument("--quiet", action="store_true", help="no progress bar")

    report = commands.add_parser("report", help="rebuild report.md, results.csv and the plots from saved rows")
    report.add_argument("results", help="a rows.jsonl file or the folder of a run")
    report.add_argument("--out", default=None, help="output folder (default: beside the rows)")

    tune = commands.add_parser(
        "tune",
        help="measure GEMM configurations per shape bucket on this GPU and keep the best (cached per GPU model)",
        description=(
            "Times every candidate configuration for the GEMM shapes of the named suites and of --shape, and "
            "stores the best per shape bucket in ~/.cache/densela/gemm-<gpu>.json, which densela reads from then "
            "on. Buckets already tuned are skipped unless --force. Default: the quick suite's products."
        ),
    )
    tune.add_argument("suites", nargs="*", metavar="SUITE", help="suites whose GEMM cases to tune for")
    tune.add_argument("--shape", action="append", help="MxNxK or MxNxKxBATCH (repeatable), with --dtype/--precision")
    tune.add_argument("--dtype", default="float32", choices=("float16", "bfloat16", "float32", "float64"))
    tune.add_argument("--precision", default="ieee", choices=("ieee", "tf32", "tf32x3"))
    tune.add_argument("--force", action="store_true", help="tune buckets that are already in the file again")
    tune.add_argument("--quiet", action="store_true", help="no progress lines")

    roof = commands.add_parser(
        "roofline", help="measure this GPU's copy bandwidth and GEMM peaks (cached); plot a run on the roofline"
    )
    roof.add_argument("--refresh", action="store_true", help="measure again instead of reading the cache")
    roof.add_argument("--results", default=None, help="a rows.jsonl file or run folder to plot as points")
    roof.add_argument("--out", default=None, help="folder for roofline.png (default: beside the rows)")
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
    if args.command == "bench":
        return _bench(args, argv)
    if args.command == "report":
        return _report(args)
    if args.command == "roofline":
        return _roofline(args)
    if args.command == "tune":
        return _tune(args)
    return _check(args, argv)


if __name__ == "__main__":
    sys.exit(main())
