"""Session 57: 3xTF32 mid-sized products (below WS_MIN_WORK: _GEMM_MEDIUM's tiles) on a few tilings, GPU time of
graph replays; cuBLAS SGEMM beside."""
import importlib, json, os
import torch
from densela.tuning import GemmConfig, gemm_config
from densela.tuning.tune import graph_ms
G = importlib.import_module("densela.gemm")
cands = [None, GemmConfig(64, 64, 32, 8, 4, 3), GemmConfig(64, 64, 64, 8, 4, 3), GemmConfig(64, 128, 32, 8, 4, 3),
         GemmConfig(128, 64, 32, 8, 4, 3), GemmConfig(64, 64, 32, 8, 4, 4), GemmConfig(128, 128, 32, 8, 8, 3),
         GemmConfig(64, 64, 32, 8, 8, 3)]
rows = []
for n in (768, 1024, 1280, 1536, 2000):
    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    o = torch.empty(n, n, device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    sgemm = 1e3 * graph_ms(lambda: torch.matmul(a, b, out=o))[0]
    line = [f"n={n} sgemm {sgemm:.1f} default {gemm_config(n, n, n, torch.float32, 'tf32x3')[:8]}"]
    for cfg in cands:
        try:
            t = 1e3 * graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "tf32x3", cfg=cfg))[0]
        except Exception as e:  # noqa: BLE001
            line.append(f"{cfg and tuple(cfg[:6])}: {type(e).__name__}"); continue
        rows.append({"n": n, "cfg": None if cfg is None else list(cfg), "us": t, "sgemm_us": sgemm})
        line.append(f"{'default' if cfg is None else tuple(cfg[:6])}: {t:.1f} ({sgemm / t:.2f}x)")
    print("\n  ".join(line), flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "x3mid.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
