import sys, torch
from triton.testing import do_bench
import densela as dl
def vend(name, a):
    def run():
        torch.backends.cuda.preferred_linalg_library(name)
        return torch.linalg.lu_factor_ex(a)
    return run
tag = sys.argv[1]
for count, n in ((10000, 128), (1000, 128), (10000, 100), (10000, 96)):
    for dtype in (torch.float64, torch.float32):
        a = torch.randn(count, n, n, dtype=dtype, device="cuda")
        lu, piv, _ = dl.lu_factor_ex(a)
        ref_lu, ref_piv = torch.linalg.lu_factor(a[:50])
        same = bool(torch.equal(piv[:50], (ref_piv - 1).to(torch.int32)))
        ms = do_bench(lambda: dl.lu_factor_ex(a), rep=300, return_mode="median")
        base = min(do_bench(vend(nm, a), rep=300, return_mode="median") for nm in ("cusolver", "magma"))
        torch.backends.cuda.preferred_linalg_library("default")
        print(f"{tag} batched {count} x {n} {str(dtype)[6:]}: densela {ms:.3f} ms, best torch {base:.3f} -> {base/ms:.2f}x pivots {same}", flush=True)
