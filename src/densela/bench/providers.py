"""Providers: the implementations a suite compares, each a named entry that builds a callable per case.

``densela`` runs this library's public API; ``cublas`` runs torch on the GPU (cuBLAS for products and
its own kernels for copies and sums); ``cupy`` runs CuPy (cuBLAS matmul, geam); ``cusolver`` and
``magma`` run ``torch.linalg.lu_factor`` with that backend preferred; ``numpy`` runs NumPy/SciPy on
the CPU with their multithreaded BLAS/LAPACK (SciPy for LU only); ``cpu-seq`` runs torch on one CPU
thread, the sequential CPU baseline of the studies. A provider whose library is missing, or that needs a
GPU where none is, is skipped with a note, never imitated.
"""

from __future__ import annotations

import contextlib
import importlib
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
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
}


def make_inputs(case: Case, device: str | torch.device, seed: int = 0) -> Inputs:
    """Random normal operands for ``case`` on ``device`` (never zeros), laid out as ``case.layout`` says.

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
    raise ValueError(f"unknown operation {case.op!r}")


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


def _densela_ops() -> dict[str, Builder]:
    import densela as dl

    def gemm(case: Case, x: Inputs) -> Callable[[], Any]:
        a, b = x["a"], x["b"]
        precision = case.precision if case.dtype == "float32" else None
        return lambda: dl.matmul(a, b, precision=precision)

    builders: dict[str, Builder] = {
        "gemm": gemm,
        "transpose": lambda case, x: lambda: dl.transpose(x["a"]),
        "add": lambda case, x: lambda: dl.add(x["a"], x["b"]),
    }
    if hasattr(dl, "lu_factor"):
        builders["lu"] = lambda case, x: lambda: dl.lu_factor(x["a"], check_finite=False)
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

    return {
        "gemm": gemm,
        "transpose": lambda case, x: transposed_copy(case, host(x, "a"), np.ascontiguousarray),
        "add": add,
        "lu": lu,
    }


def _cpu_seq_ops() -> dict[str, Builder]:
    return {**_torch_ops(_one_thread), "lu": _lu_torch(_one_thread)}


@dataclass(frozen=True)
class Provider:
    """A named implementation: where it runs, what it needs, and how it builds a callable for a case.

    ``where``: "gpu" or "cpu", where its inputs live and how it is timed. ``load``: the builders per op
    (called only once ``unavailable`` says the provider can run; cached in ``PROVIDERS``). ``requires``:
    modules it cannot run without. ``needs_gpu``: it cannot run without a CUDA GPU (densela can, in
    Triton's interpreter). ``lu_pivot_base``: 1 where its LU returns LAPACK's 1-based pivots, 0 for
    SciPy's 0-based ones; the accuracy check converts them, outside the timed call. ``ops``: the
    operations it implements (densela's LU only once ``densela.lu_factor`` exists: ``builder`` says).
    """

    name: str
    description: str
    where: str
    load: Callable[[], dict[str, Builder]] = field(repr=False)
    requires: tuple[str, ...] = ()
    needs_gpu: bool = False
    lu_pivot_base: int = 0
    ops: tuple[str, ...] = ("gemm", "transpose", "add", "lu")

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
    """torch.linalg.lu_factor with ``name`` as torch's preferred linear-algebra backend."""
    return Provider(
        name,
        f"torch.linalg.lu_factor, {label} backend",
        "gpu",
        cache(lambda: {"lu": _lu_torch(partial(_linalg_library, name))}),
        needs_gpu=True,
        lu_pivot_base=1,
        ops=("lu",),
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
        Provider("numpy", "NumPy/SciPy on the CPU, multithreaded BLAS/LAPACK", "cpu", cache(_numpy_ops)),
        Provider(
            "cpu-seq", "torch on one CPU thread (sequential baseline)", "cpu", cache(_cpu_seq_ops), lu_pivot_base=1
        ),
    )
}
