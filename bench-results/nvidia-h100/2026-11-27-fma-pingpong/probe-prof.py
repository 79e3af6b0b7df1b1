"""Probe (session 63): GPU time by kernel (torch.profiler) of small products on the warp-specialized kernel against
the tables' choice: float32 FMA 256^3 and 512^3 split 4 / 8, float64 512^3 unsplit and split 4, and graph-replay
times beside. Prints per-kernel CUDA times."""
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C
from densela.tuning.tune import graph_ms
from torch.profiler import profile, ProfilerActivity

WS = C(128, 128, 32, 8, 8, 4, "ws", epilogue_split=1)
F64 = C(128, 64, 16, 8, 4, 4, "ws", epilogue_split=2)
cases = [(torch.float32, 512, None), (torch.float32, 512, WS._replace(split_k=8)), (torch.float32, 256, WS._replace(split_k=4)),
         (torch.float32, 2048, None), (torch.float64, 512, None), (torch.float64, 512, F64), (torch.float64, 512, F64._replace(split_k=4)),
         (torch.float64, 512, C(64, 64, 16, 8, 4, 4, "ws", epilogue_split=2, split_k=4))]
for dtype, n, cfg in cases:
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    out = torch.empty(n, n, device="cuda", dtype=dtype)
    call = lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg=cfg)  # noqa: E731
    try:
        call(); torch.cuda.synchronize()
        err = float((out.double() - a.double() @ b.double()).norm() / (a.double() @ b.double()).norm())
        g = graph_ms(call, rep_ms=30)[0] * 1e3
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(20):
                call()
            torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        print(dtype, n, cfg, type(e).__name__, str(e)[:200]); continue
    print(f"== {str(dtype)[6:]} {n}^3 {cfg.describe() if cfg else 'tables'}: graph {g:.1f} us, err {err:.1e}")
    for ev in prof.key_averages():
        if ev.device_type.name == "CUDA" or getattr(ev, "self_device_time_total", 0):
            t = getattr(ev, "device_time_total", None) or getattr(ev, "cuda_time_total", 0)
            if t:
                print(f"   {ev.key[:70]:70s} {t / ev.count:8.1f} us x {ev.count}")
