"""Session 44 call E: host profile of small batched lu_factor; WARP_COLUMNS 16 vs 32 for 64-column batches;
row-major float32 at 2048 and 1000."""
import json, os, sys, time
from functools import partial
import torch
from triton.testing import do_bench
import densela as dl
import densela.lu as L
from densela.bench.timing import host_us, time_gpu

OUT = os.environ.get("OUT", ".")
what = sys.argv[1]
def rec(**r):
    with open(os.path.join(OUT, "callE.jsonl"), "a") as f:
        f.write(json.dumps(r) + "\n")

if what == "host":
    for count, n, dtype in [(10000, 8, torch.float64), (1000, 16, torch.float64)]:
        a = torch.randn(count, n, n, dtype=dtype, device="cuda")
        tl_ = time_gpu(partial(torch.linalg.lu_factor, a), max_seconds=1).median_ms * 1e3
        t = time_gpu(partial(dl.lu_factor, a, check_finite=False), max_seconds=1).median_ms * 1e3
        h = host_us(partial(dl.lu_factor, a, check_finite=False), 300, profile=os.path.join(OUT, f"prof-{count}x{n}.txt"))
        hx = host_us(partial(dl.lu_factor_ex, a), 300, profile=os.path.join(OUT, f"prof-ex-{count}x{n}.txt"))
        ht = host_us(partial(torch.linalg.lu_factor, a), 300)
        print(f"host {count}x{n}x{n} {dtype}: lab dl {t:.1f} torch {tl_:.1f} us; host per call lu_factor {h:.1f} lu_factor_ex {hx:.1f} torch {ht:.1f}", flush=True)
        rec(kind="host", shape=[count, n, n], dtype=str(dtype), dl_lab=t, torch_lab=tl_, dl_host=h, dl_ex_host=hx, torch_host=ht)
if what == "cols":
    for count in (1000, 10000):
        for dtype in (torch.float64, torch.float32):
            a = torch.randn(count, 64, 64, dtype=dtype, device="cuda")
            for cols in (32, 16, 32, 16):
                L.WARP_COLUMNS = cols
                w = L._warp_launch(64, 64, a.element_size())
                lu, piv, _ = dl.lu_factor_ex(a)
                ok = bool(torch.equal(piv[:100], (torch.linalg.lu_factor(a[:100])[1] - 1).int()))
                ms = do_bench(partial(dl.lu_factor_ex, a), warmup=50, rep=400, quantiles=[0.5, 0.2, 0.8])
                print(f"cols {count}x64x64 {str(dtype)[6:]} WARP_COLUMNS={cols} {w}: {ms[0]*1e3:.1f} us (p20 {ms[1]*1e3:.1f} p80 {ms[2]*1e3:.1f}) pivots {ok}", flush=True)
                rec(kind="cols", shape=[count, 64, 64], dtype=str(dtype), cols=cols, us=ms[0]*1e3, p20=ms[1]*1e3, p80=ms[2]*1e3, pivots_as_torch=ok)
    L.WARP_COLUMNS = 32
