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
    if not isinstance(x, torch.Tensor):
        x = torch.from_dlpack(x)
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


def assert_identical(out: object, ref: object, what: str = "") -> None:
    """Bit-exact equality (for permutations such as transposition), NaN payloads compared as bits."""
    got, want = (
        torch.from_numpy(np.array(x)) if isinstance(x, np.ndarray) else torch.from_dlpack(x) for x in (out, ref)
    )
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
