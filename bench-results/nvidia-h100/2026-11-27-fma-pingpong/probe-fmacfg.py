"""Probe (session 63): the float32 FMA consumer's K step and stages at 4096^3 and 8192^3 (stream-K on, as the launcher
decides): the tables' 128 x 128 x 32 in four stages against five and six stages (epilogue in two row slices) and K
steps of 64, the lab's measure, three rounds in rotated order, cuBLAS in each round. JSON lines to $OUT/probe-fmacfg.jsonl."""
import json, os
import torch
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C
from densela.bench.timing import time_gpu

cfgs = {"tables": C(128, 128, 32, 8, 8, 4, "ws", epilogue_split=1), "k32-5st": C(128, 128, 32, 8, 8, 5, "ws", epilogue_split=2),
        "k32-6st": C(128, 128, 32, 8, 8, 6, "ws", epilogue_split=2), "k64-3st": C(128, 128, 64, 8, 8, 3, "ws", epilogue_split=2),
        "k64-2st": C(128, 128, 64, 8, 8, 2, "ws", epilogue_split=1)}
rows = []
for n, layout in ((4096, "nn"), (4096, "tn"), (8192, "nn")):
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda") if layout[0] == "n" else torch.randn(n, n, device="cuda").T
    b = torch.randn(n, n, device="cuda")
    out = torch.empty(n, n, device="cuda")
    ref = a.double() @ b.double()
    names = ["cublas"] + list(cfgs)
    res = {k: [] for k in names}
    for r in range(3):
        for name in names[r % len(names):] + names[: r % len(names)]:
            if name == "cublas":
                call = lambda: torch.matmul(a, b, out=out)  # noqa: E731
            else:
                call = lambda cfg=cfgs[name]: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee", cfg=cfg)  # noqa: E731
            call()
            err = float((out.double() - ref).norm() / ref.norm())
            assert err < 1e-5, (name, err)
            res[name].append(time_gpu(call, max_seconds=0.6).median_ms * 1e3)
    line = {k: round(sorted(v)[1], 1) for k, v in res.items()}
    rows.append({"n": n, "layout": layout, "us": res})
    print(n, layout, line, flush=True)
    del a, b, out, ref
with open(os.path.join(os.environ.get("OUT", "."), "probe-fmacfg.jsonl"), "w") as fh:
    for r in rows:
        fh.write(json.dumps(r) + "\n")
