"""Residual histories of densela's GMRES-IR on emulated TF32/bf16-like factors (CPU), to design an early stall exit."""
import math, runpy, sys
import torch
import densela.lu as L

orig = L._gmres
def logged(a, r, precondition, iterations=None):
    z = precondition(r)
    beta = float(z.norm())
    if beta == 0 or not math.isfinite(beta):
        return torch.zeros_like(r)
    K = L.KRYLOV if iterations is None else iterations
    basis = torch.empty((K + 1, r.shape[0]), dtype=r.dtype, device=r.device)
    basis[0] = z / beta
    hess = torch.zeros((K + 1, K), dtype=torch.float64)
    hist = []
    for j in range(K):
        w = precondition(L._matvec(a, basis[j]))
        done = basis[: j + 1]
        h = done @ w; w = w - h @ done; h2 = done @ w; w = w - h2 @ done
        norm_w = float(w.norm())
        hess[: j + 1, j] = (h + h2).cpu(); hess[j + 1, j] = norm_w
        rhs = torch.zeros(j + 2, dtype=torch.float64); rhs[0] = beta
        y = torch.linalg.lstsq(hess[: j + 2, : j + 1], rhs.unsqueeze(1)).solution[:, 0]
        res = float((rhs - hess[: j + 2, : j + 1] @ y).norm())
        hist.append(res / beta)
        if norm_w == 0 or res <= 1e-8 * beta:
            break
        basis[j + 1] = w / norm_w
    pts = [0, 4, 9, 14, 19, 29, 39, 59, 79, 99]
    print("   gmres", len(hist), "its; rel. residual at", " ".join(f"{i+1}:{hist[i]:.1e}" for i in pts if i < len(hist)), flush=True)
    return y.to(r.device) @ basis[: y.shape[0]]
L._gmres = logged
sys.argv = ["refine-emulate.py", *sys.argv[1:]]
runpy.run_path("scripts/refine-emulate.py", run_name="__main__")
