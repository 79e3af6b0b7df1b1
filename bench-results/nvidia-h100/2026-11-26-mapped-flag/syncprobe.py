"""How to read the batched LU's info back fastest: per-call host time of the read-back after lu_factor_ex, and
the lab measure (do_bench with the L2 flushed) of lu_factor with each read-back, against torch's lu_factor."""
import importlib, json, os, statistics, time
from functools import partial
import numpy as np
import torch, triton, triton.language as tl
import densela as dl
from densela.bench.timing import time_gpu
LU = importlib.import_module("densela.lu")
OUT = os.path.join(os.environ.get("OUT", "."), "syncprobe.jsonl")

@triton.jit
def flag_kernel(info_ptr, n, host_ptr, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.int32)
    for s in range(0, n, BLOCK):
        offs = s + tl.arange(0, BLOCK)
        v = tl.load(info_ptr + offs, mask=offs < n, other=0)
        acc = tl.maximum(acc, (v != 0).to(tl.int32))
    tl.store(host_ptr, 1 + tl.max(acc))

pinned = torch.zeros(16, dtype=torch.int32, pin_memory=True)
view = pinned.numpy()
ev = torch.cuda.Event()

ORIG = LU._first_singular
def current(info):
    return ORIG(info)

def sync_only(info):
    torch.cuda.synchronize()
    return None

def event_sync(info):
    host = pinned[: info.numel()] if info.numel() <= 16 else torch.empty(info.numel(), dtype=torch.int32, pin_memory=True)
    host.copy_(info, non_blocking=True); ev.record(); ev.synchronize()
    return None

big = torch.empty(20000, dtype=torch.int32, pin_memory=True)
def event_spin(info):
    host = big[: info.numel()]
    host.copy_(info, non_blocking=True); ev.record()
    while not ev.query():
        pass
    z = host.numpy().nonzero()[0]
    return None if not len(z) else 1

def mapped(info):
    view[0] = 0
    flag_kernel[(1,)](info, info.numel(), pinned, BLOCK=1024)
    t0 = time.perf_counter()
    while view[0] == 0:
        if time.perf_counter() - t0 > 1.0:
            torch.cuda.synchronize()
            raise RuntimeError("flag never came")
    return None if view[0] == 1 else 1

methods = dict(current=current, sync_only=sync_only, event_sync=event_sync, event_spin=event_spin, mapped=mapped)
rows = []
for count, n, dtype in [(1000, 8, torch.float64), (1000, 8, torch.float32), (10000, 8, torch.float64),
                        (10000, 8, torch.float32), (1000, 16, torch.float64), (1000, 64, torch.float64)]:
    a = torch.randn(count, n, n, dtype=dtype, device="cuda")
    torch.backends.cuda.preferred_linalg_library("cusolver")
    torch_lab = time_gpu(partial(torch.linalg.lu_factor, a), max_seconds=1).median_ms * 1e3
    torch.backends.cuda.preferred_linalg_library("default")
    # correctness of the mapped flag: a singular batch must report it
    s = a.clone(); s[count // 2, :, 0] = 0
    _, _, info_s = dl.lu_factor_ex(s)
    mapped_ok = mapped(info_s) == 1 and mapped(dl.lu_factor_ex(a)[2]) is None
    row = dict(count=count, n=n, dtype=str(dtype)[6:], torch_lab=torch_lab, mapped_ok=mapped_ok)
    for name, fn in methods.items():
        for _ in range(20):
            fn(dl.lu_factor_ex(a)[2])
        launch, back = [], []
        for _ in range(300):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            info = dl.lu_factor_ex(a)[2]
            t1 = time.perf_counter()
            fn(info)
            t2 = time.perf_counter()
            launch.append((t1 - t0) * 1e6); back.append((t2 - t1) * 1e6)
        orig = LU._first_singular
        LU._first_singular = fn
        try:
            lab = time_gpu(partial(dl.lu_factor, a, check_finite=False), max_seconds=1).median_ms * 1e3
        finally:
            LU._first_singular = orig
        row[name] = dict(launch=statistics.median(launch), back=statistics.median(back), lab=lab, ratio=torch_lab / lab)
    rows.append(row)
    with open(OUT, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(count, n, row["dtype"], f"torch {torch_lab:.1f}", "mapped_ok", mapped_ok, flush=True)
    for name in methods:
        r = row[name]
        print(f"   {name:11s} launch {r['launch']:.1f} back {r['back']:.1f} lab {r['lab']:.1f} ratio {r['ratio']:.2f}", flush=True)
