"""Launching compiled Triton kernels with little host overhead.

``kernel[grid](*args, **constexprs)`` binds every argument and asks Triton's C++ specializer about each one
before it finds the compiled kernel: about 30 us per launch in Triton 3.6, more than a small product takes
on the GPU. A ``Launcher`` keys its own cache on what Triton specializes on (each integer's ``== 1``,
``% 16 == 0`` and range; each tensor's dtype and 16-byte alignment; each tensor descriptor's dtype and block
shape; the constexprs and launch options) and on the current device (for which Triton loaded the compiled kernel),
and calls the compiled kernel's C launch function directly
(``_Direct``: Triton's Python launcher around it encodes every TMA descriptor again on each launch). The first
launch of every key goes through ``kernel[grid]``, which compiles or finds the kernel; Triton's
interpreter always takes that path.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Iterator
from typing import Any, NamedTuple

import torch
from triton import knobs
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor as GluonDescriptor
from triton.tools.tensor_descriptor import TensorDescriptor

try:
    from triton.backends.nvidia.driver import make_tensordesc_arg
except ImportError:  # no NVIDIA backend: no launch takes ``_Direct``'s path
    make_tensordesc_arg = None

from densela._arrays import INTERPRET, written

_I32 = 2**31
_I64 = 2**63


MAX_GRID_Y = 65535
"""CUDA's limit on a grid's second dimension, which carries a batch's matrices (GEMM, batched transposes)."""


def cdiv(a: int, b: int) -> int:
    """``ceil(a / b)`` for host code (``triton.cdiv`` is a constexpr function, ten times slower to call)."""
    return -(-a // b)


def multiple_hint(x: int, most: int) -> int:
    """What a kernel may declare the integer ``x`` a multiple of (``kernels.elementwise.multiple``): its largest
    power-of-two factor up to ``most``, or 1 where Triton already knows (a multiple of 16, or the constant 1) or
    there is nothing to say.

    Example:
        >>> multiple_hint(1000, 4), multiple_hint(1000, 8), multiple_hint(1001, 4), multiple_hint(1024, 4)
        (4, 8, 1, 1)
    """
    low = x & -x
    return min(low, most) if 1 < low < 16 else 1


def _arg_key(x: Any) -> Any:
    """What Triton specializes on in one runtime argument."""
    kind = type(x)
    if kind is torch.Tensor:
        return (x.dtype, x.data_ptr() % 16 == 0)
    if kind is float:
        return 0
    if kind is TensorDescriptor:
        return (x.base.dtype, *x.block_shape, x.padding)
    if kind is GluonDescriptor:
        return (x.base.dtype, *x.block_shape, x.padding, x.layout)
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
    sends every launch through ``kernel[grid]`` so the hook sees it. ``dependent``: the kernel starts with
    ``kernels.elementwise.wait_for_previous``, so that inside ``dependent_launches`` it may be launched as a
    programmatic dependent launch.
    """

    def __init__(self, kernel: Any, dependent: bool = False) -> None:
        self.kernel = kernel
        self.dependent = dependent
        self.names = kernel.arg_names
        self.compiled: dict[tuple, tuple[Any, tuple]] = {}

    def __call__(self, grid: tuple[int, ...], *args: Any, **kwargs: Any) -> None:
        entry = None
        if self.dependent and getattr(_local, "dependent", False):
            kwargs["launch_pdl"] = True
        if INTERPRET or _hooked():
            self.kernel[grid](*args, **kwargs)
        else:
            device = torch._C._cuda_getDevice()
            key = [device, *kwargs.items()]  # a compiled kernel is loaded for one device
            append = key.append
            for x in args:
                append(_int_key(x) if type(x) is int else _arg_key(x))
            entry = self.compiled.get(key := tuple(key))
            if entry is None:
                compiled = self.kernel[grid](*args, **kwargs)
                tail = tuple(kwargs[name] for name in self.names[len(args) :])
                entry = self.compiled[key] = (compiled, tail, _direct(compiled))
            else:
                self.run(entry, grid, args, kwargs, device)
        launches = getattr(_local, "launches", None)
        if launches is not None:
            launches.append(_Launch(self, grid, args, kwargs, entry))

    def run(self, entry: tuple[Any, tuple, _Direct | None] | None, grid: tuple[int, ...], args: tuple,
            kwargs: dict, device: int | None = None) -> None:  # fmt: skip
        """Launches the compiled ``entry`` (None, or a launch hook registered: through ``kernel[grid]``) on the current
        device (``device``, where the caller has read it already)."""
        if entry is None or _hooked():
            self.kernel[grid](*args, **kwargs)
            return
        compiled, tail, direct = entry
        stream = torch._C._cuda_getCurrentRawStream(torch._C._cuda_getDevice() if device is None else device)
        grid_1 = grid[1] if len(grid) > 1 else 1
        grid_2 = grid[2] if len(grid) > 2 else 1
        if direct is None:
            compiled.run(grid[0], grid_1, grid_2, stream, compiled.function, compiled.packed_metadata, None, None, None,
                         *args, *tail)  # fmt: skip
            return
        if direct.descriptors:
            args = direct.expand(args)
        direct.launch(grid[0], grid_1, grid_2, stream, direct.function, direct.cooperative, direct.pdl, None, None,
                      direct.metadata, None, None, None, *args, *tail)  # fmt: skip


class _Direct(NamedTuple):
    """A compiled kernel's own C launch function, called without Triton's Python wrapper around it, which costs
    more host time than the launch itself for kernels with TMA descriptors: it encodes every descriptor again on
    each launch (``cuTensorMapEncodeTiled`` through ``make_tensordesc_arg``) and rebuilds the argument list item by
    item. ``descriptors``: the descriptor arguments' positions among the kernel's arguments with Triton's metadata
    for each (swizzle, block, element type), in order; ``encoded`` keeps each descriptor's launch arguments (the
    encoded map, then its shape and strides) by its base address, shape, strides and padding, all that the map
    encodes beside the metadata."""

    launch: Any
    function: int
    cooperative: bool
    pdl: bool
    metadata: Any
    descriptors: tuple[tuple[int, Any], ...]
    encoded: dict[tuple, list]

    def expand(self, args: tuple) -> list:
        """``args`` with each descriptor replaced by its launch arguments, as Triton's wrapper passes them."""
        out: list = []
        start = 0
        for position, meta in self.descriptors:
            out += args[start:position]
            start = position + 1
            desc = args[position]
            if meta is None:  # a descriptor the kernel decomposes itself: nothing encoded
                out += make_tensordesc_arg(desc, None)
                continue
            key = (position, desc.base.data_ptr(), *desc.shape, *desc.strides, desc.padding)
            made = self.encoded.get(key)
            if made is None:
                if len(self.encoded) >= ENCODED_DESCRIPTORS:
                    self.encoded.clear()
                made = self.encoded[key] = make_tensordesc_arg(desc, meta)
            out += made
        out += args[start:]
        return out


