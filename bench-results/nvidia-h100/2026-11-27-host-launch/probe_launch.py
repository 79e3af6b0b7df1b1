"""Session 57: host time of one launch through Launcher.run with and without _launch._Direct (the same recorded
arguments), alternated."""
import statistics, time, importlib
import torch
import densela as dl
from densela import _launch

dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = True
G = importlib.import_module("densela.gemm")
L = importlib.import_module("densela.lu")
A1t, B1 = torch.randn(1000, 1000, device=dev).T, torch.randn(1000, 1000, device=dev)
H1, H2 = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16), torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
U1 = torch.randn(1000, 8, 8, dtype=torch.float64, device=dev)
captured = {}
orig = _launch.Launcher.run
def spy(self, entry, grid, args, kwargs):
    captured.setdefault(self.kernel.__name__, []).append((self, entry, grid, tuple(args), kwargs))
    return orig(self, entry, grid, args, kwargs)
for _ in range(3):
    dl.matmul(A1t, B1, precision="tf32"); dl.matmul(H1, H2); dl.lu_factor(U1, check_finite=False)
torch.cuda.synchronize()
_launch.Launcher.run = spy
import densela.tuning; densela.tuning.clear_cache()
dl.matmul(A1t, B1, precision="tf32"); dl.matmul(H1, H2); dl.lu_factor(U1, check_finite=False)
_launch.Launcher.run = orig
torch.cuda.synchronize()
def per_call(fn, n=2000):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    dt = (time.perf_counter() - t) / n * 1e6
    torch.cuda.synchronize()
    return dt
for name, calls in captured.items():
    for i, (l, entry, grid, args, kwargs) in enumerate(calls):
        off = (entry[0], entry[1], None)
        ons, offs = [], []
        for _ in range(7):
            offs.append(per_call(lambda: l.run(off, grid, args, kwargs)))
            ons.append(per_call(lambda: l.run(entry, grid, args, kwargs)))
        d = entry[2]
        print(f"{name:24s} #{i} descs {0 if d is None else len(d.descriptors)} one launch, us (median of 7 x 2000): "
              f"compiled.run {statistics.median(offs):6.2f}  direct {statistics.median(ons):6.2f}", flush=True)
