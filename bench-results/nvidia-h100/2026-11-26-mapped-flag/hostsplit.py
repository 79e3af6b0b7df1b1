"""Where the host time of one lu_factor call on a small batch goes (medians over 2000 calls, GPU idle at each start):
prepare, factor (the replayed launch), the flag kernel's launch, the poll, the rest."""
import importlib, statistics, time, sys
import torch
import densela as dl
LU = importlib.import_module("densela.lu")
marks = {}
def wrap(name, fn):
    def w(*a, **k):
        t = time.perf_counter_ns(); r = fn(*a, **k); marks[name] = marks.get(name, 0) + time.perf_counter_ns() - t; return r
    return w
LU.prepare = wrap("prepare", LU.prepare)
LU.factor = wrap("factor", LU.factor)
any_launch = LU._ANY
class L:
    def __call__(self, *a, **k):
        t = time.perf_counter_ns(); any_launch(*a, **k); marks["flag launch"] = marks.get("flag launch", 0) + time.perf_counter_ns() - t
LU._ANY = L()
LU._any_singular = wrap("any_singular", LU._any_singular)
for count, n, dtype in [(1000, 8, torch.float64), (10000, 8, torch.float64), (1000, 16, torch.float64), (1000, 8, torch.float32)]:
    a = torch.randn(count, n, n, dtype=dtype, device="cuda")
    for _ in range(50):
        dl.lu_factor(a, check_finite=False)
    rows = {}
    for _ in range(2000):
        torch.cuda.synchronize()
        marks.clear()
        t = time.perf_counter_ns()
        dl.lu_factor(a, check_finite=False)
        total = time.perf_counter_ns() - t
        rows.setdefault("total", []).append(total)
        for k, v in marks.items():
            rows.setdefault(k, []).append(v)
    med = {k: statistics.median(v) / 1e3 for k, v in rows.items()}
    med["poll (any_singular - flag launch)"] = med["any_singular"] - med["flag launch"]
    print(count, n, str(dtype)[6:], " ".join(f"{k}={v:.1f}" for k, v in med.items()), flush=True)
