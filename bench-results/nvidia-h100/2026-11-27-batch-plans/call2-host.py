"""Session 54: the host's part of batched lu_factor: GPU timeline of lab-like samples and cProfile."""
import cProfile, io, json, os, pstats, time, functools
import torch
import densela as dl
import densela.lu as LU
from densela.bench.timing import flush_l2
from torch.profiler import ProfilerActivity, profile

OUT = os.environ.get("OUT", ".")
def sample(fn):
    flush_l2()
    b, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    b.record(); fn(); e.record(); e.synchronize()
    return b.elapsed_time(e) * 1e3
for b, n, dt, mode in ((1000, 128, torch.float64, "default"), (1000, 128, torch.float64, "eager"), (10000, 128, torch.float64, "default"), (1000, 64, torch.float64, "default")):
    LU.EAGER_BATCH_BYTES = (192 << 20) if mode == "default" else 0
    torch.manual_seed(0)
    x = torch.randn(b, n, n, device="cuda", dtype=dt)
    tag = f"{b}x{n}-{str(dt)[6:]}-{mode}"
    for name, fn in (("lab", functools.partial(dl.lu_factor, x, check_finite=False)), ("ex", functools.partial(dl.lu_factor_ex, x))):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        # GPU timeline of two lab-like samples
        with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
            s = [sample(fn) for _ in range(2)]
        evs = sorted([e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA], key=lambda e: e.time_range.start)
        lines = [f"{tag} {name}: samples {s}"]
        t0 = evs[0].time_range.start if evs else 0
        prev = t0
        for e in evs:
            lines.append(f"  {e.time_range.start - t0:9.1f} +{e.time_range.start - prev:7.1f} gap, {e.device_time:8.1f} us  {e.name[:50]}")
            prev = e.time_range.end
        # host: cProfile of 10 synchronized calls
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(10):
            fn(); torch.cuda.synchronize()
        pr.disable()
        text = io.StringIO()
        pstats.Stats(pr, stream=text).sort_stats("cumulative").print_stats(35)
        open(f"{OUT}/host-{tag}-{name}.txt", "w").write("\n".join(lines) + "\n\n" + text.getvalue())
        print("\n".join(lines[:1]), flush=True)