ENCODED_DESCRIPTORS = 64
"""Encoded TMA descriptors a compiled kernel keeps (``_Direct.encoded``; all dropped when full): the operands of the
calls a program repeats, each encoded once. H100's host, 2026-11-27 (bench-results/nvidia-h100/2026-11-27-host-launch/,
call 8): one launch of the warp-specialized GEMM kernel, six descriptors, 23.0 us through Triton's launcher, 15.0
directly with its descriptors kept."""


def _direct(compiled: Any) -> _Direct | None:
    """The ``_Direct`` launch of ``compiled`` (a Triton or Gluon kernel after its first launch): the ``launch`` that
    Triton 3.6's NVIDIA launcher calls, unwrapped where it is ``wrap_handle_tensordesc``'s function around the C
    launch (``_Direct.expand`` then does its work); None where the launcher is not that one or needs scratch memory
    allocated per launch: those launch through ``compiled.run``."""
    run = compiled.run
    if not all(hasattr(run, name) for name in ("launch", "launch_cooperative_grid", "launch_pdl")):
        return None
    if getattr(run, "global_scratch_size", 1) or getattr(run, "profile_scratch_size", 1):
        return None
    launch, descriptors = run.launch, ()
    code, closure = getattr(launch, "__code__", None), getattr(launch, "__closure__", None)
    cells = dict(zip(code.co_freevars, (cell.cell_contents for cell in closure))) if code and closure else {}
    if make_tensordesc_arg is not None and {"launcher", "tensordesc_indices", "tensordesc_meta"} <= cells.keys():
        launch = cells["launcher"]
        descriptors = tuple(zip(sorted(cells["tensordesc_indices"]), cells["tensordesc_meta"]))
    return _Direct(launch, compiled.function, run.launch_cooperative_grid, run.launch_pdl, compiled.packed_metadata,
                   descriptors, {})  # fmt: skip


