"""The warp-specialized Gluon GEMM (``densela.kernels.gemm_ws``) against cuBLAS and densela's TMA kernel.

    python3 scripts/ws-explore.py compile            # no GPU needed: compiles for sm_90a, prints registers
    python3 scripts/ws-explore.py time [SIZES ...]   # on a Hopper GPU: checks, then times (CUDA-graph replays)

Each configuration runs in its own process under a time limit (a kernel whose mbarriers never complete
would hang the process). Records go to $OUT/ws.jsonl; a table is printed last.
"""

from __future__ import annotations

import functools
import json
import multiprocessing as mp
import os
import sys
from dataclasses import asdict, dataclass

OUT = os.environ.get("OUT", ".")
LIMIT_S = float(os.environ.get("WS_LIMIT_S", "90"))


@dataclass(frozen=True)
class Cfg:
    block_m: int = 128
    block_n: int = 256
    block_k: int = 64
    stages: int = 3
    group_m: int = 8
    layout: str = "nn"  # A and B memory order: n = row-major (A K-major, B N-major), t = transposed view
    epi_n: int = 0  # columns per epilogue slice (0: the whole tile)
    pingpong: bool = False
    dtype: str = "bfloat16"
    precision: str = "tf32"  # float32 only: "tf32", "tf32x3" or "ieee"


CONFIGS = [
    Cfg(),
    Cfg(group_m=16),
    Cfg(block_n=128, pingpong=True, stages=4),
    Cfg(block_n=128, pingpong=True, stages=5, epi_n=64),
    Cfg(block_n=128, block_k=128, pingpong=True, stages=2),
    Cfg(block_n=128, pingpong=True, stages=4, group_m=16),
    Cfg(dtype="float32", block_k=32, stages=4, epi_n=64, layout="nt"),
    Cfg(dtype="float32", block_n=128, block_k=32, pingpong=True, stages=4, epi_n=64, layout="nt"),
    Cfg(dtype="float32", precision="tf32x3", block_n=128, block_k=32, stages=3, epi_n=64, layout="nn"),
    # TF32 with an M-major A or an N-major B: A through registers (nn: operands swapped, tiles stored transposed)
    Cfg(dtype="float32", block_k=32, stages=4, epi_n=64, layout="nn"),
    Cfg(dtype="float32", block_k=32, stages=4, epi_n=64, layout="tn"),
    Cfg(dtype="float32", block_k=32, stages=4, epi_n=64, layout="tt"),
    Cfg(dtype="float32", block_k=32, stages=4, epi_n=64, layout="nn", group_m=16),
    Cfg(dtype="float32", block_k=32, stages=3, epi_n=128, layout="nn"),
    Cfg(dtype="float32", block_k=16, stages=8, epi_n=64, layout="nn"),
    Cfg(dtype="float32", block_m=256, block_n=128, block_k=32, stages=3, epi_n=64, layout="nn"),
    Cfg(dtype="float16", group_m=16),
    # float32 FMA ("ieee": no tensor cores), one consumer partition of eight warps, each thread an 8 x 8 block;
    # epi_n sets the number of row slices of its epilogue (block_n // epi_n)
    Cfg(dtype="float32", precision="ieee", block_n=128, block_k=32, stages=4, epi_n=32),
    Cfg(dtype="float32", precision="ieee", block_n=128, block_k=64, stages=3, epi_n=32),
    Cfg(dtype="float32", precision="ieee", block_n=256, block_k=32, stages=3, epi_n=64),
    Cfg(dtype="float32", precision="ieee", block_m=256, block_n=128, block_k=32, stages=3, epi_n=32),
    Cfg(dtype="float32", precision="ieee", block_n=128, block_k=32, stages=4, epi_n=64, layout="tt"),
    Cfg(dtype="float32", precision="ieee", block_n=128, block_k=32, stages=4, epi_n=32, layout="nt"),
    Cfg(dtype="float32", precision="ieee", block_n=128, block_k=32, stages=4, epi_n=64, layout="tn"),
    Cfg(dtype="float32", precision="ieee", block_n=128, block_k=32, stages=4, epi_n=32, group_m=16),
    # float32 FMA storing each tile in one 128-row slice (64 KiB of shared memory)
    Cfg(dtype="float32", precision="ieee", block_n=128, block_k=32, stages=4, epi_n=128),
    Cfg(dtype="float32", precision="ieee", block_n=128, block_k=32, stages=4, epi_n=128, layout="tn"),
]


def gemm_cfg(cfg: Cfg):
    """The densela configuration of the warp-specialized kernel for ``cfg``."""
    from densela.tuning import GemmConfig

    split = cfg.block_n // cfg.epi_n if cfg.epi_n else 1
    return GemmConfig(cfg.block_m, cfg.block_n, cfg.block_k, cfg.group_m, 4, cfg.stages, "ws", epilogue_split=split,
                      pingpong=cfg.pingpong)  # fmt: skip


def launch(a, b, out, cfg: Cfg) -> None:
    """densela's warp-specialized path (operand copies included) with ``cfg``."""
    from densela.gemm import launch_gemm

    launch_gemm(a, b, None, out, 1.0, 0.0, cfg.precision if a.dtype.itemsize == 4 else "", cfg=gemm_cfg(cfg))


