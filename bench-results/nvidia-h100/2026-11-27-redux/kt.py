"""GPU time by kernel of lu_factor_ex on batches through the blocked path (H100)."""
import os, json, torch
import densela as dl
from densela.bench.timing import kernel_times, time_gpu
out = os.environ["OUT"]
res = {}
for b, n, dt in ((1000, 128, torch.float64), (10000, 128, torch.float64), (1000, 128, torch.float32), (1000, 64, torch.float64)):
    x = torch.randn(b, n, n, device="cuda", dtype=dt)
    for _ in range(3):
        dl.lu_factor_ex(x)
    torch.cuda.synchronize()
    kt = kernel_times(lambda: dl.lu_factor_ex(x))
    tot = time_gpu(lambda: dl.lu_factor_ex(x), max_seconds=1).median_ms * 1e3
    tm = time_gpu(lambda: torch.linalg.lu_factor_ex(x), max_seconds=1).median_ms * 1e3
    key = f"{b}x{n} {str(dt)[6:]}"
    res[key] = kt
    s = sum(sum(v) for v in kt.values())
    print(f"{key}: lu_factor_ex {tot:.1f} us (torch default {tm:.1f}); kernels sum {s:.1f} us, {sum(len(v) for v in kt.values())} launches")
    for name, v in sorted(kt.items(), key=lambda kv: -sum(kv[1]))[:8]:
        print(f"   {sum(v):8.1f} us  x{len(v):3d}  {name}")
json.dump(res, open(f"{out}/kernel-times.json", "w"))
