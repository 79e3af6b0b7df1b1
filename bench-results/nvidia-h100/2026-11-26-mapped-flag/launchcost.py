"""Host cost of the pieces of a small batched lu_factor: the flag kernel's launch through the Launcher, through its
compiled entry with tensors, with integer pointers; torch.empty_strided; the factor's replay key and plan call."""
import importlib, statistics, time
import torch
import densela as dl
LU = importlib.import_module("densela.lu")
LA = importlib.import_module("densela._launch")
def us(fn, n=3000):
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        t = time.perf_counter_ns(); fn(); ts.append(time.perf_counter_ns() - t)
    torch.cuda.synchronize()
    return statistics.median(ts) / 1e3
a = torch.randn(1000, 8, 8, dtype=torch.float64, device="cuda")
lu, piv, info = dl.lu_factor_ex(a)
flag = torch.zeros(1, dtype=torch.int32, pin_memory=True)
dflag = torch.zeros(1, dtype=torch.int32, device="cuda")
L = LU._ANY
L((1,), info, info.numel(), flag, BLOCK=1024)
entry = next(iter(L.compiled.values()))
kw = {"BLOCK": 1024}
print("launcher, pinned flag      ", us(lambda: L((1,), info, info.numel(), flag, BLOCK=1024)))
print("launcher, device flag      ", us(lambda: L((1,), info, info.numel(), dflag, BLOCK=1024)))
print("entry, tensors (pinned)    ", us(lambda: L.run(entry, (1,), (info, info.numel(), flag), kw)))
pi, pf = info.data_ptr(), flag.data_ptr()
print("entry, int pointers        ", us(lambda: L.run(entry, (1,), (pi, 1000, pf), kw)))
print("empty_strided x3           ", us(lambda: [torch.empty_strided((1000, 8, 8), (64, 1, 8), dtype=torch.float64, device="cuda"), torch.empty_strided((1000, 8), (8, 1), dtype=torch.int32, device="cuda"), torch.empty_strided((1000,), (1,), dtype=torch.int32, device="cuda")]))
print("lu_factor_ex               ", us(lambda: dl.lu_factor_ex(a)))
key = LA.replay_key("lu_factor", (), (None,), (a,), None)
print("replay_key                 ", us(lambda: LA.replay_key("lu_factor", (), (None,), (a,), None)))
plan = [p for k, p in LA.PLANS.items() if k and k[0] == "lu_factor"][0]
print("plan(a)                    ", us(lambda: plan(a)))
print("torch sync (idle)          ", us(lambda: torch.cuda.synchronize()))
print("current_stream+raw         ", us(lambda: torch._C._cuda_getCurrentRawStream(torch._C._cuda_getDevice())))
