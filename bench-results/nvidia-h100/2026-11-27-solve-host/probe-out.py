"""Probe (session 60): host time of densela.matmul at 128^3 float32 with and without out= (written() marks out on
every replay since 0e34634), against torch.matmul."""
import torch
import densela as dl
from densela.bench.timing import host_us

torch.manual_seed(0)
a, b = torch.randn(128, 128, device="cuda"), torch.randn(128, 128, device="cuda")
out = torch.empty(128, 128, device="cuda")
for name, fn in (("densela", lambda: dl.matmul(a, b)), ("densela out=", lambda: dl.matmul(a, b, out=out)),
                 ("torch", lambda: torch.matmul(a, b)), ("torch out=", lambda: torch.matmul(a, b, out=out))):
    fn()
    print(f"{name:14s} host {min(host_us(fn, calls=2000) for _ in range(5)):6.2f} us per call (best of 5)", flush=True)
