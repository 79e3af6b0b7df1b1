"""How the L2 flush before each timed call changes memory-bound timings: zero_ (Triton's do_bench, leaves
~50 MB of dirty lines the timed kernel must write back), a read of the flush buffer (lines clean), zero_ then
a read of a second buffer, and no flush."""
import json, os, sys
import torch
import densela as dl

dev = torch.device("cuda")
FL = 256 << 20
buf = torch.empty(FL // 4, dtype=torch.int32, device=dev)
buf2 = torch.empty(FL // 4, dtype=torch.int32, device=dev)
buf.fill_(1); buf2.fill_(1)

def fl_zero():
    buf.zero_()
def fl_read():
    buf.sum()
def fl_zero_read():
    buf.zero_(); buf2.sum()
def fl_none():
    pass
MODES = {"zero": fl_zero, "read": fl_read, "zero+read": fl_zero_read, "none": fl_none}

def time_mode(fn, flush, reps):
    for _ in range(3):
        flush(); fn()
    ts = []
    for _ in range(reps):
        flush()
        b, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        b.record(); fn(); e.record(); e.synchronize()
        ts.append(b.elapsed_time(e))
    ts = torch.tensor(ts)
    return float(ts.median()), float(ts.quantile(0.2)), float(ts.quantile(0.8))

out = open(os.path.join(os.environ.get("OUT", "."), "flush.jsonl"), "w")
rows = []
def rec(name, nbytes, fn, reps=60):
    for mode, flush in MODES.items():
        med, p20, p80 = time_mode(fn, flush, reps)
        r = dict(name=name, mode=mode, bytes=nbytes, median_ms=med, p20_ms=p20, p80_ms=p80, gbps=nbytes / med / 1e6)
        out.write(json.dumps(r) + "\n"); out.flush(); rows.append(r)

src = torch.empty(1 << 28, dtype=torch.int64, device=dev).random_()
dst = torch.empty_like(src)
rec("copy 2GiB", 2 * src.numel() * 8, lambda: dst.copy_(src), reps=20)
del src, dst
for (m, n, dt) in [(5000, 5000, torch.float32), (10000, 10000, torch.float32), (2500, 5000, torch.float64),
                   (5000, 10000, torch.float32), (100000, 100, torch.float64), (8192, 8192, torch.float32)]:
    x = torch.randn(m, n, device=dev, dtype=dt)
    nb = 2 * x.numel() * x.element_size()
    o = torch.empty(n, m, device=dev, dtype=dt)
    tag = f"{m}x{n} {str(dt)[6:]}"
    rec(f"densela transpose {tag}", nb, lambda: dl.transpose(x))
    rec(f"copy same bytes {tag}", nb, lambda: o.view(-1).copy_(x.view(-1)))
    rec(f"torch t.contiguous {tag}", nb, lambda: x.t().contiguous())
for (s, dt) in [(5000, torch.float32), (8192, torch.float32), (5000, torch.float64)]:
    x = torch.randn(s, s, device=dev, dtype=dt)
    st = [x]
    def f():
        st[0] = dl.transpose_(st[0])
    rec(f"densela transpose_ {s}x{s} {str(dt)[6:]}", 2 * x.numel() * x.element_size(), f)
for (s, dt) in [(4096, torch.bfloat16), (8192, torch.bfloat16)]:
    a = torch.randn(s, s, device=dev, dtype=dt); b = torch.randn(s, s, device=dev, dtype=dt)
    rec(f"densela matmul {s}^3 {str(dt)[6:]}", 0, lambda: dl.matmul(a, b), reps=30)
    rec(f"torch matmul {s}^3 {str(dt)[6:]}", 0, lambda: a @ b, reps=30)

print(f"{'case':42s} " + " ".join(f"{m:>16s}" for m in MODES))
names = list(dict.fromkeys(r["name"] for r in rows))
for nm in names:
    rs = {r["mode"]: r for r in rows if r["name"] == nm}
    cells = []
    for m in MODES:
        r = rs[m]
        cells.append(f"{r['median_ms']*1000:8.1f}us {r['gbps']:5.0f}" if r["bytes"] else f"{r['median_ms']*1000:14.1f}us")
    print(f"{nm:42s} " + " ".join(f"{c:>16s}" for c in cells))
