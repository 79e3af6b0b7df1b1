"""Providers: the implementations a suite compares, each a named entry that builds a callable per case.

``densela`` runs this library's public API; ``cublas`` runs torch on the GPU (cuBLAS for products and
its own kernels for copies and sums); ``cupy`` runs CuPy (cuBLAS matmul, geam); ``cusolver`` and
``magma`` run ``torch.linalg.lu_factor`` with that backend preferred (a solve: then ``lu_solve``, with
cuSOLVER for both); ``numpy`` runs NumPy/SciPy on the CPU with their multithreaded BLAS/LAPACK (SciPy
for LU); ``cpu-seq`` runs torch on one CPU thread, the sequential CPU baseline of the studies. A provider
whose library is missing, or that needs a GPU where none is, is skipped with a note, never imitated.
"""

from __future__ import annotations

import contextlib
import importlib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

import numpy as np
import torch

from densela.bench.suites import Case

Inputs = dict[str, Any]
Builder = Callable[[Case, Inputs], Callable[[], Any]]

TORCH_DTYPES = {
    "int8": torch.int8,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
}


def make_inputs(case: Case, device: str | torch.device, seed: int = 0) -> Inputs:
    """Random normal operands for ``case`` on ``device`` (never zeros; integers uniform over their type's range),
    laid out as ``case.layout`` says.

    gemm: ``a``, ``b`` as the product uses them (``a`` m x k, ``b`` k x n; a transposed layout stores
    the operand the other way round and passes a ``.T`` view). transpose: ``a`` (column-major for layout
    "col"). add: ``a`` and ``b`` (``b`` a ``.T`` view for "row+col"). lu: ``a`` (n x n or batch x n x n).

    Example:
        >>> x = make_inputs(Case("gemm", (4, 3, 2), "float64", layout="nt"), "cpu")
        >>> tuple(x["b"].shape), x["b"].stride()
        ((2, 3), (1, 2))
    """
    gen = torch.Generator(device=device).manual_seed(seed)
    dtype = TORCH_DTYPES[case.dtype]

    def randn(*shape: int) -> torch.Tensor:
        if not dtype.is_floating_point:  # 8-bit integers: uniform over the type's range
            info = torch.iinfo(dtype)
            return torch.randint(info.min, info.max + 1, shape, generator=gen, device=device, dtype=dtype)
        wide = torch.float64 if dtype == torch.float64 else torch.float32
        return torch.randn(shape, generator=gen, device=device, dtype=wide).to(dtype)

    def stored(rows: int, cols: int, transposed: bool) -> torch.Tensor:
        return randn(cols, rows).T if transposed else randn(rows, cols)

    if case.op == "gemm":
        m, n, k = case.shape
        layout = "nn" if case.layout == "row" else case.layout
        return {"a": stored(m, k, layout[0] == "t"), "b": stored(k, n, layout[1] == "t")}
    if case.op == "transpose":
        return {"a": stored(*case.shape, case.layout == "col")}
    if case.op == "add":
        return {"a": randn(*case.shape), "b": stored(*case.shape, case.layout == "row+col")}
    if case.op == "lu":
        n = case.shape[-1]
        return {"a": randn(*case.shape[:-1], n, n)}
    if case.op == "solve":
        n = case.shape[0]
        b = randn(*case.shape)  # drawn first: the same b whether or not A comes from the cache
        a = randn(n, n) if case.cond is None else conditioned_matrix(n, case.cond, case.dtype, device, seed)
        return {"a": a, "b": b}
    raise ValueError(f"unknown operation {case.op!r}")


_CONDITIONED: dict[tuple[Any, ...], torch.Tensor] = {}


def conditioned_matrix(n: int, cond: float, dtype: str, device: str | torch.device, seed: int = 0) -> torch.Tensor:
    """A = U diag(s) V^T, n x n, with U and V orthogonal (QR of random normal matrices, in float64 where
    the matrix is made) and singular values s geometric from 1 down to 1 / ``cond``: its 2-norm is 1 and
    its 2-norm condition number ``cond``.

    Made once per (n, cond, dtype, device, seed): the matrices of the last (n, cond, dtype, device) stay
    cached (at n = 16384 one takes two float64 QRs and a product), so that the cases of one matrix in
    several refinement modes share it; ``clear_input_cache`` drops them. Do not modify the result.

    Example:
        >>> a = conditioned_matrix(32, 1e6, "float64", "cpu")
        >>> s = torch.linalg.svdvals(a)
        >>> round(float(s[0]), 12), round(float(s[0] / s[-1]))
        (1.0, 1000000)
    """
    key = (n, float(cond), dtype, str(torch.device(device)), seed)
    if key not in _CONDITIONED:
        for old in [k for k in _CONDITIONED if k[:4] != key[:4]]:
            del _CONDITIONED[old]
        gen = torch.Generator(device=device).manual_seed((1 << 32) + seed)  # apart from make_inputs' draws

        def orthogonal() -> torch.Tensor:
            return torch.linalg.qr(torch.randn(n, n, generator=gen, device=device, dtype=torch.float64))[0]

        u, v = orthogonal(), orthogonal()
        s = torch.logspace(0.0, -math.log10(cond), n, device=device, dtype=torch.float64)
        _CONDITIONED[key] = ((u * s) @ v.T).to(TORCH_DTYPES[dtype])
    return _CONDITIONED[key]


