"""Session 57: 3xTF32 mid-sized products through dl.matmul (the lab's measure) against cuBLAS's SGEMM, this tree."""
import json, os, sys
import torch
import densela as dl
from densela.bench.timing import time_gpu
label = sys.argv[1]
out = []
for n in (768, 1024, 1280, 1536, 2000):
    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    sg = time_gpu(lambda: torch.matmul(a, b), max_seconds=1).median_ms * 1e3
    x3 = time_gpu(lambda: dl.matmul(a, b, precision="tf32x3"), max_seconds=1).median_ms * 1e3
    c = dl.matmul(a, b, precision="tf32x3").double(); ref = a.double() @ b.double()
    err = float((c - ref).norm() / ref.norm()); sgerr = float((torch.matmul(a, b).double() - ref).norm() / ref.norm())
    out.append({"tree": label, "n": n, "sgemm_us": sg, "tf32x3_us": x3, "err": err, "sgemm_err": sgerr})
    print(f"{label:5s} n={n} sgemm {sg:7.1f} tf32x3 {x3:7.1f} ({sg / x3:.2f}x) err {err:.1e} (sgemm {sgerr:.1e})", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "x3lab.jsonl"), "a") as f:
    for r in out:
        f.write(json.dumps(r) + "\n")
