"""Arrays in and out: any array type to a zero-copy torch view, the device a call runs on, the result back.

Every public operation goes through ``prepare`` (read and check the arrays), runs its kernels on
``Call.run_device``, and returns through ``Call.finish`` (result in the type of the first array argument,
``out`` written in place).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import warnings
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch
from torch.autograd.graph import increment_version

INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"
"""Triton's interpreter runs the kernels on CPU tensors (how CI tests them)."""

Backend = Literal["triton", "torch"]
INT32_LIMIT = 2**31 - 1

ARRAY_TYPES = "torch.Tensor, numpy.ndarray, cupy.ndarray or an object with __dlpack__"


@functools.cache
def cuda_available() -> bool:
    """True when a CUDA GPU is usable (checked once per process)."""
    return torch.cuda.is_available()


def as_tensor(op: str, name: str, x: Any, *, writable: bool = False) -> torch.Tensor:
    """A torch view of ``x`` sharing its memory (a copy only for NumPy inputs with negative strides).

    ``writable`` marks ``out`` arrays: they must be written through, so they are never copied.
    """
    if isinstance(x, torch.Tensor):
        t = x.detach() if x.requires_grad else x
        if t.is_conj() or t.is_neg():
            if writable:
                raise ValueError(f"{op}: {name} is a lazily conjugated or negated view; it cannot be written")
            t = t.resolve_conj().resolve_neg()
        return t
    if isinstance(x, np.ndarray):
        if writable and not x.flags.writeable:
            raise ValueError(f"{op}: {name} is a read-only NumPy array")
        if any(s < 0 for s in x.strides) or not x.dtype.isnative:
            if writable:
                raise ValueError(
                    f"{op}: {name} cannot be written in place (negative strides {x.strides} or non-native byte "
                    f"order {x.dtype.str}); pass a positively strided, native-order array"
                )
            x = x.astype(x.dtype.newbyteorder("="), order="K")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # read-only inputs: densela never writes them
                return torch.from_numpy(x)
        except TypeError as e:
            raise TypeError(f"{op}: {name} has unsupported NumPy dtype {x.dtype}") from e
    if hasattr(x, "__dlpack__"):
        try:
            return torch.from_dlpack(x)
        except (BufferError, RuntimeError, TypeError) as e:
            raise TypeError(f"{op}: {name} could not be read through DLPack: {e}") from e
    raise TypeError(f"{op}: {name} must be an array ({ARRAY_TYPES}), got {type(x).__name__}")


def span(t: torch.Tensor) -> tuple[int, int]:
    """Byte range [lo, hi) that ``t``'s elements occupy."""
    if t.numel() == 0:
        return (0, 0)
    lo = hi = t.data_ptr()
    for n, s in zip(t.shape, t.stride()):
        step = (n - 1) * s * t.element_size()
        if step < 0:
            lo += step
        else:
            hi += step
    return lo, hi + t.element_size()


def _grid(t: torch.Tensor) -> tuple[int, int, int, int] | None:
    """(outer stride, inner stride, outer count, inner count) of a 2-D view whose rows do not wrap.

    None when ``t`` is not such a view (other ndim, a non-positive stride, an inner stride that does not
    divide the outer one, or rows longer than the outer stride): callers then fall back to byte ranges.
    """
    if t.ndim != 2:
        return None
    (s_out, n_out), (s_in, n_in) = sorted(zip(t.stride(), t.shape), reverse=True)
    if s_in <= 0 or s_out % s_in or s_in * n_in > s_out:
        return None
    return s_out, s_in, n_out, n_in


