"""Batched LU 1000 x 128 x 128 float64 slower in the lab of 4a43163 (1.38 ms) than at d24cd90 and 47ea247 (1.16):
the lab's measure of lu_factor (check_finite=False) and its GPU time (kernel_times) for a few batches, with this
tree's knobs varied: the narrow interchange groups (64 against 32 before 18e339a) and the singularity check
(the mapped flag against the copy). Run with PYTHONPATH on this tree and on 6b42d91's."""
import importlib, json, os, sys
from functools import partial
import torch
import densela as dl
from densela.bench.timing import time_gpu, kernel_times
LU = importlib.import_module("densela.lu")
tag = sys.argv[1]
OUT = os.path.join(os.environ.get("OUT", "."), "b128.jsonl")

def copy_check(info):
    host = LU._to_host(info).numpy()
    z = host.nonzero()[0]
    return None if not len(z) else (int(z[0]), int(host[z[0]]))

variants = {"as is": {}}
if hasattr(LU, "INTERCHANGE_GROUP_NARROW"):
    variants["narrow 32"] = {"INTERCHANGE_GROUP_NARROW": 32}
if hasattr(LU, "_any_singular"):
    variants["copy check"] = {"_first_singular": copy_check}
for count, n, dtype in [(1000, 128, torch.float64), (10000, 128, torch.float64), (1000, 64, torch.float64), (1000, 128, torch.float32)]:
    a = torch.randn(count, n, n, dtype=dtype, device="cuda")
    for name, knobs in variants.items():
        saved = {k: getattr(LU, k) for k in knobs}
        for k, v in knobs.items():
            setattr(LU, k, v)
        try:
            importlib.import_module("densela._launch").PLANS.clear()
            call = partial(dl.lu_factor, a, check_finite=False)
            lab = [time_gpu(call, max_seconds=1).median_ms for _ in range(2)]
            gpu = kernel_times(call)
            total = sum(sum(v) for v in gpu.values())
            top = sorted(((sum(v), k) for k, v in gpu.items()), reverse=True)[:5]
        finally:
            for k, v in saved.items():
                setattr(LU, k, v)
        row = dict(tree=tag, count=count, n=n, dtype=str(dtype)[6:], variant=name, lab_ms=lab, gpu_us=total,
                   top=[(round(t, 1), k[:40]) for t, k in top])
        open(OUT, "a").write(json.dumps(row) + "\n")
        print(tag, count, n, row["dtype"], f"{name:10s}", "lab ms", [round(x, 3) for x in lab], "gpu us", round(total, 1), row["top"][:3], flush=True)
