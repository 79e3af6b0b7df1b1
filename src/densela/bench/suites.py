"""Benchmark suites: named lists of cases reproducing the experiments of the four studies.

A ``Case`` is one operation at one shape and dtype; a ``Suite`` groups the cases of one experiment with
the providers that run them and the base provider speedups are measured against. ``SUITES`` maps each
suite's name to it; ``densela bench --list`` prints them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

OPS = ("gemm", "transpose", "add", "lu", "solve")
MEMORY_BOUND_OPS = ("transpose", "add")
"""The operations judged by bandwidth (GB/s); the others by FLOP/s."""
REFINE_MODES = ("fp32", "tf32", "bf16")
"""The lower precisions a float64 ``solve`` may factor in and refine from (``densela.solve``'s ``refine``)."""


def lu_flops(m: int, n: int) -> float:
    """Floating-point operations of an m x n LU factorization: m n^2 - n^3 / 3 for m >= n (2 n^3 / 3 when
    square), and m^2 n - m^3 / 3 when m < n; lower-order terms left out, as the studies count.

    Example:
        >>> lu_flops(3, 3), lu_flops(6, 3), lu_flops(3, 6)
        (18.0, 45.0, 45.0)
    """
    big, small = max(m, n), min(m, n)
    return float(big * small**2 - small**3 / 3.0)


def _short(x: float) -> str:
    """A power of ten as '1e6', anything else as ``%g`` writes it."""
    exponent = round(math.log10(x)) if x > 0 else 0
    return f"1e{exponent}" if x > 0 and 10.0**exponent == x else f"{x:g}"


@dataclass(frozen=True)
class Case:
    """One measurement point.

    Example:
        >>> case = Case("gemm", (100, 60, 20), "float32", "ieee")
        >>> case.label, case.flops, case.bytes
        ('100x20 * 20x60', 240000.0, 36800.0)

    ``shape``: gemm (m, n, k) for an m x k times k x n product; transpose and add (m, n); lu (n,) for one
    n x n matrix or (batch, n) for a batch; solve (n,) for A x = b with one vector b, (n, nrhs) for nrhs
    right-hand sides. ``precision`` is the float32 mode of gemm ("ieee", "tf32", "tf32x3"), for solve the
    precision it factors in and refines from (``REFINE_MODES``; None: the dtype's own), None otherwise.
    ``layout``: "row", or for gemm "nn"/"nt"/"tn"/"tt" (which operands are supplied transposed), for add
    "row+col" (second operand transposed), for transpose "col" (column-major) or "inplace" (a row-major
    matrix transposed in its own memory by densela's ``transpose_``; libraries without one copy it out of
    place). ``transfers``: also time the
    host-to-device and device-to-host copies of the data. ``cond``: for solve, the 2-norm condition number
    of A (singular values geometric from 1 to 1 / cond); None: a random normal A.

    Example:
        >>> solve = Case("solve", (8192,), "float64", "fp32", cond=1e6)
        >>> solve.label, f"{solve.flops:.6g}", solve.nrhs
        ('8192x8192, cond 1e6', '3.66638e+11', 1)
    """

    op: str
    shape: tuple[int, ...]
    dtype: str
    precision: str | None = None
    layout: str = "row"
    transfers: bool = False
    cond: float | None = None

    @property
    def label(self) -> str:
        """The shape as the studies write it: '100x50 * 50x100' for a product, '8 x 64x64' for a batch of
        LUs, '4096x4096, 16 rhs, cond 1e6' for a solve, '1000x500' otherwise."""
        if self.op == "gemm":
            m, n, k = self.shape
            return f"{m}x{k} * {k}x{n}"
        if self.op == "solve":
            n = self.shape[0]
            parts = [f"{n}x{n}", *([f"{self.nrhs} rhs"] if len(self.shape) == 2 else [])]
            parts += [f"cond {_short(self.cond)}"] if self.cond is not None else []
            return ", ".join(parts)
        if self.op == "lu" and len(self.shape) == 2:
            return f"{self.shape[0]} x {self.shape[1]}x{self.shape[1]}"
        if self.op == "lu":
            return f"{self.shape[0]}x{self.shape[0]}"
        return "x".join(map(str, self.shape))

    @property
    def size(self) -> int:
        """A single number to plot against: the largest dimension."""
        return max(self.shape)

    @property
    def nrhs(self) -> int:
        """The number of right-hand sides of a solve (1 for a vector)."""
        return self.shape[1] if self.op == "solve" and len(self.shape) == 2 else 1

    @property
    def itemsize(self) -> int:
        return {"int8": 1, "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}[self.dtype]

    @property
    def flops(self) -> float:
        """Floating-point operations: 2mnk for gemm, 2n^3/3 per LU (``lu_flops``), 2n^3/3 + 2n^2 nrhs for a
        solve (the LU and two triangular solves, counted so whatever precision it factors in), one per
        element scaled or added."""
        if self.op == "gemm":
            m, n, k = self.shape
            return 2.0 * m * n * k
        if self.op == "lu":
            batch, n = (1, self.shape[0]) if len(self.shape) == 1 else self.shape
            return batch * lu_flops(n, n)
        if self.op == "solve":
            n = self.shape[0]
            return lu_flops(n, n) + 2.0 * n * n * self.nrhs
        m, n = self.shape
        return 3.0 * m * n if self.op == "add" else 0.0

    @property
    def bytes(self) -> float:
        """The fewest bytes the operation must move: each input read once, each output written once."""
        s = self.itemsize
        if self.op == "gemm":
            m, n, k = self.shape
            return float(s * (m * k + k * n + m * n))
        if self.op == "lu":
            batch, n = (1, self.shape[0]) if len(self.shape) == 1 else self.shape
            return float(2 * s * batch * n * n)
        if self.op == "solve":  # A and b read, x written
            n = self.shape[0]
            return float(s * (n * n + 2 * n * self.nrhs))
        m, n = self.shape
        return float((2 if self.op == "transpose" else 3) * s * m * n)

    @property
    def memory_bound(self) -> bool:
        """Whether the case is judged by bandwidth (GB/s) rather than FLOP/s: ``MEMORY_BOUND_OPS``."""
        return self.op in MEMORY_BOUND_OPS


@dataclass(frozen=True)
class Suite:
    """A named experiment: its cases, the providers compared, and the base of the speedup column.

    Example:
        >>> suite = Suite("mine", "two sizes", "me", (Case("add", (64, 64), "float32"),), ("densela", "numpy"), "numpy")
        >>> suite.runs("densela", suite.cases[0]), suite.base_for(suite.cases[0])
        (True, 'numpy')

    ``limits``: (provider, n) pairs: that provider runs only the cases whose ``size`` is at most n (a
    single-threaded CPU baseline that would take minutes on the large sizes). ``op_bases``: (op, provider)
    pairs overriding ``base`` for the cases of that op, in a suite that mixes operations. ``best_of``: the
    providers whose fastest time per case is a second comparison besides the base: the report gives each
    other provider's speedup against the fastest of them ("vs best"), case by case.
    """

    name: str
    description: str
    source: str
    cases: tuple[Case, ...]
    providers: tuple[str, ...]
    base: str
    limits: tuple[tuple[str, int], ...] = ()
    op_bases: tuple[tuple[str, str], ...] = ()
    best_of: tuple[str, ...] = ()

    def runs(self, provider: str, case: Case) -> bool:
        """Whether the suite measures ``provider`` on ``case``: it is one of the suite's providers and the
        case is within the provider's size limit (whether the provider implements the op is the runner's
        business)."""
        return provider in self.providers and all(case.size <= n for p, n in self.limits if p == provider)

    def base_for(self, case: Case) -> str:
        """The provider the speedup of ``case`` is measured against."""
        return dict(self.op_bases).get(case.op, self.base)


_FP32_FP64 = ("float32", "float64")


def _cases(
    op: str, shapes: list[tuple[int, ...]], dtypes: tuple[str, ...], transfers: bool = False
) -> tuple[Case, ...]:
    """``op`` at every shape in each dtype, dtype by dtype; float32 GEMM in IEEE arithmetic (the studies' FP32)."""
    return tuple(
        Case(op, s, d, "ieee" if op == "gemm" and d == "float32" else None, transfers=transfers)
        for d in dtypes
        for s in shapes
    )


# The thesis (000), GEMM (m, n, k) for A (m x k) times B (k x n): HELIOS tables 4.5-4.10 and their GP1
# repeats 4.11-4.16 list the same five shapes per figure ("the exact same matrix sizes on both systems").
# The figures plot more sizes than the tables ("Selected Matrix Sizes in Figure 4.x"), but the text never
# states that sweep, so the suites hold the table sizes. (The OCR garbles table 4.16's 3600x36 * 36x3600
# heading once and prints it legibly beside.)
_TNL = "000_a9a52d21cbcd53f4.txt"
_TNL_STEPS = (100, 1300, 2500, 3700, 5000)
_TNL_GEMM = {  # kind: (tables, figure title, shapes), each under the shapes as its tables print them
    # 100x100 * 100x100 .. 5000x5000 * 5000x5000
    "square": ("4.5, 4.11", "square", [(s, s, s) for s in _TNL_STEPS]),
    # 100x50 * 50x100 .. 5000x2500 * 2500x5000
    "wide": ("4.6, 4.12", "wide (incremental width)", [(s, s, s // 2) for s in _TNL_STEPS]),
    # 50x100 * 100x50 .. 2500x5000 * 5000x2500
    "tall": ("4.7, 4.13", "tall (incremental height)", [(s // 2, s // 2, s) for s in _TNL_STEPS]),
    # 20x80 * 80x60, 260x1040 * 1040x780 .. 1000x4000 * 4000x3000
    "random": ("4.8, 4.14", "random growth", [(m, 3 * m, 4 * m) for m in (20, 260, 500, 740, 1000)]),
    # 1x100 * 100x1, 12x1200 * 1200x12 .. 50x5000 * 5000x50
    "thin-1": ("4.9, 4.15", "extremely thin 1", [(m, m, 100 * m) for m in (1, 12, 25, 36, 50)]),
    # 100x1 * 1x100, 1200x12 * 12x1200 .. 5000x50 * 50x5000
    "thin-2": ("4.10, 4.16", "extremely thin 2", [(100 * k, 100 * k, k) for k in (1, 12, 25, 36, 50)]),
}
# Transposition, (m, n) inputs: HELIOS tables 4.17-4.20 and GP1 repeats 4.21-4.24, three sizes each (the OCR
# lost table 4.24's middle heading; its HELIOS twin 4.20 reads 5000x50).
_TNL_TRANSPOSE = {
    "square": ("4.17, 4.21", [(100, 100), (5000, 5000), (10000, 10000)]),
    "wide": ("4.18, 4.22", [(50, 100), (2500, 5000), (5000, 10000)]),
    "tall": ("4.19, 4.23", [(100, 50), (5000, 2500), (10000, 5000)]),
    "thin": ("4.20, 4.24", [(100, 1), (5000, 50), (10000, 100)]),
}

# The PA2 report (001): peak GFLOP/s at N = 256 .. 4096 (sections 2c, 3a) and dips where N is not a multiple
# of the tile (section 4, a plot whose range the report does not give): N = 1000 .. 1100 one by one crosses
# the multiples of 64 (1024, 1088) and 128 (1024) of its TILEDIM_M/N/K.
_PA2_N = sorted({256, 512, 1024, 2048, 4096, *range(1000, 1101)})

# The ITU project (002), square n x n in single precision: addition figures 18 (100 .. 1000 step 100) and
# 23 (1000 .. 10000 step 1000); multiplication figures 29, 31 (100 .. 600 step 100) and 39 (5000); LU
# figures 46 (100 .. 500 step 100) and 57 (adds 1000); transfer times figure 58.
_ITU = "002_d8237d968578ef8f.txt"
_ITU_PROVIDERS = ("densela", "cublas", "numpy", "cpu-seq")
# Above n = 2000 a single-threaded multiplication or LU takes seconds to minutes per call; addition never does.
_CPU_SEQ_LIMITS = (("cpu-seq", 2000),)

# The non-square report (004), C = A (n x k) B (k x n): the (n, k) pairs of section 3.1.1, then the k sweep
# at n = 20480 of section 4.3.3 (figure 7) without (20480, 128), which is in both.
_NONSQUARE_NK = [
    (4096, 32),
    (8192, 48),
    (12288, 64),
    (16384, 96),
    (20480, 128),
    *((20480, k) for k in (32, 48, 64, 96)),
]

# Issue 4's measurement points (GEMM at or beyond cuBLAS): every dtype and float32 mode at 2048^3, 4096^3
# and 8192^3, every transposition state at 4096^3, small products, and thin ones in float32 and bfloat16.
_ALL_GEMM_MODES = (
    ("float16", None),
    ("bfloat16", None),
    ("float32", "tf32"),
    ("float32", "tf32x3"),
    ("float32", "ieee"),
    ("float64", None),
)
_LAYOUT_GEMM_MODES = (("float32", "ieee"), ("float32", "tf32"), ("bfloat16", None), ("float64", None))
_LAYOUT_SHAPES = [(n, n, n) for n in (256, 512, 1000, 2000)] + [(64, 4096, 4096), (4096, 64, 4096)]
_SMALL_GEMM_MODES = (("float32", "ieee"), ("bfloat16", None), ("float64", None))
_ODD_GEMM_MODES = (
    ("bfloat16", None), ("float16", None), ("float32", "ieee"), ("float32", "tf32"), ("float32", "tf32x3"),
    ("float64", None),
)  # fmt: skip
_ODD_SHAPES = [(n, n, n) for n in (513, 1001, 1999)] + [(1000, 1000, 1001), (1000, 1001, 1000)]
_THIN = [
    *_TNL_GEMM["thin-1"][2],
    *_TNL_GEMM["thin-2"][2],
    *((n, n, k) for n, k in _NONSQUARE_NK),
    (256, 256, 8192),
    (128, 4096, 4096),
    (4096, 64, 8192),
    (16, 16, 16384),
]

# Issue 6 (LU in the lab): square LU up to n = 16384 (cuSOLVER takes ~0.15 s per float64 call there, the
# MAGMA path ~0.35 s; the timing loop times such calls one by one, timing.time_gpu), batches of small LUs,
# and float64 solves refined from a lower-precision LU on matrices of known condition number.
_VENDOR_LU = ("cusolver", "magma")
_LU_LARGE_N = [1000, 2048, 4096, 8192, 16384]
_LU_BATCHES = (1000, 10000)
_LU_BATCHED_N = [8, 16, 32, 64, 128]
_REFINE_N = (8192, 16384)
_REFINE_CONDS = (1e2, 1e6)

_MEMORY_TRANSPOSE = [(8192, 4096), (32768, 1024), (1024, 32768), (100000, 100), (100, 100000), (4096, 4096)]
_MEMORY_ADD = [(8192, 4096), (4096, 4096), (100000, 100)]
# 8-bit transposes (issue 5: "8-bit and 16-bit types too") on shapes of 64 MiB and more
_MEMORY_TRANSPOSE_BYTES = [(8192, 8192), (65536, 1024), (1024, 65536), (700000, 100), (100, 700000)]

# In-place transposition (issue 5): squares (one whose rows do not start on 16-byte boundaries), rectangles
# whose sides share a large divisor (chunk moves), and sides sharing a small one or none (the C2R steps):
# 4096 x 4374 share 2, 2**12 x 3**7 and 4096 x 4095 are coprime
_INPLACE_SQUARE = [(8192, 8192), (5000, 5000)]
_INPLACE_RECTANGLES = [(32768, 1024), (8192, 2048), (8192, 3072), (100000, 100), (4096, 4374), (4096, 2187),
                       (4096, 4095)]  # fmt: skip

_QUICK_GEMM_MODES = (
    ("float16", None),
    ("bfloat16", None),
    ("float32", "ieee"),
    ("float32", "tf32"),
    ("float32", "tf32x3"),
    ("float64", None),
)

_SUITES = [
    *(
        Suite(
            name=f"tnl-gemm-{kind}",
            description=f"GEMM, the thesis's {title} shapes, float32 and float64, against cuBLAS",
            source=f"{_TNL} tables {tables}",
            cases=_cases("gemm", shapes, _FP32_FP64),
            providers=("densela", "cublas", "cupy"),
            base="cublas",
        )
        for kind, (tables, title, shapes) in _TNL_GEMM.items()
    ),
    *(
        Suite(
            name=f"tnl-transpose-{kind}",
            description=(
                f"Out-of-place transposition, the thesis's {kind} shapes, float32 and float64. The thesis "
                "compared against MAGMA's magmablas_?transpose, which has no Python binding here: the base is "
                "torch's x.t().contiguous()"
            ),
            source=f"{_TNL} tables {tables}",
            cases=_cases("transpose", shapes, _FP32_FP64),
            providers=("densela", "cublas", "cupy"),
            base="cublas",
        )
        for kind, (tables, shapes) in _TNL_TRANSPOSE.items()
    ),
    Suite(
        name="pa2-sgemm",
        description="Square SGEMM at N = 256 .. 4096 (peak table) and N = 1000 .. 1100 step 1 (divisibility dips)",
        source="001_93488071d46bd121.txt sections 2c, 3a, 4",
        cases=_cases("gemm", [(n, n, n) for n in _PA2_N], ("float32",)),
        providers=("densela", "cublas", "numpy"),
        base="cublas",
    ),
    Suite(
        name="itu-add",
        description="Square addition, n = 100 .. 10000, float32, with the host<->device transfer times",
        source=f"{_ITU} figures 18, 23, 58",
        cases=_cases("add", [(n, n) for n in [*range(100, 1001, 100), *range(2000, 10001, 1000)]], ("float32",), True),
        providers=_ITU_PROVIDERS,
        base="cublas",
    ),
    Suite(
        name="itu-mul",
        description=(
            "Square multiplication, n = 100 .. 600 and 5000, float32, with the host<->device transfer times; "
            "the single-threaded CPU baseline up to n = 2000"
        ),
        source=f"{_ITU} figures 29, 31, 39, 58",
        cases=_cases("gemm", [(n, n, n) for n in [*range(100, 601, 100), 5000]], ("float32",), True),
        providers=_ITU_PROVIDERS,
        base="cublas",
        limits=_CPU_SEQ_LIMITS,
    ),
    Suite(
        name="itu-lu",
        description=(
            "LU with partial pivoting, n = 100 .. 1000, float32 and float64, with the host<->device transfer "
            "times; densela runs once densela.lu_factor exists"
        ),
        source=f"{_ITU} figures 46, 57, 58",
        cases=_cases("lu", [(n,) for n in [*range(100, 501, 100), 1000]], _FP32_FP64, True),
        providers=("densela", "cusolver", "magma", "numpy", "cpu-seq"),
        base="cusolver",
        limits=_CPU_SEQ_LIMITS,
    ),
    Suite(
        name="lu-large",
        description=(
            "Square LU with partial pivoting, n = 1000 .. 16384, float64 and float32, on the GPU only (no "
            "transfers, no CPU baseline); also against the faster of cuSOLVER and MAGMA per case"
        ),
        source="densela (issue 6)",
        cases=_cases("lu", [(n,) for n in _LU_LARGE_N], ("float64", "float32")),
        providers=("densela", *_VENDOR_LU),
        base="cusolver",
        best_of=_VENDOR_LU,
    ),
    Suite(
        name="lu-batched",
        description=(
            "Batched LU: 1000 and 10000 matrices of n = 8 .. 128, float64 and float32; against torch's "
            "cuSOLVER-preferred path (cuBLAS getrfBatched) and, per case, the faster of it and MAGMA's batched LU"
        ),
        source="densela (issue 6)",
        cases=tuple(
            Case("lu", (batch, n), d) for d in ("float64", "float32") for batch in _LU_BATCHES for n in _LU_BATCHED_N
        ),
        providers=("densela", *_VENDOR_LU),
        base="cusolver",
        best_of=_VENDOR_LU,
    ),
    Suite(
        name="lu-refine",
        description=(
            "float64 solve A x = b (one right-hand side), n = 8192 and 16384, cond(A) = 1e2 and 1e6: densela "
            "factoring in float64 (no precision) or in fp32, tf32 or bf16 and refining to float64 accuracy, "
            "against torch.linalg.lu_factor + lu_solve in float64; accuracy is the normwise backward error"
        ),
        source="densela (issue 6)",
        cases=tuple(
            Case("solve", (n,), "float64", mode, cond=cond)
            for n in _REFINE_N
            for cond in _REFINE_CONDS
            for mode in (None, *REFINE_MODES)  # adjacent, so that the inputs of one (n, cond) are made once
        ),
        providers=("densela", *_VENDOR_LU),
        base="cusolver",
        best_of=_VENDOR_LU,
    ),
    Suite(
        name="nonsquare-k",
        description=(
            "C = A (n x k) B (k x n) with k << n: (n, k) = (4096, 32) .. (20480, 128), then k = 32 .. 128 at "
            "n = 20480; float32 and float64"
        ),
        source="004_ea279e159205d08a.txt sections 3.1.1, 4.3.3",
        cases=_cases("gemm", [(n, n, k) for n, k in _NONSQUARE_NK], _FP32_FP64),
        providers=("densela", "cublas", "cupy", "numpy"),
        base="cublas",
    ),
    Suite(
        name="gemm-targets",
        description=(
            "GEMM against cuBLAS at issue 4's points: 2048^3, 4096^3, 8192^3 in every dtype and float32 mode "
            "(tf32x3 against cuBLAS SGEMM), every transposition state at 4096^3, and n = 128, 256, 512"
        ),
        source="densela (issue 4)",
        cases=(
            *(Case("gemm", (n, n, n), d, p) for d, p in _ALL_GEMM_MODES for n in (2048, 4096, 8192)),
            *(Case("gemm", (4096, 4096, 4096), d, p, layout=t) for d, p in _ALL_GEMM_MODES for t in ("nt", "tn", "tt")),
            *(Case("gemm", (n, n, n), d, p) for d, p in _SMALL_GEMM_MODES for n in (128, 256, 512)),
        ),
        providers=("densela", "cublas"),
        base="cublas",
    ),
    Suite(
        name="gemm-layouts",
        description=(
            "GEMM in every transposition state (nn, nt, tn, tt) below issue 4's 4096^3: squares of 256, 512, 1000 "
            "and 2000 and the thin 64 x 4096 x 4096 and 4096 x 64 x 4096, in float32 (FMA and TF32), bfloat16 "
            "and float64, each state against cuBLAS in the same state"
        ),
        source="densela (issue 4)",
        cases=tuple(
            Case("gemm", shape, d, p, layout=t)
            for d, p in _LAYOUT_GEMM_MODES
            for shape in _LAYOUT_SHAPES
            for t in ("nn", "nt", "tn", "tt")
        ),
        providers=("densela", "cublas"),
        base="cublas",
    ),
    Suite(
        name="gemm-odd",
        description=(
            "GEMM on sizes whose rows have an odd stride (513^3, 1001^3, 1999^3, and one odd side of 1000^3), "
            "row-major operands, and 1001^3 in the other three transposition states, in 16-bit, float32 (FMA, TF32 "
            "and 3xTF32) and float64, against cuBLAS"
        ),
        source="densela (issue 4)",
        cases=tuple(
            [Case("gemm", shape, d, p) for d, p in _ODD_GEMM_MODES for shape in _ODD_SHAPES]
            + [Case("gemm", (1001, 1001, 1001), d, p, t) for d, p in _ODD_GEMM_MODES for t in ("nt", "tn", "tt")]
        ),
        providers=("densela", "cublas"),
        base="cublas",
    ),
    Suite(
        name="gemm-thin",
        description=(
            "Thin products in float32 and bfloat16: the thesis's extremely thin shapes 1 and 2, the non-square "
            "study's (n, k) pairs, and m or n <= 256 with k >= 4096"
        ),
        source=f"{_TNL} tables 4.9, 4.10; 004_ea279e159205d08a.txt section 3.1.1; densela (issue 4)",
        cases=_cases("gemm", _THIN, ("float32", "bfloat16")),
        providers=("densela", "cublas"),
        base="cublas",
    ),
    Suite(
        name="memory-targets",
        description=(
            "Transposition and addition of 64 MiB and more (tall, wide and thin, row- and column-major; add "
            "with both operands alike and with one transposed) in float32, float64 and bfloat16, and transposes of "
            "int8 on shapes of 64 MiB and more, against torch"
        ),
        source="densela (issue 5)",
        cases=tuple(
            Case(op, shape, dtype, layout=layout)
            for dtype in ("float32", "float64", "bfloat16", "int8")
            for op, shapes, layouts in (
                ("transpose", _MEMORY_TRANSPOSE_BYTES if dtype == "int8" else _MEMORY_TRANSPOSE, ("row", "col")),
                ("add", () if dtype == "int8" else _MEMORY_ADD, ("row", "row+col")),
            )
            for shape in shapes
            for layout in layouts
        ),
        providers=("densela", "cublas"),
        base="cublas",
    ),
    Suite(
        name="transpose-inplace",
        description=(
            "In-place transposition (transpose_) of squares and of rectangles with large, small and no common "
            "divisor of their sides, float32, float64 and bfloat16; judged by % of the copy bandwidth. torch "
            "has no in-place transpose: its row is the out-of-place x.t().contiguous(), for scale. densela's "
            "timed calls alternate between the matrix and its transpose"
        ),
        source="densela (issue 5)",
        cases=tuple(
            Case("transpose", shape, dtype, layout="inplace")
            for dtype in ("float32", "float64", "bfloat16")
            for shape in (*_INPLACE_SQUARE, *_INPLACE_RECTANGLES)
        ),
        providers=("densela", "cublas"),
        base="cublas",
    ),
    Suite(
        name="quick",
        description=(
            "A few shapes of every operation: GEMM in every dtype and float32 mode, transposition (also in "
            "place), addition "
            "(also with a transposed operand), LU (two single matrices and one batch), a float64 solve refined "
            "from float32; under 2 minutes on an H100/H200 including compilation"
        ),
        source="densela",
        cases=(
            *(Case("gemm", (n, n, n), d, p) for d, p in _QUICK_GEMM_MODES for n in (1024, 4096)),
            Case("transpose", (4096, 4096), "float32"),
            Case("transpose", (8192, 2048), "float32"),
            Case("transpose", (4096, 4095), "float32", layout="inplace"),
            Case("add", (4096, 4096), "float32"),
            Case("add", (4096, 4096), "float32", layout="row+col"),
            Case("lu", (1000,), "float64"),
            Case("lu", (4096,), "float64"),
            Case("lu", (10000, 32), "float64"),
            Case("solve", (4096,), "float64", "fp32", cond=1e2),
        ),
        providers=("densela", "cublas", "cusolver", "magma", "numpy"),
        base="cublas",
        op_bases=(("lu", "cusolver"), ("solve", "cusolver")),
        limits=(("numpy", 1024),),  # the CPU for scale, on the smaller shapes only
    ),
]
SUITES: dict[str, Suite] = {s.name: s for s in _SUITES}


def interpreter_shape(case: Case, cap: int = 64, batch_cap: int = 8) -> tuple[int, ...]:
    """``case.shape`` with every dimension capped at ``cap``, and the batch of a batched LU at ``batch_cap``; a
    rectangular transpose stays rectangular (its in-place path differs from a square's).

    Example:
        >>> interpreter_shape(Case("lu", (10000, 128), "float64")), interpreter_shape(Case("lu", (4096,), "float32"))
        ((8, 64), (64,))
        >>> interpreter_shape(Case("transpose", (4096, 4095), "float32", layout="inplace"))
        (64, 63)
    """
    if case.op == "lu" and len(case.shape) == 2:
        batch, n = case.shape
        return (min(batch, batch_cap), min(n, cap))
    capped = tuple(min(d, cap) for d in case.shape)
    if case.op == "transpose" and case.shape[0] != case.shape[1] and capped[0] == capped[1]:
        return (cap, cap - 1) if case.shape[0] > case.shape[1] else (cap - 1, cap)
    return capped


def suite_for_interpreter(suite: Suite, cap: int = 64, batch_cap: int = 8) -> Suite:
    """The suite with its shapes capped (``interpreter_shape``) and the duplicate cases this makes dropped:
    for runs in Triton's interpreter on the CPU, where only correctness means anything."""
    cases = {replace(c, shape=interpreter_shape(c, cap, batch_cap)): None for c in suite.cases}
    return replace(suite, cases=tuple(cases))