class _Launch(NamedTuple):
    launcher: Launcher
    grid: tuple[int, ...]
    args: tuple
    kwargs: dict
    entry: tuple[Any, tuple, _Direct | None] | None


_local = threading.local()


@contextlib.contextmanager
def dependent_launches(on: bool = True) -> Iterator[None]:
    """Within the block (``on``), kernels whose ``Launcher`` is ``dependent`` launch with CUDA's programmatic
    stream serialization: the GPU starts placing a kernel's programs while the kernel before it still runs
    (they wait in ``wait_for_previous``), which hides most of the gap between dependent launches, also in a
    captured CUDA graph. Not in the interpreter, where nothing waits.

    Example:
        >>> with dependent_launches():
        ...     pass  # the launches of a chain of small dependent kernels
    """
    before = getattr(_local, "dependent", False)
    _local.dependent = on and not INTERPRET
    try:
        yield
    finally:
        _local.dependent = before


class Plan:
    """The launches of one call, replayed on other tensors of the same shapes, strides, dtypes and alignment.

    ``Plan.record(slots, run)`` runs ``run()`` (the whole checked call) while recording its launches and
    returns ``(result, plan)``. ``slots`` are the call's tensors; a result that is not the last of them (the
    call's ``out``), or a tuple of new results (``lu_factor``'s factors, pivots and info), is appended after
    them, and ``plan(*tensors)`` then allocates new results with the recorded ones' shapes and strides (each
    must fill its memory exactly: the kernels write every element); either way it repeats the launches with
    the given tensors in the recorded ones' places, skipping every check and configuration choice (the caller
    keys plans on everything the checks read, keeps an ``out`` that shares memory with an operand from a plan,
    and plans only calls whose every GPU operation is a ``Launcher`` launch: nothing else is recorded).

    A launch argument may also be a view of a slot's memory (``b.T``, a reinterpretation as integers), a
    buffer the call allocated through ``scratch`` (operand copies; the replay allocates it anew, the same
    size, and the replayed launches fill it again), a TMA descriptor over either (rebuilt on the new
    memory), or a kept workspace (``WORKSPACE_TENSORS``, used again as recorded, so the caller must key plans
    on the stream too). The plan is None where a launch read any other tensor, and where the call launched
    nothing: such calls must run whole every time.
    """

    def __init__(self, results: tuple[torch.Tensor, ...] | None,
                 launches: list[tuple[_Launch, list[Any], list[tuple[int, Any]]]],
                 scratch: list[tuple[int, torch.dtype]], device: torch.device, slots: int) -> None:  # fmt: skip
        # None: the result is the last slot, the call's out; else the new results' shapes, strides and dtypes
        self.results = None if results is None else [(t.shape, t.stride(), t.dtype) for t in results]
        self.device = device
        self.scratch = scratch
        self.slots = slots  # the call's tensors (with its result); scratch buffers are numbered after them
        self.launches = [(launch.launcher.run, launch.entry, launch.grid, args, places, launch.kwargs)
                         for launch, args, places in launches]  # fmt: skip
        self.kept: tuple[torch.Tensor, ...] = ()  # scratch buffers kept from replay to replay (KEEP_SCRATCH_BYTES)
        self.fixed: dict[int, Any] = {}  # views and descriptors over the kept buffers alone, built once

    @staticmethod
    def record(slots: tuple[torch.Tensor, ...], run: Any) -> tuple[Any, Plan | None]:
        _local.launches, _local.scratch = launches, scratch = [], {}
        try:
            result = run()
        finally:
            _local.launches = _local.scratch = None
        given = bool(slots) and result is slots[-1]  # written into the call's out
        results = None if given else result if type(result) is tuple else (result,)
        if not launches or not (given or all(type(t) is torch.Tensor and _fills_memory(t) for t in results)):
            return result, None
        if results is not None:
            slots = (*slots, *results)
        memory = {storage_ptr(t): i for i, t in enumerate(slots)}
        if len(memory) < len(slots):
            return result, None  # operands sharing memory: which one a launch read would be ambiguous
        groups = list(scratch)  # scratch storages, numbered after the slots
        recorded = []
        specs: dict[int, Any] = {}  # by the argument's id: one spec (built once per replay) for an object passed twice
        for launch in launches:
            args, places = list(launch.args), []
            for position, x in enumerate(args):
                if type(x) is torch.Tensor and WORKSPACE_TENSORS.get(id(x)) is x:
                    continue  # kept by the plan and used again as it is
                if id(x) in specs:
                    spec = specs[id(x)]
                elif type(x) is torch.Tensor:
                    spec = specs[id(x)] = _view_spec(x, slots, memory, groups)
                elif type(x) is TensorDescriptor or type(x) is GluonDescriptor:
                    base = _view_spec(x.base, slots, memory, groups)
                    layout = getattr(x, "layout", None)
                    spec = specs[id(x)] = (
                        None
                        if base is None
                        else _Descriptor(base, x.shape, x.strides, x.block_shape, x.padding, layout)
                    )
                else:
                    continue
                if spec is None:
                    return result, None
                args[position] = None  # filled in on each replay
                places.append((position, spec))
            recorded.append((launch, args, places))
        device = slots[-1].device
        return result, Plan(results, recorded, [scratch[g] for g in groups], device, len(slots))

    def __call__(self, *tensors: torch.Tensor) -> Any:
        if self.results is None:
            result, slots = tensors[-1], tensors
        else:
            made = tuple(torch.empty_strided(size, stride, dtype=dtype, device=self.device)
                         for size, stride, dtype in self.results)  # fmt: skip
            result = made if len(made) > 1 else made[0]
            slots = (*tensors, *made)
        if self.scratch:
            slots = (*slots, *(self.kept or self._scratch()))
        built = dict(self.fixed)  # views and descriptors by their spec's id, each built once
        for run, entry, grid, template, places, kwargs in self.launches:
            args = template.copy()
            for position, spec in places:
                if type(spec) is int:
                    args[position] = slots[spec]
                    continue
                x = built.get(id(spec))
                if x is None:
                    x = built[id(spec)] = spec.build(slots)
                    if self.kept and _scratch_only(spec, self.slots):
                        self.fixed[id(spec)] = x
                args[position] = x
            run(entry, grid, args, kwargs)
        return result

    def _scratch(self) -> tuple[torch.Tensor, ...]:
        """New scratch buffers for one replay; kept for the next ones while they are small (KEEP_SCRATCH_BYTES per
        plan, KEPT_SCRATCH_LIMIT in all): launches on the plan's one stream run in order, so a replay's copies
        overwrite them only after the previous replay's launches read them."""
        global _kept_scratch_bytes
        buffers = tuple(torch.empty(n, dtype=dtype, device=self.device) for n, dtype in self.scratch)
        size = sum(b.numel() * b.element_size() for b in buffers)
        capturing = self.device.type == "cuda" and torch.cuda.is_current_stream_capturing()  # a graph's own memory
        if size <= KEEP_SCRATCH_BYTES and _kept_scratch_bytes + size <= KEPT_SCRATCH_LIMIT and not capturing:
            self.kept = buffers
            _kept_scratch_bytes += size
            weakref.finalize(self, _release_scratch, size)
        return buffers


