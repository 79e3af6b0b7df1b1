"""float64 gemm_ws_kernel on small-integer operands (every sum exact): any element unlike torch's is a fault.
Repeated launches per configuration at 8192^3 and 4096^3; mismatching elements counted by 128 x 128 tile."""
import importlib.util, sys, torch
spec = importlib.util.spec_from_file_location("ge", "scripts/gemm-explore.py"); ge = importlib.util.module_from_spec(spec)
sys.modules["ge"] = ge; spec.loader.exec_module(ge)
from densela.gemm import launch_gemm
torch.manual_seed(1)
for n in (8192, 4096):
    a = torch.randint(-4, 5, (n, n), device="cuda").double()
    b = torch.randint(-4, 5, (n, n), device="cuda").double()
    ref = a @ b
    for cfg in ge.WS64[:4] + ge.WS64[7:]:
        faults = []
        for rep in range(8):
            out = torch.full((n, n), float("nan"), device="cuda", dtype=torch.float64)
            launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg)
            torch.cuda.synchronize()
            bad = (out != ref)
            cnt = int(bad.sum())
            if cnt:
                idx = bad.nonzero()
                tiles = sorted({(int(i) // 128, int(j) // 128) for i, j in idx[:2000].tolist()})
                d = (out - ref)[bad]
                faults.append((rep, cnt, tiles[:6], float(d.abs().max()), int(torch.isnan(d).sum())))
        print(n, tuple(cfg)[:7], "es", cfg.epilogue_split, "faulty runs", len(faults), faults[:3], flush=True)
# alpha/beta in float64
a = torch.randn(1000, 998, device="cuda", dtype=torch.float64); b = torch.randn(998, 1002, device="cuda", dtype=torch.float64)
c = torch.randn(1000, 1002, device="cuda", dtype=torch.float64)
out = torch.full((1000, 1002), float("nan"), device="cuda", dtype=torch.float64)
launch_gemm(a, b, c, out, 0.1, -0.7, "ieee", ge.WS64[2])
ref = 0.1 * (a @ b) - 0.7 * c
print("alpha/beta err", float((out - ref).norm() / ref.norm()))
