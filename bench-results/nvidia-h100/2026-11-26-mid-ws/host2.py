"""Where a replayed dl.matmul call's host time goes: the key, each spec build, each launch."""
import functools, json, os, time
import torch
import densela as dl
import densela._launch as L

OUT = os.environ.get("OUT", ".")
cases = [("bfloat16", None, 2000, "tt"), ("bfloat16", None, 2000, "nn"), ("float32", "tf32", 1000, "tn"),
         ("float32", "tf32", 1000, "nt"), ("bfloat16", None, 1000, "tn"), ("bfloat16", None, 1000, "nn")]
out = []
for dt, prec, n, lay in cases:
    dtype = getattr(torch, dt)
    mk = lambda t: torch.randn(n, n, device="cuda", dtype=dtype).T if t == "t" else torch.randn(n, n, device="cuda", dtype=dtype)
    a, b = mk(lay[0]), mk(lay[1])
    res = torch.empty(n, n, device="cuda", dtype=dtype)
    call = functools.partial(dl.matmul, a, b, out=res, precision=prec)
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    (key, plan), = [(k, p) for k, p in L.PLANS.items()]
    slots = (a, b, res)
    times = {}
    def tick(name, t0):
        times[name] = times.get(name, 0.0) + (time.perf_counter_ns() - t0) / 1e3
    R = 500
    for _ in range(R):
        t0 = time.perf_counter_ns(); L.replay_key("matmul", (), (prec,), (a, b), res); tick("key", t0)
        built = dict(plan.fixed)
        for j, (run, entry, grid, template, places, kwargs) in enumerate(plan.launches):
            args = template.copy()
            for position, spec in places:
                if type(spec) is int:
                    args[position] = slots[spec]; continue
                t0 = time.perf_counter_ns()
                x = built.get(id(spec))
                if x is None:
                    x = built[id(spec)] = spec.build(slots)
                tick(f"L{j} build {type(spec).__name__}", t0)
                args[position] = x
            t0 = time.perf_counter_ns(); run(entry, grid, args, kwargs); tick(f"L{j} run", t0)
    torch.cuda.synchronize()
    t0 = time.perf_counter_ns()
    for _ in range(R):
        call()
    tick("whole call (queued)", t0)
    torch.cuda.synchronize()
    row = {"case": f"{dt} {prec} {n} {lay}", **{k: round(v / R, 2) for k, v in times.items()}}
    out.append(row)
    print(json.dumps(row), flush=True)
    L.PLANS.clear()
with open(os.path.join(OUT, "host2.jsonl"), "w") as f:
    for r in out:
        f.write(json.dumps(r) + "\n")