KEEP_SCRATCH_BYTES = 32 << 20
"""A plan keeps its scratch buffers (operand copies), with the views and TMA descriptors over them, from replay to
replay when they take at most this many bytes: a float32 5000 x 50 x 5000 product (A copied into 16-byte rows)
spent about 50 us of host time per replay allocating the copy and rebuilding its views and descriptors; a TF32
2000^3 product with an M-major A and an N-major B (B copied K-major, 16 MB) 84-110 us per call with its copy
allocated on each replay against 66-93 kept, for 64 us of GPU time (H100, 2026-11-26,
``bench-results/nvidia-h100/2026-11-26-mid-ws/call10-keep.jsonl``; the limit was 4 MiB before)."""

KEPT_SCRATCH_LIMIT = 256 << 20
"""Bytes of scratch that all plans together keep."""

_kept_scratch_bytes = 0


def _release_scratch(size: int) -> None:
    global _kept_scratch_bytes
    _kept_scratch_bytes -= size


def _scratch_only(spec: Any, slots: int) -> bool:
    """Whether a recorded argument is built from scratch buffers alone (numbered from ``slots`` on)."""
    if type(spec) is int:
        return spec >= slots
    if type(spec) is _View:
        return spec.group >= slots
    return _scratch_only(spec.base, slots)


