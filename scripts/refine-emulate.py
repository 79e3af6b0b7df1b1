"""CPU experiment: how densela's GMRES-IR (``solve(refine=...)``) behaves with float32 factors whose trailing updates
take TF32- or bfloat16-rounded operands (or none), for five factorizations: LAPACK's partial pivoting (densela's);
the matrix multiplied by two random butterflies of depth 2 (Baboulin, Dongarra, Herrmann and Tomov, ACM TOMS 2013)
and factored without interchanges; the same with interchanges only inside each 32-row diagonal block; block-local
interchanges alone; and tournament pivoting (CALU's TSLU, Grigori, Demmel and Xiang, SIAM J. Matrix Anal. Appl.
2011): each block column's pivot rows chosen by partial pivoting within blocks of TOURNAMENT_ROWS rows, then between
the blocks' candidates pairwise up a binary tree, the block column then factored without further interchanges. The
last four need no grid-wide pivot search per column, the panel cost that bounds densela's factorization; this is the
check of whether refinement can afford them.

The factorizations are emulated in PyTorch on random A = U diag(s) V^T of a given condition number, operands
rounded to TF32 (10 mantissa bits) or bfloat16 (7), nearest even, and products in float64; densela's own refinement loop
(``densela.lu._refined``) then runs with the emulated preconditioner in place of its own. Prints, per
condition number and factorization: the factors' backward error, their growth (max |U| / max |A|), the
condition number of the preconditioned matrix M^-1 A, the preconditioner applications the refinement took,
and whether it converged or fell back to float64.

Usage: python scripts/refine-emulate.py [tf32|bf16|fp32] [n] [cond ...] [--methods partial,block] [--no-kappa]
       (defaults: tf32, 512, 1e2 1e4 1e6, all five factorizations)
"""

from __future__ import annotations

import argparse
import math
import warnings
from typing import Any

import torch

import densela as dl
import densela.lu as lu_module
from densela.bench.providers import conditioned_matrix


def tf32(x: torch.Tensor) -> torch.Tensor:
    """float32 rounded to TF32's 10 explicit mantissa bits (nearest even)."""
    i = x.view(torch.int32)
    return ((i + 0x0FFF + ((i >> 13) & 1)) & ~0x1FFF).view(torch.float32)


ROUNDING = ["tf32"]
"""How the trailing updates' operands are rounded: "tf32", "bf16" (bfloat16's 7 mantissa bits, nearest even, as
``refine="bf16"`` rounds them), or "fp32" (not at all: float32 factors)."""
PANEL = 32
"""Rows of the diagonal block that "block" pivoting searches (densela's narrowest panel)."""
TOURNAMENT_ROWS = 256
"""Rows of each leaf block of "tournament" pivoting (one program's share of a panel)."""


def _gepp_rows(block: torch.Tensor, count: int) -> torch.Tensor:
    """Positions (in ``block``'s rows) of the first ``count`` pivots of partial pivoting on ``block``, in order."""
    a = block.clone()
    order = torch.arange(a.shape[0])
    for j in range(min(count, a.shape[0], a.shape[1])):
        p = j + int(torch.argmax(a[j:, j].abs()))
        if p != j:
            a[[j, p]] = a[[p, j]]
            order[[j, p]] = order[[p, j]]
        if a[j, j] != 0:
            a[j + 1 :, j] /= a[j, j]
            a[j + 1 :, j + 1 :] -= torch.outer(a[j + 1 :, j], a[j, j + 1 :])
    return order[: min(count, a.shape[0])]


def _tournament(panel: torch.Tensor) -> torch.Tensor:
    """Rows (of ``panel``, m x w) that tournament pivoting puts first, in pivot order: partial pivoting's first w
    pivots within each block of TOURNAMENT_ROWS rows, then within pairs of the blocks' candidates up a binary
    tree."""
    w = panel.shape[1]
    groups = [
        torch.arange(s, min(s + TOURNAMENT_ROWS, panel.shape[0])) for s in range(0, panel.shape[0], TOURNAMENT_ROWS)
    ]
    groups = [g[_gepp_rows(panel[g], w)] for g in groups]
    while len(groups) > 1:
        pairs = [torch.cat(groups[i : i + 2]) for i in range(0, len(groups), 2)]
        groups = [g[_gepp_rows(panel[g], w)] for g in pairs]
    return groups[0]


