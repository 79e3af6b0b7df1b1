"""Probe (session 64): LU with interchanges confined to diagonal blocks (lu._factor_local) of one float32 matrix after
a depth-2 random butterfly transform (Parker; Baboulin et al. 2013), GPU time of a CUDA-graph replay of the whole
factorization, against densela's partial pivoting (lu.factor) and cuSOLVER's sgetrf (torch.linalg.lu_factor_ex); the
factors' backward error ||P W - L U||_F / ||W||_F. JSON lines to $OUT/probe-local.jsonl."""
import json, math, os
import torch
import densela.lu as L
from densela.tuning.tune import graph_ms

def butterfly(n, gen):
    """A depth-2 recursive butterfly as a dense n x n matrix (n a multiple of 4), entries exp(r / 10)."""
    def level(size):
        r = torch.exp((torch.rand(size, generator=gen, dtype=torch.float64) - 0.5) / 10)
        h = size // 2
        b = torch.zeros(size, size, dtype=torch.float64)
        i = torch.arange(h)
        b[i, i] = r[:h]; b[i, i + h] = r[h:]; b[i + h, i] = r[:h]; b[i + h, i + h] = -r[h:]
        return b / math.sqrt(2)
    inner = torch.block_diag(level(n // 2), level(n // 2))
    return inner @ level(n)

rows = []
gen = torch.Generator().manual_seed(0)
for n in (8192, 16384):
    for cond in (1e2, 1e6):
        q1, _ = torch.linalg.qr(torch.randn(n, n, device="cuda", dtype=torch.float64))
        q2, _ = torch.linalg.qr(torch.randn(n, n, device="cuda", dtype=torch.float64))
        s = torch.logspace(0, -math.log10(cond), n, device="cuda", dtype=torch.float64)
        a = (q1 * s) @ q2.T
        del q1, q2
        u, v = butterfly(n, gen).cuda(), butterfly(n, gen).cuda()
        w = (u.T @ a @ v).float()
        del u, v
        for kind, precision, block in [("local", "tf32", 64), ("local", "tf32", 128), ("local", "ieee", 64),
                                       ("local", "bf16", 64), ("partial", "tf32", 0), ("cusolver", "", 0)]:
            if n == 16384 and (kind, block) == ("local", 128):
                continue
            work = torch.empty(n, n, device="cuda").T.unsqueeze(0)  # column-major
            piv = torch.empty(1, n, dtype=torch.int32, device="cuda")
            info = torch.zeros(1, dtype=torch.int32, device="cuda")
            if kind == "local":
                L.LOCAL_BLOCK = block
                def run():
                    work.copy_(w)
                    L._factor_local(work, piv, info, precision)
            elif kind == "partial":
                def run():
                    work.copy_(w)
                    L._run_factor(work, piv, info, precision)
            else:
                def run():
                    return torch.linalg.lu_factor_ex(w)
            try:
                ms = graph_ms(run, rep_ms=300 if n == 8192 else 600)[0]
                run()
                torch.cuda.synchronize()
                if kind == "cusolver":
                    err = float("nan")
                else:
                    lu = work[0].double()
                    lo = torch.tril(lu, -1) + torch.eye(n, device="cuda", dtype=torch.float64)
                    pw = w.double().clone()
                    perm = list(range(n))
                    for i, j in enumerate(piv[0].tolist()):
                        perm[i], perm[j] = perm[j], perm[i]
                    pw = pw[torch.tensor(perm, device="cuda")]
                    err = float((pw - lo @ torch.triu(lu)).norm() / pw.norm())
                    del lu, lo, pw
            except Exception as e:  # noqa: BLE001
                print(n, cond, kind, precision, block, type(e).__name__, str(e)[:300], flush=True)
                continue
            rows.append({"n": n, "cond": cond, "kind": kind, "precision": precision, "block": block, "ms": ms, "err": err})
            print(f"{n:6d} {cond:7.0e} {kind:9s} {precision:5s} {block:4d} {ms:9.3f} ms  err {err:.2e}", flush=True)
            torch.cuda.empty_cache()
with open(os.path.join(os.environ.get("OUT", "."), "probe-local.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