def _fills_memory(t: torch.Tensor) -> bool:
    """Whether ``t`` covers its whole storage once (any order of its dimensions): ``torch.empty_strided`` with its
    shape and strides makes the same layout."""
    return (
        t.storage_offset() == 0
        and t.untyped_storage().nbytes() == t.numel() * t.element_size()
        and (t.is_contiguous() or (t.ndim > 1 and t.mT.is_contiguous()))
    )


def scratch(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A new uninitialized tensor that a recorded call's launches fill before they read it (an operand copy):
    a replayed ``Plan`` allocates it anew instead of refusing the call."""
    t = torch.empty(shape, dtype=dtype, device=device)
    if getattr(_local, "scratch", None) is not None:
        _local.scratch[storage_ptr(t)] = (t.numel(), dtype)
    return t


def storage_ptr(t: torch.Tensor) -> int:
    """Where the memory ``t`` views starts: equal for two tensors exactly when they share a storage."""
    return t.untyped_storage().data_ptr()


class _View(NamedTuple):
    """A recorded tensor argument rebuilt on replay: ``dtype``, ``size`` and ``stride`` over the memory of
    slot (or scratch buffer) ``group``, starting ``offset`` bytes after where that slot starts."""

    group: int
    dtype: torch.dtype
    size: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int

    def build(self, slots: tuple[torch.Tensor, ...]) -> torch.Tensor:
        base = slots[self.group]
        start = base.storage_offset() * base.element_size() + self.offset
        if base.dtype == self.dtype:  # a view, allocating nothing (about half the host time of the tensor below)
            return base.as_strided(self.size, self.stride, start // base.element_size())
        view = torch.empty((), dtype=self.dtype, device=base.device)
        return view.set_(base.untyped_storage(), start // view.element_size(), self.size, self.stride)


class _Descriptor(NamedTuple):
    """A recorded TMA descriptor, rebuilt on replay over its base tensor's new memory (a Gluon descriptor where
    it has a shared-memory ``layout``)."""

    base: int | _View
    shape: list[int]
    strides: list[int]
    block_shape: list[int]
    padding: str
    layout: Any = None

    def build(self, slots: tuple[torch.Tensor, ...]) -> TensorDescriptor | GluonDescriptor:
        """The descriptor over the new memory, made without its constructor's checks: the recorded one passed them,
        and a replay changes only the base's address, whose 16-byte alignment the plan's key holds (the checks took
        about a third of a replayed warp-specialized product's host time, 10-30 us of 45-90 on an H100's host,
        ``bench-results/nvidia-h100/2026-11-26-mid-ws/call5-host2.jsonl``)."""
        base = slots[self.base] if type(self.base) is int else self.base.build(slots)
        fields = {"base": base, "shape": self.shape, "strides": self.strides, "block_shape": self.block_shape}
        if self.layout is not None:
            made = object.__new__(GluonDescriptor)
            fields["layout"] = self.layout
        else:
            made = object.__new__(TensorDescriptor)
        made.__dict__.update(fields, padding=self.padding)
        return made


def _view_spec(x: torch.Tensor, slots: tuple[torch.Tensor, ...], memory: dict[int, int], groups: list[int]) -> Any:
    """How to rebuild ``x`` on replay: a slot (its number; also for another view with the slot's own shape,
    strides and start), a view of a slot's memory or of a scratch buffer (``_View``), or None."""
    storage = storage_ptr(x)
    if storage in memory:
        slot = slots[memory[storage]]
        if x is slot or (x.dtype == slot.dtype and x.data_ptr() == slot.data_ptr() and x.shape == slot.shape
                         and x.stride() == slot.stride()):  # fmt: skip
            return memory[storage]
        offset = x.storage_offset() * x.element_size() - slot.storage_offset() * slot.element_size()
        return _View(memory[storage], x.dtype, tuple(x.shape), x.stride(), offset)
    if storage in groups:
        return _View(len(slots) + groups.index(storage), x.dtype, tuple(x.shape), x.stride(),
                     x.storage_offset() * x.element_size())  # fmt: skip
    return None


WORKSPACE_TENSORS: weakref.WeakValueDictionary[int, torch.Tensor] = weakref.WeakValueDictionary()
"""Workspaces, by ``id``, that operations keep per device and stream and reuse from call to call (split-K
partial sums and tile counters): a plan may launch with them again. (A WeakSet would compare tensors with
``==``.)"""

