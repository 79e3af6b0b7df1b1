"""float64 8192^3 and 4096^3: densela against cuBLAS, alternating, each call timed after an L2 flush (read) and
after a zero_ flush; GPU clocks and temperature around it."""
import subprocess, torch, densela as dl
from densela.bench.timing import flush_l2
buf = torch.empty(64 << 20, dtype=torch.int32, device="cuda")
def smi():
    return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
def one(fn, flush):
    flush(); b, e = torch.cuda.Event(True), torch.cuda.Event(True)
    b.record(); fn(); e.record(); e.synchronize(); return b.elapsed_time(e)
for n in (8192, 4096):
    a = torch.randn(n, n, dtype=torch.float64, device="cuda"); bb = torch.randn(n, n, dtype=torch.float64, device="cuda")
    d = lambda: dl.matmul(a, bb); t = lambda: a @ bb
    d(); t(); torch.cuda.synchronize()
    print(n, "before", smi())
    for name, flush in (("read", flush_l2), ("zero", buf.zero_)):
        ds, ts = [], []
        for _ in range(6 if n == 8192 else 20):
            ds.append(one(d, flush)); ts.append(one(t, flush))
        ds.sort(); ts.sort()
        print(n, name, "densela", [round(x, 3) for x in ds], "cublas", [round(x, 3) for x in ts], "ratio of medians %.3f" % (ts[len(ts)//2] / ds[len(ds)//2]))
    print(n, "after", smi())