def clear_input_cache() -> None:
    """Drops the cached matrices of ``conditioned_matrix`` (the runner calls it at the end of a run)."""
    _CONDITIONED.clear()


@dataclass(frozen=True)
class NotedCall:
    """A callable to time whose first call can also say something about its result.

    ``first()`` returns (result, note): the runner makes it the first call (the one whose result is judged,
    outside the timing) and writes the note to the row (densela's refinement: iterations, converged or fell
    back); the timed calls are ``fn``'s.
    """

    fn: Callable[[], Any]
    first: Callable[[], tuple[Any, str | None]]

    def __call__(self) -> Any:
        return self.fn()


def transposed_copy(case: Case, a: Any, contiguous: Callable[[Any], Any]) -> Callable[[], Any]:
    """``a.T`` materialized in ``a``'s memory order by a library's contiguous-copy function.

    Row-major ``a``: a row-major copy of ``a.T``. Column-major ``a`` (layout "col"): a row-major copy of
    ``a``, viewed transposed, which is ``a.T`` in column-major order.
    """
    if case.layout == "col":
        return lambda: contiguous(a).T
    return lambda: contiguous(a.T)


@contextlib.contextmanager
def torch_tf32(allowed: bool) -> Iterator[None]:
    """Lets torch's float32 matmuls use TF32 (cuBLAS) inside the block only."""
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = allowed
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(saved)


@contextlib.contextmanager
def _linalg_library(name: str) -> Iterator[None]:
    saved = torch.backends.cuda.preferred_linalg_library()
    torch.backends.cuda.preferred_linalg_library(name)
    try:
        yield
    finally:
        torch.backends.cuda.preferred_linalg_library(saved)


def _torch_ops(context: Callable[[], contextlib.AbstractContextManager[None]]) -> dict[str, Builder]:
    """Builders running torch's own operations under ``context`` (TF32 off, one thread, ...)."""

    def gemm(case: Case, x: Inputs) -> Callable[[], Any]:
        a, b = x["a"], x["b"]
        tf32 = case.precision == "tf32"

        def run() -> Any:
            with context(), torch_tf32(tf32):
                return torch.matmul(a, b)

        return run

    def transpose(case: Case, x: Inputs) -> Callable[[], Any]:
        copy = transposed_copy(case, x["a"], torch.Tensor.contiguous)

        def run() -> Any:
            with context():
                return copy()

        return run

    def add(case: Case, x: Inputs) -> Callable[[], Any]:
        a, b = x["a"], x["b"]

        def run() -> Any:
            with context():
                return torch.add(a, b)

        return run

    return {"gemm": gemm, "transpose": transpose, "add": add}


def _lu_torch(context: Callable[[], contextlib.AbstractContextManager[None]]) -> Builder:
    """``torch.linalg.lu_factor`` under ``context``; its result keeps LAPACK's 1-based pivots (the
    provider's ``lu_pivot_base``), so that the timed call does no conversion."""

    def build(case: Case, x: Inputs) -> Callable[[], Any]:
        a = x["a"]

        def run() -> Any:
            with context():
                return torch.linalg.lu_factor(a)

        return run

    return build


def _solve_torch(
    context: Callable[[], contextlib.AbstractContextManager[None]],
    solve_context: Callable[[], contextlib.AbstractContextManager[None]] | None = None,
) -> Builder:
    """``torch.linalg.lu_factor`` under ``context``, then ``torch.linalg.lu_solve`` under ``solve_context``
    (default: ``context`` too), in ``a``'s dtype (``lu_solve`` wants a matrix: a vector ``b`` goes as an
    n x 1 view and comes back a vector)."""
    solve_context = solve_context or context

    def build(case: Case, x: Inputs) -> Callable[[], Any]:
        a, b = x["a"], x["b"]
        rhs = b if b.ndim == 2 else b[:, None]

        def run() -> Any:
            with context():
                lu, piv = torch.linalg.lu_factor(a)
            with solve_context():
                solution = torch.linalg.lu_solve(lu, piv, rhs)
            return solution if b.ndim == 2 else solution[:, 0]

        return run

    return build


def _item(value: Any) -> Any:
    """A Python number from a 0-d tensor or array (densela's ``info`` fields may live on the device)."""
    return value.item() if hasattr(value, "item") else value


