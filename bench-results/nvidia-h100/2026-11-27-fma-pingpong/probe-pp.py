"""Probe (session 63): float32 FMA products on the warp-specialized kernel, its one consumer group of eight warps
(the tables) against ping-pong groups of four (FMA_PINGPONG_BLOCK from $PP_BLOCK), the lab's measure (time_gpu after
an L2 flush), row-major operands, cuBLAS in the same run. One line per case; JSON lines to $OUT/probe-pp-$PP_BLOCK.jsonl."""
import functools, json, os
import torch
import densela as dl
import densela.kernels.gemm_ws as W
import importlib
W.FMA_PINGPONG_BLOCK = tuple(map(int, os.environ.get("PP_BLOCK", "16x8").split("x")))
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C, gemm_config
from densela.bench.timing import time_gpu

PP = [C(128, 128, 32, 8, 4, 3, "ws", epilogue_split=1, pingpong=True),
      C(128, 128, 32, 8, 4, 4, "ws", epilogue_split=2, pingpong=True)]
PP16 = [C(128, 128, 16, 8, 4, 5, "ws", epilogue_split=1, pingpong=True),
        C(128, 128, 16, 8, 4, 6, "ws", epilogue_split=2, pingpong=True)]
shapes = [(4096, 4096, 32), (8192, 8192, 48), (12288, 12288, 64), (20480, 20480, 32), (20480, 20480, 64),
          (16384, 16384, 96), (20480, 20480, 128), (5000, 5000, 50), (3600, 3600, 36), (2500, 2500, 25),
          (2048, 2048, 2048), (4096, 4096, 4096)]
rows = []
tag = os.environ.get("PP_BLOCK", "16x8")
for m, n, k in shapes:
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda")
    b = torch.randn(k, n, device="cuda")
    out = torch.full((m, n), float("nan"), device="cuda")
    ref = a.double() @ b.double()
    cfgs = ["cublas", None] + (PP16 if 0 < k % 32 <= 16 else PP)
    if tag != "16x8":
        cfgs = cfgs[2:]
    for cfg in cfgs:
        if cfg == "cublas":
            call = functools.partial(torch.matmul, a, b, out=out)
        elif cfg is None:
            call = functools.partial(dl.matmul, a, b, out=out, precision="ieee")
        else:
            call = functools.partial(G.launch_gemm, a, b, None, out, 1.0, 0.0, "ieee", cfg=cfg)
        try:
            out.fill_(float("nan"))
            call()
            err = float((out.double() - ref).norm() / ref.norm())
            us = time_gpu(call, max_seconds=0.4).median_ms * 1e3
        except Exception as e:  # noqa: BLE001
            print(f"{m}x{n}x{k} {cfg}: {type(e).__name__}: {str(e)[:300]}", flush=True)
            continue
        name = "cublas" if cfg == "cublas" else ("tables " + str(tuple(gemm_config(m, n, k, torch.float32, "ieee", batch=1, device=0, tma=True))) if cfg is None else f"pp{tag} " + str(tuple(cfg)))
        rows.append({"shape": [m, n, k], "cfg": name, "us": us, "err": err})
        print(f"{m}x{n}x{k:<5} {name:78s} {us:9.1f} us  err {err:.1e}", flush=True)
    del a, b, out, ref
    torch.cuda.empty_cache()
with open(os.path.join(os.environ.get("OUT", "."), f"probe-pp-{tag}.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