def _operands(n: int, layout: str, dtype, device):
    import torch

    g = torch.Generator(device=device).manual_seed(n)
    a = torch.randn(n, n, generator=g, device=device, dtype=dtype)
    b = torch.randn(n, n, generator=g, device=device, dtype=dtype)
    if layout[0] == "t":
        a = a.T.contiguous().T
    if layout[1] == "t":
        b = b.T.contiguous().T
    return a, b


def compile_offline(cfg: Cfg) -> dict:
    """Compiles for sm_90a without a GPU; shared memory, registers and spills."""
    import torch

    from densela.kernels.gemm_ws import compile_sm90

    dtype = getattr(torch, cfg.dtype)
    split3 = cfg.precision == "tf32x3" and dtype == torch.float32
    a_km, b_km = split3 or cfg.layout[0] == "n", split3 or cfg.layout[1] == "t"
    fma = cfg.precision == "ieee" and dtype == torch.float32
    return {"cfg": asdict(cfg), **compile_sm90(dtype, gemm_cfg(cfg), a_km, b_km, split3, fma=fma)}


def _time_one(cfg: Cfg, sizes: list[int], queue) -> None:
    import torch
    import triton

    import densela
    from densela.tuning import tune

    torch.cuda.set_device(0)
    dtype = getattr(torch, cfg.dtype)
    fp32 = dtype == torch.float32
    # cuBLAS baseline: TF32 tensor cores for "tf32", SGEMM (FMA) for "tf32x3" and "ieee", as issue 4 asks
    torch.backends.cuda.matmul.allow_tf32 = fp32 and cfg.precision == "tf32"
    rows = []
    for n in sizes:
        a, b = _operands(n, cfg.layout, dtype, "cuda")
        out = torch.full((n, n), float("nan"), device="cuda", dtype=dtype)
        launch(a, b, out, cfg)
        torch.cuda.synchronize()
        ref = a.double() @ b.double()
        err = ((out.double() - ref).norm() / ref.norm()).item()
        cublas_err = (((a @ b).double() - ref).norm() / ref.norm()).item()

        graph_ms = functools.partial(tune.graph_ms, rep_ms=200, quantiles=(0.5, 0.2, 0.8))
        kw = {"precision": cfg.precision} if fp32 else {}
        ws = graph_ms(functools.partial(launch, a, b, out, cfg))
        cublas = graph_ms(functools.partial(torch.matmul, a, b))
        dense = graph_ms(functools.partial(densela.matmul, a, b, **kw))
        flops = 2 * n**3
        rows.append(
            {
                "cfg": asdict(cfg), "n": n, "err": err, "cublas_err": cublas_err,
                "ws_ms": ws, "cublas_ms": cublas, "densela_ms": dense,
                "ws_tflops": flops / ws[0] / 1e9, "cublas_tflops": flops / cublas[0] / 1e9,
                "ws_vs_cublas": cublas[0] / ws[0], "densela_vs_cublas": cublas[0] / dense[0],
                "device": torch.cuda.get_device_name(0), "torch": torch.__version__, "triton": triton.__version__,
            }
        )  # fmt: skip
    queue.put(rows)


def time_all(sizes: list[int], configs: list[Cfg]) -> list[dict]:
    ctx = mp.get_context("spawn")
    records = []
    for cfg in configs:
        queue = ctx.Queue()
        proc = ctx.Process(target=_time_one, args=(cfg, sizes, queue))
        proc.start()
        proc.join(LIMIT_S)
        if proc.is_alive():
            proc.kill()
            rows = [{"cfg": asdict(cfg), "status": f"killed after {LIMIT_S:.0f} s"}]
        elif proc.exitcode != 0:
            rows = [{"cfg": asdict(cfg), "status": f"exit {proc.exitcode}"}]
        else:
            rows = queue.get()
        with open(os.path.join(OUT, "ws.jsonl"), "a") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
        records += rows
    return records


def main(argv: list[str]) -> None:
    if argv[:1] == ["compile"]:
        for cfg in CONFIGS:
            try:
                print(json.dumps(compile_offline(cfg)))
            except Exception as exc:  # report every configuration's failure, go on with the next
                print(json.dumps({"cfg": asdict(cfg), "error": f"{type(exc).__name__}: {exc}"[:2000]}))
        return
    picks = [int(x) for x in os.environ.get("WS_CONFIGS", "").split(",") if x]
    configs = [CONFIGS[i] for i in picks] if picks else CONFIGS
    sizes = [int(s) for s in argv[1:]] or [4096, 8192]
    records = time_all(sizes, configs)
    print(f"{'cfg':58} {'n':>5} {'ws/cuBLAS':>9} {'densela':>8} {'ws TF/s':>8} {'err':>8} {'cuBLAS err':>10}")
    for r in records:
        c = r["cfg"]
        precision = c["precision"] if c["dtype"] == "float32" else ""
        tile = f"{c['block_m']}x{c['block_n']}x{c['block_k']}"
        kind = "pp" if c["pingpong"] else "coop"
        name = f"{c['dtype']} {precision} {c['layout']} {tile} s{c['stages']} e{c['epi_n']} g{c['group_m']} {kind}"
        if "status" in r:
            print(f"{name:58} {r['status']}")
        else:
            print(
                f"{name:58} {r['n']:5d} {r['ws_vs_cublas']:9.3f} {r['densela_vs_cublas']:8.3f} "
                f"{r['ws_tflops']:8.0f} {r['err']:8.1e} {r['cublas_err']:10.1e}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
