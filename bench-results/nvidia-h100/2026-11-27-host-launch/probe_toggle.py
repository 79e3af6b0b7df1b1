"""Session 57: host time per call with and without direct launches (_launch._Direct) in one process, alternated;
the plans are dropped and made again at each switch."""
import gc, json, os, statistics, time
import torch
import densela as dl
import densela.tuning
from densela import _launch
from densela.bench.timing import host_us, time_gpu

dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = True
g = torch.Generator(device=dev).manual_seed(0)
def r(*shape, dtype=torch.float32):
    return torch.randn(*shape, device=dev, dtype=dtype, generator=g)
A1, B1 = r(1000, 1000), r(1000, 1000)
A1t, B1t = r(1000, 1000).T, r(1000, 1000).T
H1, H2 = r(1000, 1000, dtype=torch.bfloat16), r(1000, 1000, dtype=torch.bfloat16)
S1, S2 = r(256, 256, dtype=torch.bfloat16), r(256, 256, dtype=torch.bfloat16)
X1, X2 = r(2000, 2000), r(2000, 2000)
T1, T2 = r(5000, 50), r(50, 5000)
U1, U2 = r(1000, 8, 8, dtype=torch.float64), r(10000, 16, 16, dtype=torch.float64)
Q = r(5000, 5000)
cases = {
    "tf32 1000 tn": lambda: dl.matmul(A1t, B1, precision="tf32"),
    "tf32 1000 nt": lambda: dl.matmul(A1, B1t, precision="tf32"),
    "tf32x3 2000 nn": lambda: dl.matmul(X1, X2, precision="tf32x3"),
    "bf16 1000 nn": lambda: dl.matmul(H1, H2),
    "bf16 256 nn": lambda: dl.matmul(S1, S2),
    "f32 5000x50x5000": lambda: dl.matmul(T1, T2, precision="ieee"),
    "transpose 5000^2": lambda: dl.transpose(Q),
    "lu 1000x8x8 f64": lambda: dl.lu_factor(U1, check_finite=False),
    "lu 10000x16x16 f64": lambda: dl.lu_factor(U2, check_finite=False),
}
launchers = [o for o in gc.get_objects() if isinstance(o, _launch.Launcher)]
saved = {}
def switch(on):
    for fn in cases.values():
        fn()
    torch.cuda.synchronize()
    for l in [o for o in gc.get_objects() if isinstance(o, _launch.Launcher)]:
        for key, (c, t, d) in list(l.compiled.items()):
            saved.setdefault((id(l), key), d)
            l.compiled[key] = (c, t, saved[(id(l), key)] if on else None)
    densela.tuning.clear_cache()
    for fn in cases.values():
        fn(); fn()
    torch.cuda.synchronize()
res = {(n, on): [] for n in cases for on in (False, True)}
for rnd in range(5):
    for on in (False, True):
        switch(on)
        for name, fn in cases.items():
            res[(name, on)].append(host_us(fn, 1000))
rows = []
for name in cases:
    off, on = statistics.median(res[(name, False)]), statistics.median(res[(name, True)])
    switch(True)
    lab_on = time_gpu(cases[name], max_seconds=1).median_ms * 1e3
    switch(False)
    lab_off = time_gpu(cases[name], max_seconds=1).median_ms * 1e3
    rows.append({"case": name, "host_off": res[(name, False)], "host_on": res[(name, True)], "lab_off": lab_off, "lab_on": lab_on})
    print(f"{name:20s} host us (median of 5 x 1000 calls) off {off:6.1f} on {on:6.1f} ({on - off:+5.1f})   lab off {lab_off:7.1f} on {lab_on:7.1f}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "toggle-host.jsonl"), "w") as f:
    for row in rows:
        f.write(json.dumps(row) + "\n")