_KEPT_COUNTERS: dict[tuple, torch.Tensor] = {}


def kept_counters(name: str, count: int, device: torch.device) -> torch.Tensor:
    """At least ``count`` int32 words, zero when made, kept per ``name``, device and stream for kernels that leave
    them fit for their next launch (split-K tile counters back at zero, the in-place restride's epoch and flags);
    replaced by new zeroed ones when a launch needs more (a plan keeps the ones it recorded). Launches on one stream
    run in order, so one set serves them all; registered in ``WORKSPACE_TENSORS``, so plans replay with them."""
    stream = torch._C._cuda_getCurrentRawStream(device.index) if device.type == "cuda" else 0
    key = (name, device, stream)
    counters = _KEPT_COUNTERS.get(key)
    if counters is None or counters.numel() < count:
        counters = _KEPT_COUNTERS[key] = torch.zeros(count, dtype=torch.int32, device=device)
        WORKSPACE_TENSORS[id(counters)] = counters
    return counters


PLANS: dict[tuple, Plan | None] = {}
"""Plans by call signature (None: the call must run whole), for the operations that replay; cleared with the
chosen configurations (``tuning.clear_cache``)."""


def stream_key(a: torch.Tensor) -> tuple[int, int]:
    """(device, stream) a call on ``a`` launches on, (-1, -1) off CUDA."""
    if not a.is_cuda:
        return -1, -1
    device = torch._C._cuda_getDevice()
    return device, torch._C._cuda_getCurrentRawStream(device)


def signature(t: torch.Tensor) -> tuple:
    """What a replayed call must share with the recorded one in each tensor: shape, strides, dtype, device,
    16-byte alignment and negation bit."""
    return t.shape, t.stride(), t.dtype, t.get_device(), t.data_ptr() & 15 == 0, t.is_neg()


def replay_key(name: str, scalars: tuple, settings: tuple, operands: tuple[Any, ...], out: Any = None) -> tuple | None:
    """The key of ``planned`` for a call of operation ``name``: its numbers (``scalars``), its other arguments
    (``settings``), and the device, stream and ``signature`` of each operand and of ``out``; None where the call
    cannot replay and must run whole: an operand or ``out`` that is not a torch.Tensor, a first operand on a CUDA
    device other than the current one, a number that is not a plain float or int (a bool, whose hash equals 1's,
    must still be refused by the call's checks) or is NaN (which would never find its plan).

    Example:
        >>> import torch
        >>> x = torch.ones(2, 3)
        >>> replay_key("add", (1.0, 2), (), (x, x)) == replay_key("add", (1, 2.0), (), (x, x.clone()))
        True
        >>> replay_key("add", (True, 1.0), (), (x, x)), replay_key("add", (1.0,), (), (x.numpy(),))
        (None, None)
    """
    if any(type(t) is not torch.Tensor for t in operands) or (out is not None and type(out) is not torch.Tensor):
        return None
    if any(type(x) not in (float, int) or x != x for x in scalars):
        return None
    device, stream = stream_key(operands[0])
    if device != operands[0].get_device():
        return None  # not on the current device: a replay would launch on the current device's stream
    key = (name, *scalars, *settings, device, stream)
    for t in (*operands, out) if out is not None else operands:
        key += signature(t)
    return key


def replayed(name: str, scalars: tuple, settings: tuple, operands: tuple[Any, ...], out: Any, call: Any) -> Any:
    """``call()`` through ``planned`` with ``replay_key``'s key, the operands (then ``out``) as its slots; ``call()``
    alone where the call cannot replay (``matmul``, ``transpose``, ``add``)."""
    key = replay_key(name, scalars, settings, operands, out)
    if key is None:
        return call()
    return planned(key, operands if out is None else (*operands, out), out, call)


