"""Longer stress of float64 gemm_ws_kernel: the tables' 128 x 128 x 32 (two stages) and the K-16 configurations
(three and four stages; one check of 128 x 128 x 16 s3 at 8192^3 was 4.2e-5 off cuBLAS on 2026-11-26), at 8192^3 and
4096^3 on randn operands, each launch compared bit for bit with cuBLAS (the DMMA sums run in its order), and on
small-integer operands (exact)."""
import json, os, time
import torch
from densela.gemm import launch_gemm
from densela.tuning import GemmConfig
OUT = os.path.join(os.environ.get("OUT", "."), "ws64long.jsonl")
cfgs = [GemmConfig(128, 128, 32, 8, 4, 2, "ws", epilogue_split=2), GemmConfig(128, 128, 16, 8, 4, 3, "ws", epilogue_split=2),
        GemmConfig(128, 128, 16, 16, 4, 4, "ws", epilogue_split=2)]
torch.manual_seed(7)
t0 = time.time()
for n, reps in ((8192, 50), (4096, 150)):
    for kind in ("randn", "int"):
        if kind == "randn":
            a = torch.randn(n, n, device="cuda", dtype=torch.float64); b = torch.randn(n, n, device="cuda", dtype=torch.float64)
        else:
            a = torch.randint(-4, 5, (n, n), device="cuda").double(); b = torch.randint(-4, 5, (n, n), device="cuda").double()
        ref = a @ b
        for cfg in cfgs:
            bad_launches, worst = [], 0.0
            out = torch.empty(n, n, device="cuda", dtype=torch.float64)
            for rep in range(reps):
                out.fill_(float("nan"))
                launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg)
                cnt = int((out != ref).sum())
                if cnt:
                    err = float(((out - ref).norm() / ref.norm()))
                    bad_launches.append((rep, cnt, err)); worst = max(worst, err)
            row = dict(n=n, kind=kind, cfg=list(cfg)[:6], stages=cfg.num_stages, launches=reps,
                       unlike=len(bad_launches), first=bad_launches[:3], worst=worst)
            open(OUT, "a").write(json.dumps(row) + "\n")
            print(n, kind, tuple(cfg)[:6], "launches", reps, "unlike cuBLAS", len(bad_launches), bad_launches[:3], f"{time.time()-t0:.0f}s", flush=True)
