"""A/B: GPU time of lu_factor_ex (do_bench medians, best of two) on the shapes given as COUNTxMxN; one line each."""
import json
import os
import sys
from functools import partial

import torch
from triton.testing import do_bench

import densela as dl

tag = sys.argv[1]
rows = []
for spec in sys.argv[2:]:
    count, m, n = (int(x) for x in spec.split("x"))
    for dtype in (torch.float64, torch.float32):
        torch.manual_seed(0)
        a = torch.randn(count, m, n, dtype=dtype, device="cuda")
        a = a[0] if count == 1 else a
        lu, piv, _ = dl.lu_factor_ex(a)
        ref_piv = torch.linalg.lu_factor(a[:200] if count > 1 else a)[1] - 1
        same = bool(torch.equal(piv[:200] if count > 1 else piv, ref_piv.to(torch.int32)))
        torch.cuda.synchronize()
        qs = [do_bench(partial(dl.lu_factor_ex, a), warmup=100, rep=600, quantiles=[0.2, 0.5, 0.8]) for _ in range(2)]
        med = min(q[1] for q in qs)
        print(f"{tag} {spec} {str(dtype)[6:]}: {med:.4f} ms (p20 {qs[0][0]:.4f} p80 {qs[0][2]:.4f}) "
              f"pivots as torch's {same}", flush=True)
        rows.append(dict(tag=tag, shape=[count, m, n], dtype=str(dtype), ms=med, p20=qs[0][0], p80=qs[0][2],
                         pivots_as_torch=same, gpu=torch.cuda.get_device_name()))
        with open(os.path.join(os.environ.get("OUT", "."), "ab.jsonl"), "a") as f:
            f.write(json.dumps(rows[-1]) + "\n")
