"""Host time vs GPU time of dl.matmul per case (mid-sized products on the warp-specialized kernel)."""
import cProfile, io, json, os, pstats, time, functools
import torch
import densela as dl
import densela._launch as L
from densela.tuning.tune import graph_ms
from densela.bench.timing import time_gpu

OUT = os.environ.get("OUT", ".")
cases = [("float32", "tf32", 2000, "tn"), ("float32", "tf32", 2000, "nn"), ("float32", "tf32", 1000, "tn"),
         ("bfloat16", None, 2000, "tt"), ("bfloat16", None, 2000, "nn"), ("float32", "ieee", 256, "nt")]
rows = []
for dt, prec, n, lay in cases:
    dtype = getattr(torch, dt)
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda", dtype=dtype) if lay[0] == "n" else torch.randn(n, n, device="cuda", dtype=dtype).T
    b = torch.randn(n, n, device="cuda", dtype=dtype) if lay[1] == "n" else torch.randn(n, n, device="cuda", dtype=dtype).T
    call = functools.partial(dl.matmul, a, b, precision=prec)
    for _ in range(5):
        call()
    torch.cuda.synchronize()
    plans = [p for p in L.PLANS.values()]
    t = time.perf_counter()
    for _ in range(300):
        call()
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t) / 300 * 1e6
    t = time.perf_counter()
    for _ in range(300):
        call()
    host = (time.perf_counter() - t) / 300 * 1e6  # no sync: queueing time (until the queue fills)
    torch.cuda.synchronize()
    gpu = graph_ms(call)[0] * 1e3
    lab = time_gpu(call, max_seconds=1.0)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(200):
        call()
    prof.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(12)
    row = dict(case=f"{dt} {prec} {n} {lay}", wall_us=wall, host_us=host, graph_us=gpu, lab_us=lab.median_ms * 1e3,
               lab_p20=lab.p20_ms * 1e3, lab_p80=lab.p80_ms * 1e3, plans=len(plans), none_plans=sum(p is None for p in plans))
    rows.append(row)
    print(json.dumps(row), flush=True)
    with open(os.path.join(OUT, "host-profiles.txt"), "a") as f:
        f.write(f"==== {row['case']}\n{s.getvalue()}\n")
    L.PLANS.clear()
with open(os.path.join(OUT, "host.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
for r in rows:
    print(f"{r['case']:24s} wall {r['wall_us']:7.1f} host {r['host_us']:7.1f} graph {r['graph_us']:7.1f} lab {r['lab_us']:7.1f} ({r['lab_p20']:.1f}-{r['lab_p80']:.1f}) plans {r['plans']} none {r['none_plans']}")