def refine_note(mode: str, info: Any) -> str:
    """One line on a refined solve from ``densela.solve_ex``'s ``info``: its iterations, whether it
    converged or fell back to a full-precision factorization, and its backward error.

    Example:
        >>> from types import SimpleNamespace as NS
        >>> refine_note("fp32", NS(iterations=3, converged=True, fell_back=False, backward_error=1.2e-17))
        'refine fp32: 3 iterations, converged, backward error 1.2e-17'
        >>> refine_note("bf16", NS(iterations=30, converged=False, fell_back=True, backward_error=8e-17))
        'refine bf16: 30 iterations, fell back to a full-precision factorization, backward error 8e-17'
    """
    fields = {k: _item(getattr(info, k, None)) for k in ("iterations", "converged", "fell_back", "backward_error")}
    parts = [f"{fields['iterations']} iterations"] if fields["iterations"] is not None else []
    if fields["fell_back"]:
        parts.append("fell back to a full-precision factorization")
    elif fields["converged"] is not None:
        parts.append("converged" if fields["converged"] else "not converged")
    if fields["backward_error"] is not None:
        parts.append(f"backward error {fields['backward_error']:.2g}")
    return f"refine {mode}: {', '.join(parts)}"


def _densela_ops() -> dict[str, Builder]:
    import densela as dl

    def gemm(case: Case, x: Inputs) -> Callable[[], Any]:
        a, b = x["a"], x["b"]
        precision = case.precision if case.dtype == "float32" else None
        return lambda: dl.matmul(a, b, precision=precision)

    def transpose(case: Case, x: Inputs) -> Callable[[], Any]:
        if case.layout != "inplace":
            return lambda: dl.transpose(x["a"])
        # transpose_ permutes its argument: it works on a copy (the inputs stay as the reference wants them),
        # and each call transposes what the last one returned, back and forth
        state = [x["a"].clone()]

        def run() -> Any:
            state[0] = dl.transpose_(state[0])
            return state[0]

        return run

    builders: dict[str, Builder] = {
        "gemm": gemm,
        "transpose": transpose,
        "add": lambda case, x: lambda: dl.add(x["a"], x["b"]),
    }
    if hasattr(dl, "lu_factor"):
        builders["lu"] = lambda case, x: lambda: dl.lu_factor(x["a"], check_finite=False)
    if hasattr(dl, "solve"):

        def solve(case: Case, x: Inputs) -> Callable[[], Any]:
            a, b, mode = x["a"], x["b"], case.precision

            def run() -> Any:
                return dl.solve(a, b, refine=mode)

            def first() -> tuple[Any, str]:
                solution, info = dl.solve_ex(a, b, refine=mode)
                return solution, refine_note(mode, info)

            return run if mode is None or not hasattr(dl, "solve_ex") else NotedCall(run, first)

        builders["solve"] = solve
    return builders


def _cupy_ops() -> dict[str, Builder]:
    cp = importlib.import_module("cupy")
    geam = getattr(importlib.import_module("cupy.cublas"), "geam", None)

    def gemm(case: Case, x: Inputs) -> Callable[[], Any]:
        if case.precision == "tf32":
            raise NotImplementedError("CuPy has no per-call TF32 switch (only the CUPY_TF32 environment variable)")
        a, b = cp.from_dlpack(x["a"]), cp.from_dlpack(x["b"])
        return lambda: cp.matmul(a, b)

    def transpose(case: Case, x: Inputs) -> Callable[[], Any]:
        return transposed_copy(case, cp.from_dlpack(x["a"]), cp.ascontiguousarray)

    def add(case: Case, x: Inputs) -> Callable[[], Any]:
        a, b = cp.from_dlpack(x["a"]), cp.from_dlpack(x["b"])
        if geam is None:
            return lambda: a + b
        return lambda: geam("N", "N", 1.0, a, 1.0, b)

    return {"gemm": gemm, "transpose": transpose, "add": add}


def _numpy_ops() -> dict[str, Builder]:
    def host(x: Inputs, name: str) -> np.ndarray:
        t = x[name]
        if t.dtype in (torch.float16, torch.bfloat16):
            raise NotImplementedError("NumPy has no BLAS for 16-bit floats (float16 products run in C loops)")
        return t.cpu().numpy()

    def gemm(case: Case, x: Inputs) -> Callable[[], Any]:
        a, b = host(x, "a"), host(x, "b")
        return lambda: np.matmul(a, b)

    def add(case: Case, x: Inputs) -> Callable[[], Any]:
        a, b = host(x, "a"), host(x, "b")
        return lambda: a + b

    def lu(case: Case, x: Inputs) -> Callable[[], Any]:
        try:
            from scipy import linalg
        except ImportError as e:
            raise NotImplementedError(f"SciPy is not installed ({e}): pip install 'densela[bench]'") from None
        a = host(x, "a")
        if a.ndim == 3:
            return lambda: [linalg.lu_factor(m, check_finite=False) for m in a]
        return lambda: linalg.lu_factor(a, check_finite=False)

    def solve(case: Case, x: Inputs) -> Callable[[], Any]:
        a, b = host(x, "a"), host(x, "b")
        return lambda: np.linalg.solve(a, b)

    return {
        "gemm": gemm,
        "transpose": lambda case, x: transposed_copy(case, host(x, "a"), np.ascontiguousarray),
        "add": add,
        "lu": lu,
        "solve": solve,
    }


