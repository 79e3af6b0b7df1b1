"""Session 57: which launches take _launch._Direct, and the host time of one launch each way."""
import gc, time
import torch
import densela as dl
from densela import _launch

dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = True
A1t, B1 = torch.randn(1000, 1000, device=dev).T, torch.randn(1000, 1000, device=dev)
H1, H2 = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16), torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
U1 = torch.randn(1000, 8, 8, dtype=torch.float64, device=dev)
for _ in range(3):
    dl.matmul(A1t, B1, precision="tf32"); dl.matmul(H1, H2); dl.lu_factor(U1, check_finite=False)
torch.cuda.synchronize()
def per_call(fn, n=3000):
    for _ in range(100):
        fn()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6
for l in [o for o in gc.get_objects() if isinstance(o, _launch.Launcher)]:
    for key, entry in l.compiled.items():
        c, t, d = entry
        run = c.run
        print(l.kernel.__name__ if hasattr(l.kernel, "__name__") else l.kernel, "direct", d is not None,
              "descs", None if d is None else len(d.descriptors), "gscratch", getattr(run, "global_scratch_size", "?"),
              "pscratch", getattr(run, "profile_scratch_size", "?"), "launch", type(run.launch).__name__)
# one recorded launch of each plan, timed both ways
for key, plan in list(_launch.PLANS.items()):
    if plan is None:
        continue
    print("plan", key[0], [lr[0].__self__.kernel.__name__ if hasattr(lr[0].__self__.kernel, '__name__') else '?' for lr in plan.launches])
import densela.gemm
G = __import__("importlib").import_module("densela.gemm")
for name in ("_WS", "_TMA", "_TILES"):
    l = getattr(G, name)
    for key, entry in l.compiled.items():
        c, t, d = entry
        print(name, "entry", d is not None)
