"""GPU time of lu_factor_ex (none synchronizing) on batches and single matrices against torch's faster path, the
kernels of 10000 x 128 x 128, and a checksum of the factors (the same inputs in every run of this script) to compare
two trees' results bit for bit. Usage: python probe.py TAG"""

import sys

import torch
from triton.testing import do_bench

import densela as dl
from densela.bench.timing import kernel_times


def vendor(name, a):
    def run():
        torch.backends.cuda.preferred_linalg_library(name)
        return torch.linalg.lu_factor_ex(a)

    return run


def checksum(t):
    return int(t.contiguous().view(torch.int32 if t.element_size() == 4 else torch.int64).sum())


tag = sys.argv[1]
cases = [(10000, 128), (1000, 128), (10000, 100), (1, 4096), (1, 8192)]
for count, n in cases:
    for dtype in (torch.float64, torch.float32):
        g = torch.Generator(device="cuda").manual_seed(count * n)
        a = torch.randn(count, n, n, dtype=dtype, device="cuda", generator=g)
        if count == 1:
            a = a[0]
        lu, piv, _ = dl.lu_factor_ex(a)
        ref_lu, ref_piv = torch.linalg.lu_factor(a[:50] if count > 1 else a)
        same = bool(torch.equal(piv[:50] if count > 1 else piv, (ref_piv - 1).to(torch.int32)))
        ms = do_bench(lambda: dl.lu_factor_ex(a), rep=300 if count > 1 else 1000, return_mode="median")
        names = ("cusolver", "magma") if count > 1 else ("cusolver",)
        base = min(do_bench(vendor(nm, a), rep=300 if count > 1 else 1000, return_mode="median") for nm in names)
        torch.backends.cuda.preferred_linalg_library("default")
        print(
            f"{tag} {count} x {n} {str(dtype)[6:]}: densela {ms:.3f} ms, best torch {base:.3f} -> {base / ms:.2f}x "
            f"pivots {same} checksum {checksum(lu)} {checksum(piv)}",
            flush=True,
        )
        if (count, n) == (10000, 128):
            for name, times in sorted(kernel_times(lambda: dl.lu_factor_ex(a)).items(), key=lambda kv: -sum(kv[1]))[:5]:
                print(f"    {sum(times) / 1000:8.3f} ms {len(times):4d} x {name[:70]}")