def overlaps(x: torch.Tensor, y: torch.Tensor) -> bool:
    """Whether ``x`` and ``y`` may share an element.

    Exact for two 2-D views with the same strides into one buffer (blocks of one matrix, interleaved
    columns); otherwise whether their byte ranges intersect, which may report views that only interleave.
    """
    if x.device != y.device or x.numel() == 0 or y.numel() == 0:
        return False
    (a0, a1), (b0, b1) = span(x), span(y)
    if not (a0 < b1 and b0 < a1):
        return False
    grid = _grid(x)
    if grid is None or x.stride() != y.stride() or x.element_size() != y.element_size() or _grid(y) is None:
        return True
    s_out, s_in, _, _ = grid
    size = x.element_size()
    if (x.data_ptr() - y.data_ptr()) % (size * s_in):
        return False  # the element lattices are offset against each other: disjoint
    # Place each view's first element as (row, column) of the lattice and compare the rectangles.
    base = min(x.data_ptr(), y.data_ptr())
    ranges = []
    for t in (x, y):
        row, col = divmod((t.data_ptr() - base) // size, s_out)
        _, _, n_out, n_in = _grid(t)
        col //= s_in
        if col + n_in > s_out // s_in:
            return True  # the view's rows wrap past the lattice's row: keep the conservative answer
        ranges.append((row, row + n_out, col, col + n_in))
    (r0, r1, c0, c1), (q0, q1, d0, d1) = ranges
    return r0 < q1 and q0 < r1 and c0 < d1 and d0 < c1


def same_view(x: torch.Tensor, y: torch.Tensor) -> bool:
    """Whether ``x`` and ``y`` are the same elements in the same positions (one view, two objects)."""
    return (
        x.device == y.device
        and x.data_ptr() == y.data_ptr()
        and x.shape == y.shape
        and x.stride() == y.stride()
        and x.dtype == y.dtype
    )


def needs_int64(*tensors: torch.Tensor) -> bool:
    """Whether an element offset of any tensor can pass 2**31 - 1, so kernels must index in 64 bits."""
    for t in tensors:
        if t.numel() == 0:
            continue
        reach = 0
        for n, s in zip(t.shape, t.stride()):
            reach += (n - 1) * abs(s)
        if reach > INT32_LIMIT:
            return True
    return False


def _wrap(first: Any, t: torch.Tensor) -> Any:
    """``t`` as an array of ``first``'s type (zero-copy where the library allows)."""
    if isinstance(first, torch.Tensor):
        return t
    if isinstance(first, np.ndarray):
        return t.numpy()
    top = type(first).__module__.split(".")[0]
    try:
        module = importlib.import_module("jax.numpy" if top in ("jax", "jaxlib") else top)
    except ImportError:
        return t
    from_dlpack = getattr(module, "from_dlpack", None)
    return from_dlpack(t) if from_dlpack is not None else t


@dataclass
class Call:
    """One operation's arrays as torch tensors, and where its kernels run.

    ``tensors`` holds the inputs by name (None where an optional one was not given); ``out`` the
    caller's output view or None. ``device`` is where the data lives, ``run_device`` where the work runs:
    a CUDA device whenever one exists, else the CPU (Triton's interpreter or PyTorch, per ``backend``).
    """

    op: str
    first: Any
    tensors: dict[str, torch.Tensor | None]
    out: torch.Tensor | None
    out_obj: Any
    device: torch.device
    run_device: torch.device
    backend: Backend

    def on_run_device(self, t: torch.Tensor | None) -> torch.Tensor | None:
        """``t`` where the kernels run (a host-to-GPU copy for host data on a GPU machine)."""
        if t is None or t.device == self.run_device:
            return t
        return t.to(self.run_device)

    def guard(self) -> Any:
        """Makes ``run_device`` Triton's current device for the launches (a no-op off the GPU)."""
        if self.run_device.type == "cuda" and self.run_device.index != torch.cuda.current_device():
            return torch.cuda.device(self.run_device)
        return contextlib.nullcontext()

    def inputs(self, *names: str) -> list[torch.Tensor | None]:
        """The named inputs, on the run device."""
        return [self.on_run_device(self.tensors[n]) for n in names]

    def out_target(self, shape: tuple[int, ...], dtype: torch.dtype, like: torch.Tensor | None = None) -> torch.Tensor:
        """Where the kernel writes: ``out`` itself when it lives on the run device, else a new array.

        A new array is row-major, or takes ``like``'s memory order when ``like`` is given.
        """
        if self.out is not None and self.out.device == self.run_device:
            return self.out
        if like is not None and like.ndim == 2 and like.stride(0) < like.stride(1):
            return torch.empty(shape[::-1], dtype=dtype, device=self.run_device).T
        return torch.empty(shape, dtype=dtype, device=self.run_device)

    def finish_view(self, view: torch.Tensor) -> Any:
        """``view`` (a view of an input's memory) as an array of the first argument's type."""
        return _wrap(self.first, view)

    def finish(self, result: torch.Tensor) -> Any:
        """The caller's ``out`` (written: ``written``) or ``result`` as an array of the first argument's type."""
        if self.out is not None:
            if result is not self.out:
                self.out.copy_(result)
            written(self.out)
            return self.out_obj
        if result.device != self.device:
            result = result.to(self.device)
        return _wrap(self.first, result)


def written(t: torch.Tensor) -> None:
    """Tells torch that densela's kernels wrote ``t`` in place: its version counter advances, as after a torch
    in-place operation, so autograd sees the write (a tensor saved for a backward pass and then overwritten through
    ``out=`` raises there instead of giving a wrong gradient), and so does ``lu_solve``'s memory of the checks its
    factors passed (``lu._passes``). Triton's writes through a pointer leave the counter as it was.

    Example:
        >>> t = torch.zeros(2)
        >>> written(t)
        >>> t._version
        1
    """
    increment_version(t)


def prepare(
    op: str,
    arrays: dict[str, Any],
    out: Any = None,
    *,
    optional: tuple[str, ...] = (),
    out_may_alias: tuple[str, ...] = (),
) -> Call:
    """Read every array, check they share a device and that ``out`` overlaps no input.

    ``arrays`` maps argument names to arrays in signature order; those named in ``optional`` may be
    None. The first array decides the result's type. ``out_may_alias`` names inputs that ``out`` may be
    (``c`` in ``gemm``): exactly the same object, nothing partial.
    """
    tensors: dict[str, torch.Tensor | None] = {}
    device = first = None
    for name, x in arrays.items():
        if x is None and name in optional:
            tensors[name] = None
            continue
        t = tensors[name] = as_tensor(op, name, x)
        if device is None:
            device, first = t.device, x
        elif t.device != device:
            _different_devices(op, tensors, None)
    out_t = None
    if out is not None:
        out_t = as_tensor(op, "out", out, writable=True)
        if out_t.device != device:
            _different_devices(op, tensors, out_t)
        for name, t in tensors.items():
            if t is None or (name in out_may_alias and same_view(out_t, t)):
                continue
            if overlaps(out_t, t):
                raise ValueError(f"{op}: out overlaps the memory of {name}; pass a separate output array")
    if device.type == "cuda" or (INTERPRET and device.type == "cpu"):
        run_device, backend = device, "triton"
    elif device.type != "cpu":
        raise ValueError(f"{op}: arrays on {device} are not supported (CPU and CUDA only)")
    elif cuda_available():
        run_device, backend = torch.device("cuda", torch.cuda.current_device()), "triton"
    else:
        run_device, backend = device, "torch"
    return Call(op, first, tensors, out_t, out, device, run_device, backend)


def _different_devices(op: str, tensors: dict[str, torch.Tensor | None], out: torch.Tensor | None) -> None:
    listed = ", ".join(f"{name} on {t.device}" for name, t in tensors.items() if t is not None)
    if out is not None:
        listed += f", out on {out.device}"
    raise ValueError(f"{op}: arrays are on different devices ({listed})")