def lu_tf32(a32: torch.Tensor, pivot: str, nb: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-looking blocked LU, with partial pivoting or none: float32 panels, trailing updates from TF32
    operands."""
    a = a32.clone()
    n = a.shape[0]
    perm = torch.arange(n)
    for k in range(0, n, nb):
        w = min(nb, n - k)
        if pivot == "tournament":  # the block column's pivot rows first, in order; the others keep theirs
            chosen = k + _tournament(a[k:, k : k + w].double())
            rest = torch.tensor([r for r in range(k, n) if r not in set(chosen.tolist())], dtype=torch.long)
            rows = torch.cat([chosen, rest])
            a[k:] = a[rows]
            perm[k:] = perm[rows]
        for j in range(k, k + w):
            end = {"partial": n, "block": (j // PANEL + 1) * PANEL, "none": j + 1, "tournament": j + 1}[pivot]
            window = a[j:end, j]
            p = j + int(torch.argmax(window.abs()))
            if p != j:
                a[[j, p], :] = a[[p, j], :]
                perm[[j, p]] = perm[[p, j]]
            a[j + 1 :, j] /= a[j, j]
            a[j + 1 :, j + 1 : k + w] -= torch.outer(a[j + 1 :, j], a[j, j + 1 : k + w])
        if k + w < n:
            l11 = (torch.tril(a[k : k + w, k : k + w], -1) + torch.eye(w)).double()
            a12 = torch.linalg.solve_triangular(l11, a[k : k + w, k + w :].double(), upper=False, unitriangular=True)
            a[k : k + w, k + w :] = a12.float()
            l21, u12 = a[k + w :, k : k + w], a[k : k + w, k + w :]
            if ROUNDING[0] == "tf32":
                l21, u12 = tf32(l21), tf32(u12)
            elif ROUNDING[0] == "bf16":
                l21, u12 = l21.bfloat16().float(), u12.bfloat16().float()
            a[k + w :, k + w :] -= (l21.double() @ u12.double()).float()
    return a, perm


def butterfly(size: int, gen: torch.Generator) -> torch.Tensor:
    """A random recursive butterfly of depth 2 (size a multiple of 4), as a dense matrix."""

    def level(half: int) -> torch.Tensor:
        r = torch.exp((torch.rand(size, generator=gen, dtype=torch.float64) - 0.5) / 10)
        b = torch.zeros(size, size, dtype=torch.float64)
        for start in range(0, size, 2 * half):
            i0 = torch.arange(start, start + half)
            i1 = i0 + half
            b[i0, i0], b[i0, i1], b[i1, i0], b[i1, i1] = r[i0], r[i1], r[i0], -r[i1]
        return b / math.sqrt(2)

    return level(size // 4) @ level(size // 2)


class Emulated:
    """Stands in for ``densela.lu._Preconditioner``: the emulated factors, applied in float64."""

    randomized = False
    pivot = "partial"
    applications = 0

    def __init__(self, call: Any, a: torch.Tensor, precision: str) -> None:
        n = a.shape[0]
        self.n, self.scale = n, 2.0 ** -math.floor(math.log2(float(a.abs().max())))
        size = 4 * -(-n // 4) if self.randomized else n
        padded = torch.eye(size, dtype=torch.float64)
        padded[:n, :n] = a
        gen = torch.Generator().manual_seed(2013)
        self.u = butterfly(size, gen) if self.randomized else torch.eye(size, dtype=torch.float64)
        self.v = butterfly(size, gen) if self.randomized else torch.eye(size, dtype=torch.float64)
        self.matrix = self.scale * self.u.T @ padded @ self.v
        lu, self.perm = lu_tf32(self.matrix.float(), self.pivot)
        self.lower = (torch.tril(lu, -1) + torch.eye(size)).double()
        self.upper = torch.triu(lu).double()
        self.usable = True

    def __call__(self, v: torch.Tensor) -> torch.Tensor:
        Emulated.applications += 1
        size = self.u.shape[0]
        x = torch.zeros(size, v.shape[-1] if v.ndim > 1 else 1, dtype=torch.float64)
        x[: self.n] = v.reshape(self.n, -1)
        y = (self.u.T @ x)[self.perm]
        y = torch.linalg.solve_triangular(self.lower, y, upper=False, unitriangular=True)
        y = torch.linalg.solve_triangular(self.upper, y, upper=True)
        return (self.scale * self.v @ y)[: self.n].reshape(v.shape)


def conditioned(n: int, cond: float) -> tuple[torch.Tensor, torch.Tensor]:
    """The lab's float64 matrix of singular values logspaced from 1 to 1 / cond, and a random right-hand side."""
    g = torch.Generator().manual_seed(0)
    a = conditioned_matrix(n, cond, "float64", "cpu").clone()
    return a, torch.randn(n, 1, dtype=torch.float64, generator=g)


METHODS = {
    "partial": (False, "partial"),
    "butterflies": (True, "none"),
    "butterflies-block": (True, "block"),
    "block": (False, "block"),
    "tournament": (False, "tournament"),
}
"""The factorizations compared: (random butterflies, interchanges: "partial", "block", "tournament" or "none")."""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("rounding", nargs="?", choices=("tf32", "bf16", "fp32"), default="tf32")
    p.add_argument("n", nargs="?", type=int, default=512)
    p.add_argument("conds", nargs="*", type=float, default=[1e2, 1e4, 1e6])
    p.add_argument("--methods", default=",".join(METHODS), help="comma-separated: " + ", ".join(METHODS))
    p.add_argument("--no-kappa", action="store_true", help="skip M^-1 A's condition number (n more solves, an SVD)")
    args = p.parse_args()
    ROUNDING[0], n = args.rounding, args.n
    lu_module._Preconditioner = Emulated  # type: ignore[misc]
    for cond in args.conds:
        a, b = conditioned(n, cond)
        for name in args.methods.split(","):
            Emulated.randomized, Emulated.pivot = METHODS[name]
            m = Emulated(None, a, "tf32")
            factored = m.lower @ m.upper
            backward = float((factored - m.matrix[m.perm]).abs().max() / m.matrix.abs().max())
            growth = float(m.upper.abs().max() / m.matrix.abs().max())
            kappa = math.nan
            if not args.no_kappa:
                sv = torch.linalg.svdvals(torch.stack([m(a[:, j]) for j in range(n)], 1))
                kappa = float(sv[0] / sv[-1])
            Emulated.applications = 0
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _, info = dl.solve_ex(a.numpy(), b.numpy(), refine=ROUNDING[0])
            method = f"{'butterflies, ' if m.randomized else ''}{m.pivot} pivoting"
            print(f"n={n} cond={cond:.0e} {method}: backward error {backward:.1e}, "
                  f"growth {growth:.3g}, kappa(M^-1 A) {kappa:.3g}, "
                  f"{Emulated.applications} preconditioner applications, "
                  f"{'fell back to float64' if info.fell_back else 'converged'}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
