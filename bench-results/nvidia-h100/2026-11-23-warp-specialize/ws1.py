"""One warp-specialized GEMM at a time, in a subprocess with a timeout: compile time, run, error, time."""
import os, subprocess, sys, time, json
OUT = os.environ.get("OUT", ".")
LOG = open(os.path.join(OUT, "log.txt"), "a")
def log(*a):
    s = " ".join(map(str, a)); print(s, flush=True); LOG.write(s + "\n"); LOG.flush()

def child(kind, spec):
    import torch, triton, triton.language as tl
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    from triton.testing import do_bench
    m = n = k = spec.get("n", 4096)
    dt = getattr(torch, spec.get("dtype", "bfloat16"))
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=dt); b = torch.randn(k, n, device="cuda", dtype=dt)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=dt)
    if kind == "mini":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from ws_mini import run
        f = lambda: run(a, b, out, spec)
    else:
        from densela.tuning import GemmConfig
        cfg = GemmConfig(**spec["cfg"])
        G = __import__("importlib").import_module("densela.gemm")
        prec = spec.get("precision", "ieee")
        f = lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, prec, cfg)
    t0 = time.time(); f(); torch.cuda.synchronize(); t1 = time.time()
    ref = a.double() @ b.double()
    err = float((out.double() - ref).norm() / ref.norm())
    ms = do_bench(f, warmup=50, rep=300)
    cb = do_bench(lambda: a @ b, warmup=50, rep=300)
    print("RESULT", json.dumps(dict(first_s=t1 - t0, err=err, ms=ms, cublas_ms=cb, ratio=cb / ms)), flush=True)

if __name__ == "__main__":
    if len(sys.argv) > 2:
        child(sys.argv[1], json.loads(sys.argv[2])); sys.exit()
    specs = json.load(open(sys.argv[1]))
    T0 = time.time()
    for kind, spec, tmo in specs:
        tmo = min(tmo, 540 - (time.time() - T0))
        if tmo < 20:
            log('deadline'); break
        t0 = time.time()
        try:
            p = subprocess.run([sys.executable, "-u", __file__, kind, json.dumps(spec)], capture_output=True, text=True, timeout=tmo)
            res = [l for l in p.stdout.splitlines() if l.startswith("RESULT")]
            log(kind, json.dumps(spec), f"{time.time()-t0:.0f}s", res[0] if res else "FAIL rc=%d %s" % (p.returncode, p.stderr.strip()[-600:]))
        except subprocess.TimeoutExpired as e:
            log(kind, json.dumps(spec), "TIMEOUT", (e.stdout or b"")[-300:] if isinstance(e.stdout, bytes) else (e.stdout or "")[-300:])
