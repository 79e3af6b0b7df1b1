"""float64 on gemm_ws_kernel's DMMA consumers: errors against torch's float64 product (cuBLAS), poisoned outputs,
alpha/beta with C, transposed operands, every WS64 configuration on a few shapes."""
import importlib.util, sys, torch
spec = importlib.util.spec_from_file_location("ge", "scripts/gemm-explore.py"); ge = importlib.util.module_from_spec(spec)
sys.modules["ge"] = ge; spec.loader.exec_module(ge)
from densela.gemm import launch_gemm
torch.manual_seed(0)
bad = 0
for cfg in ge.WS64:
    for (m, n, k) in [(1000, 1002, 998), (130, 258, 66), (2048, 2048, 2048), (4096, 4096, 128)]:
        for ta, tb in [(False, False), (True, False), (False, True), (True, True)]:
            a = torch.randn(k, m, device="cuda", dtype=torch.float64).T if ta else torch.randn(m, k, device="cuda", dtype=torch.float64)
            b = torch.randn(n, k, device="cuda", dtype=torch.float64).T if tb else torch.randn(k, n, device="cuda", dtype=torch.float64)
            c = torch.randn(m, n, device="cuda", dtype=torch.float64)
            out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float64)
            launch_gemm(a, b, c, out, 0.1, -0.7, "ieee", cfg)
            ref = 0.1 * (a @ b) - 0.7 * c
            err = ((out - ref).norm() / ref.norm()).item()
            ok = err < 1e-14
            bad += not ok
            if not ok or (m, ta, tb) == (2048, False, False):
                print(tuple(cfg)[:7], cfg.epilogue_split, (m, n, k), ta, tb, f"err {err:.2e}", "ok" if ok else "BAD", flush=True)
print("ws64check bad", bad)
