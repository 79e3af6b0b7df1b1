"""Probe: float32 FMA thin products on forced configurations against the tables' choice and cuBLAS (lab's measure:
time_gpu after an L2 flush), row-major operands. Prints one line per case; JSON lines to $OUT/probe-cfg.jsonl."""
import functools, json, os, sys
import torch
import densela as dl
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig, gemm_config
from densela.bench.timing import time_gpu

WS = GemmConfig(128, 128, 32, 8, 8, 4, "ws", epilogue_split=1)
WS16 = GemmConfig(128, 128, 16, 8, 8, 6, "ws", epilogue_split=1)
cases = {
    (256, 256, 8192): [WS._replace(split_k=s) for s in (8, 16, 32)],
    (128, 4096, 4096): [WS._replace(split_k=s) for s in (2, 4, 8)],
    (4096, 64, 8192): [WS._replace(split_k=s) for s in (2, 4, 8)],
    (2500, 2500, 25): [GemmConfig(64, 64, 32, 8, 4, 2), GemmConfig(64, 128, 16, 8, 4, 2), GemmConfig(128, 64, 16, 8, 4, 2), GemmConfig(64, 64, 16, 8, 8, 2)],
}
T = GemmConfig(64, 64, 128, 8, 4, 3)
cases16 = {
    (128, 4096, 4096): [T._replace(split_k=s) for s in (2, 4)] + [T._replace(block_n=128, split_k=s) for s in (2, 4)]
    + [GemmConfig(128, 64, 128, 8, 8, 3, split_k=s) for s in (2, 4)] + [GemmConfig(128, 128, 64, 8, 8, 3, split_k=s) for s in (2, 4)],
    (256, 256, 8192): [T._replace(split_k=s, num_stages=ns) for s in (4, 8, 16) for ns in (3, 4)],
}
rows = []
for (m, n, k), cfgs, dtype in [(s, c, torch.float32) for s, c in cases.items()] + [(s, c, torch.bfloat16) for s, c in cases16.items()]:
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda").to(dtype)
    b = torch.randn(k, n, device="cuda").to(dtype)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
    ref = a.double() @ b.double()
    def run(cfg):
        out.fill_(float("nan"))
        if cfg is None:
            call = functools.partial(dl.matmul, a, b, out=out, precision="ieee" if dtype == torch.float32 else None)
        elif cfg == "cublas":
            call = functools.partial(torch.matmul, a, b, out=out)
        else:
            call = functools.partial(G.launch_gemm, a, b, None, out, 1.0, 0.0, "ieee", cfg=cfg)
        call()
        err = float((out.double() - ref).norm() / ref.norm())
        return time_gpu(call, max_seconds=0.4).median_ms * 1e3, err
    base = gemm_config(m, n, k, dtype, "ieee" if dtype == torch.float32 else None, batch=1, device=0, tma=True)
    line = [f"{m}x{n}x{k}"]
    for cfg in ["cublas", None] + cfgs:
        try:
            us, err = run(cfg)
        except Exception as e:  # noqa: BLE001
            print(f"  {cfg}: {type(e).__name__}: {str(e)[:200]}", flush=True)
            continue
        name = "cublas" if cfg == "cublas" else ("tables " + str(tuple(base)) if cfg is None else str(tuple(cfg)))
        rows.append({"shape": [m, n, k], "dtype": str(dtype), "cfg": name, "us": us, "err": err})
        print(f"{m}x{n}x{k} {str(dtype)[6:]} {name:70s} {us:8.1f} us  err {err:.1e}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-cfg.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
