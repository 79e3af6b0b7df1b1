"""Launching compiled Triton kernels with little host overhead.

``kernel[grid](*args, **constexprs)`` binds every argument and asks Triton's C++ specializer about each one
before it finds the compiled kernel: about 30 us per launch in Triton 3.6, more than a small product takes
on the GPU. A ``Launcher`` keys its own cache on what Triton specializes on (each integer's ``== 1``,
``% 16 == 0`` and range; each tensor's dtype and 16-byte alignment; each tensor descriptor's dtype and block
shape; the constexprs and launch options) and calls the compiled kernel's launcher directly. The first
launch of every key goes through ``kernel[grid]``, which compiles or finds the kernel; Triton's
interpreter always takes that path.
"""

from __future__ import annotations

from typing import Any

import torch
from triton import knobs
from triton.tools.tensor_descriptor import TensorDescriptor

from densela._arrays import INTERPRET

_I32 = 2**31
_I64 = 2**63


def cdiv(a: int, b: int) -> int:
    """``ceil(a / b)`` for host code (``triton.cdiv`` is a constexpr function, ten times slower to call)."""
    return -(-a // b)


def _arg_key(x: Any) -> Any:
    """What Triton specializes on in one runtime argument."""
    kind = type(x)
    if kind is torch.Tensor:
        return (x.dtype, x.data_ptr() % 16 == 0)
    if kind is float:
        return 0
    if kind is TensorDescriptor:
        return (x.base.dtype, *x.block_shape, x.padding)
    if kind is int:
        return _int_key(x)
    if kind is bool or x is None:
        return (kind, x)
    raise TypeError(f"no launch key for an argument of type {kind.__name__}")


def _int_key(x: int) -> int:
    """Triton's specialization of an integer argument: 1, a multiple of 16 or neither, and its type."""
    if x == 1:
        return 1
    width = 0 if -_I32 <= x < _I32 else (4 if -_I64 <= x < _I64 else 8)
    return width + (2 if x % 16 == 0 else 3)


def _hooked() -> bool:
    """Whether a launch hook is registered (Triton 3.6 keeps an empty ``HookChain`` when none is)."""
    hook = knobs.runtime.launch_enter_hook
    return hook is not None and bool(getattr(hook, "calls", True))


class Launcher:
    """Launches one ``@triton.jit`` kernel: ``launcher(grid, *args, **constexprs_and_options)``.

    ``args`` are the kernel's runtime arguments in order; every later parameter (the constexprs) and the
    launch options (``num_warps``, ``num_stages``) come as keywords. A launch hook (Triton's profilers)
    sends every launch through ``kernel[grid]`` so the hook sees it.
    """

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self.names = kernel.arg_names
        self.compiled: dict[tuple, tuple[Any, tuple]] = {}

    def __call__(self, grid: tuple[int, ...], *args: Any, **kwargs: Any) -> None:
        if INTERPRET or _hooked():
            self.kernel[grid](*args, **kwargs)
            return
        key = list(kwargs.items())
        append = key.append
        for x in args:
            append(_int_key(x) if type(x) is int else _arg_key(x))
        entry = self.compiled.get(key := tuple(key))
        if entry is None:
            compiled = self.kernel[grid](*args, **kwargs)
            tail = tuple(kwargs[name] for name in self.names[len(args) :])
            self.compiled[key] = (compiled, tail)
            return
        compiled, tail = entry
        stream = torch._C._cuda_getCurrentRawStream(torch._C._cuda_getDevice())
        grid_1 = grid[1] if len(grid) > 1 else 1
        grid_2 = grid[2] if len(grid) > 2 else 1
        compiled.run(
            grid[0], grid_1, grid_2, stream, compiled.function, compiled.packed_metadata, None, None, None, *args, *tail
        )
