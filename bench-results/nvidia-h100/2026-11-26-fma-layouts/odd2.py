"""Probe: float32 FMA products at odd and aligned sizes, tiles kernel with clamped loads, padded or not (graph replays)."""
import importlib, json, os, sys
import torch
from triton.testing import do_bench

def med(fn):
    fn()
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return do_bench(g.replay, warmup=10, rep=50, quantiles=[0.2, 0.5, 0.8])[1] * 1e3

def load(src):
    sys.path.insert(0, src)
    for m in [m for m in sys.modules if m.startswith("densela")]:
        del sys.modules[m]
    g = importlib.import_module("densela.gemm")
    sys.path.pop(0)
    return g

OUT = os.environ.get("OUT", ".")
rec = open(os.path.join(OUT, "odd2.jsonl"), "w")
trees = {"old": load(".old/src"), "new": load("src")}
sizes = [int(x) for x in sys.argv[1:]]
for n in sizes:
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda")
    out = torch.empty(n, n, device="cuda")
    ref = a.double() @ b.double()
    row = {"n": n, "cublas": med(lambda: torch.matmul(a, b))}
    for name, G in trees.items():
        pad, padodd = G.PAD_FROM_WORK, G.PAD_ODD_FROM_WORK
        for mode in ("tables", "unpadded"):
            if mode == "unpadded":
                G.PAD_FROM_WORK = G.PAD_ODD_FROM_WORK = 1 << 62
            out.fill_(float("nan"))
            G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee"); torch.cuda.synchronize()
            row[f"err_{name}_{mode}"] = float((out.double() - ref).norm() / ref.norm())
            row[f"{name}_{mode}"] = med(lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee"))
            G.PAD_FROM_WORK, G.PAD_ODD_FROM_WORK = pad, padodd
    rec.write(json.dumps(row) + "\n"); rec.flush()
    cb = row["cublas"]
    print(n, f"cublas {cb:6.1f}", " ".join(f"{k} {v:6.1f} ({cb / v:.2f})" for k, v in row.items() if k not in ("n", "cublas") and not k.startswith("err")),
          "maxerr %.1e" % max(v for k, v in row.items() if k.startswith("err")), flush=True)

CASES = [(1000, 1000, 1000, torch.bfloat16, "ieee"), (1000, 1000, 1000, torch.float64, "ieee"), (2048, 2048, 2048, torch.float64, "ieee"),
         (1000, 1000, 1000, torch.float32, "tf32"), (1001, 1001, 1001, torch.float64, "ieee"), (777, 333, 1555, torch.float32, "ieee"),
         (4096, 4096, 4096, torch.float32, "ieee"), (128, 4096, 4096, torch.float32, "ieee"), (4096, 64, 4096, torch.bfloat16, "ieee"),
         (512, 512, 512, torch.float32, "ieee"), (256, 256, 256, torch.bfloat16, "ieee")]
for m, n, k, dt, prec in CASES if os.environ.get("CASES") else []:
    torch.manual_seed(0)
    for lay in ("nn", "tn"):
        a = torch.randn(m, k, device="cuda", dtype=dt); b = torch.randn(k, n, device="cuda", dtype=dt)
        if lay == "tn":
            a = torch.randn(k, m, device="cuda", dtype=dt).T; b = torch.randn(n, k, device="cuda", dtype=dt).T
        out = torch.empty(m, n, device="cuda", dtype=dt)
        row = {"case": [m, n, k, str(dt), prec, lay], "torch": med(lambda: torch.matmul(a, b))}
        for name, G in trees.items():
            row[name] = med(lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, prec))
        rec.write(json.dumps(row) + "\n"); rec.flush()
        print(row["case"], " ".join(f"{kk} {v:8.1f}" for kk, v in row.items() if kk != "case"), f"new/old {row['old'] / row['new']:.3f}", flush=True)
