"""Session 57: where the host time of a small batched lu_factor goes (GPU), and the lab's measure of variants."""
import cProfile, io, pstats, sys, time, collections, functools, json
import torch
import densela as dl
from densela import lu as L, _launch
from densela.bench.timing import time_gpu, host_us, kernel_times

DEV = "cuda"
acc = collections.defaultdict(float)
cnt = collections.Counter()

def wrap(obj, name, label):
    f = getattr(obj, name)
    @functools.wraps(f)
    def w(*a, **k):
        t = time.perf_counter_ns()
        try:
            return f(*a, **k)
        finally:
            acc[label] += time.perf_counter_ns() - t
            cnt[label] += 1
    setattr(obj, name, w)
    return f

def lab(fn):
    return time_gpu(fn, max_seconds=1).median_ms * 1e3

rows = []
cases = [(1000, 8, torch.float64), (10000, 8, torch.float64), (1000, 16, torch.float64), (10000, 16, torch.float64),
         (1000, 8, torch.float32), (10000, 8, torch.float32)]
mode = sys.argv[1] if len(sys.argv) > 1 else "base"
for count, n, dtype in cases:
    a = torch.randn(count, n, n, dtype=dtype, device=DEV)
    r = {"mode": mode, "count": count, "n": n, "dtype": str(dtype)[6:]}
    torch.backends.cuda.preferred_linalg_library("cusolver")
    r["torch_lab"] = lab(functools.partial(torch.linalg.lu_factor, a))
    r["torch_host"] = host_us(functools.partial(torch.linalg.lu_factor, a), 300)
    torch.backends.cuda.preferred_linalg_library("default")
    call = functools.partial(dl.lu_factor, a, check_finite=False)
    r["dl_lab"] = lab(call)
    r["dl_ex_lab"] = lab(functools.partial(dl.lu_factor_ex, a))
    r["dl_ex_sync_lab"] = lab(lambda: (dl.lu_factor_ex(a), torch.cuda.synchronize()))
    r["dl_host"] = host_us(call, 300)
    r["dl_ex_host"] = host_us(functools.partial(dl.lu_factor_ex, a), 300)
    r["dl_gpu"] = sum(sum(v) for v in kernel_times(call).values())
    r["ratio"] = r["torch_lab"] / r["dl_lab"]
    rows.append(r)
    print(" ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()), flush=True)

# floors: one tiny launch + sync, in the lab's measure
x = torch.zeros(8, device=DEV)
print("floor add_+sync lab", round(lab(lambda: (x.add_(1), torch.cuda.synchronize())), 1),
      "add_ lab", round(lab(lambda: x.add_(1)), 1), "host add_", round(host_us(lambda: x.add_(1), 300), 1))

# pieces of one call (1000 x 8 x 8 float64), GPU idle at each start
a = torch.randn(1000, 8, 8, dtype=torch.float64, device=DEV)
wrap(L, "prepare", "prepare"); wrap(L, "factor", "factor"); wrap(L, "_first_singular", "first_singular")
wrap(L, "_await_flag", "await_flag"); wrap(L, "replayed", "replayed"); wrap(_launch, "replay_key", "replay_key")
wrap(_launch.Plan, "__call__", "plan_call"); wrap(_launch.Launcher, "run", "launcher_run")
wrap(L, "_check_dtype", "check_dtype"); wrap(L, "_flag", "flag")
for _ in range(20):
    dl.lu_factor(a, check_finite=False)
torch.cuda.synchronize()
acc.clear(); cnt.clear()
N = 1000
tot = 0
for _ in range(N):
    torch.cuda.synchronize()
    t = time.perf_counter_ns()
    dl.lu_factor(a, check_finite=False)
    tot += time.perf_counter_ns() - t
print("pieces (us per call):", f"total {tot / N / 1e3:.1f}", " ".join(f"{k} {v / N / 1e3:.1f}" for k, v in acc.items()))
prof = cProfile.Profile()
prof.enable()
for _ in range(300):
    dl.lu_factor(a, check_finite=False)
    torch.cuda.synchronize()
prof.disable()
s = io.StringIO()
pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(30)
print(s.getvalue())
