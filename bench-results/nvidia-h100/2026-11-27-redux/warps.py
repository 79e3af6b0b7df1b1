"""Warps per program of lu_warp_kernel for small matrices (8 x 8, 16 x 16, 32 x 32): GPU time of lu_factor_ex."""
import os, json, torch
import densela as dl
import densela.lu as L
from densela.bench.timing import time_gpu
orig = L._warp_launch
rows = []
for dt in (torch.float64, torch.float32):
    for b, n in ((10000, 8), (1000, 8), (10000, 16), (1000, 16), (10000, 32), (1000, 32)):
        x = torch.randn(b, n, n, device="cuda", dtype=dt)
        ref = None
        line = f"{b}x{n} {str(dt)[6:]}:"
        for w in (1, 2, 4, 8):
            base = orig(n, n, x.element_size())
            threads = 32 * base.warps // base.mats  # threads per matrix
            if threads * 1 > 32 * w:
                continue
            L._warp_launch = lambda m, k, s, w=w, base=base, threads=threads: base._replace(warps=w, mats=w * 32 // threads)
            lu, piv, _ = dl.lu_factor_ex(x)
            if ref is None:
                ref = (lu.clone(), piv.clone())
            same = torch.equal(lu, ref[0]) and torch.equal(piv, ref[1])
            us = time_gpu(lambda: dl.lu_factor_ex(x), max_seconds=0.7).median_ms * 1e3
            usf = time_gpu(lambda: dl.lu_factor(x, check_finite=False), max_seconds=0.7).median_ms * 1e3
            line += f"  w{w}{'*' if w == base.warps else ''} {us:.1f}/{usf:.1f}{'' if same else ' DIFF'}"
            rows.append(dict(batch=b, n=n, dtype=str(dt), warps=w, default=base.warps, ex_us=us, lu_factor_us=usf, same=same))
        L._warp_launch = orig
        print(line, flush=True)
with open(os.path.join(os.environ["OUT"], "warps.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
