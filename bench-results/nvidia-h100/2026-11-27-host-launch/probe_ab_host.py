"""Session 57: host time per call and the lab's measure, this process's densela tree (PYTHONPATH) -- A/B of the
direct launches (_launch._Direct)."""
import json, os, sys, functools
import torch
import densela as dl
from densela.bench.timing import time_gpu, host_us

label = sys.argv[1]
dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = True
g = torch.Generator(device=dev).manual_seed(0)
def r(*shape, dtype=torch.float32):
    return torch.randn(*shape, device=dev, dtype=dtype, generator=g)
cases = {
    "tf32 1000 tn": (lambda: dl.matmul(A1t, B1, precision="tf32")),
    "tf32 1000 nt": (lambda: dl.matmul(A1, B1t, precision="tf32")),
    "tf32 1000 nn": (lambda: dl.matmul(A1, B1, precision="tf32")),
    "bf16 1000 nn": (lambda: dl.matmul(H1, H2)),
    "bf16 256 nn": (lambda: dl.matmul(S1, S2)),
    "f64 1300x650x1300": (lambda: dl.matmul(D1, D2)),
    "f32 5000x50x5000": (lambda: dl.matmul(T1, T2, precision="ieee")),
    "bf16 4096 nn": (lambda: dl.matmul(L1, L2)),
    "lu 1000x8x8 f64": (lambda: dl.lu_factor(U1, check_finite=False)),
    "lu 10000x16x16 f64": (lambda: dl.lu_factor(U2, check_finite=False)),
}
A1, B1 = r(1000, 1000), r(1000, 1000)
A1t, B1t = r(1000, 1000).T, r(1000, 1000).T
H1, H2 = r(1000, 1000, dtype=torch.bfloat16), r(1000, 1000, dtype=torch.bfloat16)
S1, S2 = r(256, 256, dtype=torch.bfloat16), r(256, 256, dtype=torch.bfloat16)
D1, D2 = r(1300, 650, dtype=torch.float64), r(650, 1300, dtype=torch.float64)
T1, T2 = r(5000, 50), r(50, 5000)
L1, L2 = r(4096, 4096, dtype=torch.bfloat16), r(4096, 4096, dtype=torch.bfloat16)
U1, U2 = r(1000, 8, 8, dtype=torch.float64), r(10000, 16, 16, dtype=torch.float64)
out = []
for name, fn in cases.items():
    fn()
    row = {"tree": label, "case": name, "host_us": host_us(fn, 500), "lab_us": time_gpu(fn, max_seconds=1).median_ms * 1e3}
    out.append(row)
    print(f"{label:5s} {name:20s} host {row['host_us']:7.1f} lab {row['lab_us']:8.1f}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "ab-host.jsonl"), "a") as f:
    for row in out:
        f.write(json.dumps(row) + "\n")
