"""Float64 references, error bounds per precision, and array makers shared by the tests.

Errors are normwise: ||out - ref||_F <= tol * scale, where ``scale`` bounds the norm of the exact
|terms| (for GEMM |alpha| ||A||_F ||B||_F + |beta| ||C||_F), so a bound of the form c * k * u holds for
any data, cancellation included.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import torch

Layout = Literal["row", "col", "strided", "strided_col"]
LAYOUTS: tuple[Layout, ...] = ("row", "col", "strided", "strided_col")

UNIT_ROUNDOFF = {
    torch.float16: 2.0**-11,
    torch.bfloat16: 2.0**-8,
    torch.float32: 2.0**-24,
    torch.float64: 2.0**-53,
}
TF32_ROUNDOFF = 2.0**-11


def make(
    shape: tuple[int, ...], dtype: torch.dtype, device: str = "cpu", layout: Layout = "row", *, scale: float = 1.0
) -> torch.Tensor:
    """Random normal data (never zeros) of ``shape`` in the given memory layout.

    ``row``: C-contiguous; ``col``: the last two axes column-major; ``strided``/``strided_col``: a view
    taking every other row and column of a larger buffer, so no stride is 1.
    """
    if layout in ("strided", "strided_col"):
        inner: Layout = "col" if layout == "strided_col" else "row"
        base = make((*shape[:-2], 2 * shape[-2], 2 * shape[-1]), dtype, device, inner, scale=scale)
        return base[..., ::2, ::2]
    if layout == "col":
        t = torch.randn((*shape[:-2], shape[-1], shape[-2]), dtype=torch.float64, device=device).mT
    else:
        t = torch.randn(shape, dtype=torch.float64, device=device)
    return (t * scale).to(dtype)


def poisoned(shape: tuple[int, ...], dtype: torch.dtype, device: str = "cpu", layout: Layout = "row") -> torch.Tensor:
    """An output array full of NaN, so any element an operation fails to write shows."""
    t = make(shape, dtype, device, layout)
    return t.fill_(float("nan"))


def as_f64(x: object) -> torch.Tensor:
    """Any array as a float64 CPU tensor."""
    if isinstance(x, np.ndarray):
        return torch.from_numpy(np.array(x, dtype=np.float64))  # a copy: negative strides, read-only arrays
    x = _as_torch(x)
    return x.detach().to("cpu", torch.float64)


def gemm_reference(a, b, c=None, *, alpha=1.0, beta=0.0, trans_a=False, trans_b=False) -> tuple[torch.Tensor, float]:
    """(float64 result, normwise scale) of alpha * op(a) @ op(b) + beta * c."""
    a64, b64 = as_f64(a), as_f64(b)
    if trans_a:
        a64 = a64.mT
    if trans_b:
        b64 = b64.mT
    ref = alpha * (a64 @ b64)
    scale = abs(alpha) * float(a64.norm()) * float(b64.norm())
    if c is not None and beta != 0.0:
        c64 = as_f64(c)
        ref = ref + beta * c64
        scale += abs(beta) * float(c64.norm())
    return ref, scale


def gemm_tolerance(dtype: torch.dtype, k: int, precision: str | None = None) -> float:
    """Normwise bound c * (k * u_acc + u_in) + u_out for a length-k dot product in ``dtype``."""
    u_out = UNIT_ROUNDOFF[dtype]
    u_acc = UNIT_ROUNDOFF[torch.float64] if dtype == torch.float64 else UNIT_ROUNDOFF[torch.float32]
    u_in = TF32_ROUNDOFF if precision == "tf32" else u_acc
    return 4.0 * (max(k, 1) * u_acc + 2.0 * u_in) + 2.0 * u_out


def assert_normwise(out: object, ref: torch.Tensor, scale: float, tol: float, what: str = "") -> None:
    """Asserts ||out - ref|| <= tol * scale with NaN only where ref has NaN; prints the first mismatches."""
    got = as_f64(out)
    assert tuple(got.shape) == tuple(ref.shape), f"{what}: shape {tuple(got.shape)} != {tuple(ref.shape)}"
    bad_nan = torch.isnan(got) & ~torch.isnan(ref)
    if bad_nan.any():
        idx = bad_nan.nonzero()[:5].tolist()
        count = int(bad_nan.sum())
        raise AssertionError(f"{what}: {count} elements NaN (unwritten?) where the reference is not, e.g. at {idx}")
    finite = ~torch.isnan(ref)
    err = float((got[finite] - ref[finite]).norm())
    limit = tol * max(scale, np.finfo(np.float64).tiny)
    if not err <= limit:
        diff = (got - ref).abs()
        worst = diff.flatten().argsort(descending=True)[:5]
        flat_got, flat_ref = got.flatten(), ref.flatten()
        rows = [
            f"  at {np.unravel_index(int(i), ref.shape)}: got {float(flat_got[i]):.8g}, want {float(flat_ref[i]):.8g}"
            for i in worst
        ]
        raise AssertionError(
            f"{what}: normwise error {err:.3e} > {tol:.2e} * scale {scale:.3e} = {limit:.3e}\n" + "\n".join(rows)
        )


def _as_torch(x: object) -> torch.Tensor:
    """``x`` as a torch tensor: itself, a NumPy array's copy, or another library's array through DLPack (torch's
    own tensors go as they are: torch refuses to export one of a GPU that is not the current one)."""
    if isinstance(x, torch.Tensor):
        return x
    return torch.from_numpy(np.array(x)) if isinstance(x, np.ndarray) else torch.from_dlpack(x)


def assert_identical(out: object, ref: object, what: str = "") -> None:
    """Bit-exact equality (for permutations such as transposition), NaN payloads compared as bits."""
    got, want = (_as_torch(x) for x in (out, ref))
    got, want = got.detach().cpu(), want.detach().cpu()
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    # copied to standard strides first: a "contiguous" tensor may have a size-1 axis with any stride
    g, w = (
        torch.empty(t.shape, dtype=t.dtype).copy_(t).view(-1).view(torch.uint8).view(*t.shape, t.element_size())
        for t in (got, want)
    )
    if not torch.equal(g, w):
        mism = (g != w).any(dim=-1).nonzero()[:5].tolist()
        raise AssertionError(f"{what}: results differ, first mismatching indices {mism}")


# --- LU: factors rebuilt from (lu, piv), LAPACK's test ratios, test matrices ------------------------------


def f64_here(x: object) -> torch.Tensor:
    """Any array as a float64 tensor on its own device (NumPy arrays: the CPU); a copy, never a view."""
    if isinstance(x, np.ndarray):
        return torch.from_numpy(np.array(x, dtype=np.float64))
    x = _as_torch(x)
    return x.detach().to(torch.float64, copy=True)


def int64_cpu(x: object) -> torch.Tensor:
    """An integer array (pivots, info) as an int64 CPU tensor."""
    if isinstance(x, (np.ndarray, list, tuple, range)):
        return torch.from_numpy(np.array(x, dtype=np.int64))
    x = _as_torch(x)
    return x.detach().to("cpu", torch.int64)


def lu_permutation(piv: object, m: int) -> torch.Tensor:
    """Row order ``perm`` (..., m) with (P A)[i] = A[perm[i]], from SciPy's interchanges: for i = 0, 1, ...
    row i was swapped with row piv[i]. ``piv`` is (..., k); every entry must lie in [0, m)."""
    p = int64_cpu(piv)
    batch, k = p.shape[:-1], p.shape[-1]
    p = p.reshape(-1, k)
    count = p.shape[0]
    perm = torch.arange(m).repeat(count, 1)
    rows = torch.arange(count)
    for i in range(k):
        j = p[:, i]
        held = perm[:, i].clone()
        perm[:, i] = perm[rows, j]
        perm[rows, j] = held
    return perm.reshape(*batch, m)


def lu_unpack(lu: object, piv: object) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(perm, L, U) in float64 on lu's device with A[..., perm, :] = L @ U for an m x n (or batched) ``lu``:
    L is m x min(m, n) unit lower triangular, U is min(m, n) x n upper triangular."""
    lu64 = f64_here(lu)
    m, n = lu64.shape[-2:]
    k = min(m, n)
    eye = torch.eye(m, k, dtype=torch.float64, device=lu64.device)
    lower = lu64[..., :, :k].tril(-1) + eye
    upper = lu64[..., :k, :].triu()
    return lu_permutation(piv, m).to(lu64.device), lower, upper