def planned(
    key: tuple, slots: tuple[torch.Tensor, ...], out: torch.Tensor | None, call: Any, graph: bool = False
) -> Any:
    """``call()``, the whole checked call, for the first call of its ``key`` (everything the checks and the
    configuration read), recording its launches; later calls of the key replay them on ``slots`` (the call's
    tensors, ending with ``out`` where given) without the checks and the configuration choice. An ``out`` sharing
    memory with another slot goes through ``call`` (whose checks refuse it, or allow it as ``gemm``'s c).

    With ``graph`` (calls that write their ``out``, on CUDA), replays on the same memory as before are captured
    into a CUDA graph (``REPLAY_GRAPHS``, keyed also on the slots' addresses; the second replay there captures) and
    replayed by one launch: for calls of several launches whose host time exceeds their GPU time (``transpose_``
    of rectangles). The graph keeps the plan, and so its workspaces, alive. ``out`` is marked ``written``."""
    result = _planned(key, slots, out, call, graph)
    if out is not None:
        written(out)  # replays write it through the kernels alone
    return result


def _planned(key: tuple, slots: tuple[torch.Tensor, ...], out: torch.Tensor | None, call: Any, graph: bool) -> Any:
    if getattr(_local, "launches", None) is not None:
        return call()  # inside another call's recording: its launches belong to that plan
    plan = PLANS.get(key, _UNPLANNED)
    if plan is _UNPLANNED:
        result, plan = Plan.record(slots, call)
        if len(PLANS) >= PLAN_LIMIT:
            PLANS.clear()
        PLANS[key] = plan
        return result
    if plan is None or (out is not None and storage_ptr(out) in [storage_ptr(t) for t in slots[:-1]]):
        return call()
    if graph and plan.results is None and plan.device.type == "cuda" and not torch.cuda.is_current_stream_capturing():
        here = (key, *[t.data_ptr() for t in slots])
        entry = REPLAY_GRAPHS.get(here, lambda: plan, lambda kept: kept(*slots))
        if entry is not None:
            entry[1]()
            return slots[-1]
    return plan(*slots)


PLAN_LIMIT = 4096
"""How many call signatures the operations that replay (``matmul``, ``gemm``, ``transpose_``) keep replayable
launches for (all are dropped when the limit is hit)."""

_UNPLANNED = object()


_CAPTURE_STREAMS: dict[int, torch.cuda.Stream] = {}


def capture_stream() -> torch.cuda.Stream:
    """A side stream of the current CUDA device to capture graphs on, kept per device. ``torch.cuda.graph``'s own
    default is one stream for the process, made on the device current at its first capture: a capture for another
    device then ran on it and made that device current, and the kernels of the capture launched there."""
    device = torch.cuda.current_device()
    if (stream := _CAPTURE_STREAMS.get(device)) is None:
        stream = _CAPTURE_STREAMS[device] = torch.cuda.Stream(device)
    return stream


class Graphs:
    """CUDA graphs of whole launch sequences, by key: for operations whose host time exceeds their GPU time.

    ``graphs.get(key, make, body)``: the first call of a key returns None and the caller runs eagerly (which
    compiles every kernel the sequence needs; a graph capture must not compile). The second makes static
    buffers with ``make()``, captures ``body(buffers)`` into a graph and returns ``(buffers, replay)``;
    later calls return that pair at once. The caller copies its inputs into the buffers, calls ``replay()``
    and copies the results out. At most ``limit`` graphs are kept, with their buffers; the least recently
    used goes first.

    Example:
        >>> graphs = Graphs(limit=2)
        >>> graphs.get(("op", 4), lambda: None, lambda buffers: None) is None  # first call: run eagerly
        True
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.entries: dict[Any, tuple[Any, Any] | None] = {}

    def get(self, key: Any, make: Any, body: Any) -> tuple[Any, Any] | None:
        if key not in self.entries:
            self.entries[key] = None
            self._trim()
            return None
        entry = self.entries.pop(key)
        if entry is None:
            buffers = make()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=capture_stream()):
                body(buffers)
            entry = (buffers, graph.replay)
        self.entries[key] = entry
        return entry

    def clear(self) -> None:
        self.entries.clear()

    def _trim(self) -> None:
        while len(self.entries) > self.limit:
            del self.entries[next(iter(self.entries))]


GRAPHS = Graphs(limit=4)
"""The CUDA graphs of the operations that capture whole launch sequences (LU), keyed by operation and shape;
cleared with the chosen configurations (``tuning.clear_cache``)."""

REPLAY_GRAPHS = Graphs(limit=8)
"""The CUDA graphs of ``planned`` replays with ``graph`` (``transpose_`` of rectangles), keyed by call signature and
memory: apart from ``GRAPHS``, so that calls on ever new memory (each a first sighting) never push LU's graphs out;
cleared with the chosen configurations (``tuning.clear_cache``)."""
