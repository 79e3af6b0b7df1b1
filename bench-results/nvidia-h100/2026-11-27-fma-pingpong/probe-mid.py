"""Probe (session 63): float32 FMA products of 256^3 .. 1500^3 on the warp-specialized kernel split along K against
the tables' choice (tiles kernel) and cuBLAS, GPU time of CUDA-graph replays (tune.graph_ms), four operand orders. JSON lines to $OUT/probe-mid.jsonl."""
import functools, json, os
import torch
import densela as dl
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C, gemm_config
from densela.tuning.tune import graph_ms

WS = C(128, 128, 32, 8, 8, 4, "ws", epilogue_split=1)
rows = []
for n, splits in [(256, (4, 8)), (512, (4, 8)), (768, (2, 4)), (1000, (2, 3, 4)), (1500, (1, 2))]:
    for layout in ("nn", "nt", "tn", "tt"):
        torch.manual_seed(0)
        a = torch.randn(n, n, device="cuda") if layout[0] == "n" else torch.randn(n, n, device="cuda").T
        b = torch.randn(n, n, device="cuda") if layout[1] == "n" else torch.randn(n, n, device="cuda").T
        out = torch.full((n, n), float("nan"), device="cuda")
        ref = a.double() @ b.double()
        for cfg in ["cublas", None] + [WS._replace(split_k=s) for s in splits]:
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
                us = graph_ms(call, rep_ms=40)[0] * 1e3
            except Exception as e:  # noqa: BLE001
                print(f"{n} {layout} {cfg}: {type(e).__name__}: {str(e)[:300]}", flush=True)
                continue
            name = "cublas" if cfg == "cublas" else ("tables " + gemm_config(n, n, n, torch.float32, "ieee", batch=1, device=0, tma=True).describe() if cfg is None else f"ws split {cfg.split_k}")
            rows.append({"n": n, "layout": layout, "cfg": name, "us": us, "err": err})
            print(f"{n:5d} {layout} {name:60s} {us:8.1f} us  err {err:.1e}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-mid.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
