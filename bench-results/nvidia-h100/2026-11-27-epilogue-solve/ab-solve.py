"""A/B helper: lu_solve (one right-hand side and 8) and a refined solve, the lab's measure; run once per tree
(PYTHONPATH). Prints one line per case, JSON lines appended to $OUT/ab-solve.jsonl with the tree's label (argv[1])."""
import functools, json, os, sys
import torch
import densela as dl
from densela.bench.timing import time_gpu, kernel_times

label = sys.argv[1]
rows = []
for n in (8192,):
    for dtype in (torch.float64, torch.float32):
        torch.manual_seed(0)
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        lu, piv = dl.lu_factor(a)
        for k in (1,):
            b = torch.randn(n, k, device="cuda", dtype=dtype) if k > 1 else torch.randn(n, device="cuda", dtype=dtype)
            for check in (True, False):
                fn = functools.partial(dl.lu_solve, (lu, piv), b, check_finite=check)
                x = fn()
                res = float((a.double() @ x.double() - b.double()).norm() / (a.double().norm() * x.double().norm()))
                us = time_gpu(fn, max_seconds=0.6).median_ms * 1e3
                gpu = sum(sum(v) for v in kernel_times(fn).values())
                case = f"lu_solve {n} {str(dtype)[6:]} k={k} check={check}"
                rows.append({"tree": label, "case": case, "us": us, "gpu_us": gpu, "residual": res})
                print(f"{label:6s} {case:45s} {us:8.1f} us (kernels {gpu:8.1f})  residual {res:.1e}", flush=True)
            if k == 1 and check:
                tlu, tpiv = torch.linalg.lu_factor(a)
                us = time_gpu(functools.partial(torch.linalg.lu_solve, tlu, tpiv, b.unsqueeze(1)), max_seconds=0.6).median_ms * 1e3
                print(f"{label:6s} {'torch ' + case:45s} {us:8.1f} us", flush=True)
n = 8192
torch.manual_seed(0)
a = torch.randn(n, n, device="cuda", dtype=torch.float64) + n ** 0.5 * torch.eye(n, device="cuda", dtype=torch.float64)
b = torch.randn(n, device="cuda", dtype=torch.float64)
for refine in ("fp32",):
    fn = functools.partial(dl.solve_ex, a, b, refine=refine)
    x, info = fn()
    us = time_gpu(fn, max_seconds=1).median_ms * 1e3
    case = f"solve {n} refine={refine}"
    rows.append({"tree": label, "case": case, "us": us, "info": str(info)})
    print(f"{label:6s} {case:45s} {us:8.1f} us  {info}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "ab-solve.jsonl"), "a") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