def norm1(x: torch.Tensor) -> torch.Tensor:
    """Matrix 1-norm (largest column sum of magnitudes) of each matrix in (..., m, n); 0 for empty ones."""
    if x.shape[-1] == 0 or x.shape[-2] == 0:
        return torch.zeros(x.shape[:-2], dtype=x.dtype, device=x.device)
    return x.abs().sum(dim=-2).amax(dim=-1)


def _power_of_two_above(a64: torch.Tensor) -> torch.Tensor:
    """Per matrix, the power of two at or above max |a| (1 for a zero matrix): dividing by it is exact."""
    amax = a64.abs().amax(dim=(-2, -1), keepdim=True) if a64.numel() else torch.ones((*a64.shape[:-2], 1, 1))
    _, exponent = torch.frexp(amax)
    exponent = torch.where(amax > 0, exponent, torch.zeros_like(exponent))
    return torch.ldexp(torch.ones_like(amax), exponent)


def lu_factor_ratio(a: object, lu: object, piv: object, eps: float) -> torch.Tensor:
    """LAPACK's xGET01 test ratio ||P A - L U||_1 / (n ||A||_1 eps) of each matrix, in float64.

    A and the U part are first divided by the same power of two (exact), so matrices scaled near overflow
    or underflow give the ratio of their normalized copies. As in LAPACK, a zero A gives 0 when L U is zero
    and 1 / eps otherwise. NaN anywhere in lu gives a NaN ratio (fails any ``ratio < bound``).
    """
    a64 = f64_here(a)
    perm, lower, upper = lu_unpack(lu, piv)
    perm, lower, upper = perm.to(a64.device), lower.to(a64.device), upper.to(a64.device)
    scale = _power_of_two_above(a64).to(a64.device)
    pa = torch.gather(a64, -2, perm.unsqueeze(-1).expand(a64.shape)) / scale
    resid = norm1(pa - lower @ (upper / scale))
    anorm = norm1(a64 / scale)
    n = max(a64.shape[-1], 1)
    ratio = resid / (n * anorm * eps)
    fallback = torch.where(resid > 0, torch.full_like(resid, 1.0 / eps), torch.zeros_like(resid))
    return torch.where(anorm > 0, ratio, fallback).cpu()