def _cpu_seq_ops() -> dict[str, Builder]:
    return {**_torch_ops(_one_thread), "lu": _lu_torch(_one_thread), "solve": _solve_torch(_one_thread)}


@dataclass(frozen=True)
class Provider:
    """A named implementation: where it runs, what it needs, and how it builds a callable for a case.

    ``where``: "gpu" or "cpu", where its inputs live and how it is timed. ``load``: the builders per op
    (called only once ``unavailable`` says the provider can run; cached in ``PROVIDERS``). ``requires``:
    modules it cannot run without. ``needs_gpu``: it cannot run without a CUDA GPU (densela can, in
    Triton's interpreter). ``lu_pivot_base``: 1 where its LU returns LAPACK's 1-based pivots, 0 for
    SciPy's 0-based ones; the accuracy check converts them, outside the timed call. ``ops``: the
    operations it implements (densela's LU and solve only once ``densela.lu_factor`` and
    ``densela.solve`` exist: ``builder`` says).
    """

    name: str
    description: str
    where: str
    load: Callable[[], dict[str, Builder]] = field(repr=False)
    requires: tuple[str, ...] = ()
    needs_gpu: bool = False
    lu_pivot_base: int = 0
    ops: tuple[str, ...] = ("gemm", "transpose", "add", "lu", "solve")

    def unavailable(self, gpu: bool) -> str | None:
        """Why this provider cannot run here, or None when it can; tries to import each required module."""
        if self.needs_gpu and not gpu:
            return "needs a CUDA GPU"
        for module in self.requires:
            try:
                importlib.import_module(module)
            except Exception as e:  # a missing or broken optional library: skipped with its reason
                return f"{module} is not available ({type(e).__name__}: {e})"
        return None

    def builder(self, op: str) -> Builder | None:
        """The builder for ``op``, or None when this provider does not implement it."""
        return self.load().get(op)


def _vendor_lu(name: str, label: str) -> Provider:
    """torch.linalg.lu_factor (and lu_solve) with ``name`` as torch's preferred linear-algebra backend.

    MAGMA's solve factors with MAGMA and solves the triangular systems with cuSOLVER's getrs: torch's
    ``lu_solve`` under MAGMA fails with "CUDA error: invalid argument" for one right-hand side at
    n = 8192 (torch 2.11, cu130, H100; n = 1024, or 4 right-hand sides at 8192, pass). The triangular solves
    are 2 n^2 of the 2 n^3 / 3 flops.
    """
    context = partial(_linalg_library, name)
    solve = _solve_torch(context, partial(_linalg_library, "cusolver"))
    return Provider(
        name,
        f"torch.linalg.lu_factor, {label} backend (solve: then lu_solve, cuSOLVER backend)",
        "gpu",
        cache(lambda: {"lu": _lu_torch(context), "solve": solve}),
        needs_gpu=True,
        lu_pivot_base=1,
        ops=("lu", "solve"),
    )


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider("densela", "densela's Triton kernels", "gpu", cache(_densela_ops)),
        Provider(
            "cublas",
            "torch on the GPU: matmul (cuBLAS, TF32 only for precision tf32), torch.add, x.t().contiguous()",
            "gpu",
            cache(lambda: _torch_ops(contextlib.nullcontext)),
            needs_gpu=True,
            ops=("gemm", "transpose", "add"),
        ),
        Provider(
            "cupy",
            "CuPy: matmul (cuBLAS), geam, ascontiguousarray(x.T)",
            "gpu",
            cache(_cupy_ops),
            ("cupy",),
            needs_gpu=True,
            ops=("gemm", "transpose", "add"),
        ),
        *(_vendor_lu(name, label) for name, label in (("cusolver", "cuSOLVER"), ("magma", "MAGMA"))),
        Provider(
            "numpy",
            "NumPy/SciPy on the CPU, multithreaded BLAS/LAPACK (SciPy's lu_factor, NumPy's solve)",
            "cpu",
            cache(_numpy_ops),
        ),
        Provider(
            "cpu-seq", "torch on one CPU thread (sequential baseline)", "cpu", cache(_cpu_seq_ops), lu_pivot_base=1
        ),
    )
}
