"""Host time of a replayed TF32 2000^3 tn product (B copied K-major, 16 MB of scratch) with the scratch allocated per
replay (KEEP_SCRATCH_BYTES 4 MiB) against kept (64 MiB)."""
import functools, json, os, time
import torch
import densela as dl
import densela._launch as L
from densela.bench.timing import time_gpu
from densela.tuning.tune import graph_ms

OUT = os.environ.get("OUT", ".")
rows = []
for rnd in range(2):
    for keep in (4 << 20, 64 << 20):
        L.KEEP_SCRATCH_BYTES = keep
        L.PLANS.clear()
        torch.manual_seed(0)
        n = 2000
        a = torch.randn(n, n, device="cuda").T
        b = torch.randn(n, n, device="cuda")
        call = functools.partial(dl.matmul, a, b, precision="tf32")
        for _ in range(5):
            call()
        torch.cuda.synchronize()
        plan = next(iter(L.PLANS.values()))
        t = time.perf_counter()
        for _ in range(300):
            call()
        torch.cuda.synchronize()
        wall = (time.perf_counter() - t) / 300 * 1e6
        lab = time_gpu(call, max_seconds=1.0)
        gpu = graph_ms(call)[0] * 1e3
        row = dict(round=rnd, keep_mib=keep >> 20, kept=bool(plan.kept), wall_us=wall, graph_us=gpu,
                   lab_us=lab.median_ms * 1e3, lab_p20=lab.p20_ms * 1e3, lab_p80=lab.p80_ms * 1e3)
        rows.append(row)
        print(json.dumps(row), flush=True)
with open(os.path.join(OUT, "keep.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