def solve_ratio(a: object, x: object, b: object, eps: float, *, trans: bool = False) -> torch.Tensor:
    """LAPACK's xGET02 test ratio max_j ||b_j - op(A) x_j||_1 / (||op(A)||_1 ||x_j||_1 n eps) per matrix.

    ``x`` and ``b`` are vectors (..., n) or matrices (..., n, k) of right-hand sides; op(A) is A^T when
    ``trans``. Computed in float64 from the values as stored.
    """
    a64 = f64_here(a)
    if trans:
        a64 = a64.mT
    x64, b64 = f64_here(x).to(a64.device), f64_here(b).to(a64.device)
    if x64.ndim == a64.ndim - 1:
        x64, b64 = x64.unsqueeze(-1), b64.unsqueeze(-1)
    resid = (b64 - a64 @ x64).abs().sum(dim=-2)
    xnorm = x64.abs().sum(dim=-2)
    n = max(a64.shape[-1], 1)
    ratio = resid / (norm1(a64).unsqueeze(-1) * xnorm) / (n * eps)
    ratio = torch.where(xnorm > 0, ratio, torch.where(resid > 0, 1.0 / eps, 0.0))
    return ratio.amax(dim=-1).cpu() if ratio.shape[-1] else torch.zeros(ratio.shape[:-1])


