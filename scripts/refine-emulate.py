"""CPU experiment: how densela's GMRES-IR (``solve(refine="tf32")``) behaves with TF32-quality factors.

The float32 factorization's block updates are emulated with operands rounded to TF32 (10 mantissa bits,
nearest even) and products in float64, on random A = U diag(s) V^T of a given condition number; densela's own
refinement then runs on those factors (its ``factor`` replaced for the float32 TF32 call). Prints, per
condition number: the factors' backward error, the condition number of the preconditioned matrix M^-1 A, how
many of its eigenvalues lie farther than 0.5 from 1, the preconditioner applications the refinement took,
and whether it converged or fell back to float64.

Usage: python scripts/refine-emulate.py [n] [cond ...]     (defaults: 512, 1e3 1e4 1e5 1e6)
"""

from __future__ import annotations

import math
import sys
import warnings
from typing import Any

import torch

import densela as dl
import densela.lu as lu_module


def tf32(x: torch.Tensor) -> torch.Tensor:
    """float32 rounded to TF32's 10 explicit mantissa bits (nearest even)."""
    i = x.view(torch.int32)
    return ((i + 0x0FFF + ((i >> 13) & 1)) & ~0x1FFF).view(torch.float32)


def lu_tf32(a32: torch.Tensor, nb: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-looking blocked LU with partial pivoting: float32 panels, trailing updates from TF32 operands."""
    a = a32.clone()
    n = a.shape[0]
    piv = torch.zeros(n, dtype=torch.int32)
    for k in range(0, n, nb):
        w = min(nb, n - k)
        for j in range(k, k + w):
            p = j + int(torch.argmax(a[j:, j].abs()))
            piv[j] = p
            if p != j:
                a[[j, p], :] = a[[p, j], :]
            a[j + 1 :, j] /= a[j, j]
            a[j + 1 :, j + 1 : k + w] -= torch.outer(a[j + 1 :, j], a[j, j + 1 : k + w])
        if k + w < n:
            l11 = (torch.tril(a[k : k + w, k : k + w], -1) + torch.eye(w)).double()
            a12 = torch.linalg.solve_triangular(l11, a[k : k + w, k + w :].double(), upper=False, unitriangular=True)
            a[k : k + w, k + w :] = a12.float()
            a[k + w :, k + w :] -= (tf32(a[k + w :, k : k + w]).double() @ tf32(a[k : k + w, k + w :]).double()).float()
    return a, piv


def conditioned(n: int, cond: float) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    u, _ = torch.linalg.qr(torch.randn(n, n, dtype=torch.float64, generator=g))
    v, _ = torch.linalg.qr(torch.randn(n, n, dtype=torch.float64, generator=g))
    s = torch.logspace(0, -math.log10(cond), n, dtype=torch.float64)
    return (u * s) @ v.T, torch.randn(n, 1, dtype=torch.float64, generator=g)


def preconditioned(a: torch.Tensor, lu: torch.Tensor, piv: torch.Tensor, scale: float) -> torch.Tensor:
    n = a.shape[0]
    perm = torch.arange(n)
    for i, p in enumerate(piv.tolist()):
        perm[[i, p]] = perm[[p, i]]
    lower = (torch.tril(lu, -1) + torch.eye(n)).double()
    y = torch.linalg.solve_triangular(lower, a[perm] * scale, upper=False, unitriangular=True)
    return torch.linalg.solve_triangular(torch.triu(lu).double(), y, upper=True)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 512
    conds = [float(c) for c in sys.argv[2:]] or [1e3, 1e4, 1e5, 1e6]
    real_factor, real_solve = lu_module.factor, lu_module._solve_factored
    applications = [0]

    def factor(call: Any, x: torch.Tensor, precision: str = "ieee") -> Any:
        if precision == "tf32":
            lu, piv = lu_tf32(x[0])
            return lu[None], piv[None], torch.zeros(1, dtype=torch.int32)
        return real_factor(call, x, precision)

    def solve(*args: Any, **kwargs: Any) -> Any:
        applications[0] += 1
        return real_solve(*args, **kwargs)

    lu_module.factor, lu_module._solve_factored = factor, solve
    for cond in conds:
        a, b = conditioned(n, cond)
        scale = 2.0 ** -math.floor(math.log2(float(a.abs().max())))
        lu, piv = lu_tf32((a * scale).float())
        pa = preconditioned(a, lu, piv, scale)
        sv = torch.linalg.svdvals(pa)
        far = int(((torch.linalg.eigvals(pa) - 1).abs() > 0.5).sum())
        perm = torch.arange(n)
        for i, p in enumerate(piv.tolist()):
            perm[[i, p]] = perm[[p, i]]
        lower = (torch.tril(lu, -1) + torch.eye(n)).double()
        backward = float((a[perm] * scale - lower @ torch.triu(lu).double()).abs().max() / (a.abs().max() * scale))
        applications[0] = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, info = dl.solve_ex(a.numpy(), b.numpy(), refine="tf32")
        kappa = float(sv[0] / sv[-1])
        print(f"n={n} cond={cond:.0e}: factors' backward error {backward:.1e}, kappa(M^-1 A) {kappa:.3g}, "
              f"{far} of {n} eigenvalues farther than 0.5 from 1, {applications[0]} preconditioner applications, "
              f"{'fell back to float64' if info.fell_back else 'converged'}")  # fmt: skip


if __name__ == "__main__":
    main()
