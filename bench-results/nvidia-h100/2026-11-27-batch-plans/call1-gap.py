"""Session 54: where the lab's time of batched LU goes beyond lu_factor_ex's GPU time (graph vs eager)."""
import json, os, time, functools
import torch
import densela as dl
import densela.lu as LU
from densela.bench.timing import time_gpu, host_us

OUT = os.environ.get("OUT", ".")
rows = []
def t(fn):
    return time_gpu(fn, max_seconds=1.0).median_ms * 1e3
for b, n, dt in ((1000, 128, torch.float64), (1000, 64, torch.float64), (1000, 128, torch.float32), (10000, 8, torch.float32), (10000, 128, torch.float64)):
    torch.manual_seed(0)
    x = torch.randn(b, n, n, device="cuda", dtype=dt)
    for mode in ("default", "eager"):
        LU.EAGER_BATCH_BYTES = (192 << 20) if mode == "default" else 0
        lab = functools.partial(dl.lu_factor, x, check_finite=False)
        ex = functools.partial(dl.lu_factor_ex, x)
        for _ in range(3):
            lab(); ex()
        torch.cuda.synchronize()
        r = dict(case=f"{b}x{n} {str(dt)[6:]}", mode=mode, lab=t(lab), ex=t(ex), host_lab=host_us(lab, 50), host_ex=host_us(ex, 50))
        if mode == "default":
            tc = functools.partial(torch.linalg.lu_factor, x)
            r["torch"] = t(tc)
        rows.append(r)
        print(json.dumps(r), flush=True)
json.dump(rows, open(f"{OUT}/gap.json", "w"))
print(f"{'case':20s} {'mode':8s} {'lab':>8s} {'ex':>8s} {'hostlab':>8s} {'hostex':>8s} {'torch':>8s}")
for r in rows:
    print(f"{r['case']:20s} {r['mode']:8s} {r['lab']:8.1f} {r['ex']:8.1f} {r['host_lab']:8.1f} {r['host_ex']:8.1f} {r.get('torch', 0):8.1f}")
