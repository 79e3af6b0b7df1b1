"""Probe (session 64): products with few output tiles and a long K split along K, forced configurations and the
tables', GPU time of CUDA-graph replays (tune.graph_ms), against cuBLAS; and (group "tf32thin") TF32 products with a
short K by the tables. Run once per source tree (PYTHONPATH); the tree's name is argv[1]. JSON lines to
$OUT/probe-split-<tree>.jsonl."""
import json, os, sys
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C, gemm_config
from densela.tuning.tune import graph_ms

tree, groups = sys.argv[1], sys.argv[2].split(",")
W = "ws"
bf16_cfgs = [C(64, 64, 128, 8, 4, 3, split_k=2), C(64, 64, 128, 8, 4, 3, split_k=4),
             C(128, 128, 64, 8, 4, 4, W, split_k=2), C(128, 128, 64, 8, 4, 4, W, split_k=4),
             C(128, 256, 64, 16, 4, 3, W, epilogue_split=4, split_k=4)]
fma_cfgs = [C(128, 128, 32, 8, 8, 4, W, split_k=s) for s in (2, 4, 8)] + [C(64, 64, 32, 8, 4, 3, split_k=4)]
cases = []
if "split" in groups:
    for shape in [(128, 4096, 4096), (256, 4096, 4096), (256, 256, 8192), (4096, 64, 8192), (64, 4096, 4096)]:
        cases.append((torch.bfloat16, None, shape, bf16_cfgs))
    for shape in [(128, 4096, 4096), (256, 256, 8192), (4096, 64, 8192)]:
        cases.append((torch.float32, "ieee", shape, fma_cfgs))
if "tf32thin" in groups:
    for shape in [(4096, 4096, 32), (8192, 8192, 48), (5000, 5000, 50), (8192, 8192, 56), (12288, 12288, 64),
                  (20480, 20480, 64)]:
        cases.append((torch.float32, "tf32", shape, []))
rows = []
for dtype, precision, (m, n, k), cfgs in cases:
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda").to(dtype)
    b = torch.randn(k, n, device="cuda").to(dtype)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
    ref = a.double() @ b.double()
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    for cfg in ["cublas", None] + cfgs:
        if cfg == "cublas":
            call = lambda: torch.matmul(a, b, out=out)  # noqa: E731
        else:
            call = lambda cfg=cfg: G.launch_gemm(a, b, None, out, 1.0, 0.0, precision or "ieee", cfg=cfg)  # noqa: E731
        try:
            out.fill_(float("nan"))
            call()
            err = float((out.double() - ref).norm() / ref.norm())
            us = graph_ms(call, rep_ms=40)[0] * 1e3
        except Exception as e:  # noqa: BLE001
            print(f"{m}x{n}x{k} {cfg}: {type(e).__name__}: {str(e)[:200]}", flush=True)
            continue
        name = "cublas" if cfg == "cublas" else ("tables " + gemm_config(m, n, k, dtype, precision, batch=1, device=0, tma=True).describe() if cfg is None else cfg.describe())
        rows.append({"tree": tree, "shape": [m, n, k], "dtype": str(dtype), "precision": precision, "cfg": name, "us": us, "err": err})
        print(f"{tree:5s} {m}x{n}x{k} {str(dtype)[6:]:8s} {precision or '':5s} {name:62s} {us:7.1f} us  err {err:.1e}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), f"probe-split-{tree}.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
