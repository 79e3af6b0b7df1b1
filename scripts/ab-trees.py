"""A/B of two source trees on the GPU: the same products (and LU factorizations) timed as the lab times them, one
process per tree (two trees imported into one process interfered in a probe of 2026-11-26), then a table of both.

Usage (on the device, from the repository root, the old tree unpacked beside it, for instance with
``git archive <rev> src | tar -x -C .old``):

    python3 scripts/ab-trees.py --trees .old/src src --gemm 1000x1000x1000,2000x2000x2000 --layouts nn,nt,tn,tt \
        --dtype float32 --precision tf32 [--lu 1000,4096,10000x32 [--lu-op lu_factor]] [--seconds 0.5] [--rounds 3]

Probes of forced configurations on one tree (or several), in GPU time (``--graph``: CUDA-graph replays, the host left
out, which the lab's measure of a configuration's first calls is not), with cuBLAS beside (``--cublas``):

    python3 scripts/ab-trees.py --trees src --graph --cublas --gemm 128x4096x4096 --dtype bfloat16 \
        --cfg "tiles 64x64x128, group 8, 4 warps, 6 stages" --cfg "ws 128x128x64, group 8, 4 warps, 4 stages, split 4"

Writes $OUT/ab-trees.jsonl (one row per tree, round and case) and prints old, new and old / new per case (for LU with
fingerprints of the pivots and of the factors in place of the error).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable


def _operands(shape: tuple[int, int, int], layout: str, dtype: object) -> tuple[object, object]:
    """A (m x k) and B (k x n) in ``layout`` ("nn", "nt", "tn", "tt": which of them is a transposed view)."""
    import torch

    m, n, k = shape
    a = torch.randn(m, k, device="cuda") if layout[0] == "n" else torch.randn(k, m, device="cuda").T
    b = torch.randn(k, n, device="cuda") if layout[1] == "n" else torch.randn(n, k, device="cuda").T
    return a.to(dtype), b.to(dtype)  # .to keeps a transposed view's strides


def child(args: argparse.Namespace) -> None:
    """Times every case with the tree on sys.path; one JSON line per case on stdout."""
    import torch

    import densela as dl
    from densela.bench.timing import time_gpu
    from densela.gemm import launch_gemm
    from densela.tuning import GemmConfig
    from densela.tuning.tune import graph_ms

    def microseconds(call: Callable[[], object]) -> float:
        if args.graph:
            return graph_ms(call, rep_ms=1e3 * args.seconds)[0] * 1e3
        return time_gpu(call, max_seconds=args.seconds).median_ms * 1e3

    dtype = getattr(torch, args.dtype)
    precision = args.precision if dtype == torch.float32 else None
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"  # cuBLAS's TF32 beside densela's
    forced = [GemmConfig.parse(text) for text in args.cfg]
    for text in filter(None, args.gemm.split(",")):
        shape = tuple(int(v) for v in text.split("x"))
        for layout in args.layouts.split(","):
            torch.manual_seed(0)
            a, b = _operands(shape, layout, dtype)
            out = torch.full((shape[0], shape[1]), float("nan"), device="cuda", dtype=dtype)
            ref = a.double() @ b.double()
            calls = {"": functools.partial(dl.matmul, a, b, out=out, precision=precision)}
            if args.cublas:
                calls[" cublas"] = functools.partial(torch.matmul, a, b, out=out)
            for cfg in forced:
                calls[" " + cfg.describe()] = functools.partial(
                    launch_gemm, a, b, None, out, 1.0, 0.0, precision or "ieee", cfg=cfg
                )
            for name, call in calls.items():
                out.fill_(float("nan"))
                call()
                err = float((out.double() - ref).norm() / ref.norm())
                case = f"gemm {text} {layout}{name}"
                print(json.dumps({"case": case, "us": microseconds(call), "err": err}), flush=True)
    for text in filter(None, args.lu.split(",")):
        *batch, n = (int(v) for v in text.split("x"))
        torch.manual_seed(0)
        x = torch.randn(*batch, n, n, device="cuda", dtype=dtype)
        lu, piv, _ = dl.lu_factor_ex(x)
        # fingerprints of the pivots and of the factors: equal in both trees when their arithmetic is the same
        digest = "/".join(hashlib.sha256(t.cpu().numpy().tobytes()).hexdigest()[:8] for t in (piv, lu))
        # lu_factor as the lab calls it waits for its singularity check on the host; lu_factor_ex does not wait
        factor = functools.partial(dl.lu_factor, check_finite=False) if args.lu_op == "lu_factor" else dl.lu_factor_ex
        us = time_gpu(functools.partial(factor, x), max_seconds=args.seconds)  # the lab's measure, also with --graph
        print(json.dumps({"case": f"lu {text}", "us": us.median_ms * 1e3, "err": digest}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs="+", default=[".old/src", "src"], help="the old source tree, then new ones")
    parser.add_argument("--gemm", default="", help="m x n x k shapes, comma-separated")
    parser.add_argument("--layouts", default="nn", help="nn, nt, tn, tt, comma-separated")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--precision", default="ieee", help="float32's mode: ieee, tf32, tf32x3")
    parser.add_argument("--lu", default="", help="orders n (or batch x n) of lu_factor_ex, comma-separated")
    parser.add_argument(
        "--lu-op",
        default="lu_factor_ex",
        choices=["lu_factor_ex", "lu_factor"],
        help="the call timed (lu_factor: unchecked, as the lab times it)",
    )
    parser.add_argument("--seconds", type=float, default=0.5, help="time limit of each case's timing")
    parser.add_argument(
        "--graph",
        action="store_true",
        help="products in GPU time of CUDA-graph replays (tune.graph_ms), not the lab's measure (LU keeps the lab's)",
    )
    parser.add_argument("--cublas", action="store_true", help="also time torch.matmul (cuBLAS) on each product")
    parser.add_argument(
        "--cfg",
        action="append",
        default=[],
        help="a configuration every product also runs with, as GemmConfig.describe() writes it (repeatable)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="times every tree runs, the trees' order rotated each round (the GPU's clock drifts over a call); the "
        "table shows each case's median over the rounds",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    results: dict[str, dict[str, list[dict]]] = {}
    forward = [a for a in sys.argv[1:] if a != "--child"]
    with open(os.path.join(os.environ.get("OUT", "."), "ab-trees.jsonl"), "w") as record:
        for round_ in range(args.rounds):
            shift = round_ % len(args.trees)
            for tree in args.trees[shift:] + args.trees[:shift]:
                env = {**os.environ, "PYTHONPATH": os.path.abspath(tree)}
                done = subprocess.run([sys.executable, __file__, *forward, "--child"], env=env, capture_output=True,
                                      text=True)  # fmt: skip
                if done.returncode:
                    sys.exit(f"{tree}: exit {done.returncode}\n{done.stderr[-4000:]}")
                for line in done.stdout.splitlines():
                    row = {"tree": tree, "round": round_, **json.loads(line)}
                    record.write(json.dumps(row) + "\n")
                    results.setdefault(row["case"], {}).setdefault(tree, []).append(row)
    old, *new = args.trees
    for case, rows in results.items():
        us = {tree: statistics.median(r["us"] for r in rows[tree]) for tree in args.trees}
        line = f"{case:32s} {'old ' if new else ''}{us[old]:9.1f} us"
        for tree in new:
            line += f"  {tree}: {us[tree]:9.1f} us, old/new {us[old] / us[tree]:.2f}"
        print(line + "  err " + " ".join(str(rows[tree][0]["err"]) for tree in args.trees))


if __name__ == "__main__":
    main()
