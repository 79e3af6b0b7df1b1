"""A/B: GPU time of lu_factor_ex (do_bench medians) for a few shapes; prints one line per shape."""
import sys, torch, json, os
from functools import partial
from triton.testing import do_bench
import densela as dl
tag = sys.argv[1]
rows = []
for shape in [(1000, 128, 128), (10000, 128, 128), (1, 1000, 1000), (1, 2048, 2048)]:
    for dtype in (torch.float64, torch.float32):
        torch.manual_seed(0)
        a = torch.randn(*shape, dtype=dtype, device="cuda")
        if shape[0] == 1:
            a = a[0]
        dl.lu_factor_ex(a); dl.lu_factor_ex(a); torch.cuda.synchronize()
        ms = [do_bench(partial(dl.lu_factor_ex, a), warmup=100, rep=700, quantiles=[0.2, 0.5, 0.8]) for _ in range(2)]
        med = min(m[1] for m in ms)
        print(f"{tag} {shape} {str(dtype)[6:]}: {med:.4f} ms (p20 {ms[0][0]:.4f} p80 {ms[0][2]:.4f})", flush=True)
        rows.append(dict(tag=tag, shape=shape, dtype=str(dtype), ms=med, p20=ms[0][0], p80=ms[0][2], gpu=torch.cuda.get_device_name()))
with open(os.path.join(os.environ.get("OUT", "."), f"ab-{tag}.jsonl"), "a") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