def backward_error(a: object, x: object, b: object) -> float:
    """Normwise backward error ||b - A x|| / (||A|| ||x|| + ||b||) in the infinity norm, float64 (2-D a)."""
    a64 = f64_here(a)
    x64, b64 = f64_here(x).to(a64.device), f64_here(b).to(a64.device)
    if x64.ndim == 1:
        x64, b64 = x64.unsqueeze(-1), b64.unsqueeze(-1)

    def inf_norm(t: torch.Tensor) -> float:
        return float(t.abs().sum(dim=-1).amax()) if t.numel() else 0.0

    denominator = inf_norm(a64) * inf_norm(x64) + inf_norm(b64)
    return inf_norm(b64 - a64 @ x64) / denominator if denominator > 0 else 0.0


def with_condition(m: int, n: int, cond: float, rng: np.random.Generator) -> np.ndarray:
    """An m x n float64 matrix U diag(s) V^T: U and V random orthogonal (QR of Gaussian matrices, signs fixed),
    singular values falling geometrically from 1 to 1 / cond (LAPACK's mode 3)."""
    k = min(m, n)
    s = cond ** (-np.arange(k) / max(k - 1, 1))

    def orthogonal(size: int) -> np.ndarray:
        q, r = np.linalg.qr(rng.standard_normal((size, size)))
        return q * np.sign(np.diag(r))

    return (orthogonal(m)[:, :k] * s) @ orthogonal(n)[:, :k].T


def wilkinson_growth(n: int) -> np.ndarray:
    """Wilkinson's matrix: 1 on the diagonal and in the last column, -1 below the diagonal. Partial pivoting
    (first maximum on ties) keeps every row in place and U[n-1, n-1] = 2**(n - 1); all arithmetic is exact."""
    a = np.eye(n) - np.tril(np.ones((n, n)), -1)
    a[:, -1] = 1.0
    return a


def exact_lu_pivots(a: np.ndarray) -> tuple[list[int], bool]:
    """Partial pivoting in exact rational arithmetic, first maximum on ties: (pivots, exact_in_float32).

    ``exact_in_float32`` says every multiplier, every entry of every Schur complement and U is a multiple
    of 1/16 below 64 in magnitude and every pivot a power of two, so any summation order in float32 or
    float64 computes them exactly, and the pivot sequence (ties included) is the only correct one.
    """
    from fractions import Fraction

    rows = [[Fraction(float(v)) for v in row] for row in np.asarray(a)]
    m, n = len(rows), len(rows[0]) if len(rows) else 0
    pivots, exact = [], True

    def small_dyadic(v: Fraction) -> bool:
        return (v * 16).denominator == 1 and abs(v) < 64

    def power_of_two(v: Fraction) -> bool:
        num, den = abs(v).numerator, abs(v).denominator
        return v != 0 and num & (num - 1) == 0 and den & (den - 1) == 0

    for j in range(min(m, n)):
        column = [abs(rows[i][j]) for i in range(j, m)]
        p = j + column.index(max(column))
        pivots.append(p)
        rows[j], rows[p] = rows[p], rows[j]
        pivot = rows[j][j]
        exact &= power_of_two(pivot)
        if pivot == 0:
            continue
        for i in range(j + 1, m):
            rows[i][j] /= pivot
            for c in range(j + 1, n):
                rows[i][c] -= rows[i][j] * rows[j][c]
        exact &= all(small_dyadic(v) for row in rows for v in row)
    return pivots, exact
