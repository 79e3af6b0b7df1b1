"""Probe: float32 FMA transposition states before/after (old tree .old/src vs src), lab timing; LU float32 A/B."""
import importlib, json, os, sys
import torch
from triton.testing import do_bench

def load(src):
    sys.path.insert(0, src)
    for m in [m for m in sys.modules if m.startswith("densela")]:
        del sys.modules[m]
    d = importlib.import_module("densela")
    t = importlib.import_module("densela.bench.timing")
    sys.path.pop(0)
    return d, t

OUT = os.environ.get("OUT", ".")
rec = open(os.path.join(OUT, "lay2.jsonl"), "w")
PREC = os.environ.get("PREC") or None
DT = getattr(torch, os.environ.get("DT", "float32"))
trees = {"old": load(".old/src"), "new": load("src")}
def operands(m, n, k, lay):
    a = torch.randn(m, k, device="cuda", dtype=DT) if lay[0] == "n" else torch.randn(k, m, device="cuda", dtype=DT).T
    b = torch.randn(k, n, device="cuda", dtype=DT) if lay[1] == "n" else torch.randn(n, k, device="cuda", dtype=DT).T
    return a, b
shapes = [tuple(int(v) for v in s.split("x")) for s in os.environ.get("SHAPES", "128x128x128").split(",")]
for m, n, k in shapes:
    for lay in ("nn", "nt", "tn", "tt"):
        torch.manual_seed(0)
        a, b = operands(m, n, k, lay)
        ref = a.double() @ b.double()
        row = {"shape": [m, n, k], "lay": lay}
        for name, (d, t) in trees.items():
            out = torch.full((m, n), float("nan"), device="cuda", dtype=DT)
            d.matmul(a, b, out=out, precision=PREC); torch.cuda.synchronize()
            row["err_" + name] = float((out.double() - ref).norm() / ref.norm())
            row[name] = t.time_gpu(lambda: d.matmul(a, b, out=out, precision=PREC), max_seconds=0.5).median_ms * 1e3
        rec.write(json.dumps(row) + "\n"); rec.flush()
        print(m, n, k, lay, f"old {row['old']:8.1f} new {row['new']:8.1f}  old/new {row['old'] / row['new']:.2f}  err {row['err_old']:.1e} {row['err_new']:.1e}", flush=True)
if os.environ.get("LU"):
    for n in (1000, 2048, 4096):
        torch.manual_seed(0)
        x = torch.randn(n, n, device="cuda")
        row = {"lu": n}
        for name, (d, t) in trees.items():
            d.lu_factor_ex(x)
            row[name] = t.time_gpu(lambda: d.lu_factor_ex(x), max_seconds=1.0).median_ms * 1e3
        rec.write(json.dumps(row) + "\n"); rec.flush()
        print("lu float32", n, f"old {row['old']:8.1f} new {row['new']:8.1f}", flush=True)
