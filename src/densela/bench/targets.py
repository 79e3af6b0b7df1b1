"""The numbers the open issues name, checked on a run's rows.

Each check takes the rows of the suites that measure it (densela's rows against the suite's base, which the
same run measured) and says whether the run meets it: ``met`` is True or False, or None where the run has no
rows for it. The report lists them under "Issue targets" (``report.write_report``), so that a run says at once
which of the issues' numbers it reaches; the judgement of a target that a single run cannot settle (cuBLAS moves
by 5-15% from run to run) stays with the reader.

Definitions where an issue leaves room:
- "N = 1000..1100: no dip more than 10% below the smooth trend" (pa2-sgemm): the trend at N is the upper quartile
  of the speedups of the sizes within 10 of N, a line through the better sizes that a dip does not pull down;
- "an fp64-level residual" (lu-refine): a backward error at most 10 times cuSOLVER's float64 solve of the same
  system;
- issue 5's "for matrices of 64 MiB or more unless a suite says otherwise" applies to each of its targets, the
  in-place ones too: the bytes a row moved over the copies of the matrix it counts (two for a transpose, three for
  an add) are at least 64 MiB.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from densela.bench.rows import Row, state_times, timed

MIB = 1 << 20


@dataclass(frozen=True)
class Check:
    """One number of one issue, as a run measured it."""

    issue: int
    target: str
    measured: str
    met: bool | None


def check_targets(rows: Sequence[Row]) -> list[Check]:
    """The checks of every issue target whose suite the run has rows of, in the issues' order.

    ``rows`` as ``report`` prepares them (``speedup`` filled from the base, ``vs_best`` against the fastest of the
    suite's ``best_of``); densela's timed rows are judged.

    Example:
        >>> rows = [{"suite": "lu-large", "op": "lu", "provider": "densela", "shape": [n], "label": f"{n}x{n}",
        ...          "dtype": "float64", "status": "ok", "timer": "cuda-events", "median_ms": 1.0, "speedup": s}
        ...         for n, s in ((4096, 1.6), (8192, 1.2))]
        >>> [(c.target, c.met) for c in check_targets(rows)][:2]
        [('LU n = 4096: >= 1.5x cuSOLVER', True), ('LU n = 8192: >= 1.3x cuSOLVER', False)]
    """
    ours = [r for r in rows if r.get("provider") == "densela" and timed(r)]
    checks: list[Check] = []
    for make in (*_ISSUE_4, *_ISSUE_5, *_ISSUE_6):
        check = make(ours, rows)
        if check is not None:
            checks.append(check)
    return checks


def targets_table(checks: Sequence[Check]) -> list[str]:
    """The report's "Issue targets" section (markdown lines; none without checks)."""
    if not checks:
        return []
    lines = ["## Issue targets", "", "| issue | target | measured | met |", "|---|---|---|---|"]
    for c in checks:
        met = "—" if c.met is None else "yes" if c.met else "**no**"
        lines.append(f"| {c.issue} | {c.target} | {c.measured} | {met} |")
    return [*lines, ""]


def format_targets(checks: Sequence[Check]) -> str:
    """The checks as plain text for the terminal, last after a run: a count, then one line each ('' without any).

    Example:
        >>> print(format_targets([Check(6, "LU n = 4096: >= 1.5x cuSOLVER", "lowest 0.91 (4096x4096 float64)", False)]))
        issue targets: 0 of 1 met
          no  6  LU n = 4096: >= 1.5x cuSOLVER: lowest 0.91 (4096x4096 float64)
    """
    if not checks:
        return ""
    judged = [c for c in checks if c.met is not None]
    lines = [f"issue targets: {sum(bool(c.met) for c in judged)} of {len(judged)} met"]
    for c in checks:
        met = "--" if c.met is None else "yes" if c.met else "no"
        lines.append(f"  {met:<3} {c.issue}  {c.target}: {c.measured}")
    return "\n".join(lines)


# --- helpers ------------------------------------------------------------------------------------------------


def _case(r: Row) -> str:
    mode = f" {r['precision']}" if r.get("precision") else ""
    layout = f" {r['layout']}" if r.get("layout") not in (None, "row") else ""
    return f"{r['label']} {r['dtype']}{mode}{layout}"


def _lowest(
    pairs: Iterable[tuple[float, Row]], limit: float, fmt: str = "{:.2f}", word: str = "lowest"
) -> tuple[str, bool | None]:
    """'WORD VALUE (case); K of N below LIMIT' and whether none is below ``limit``."""
    pairs = sorted(((v, r) for v, r in pairs if v is not None), key=lambda pair: pair[0])
    if not pairs:
        return "no rows", None
    below = sum(v < limit for v, _ in pairs)
    value, row = pairs[0]
    text = f"{word} {fmt.format(value)} ({_case(row)}); {below} of {len(pairs)} below {fmt.format(limit)}"
    return text, below == 0


def _floor(
    issue: int, target: str, suites: tuple[str, ...], keep: Callable[[Row], bool], value: Callable[[Row], Any],
    limit: float, fmt: str = "{:.2f}",
) -> Callable[[list[Row], Sequence[Row]], Check | None]:  # fmt: skip
    """A check that every densela row of ``suites`` (names; one ending in '*' a prefix) that ``keep`` selects has
    ``value`` >= ``limit``."""

    def check(ours: list[Row], _: Sequence[Row]) -> Check | None:
        mine = [r for r in ours if _of(r, suites)]
        if not mine:
            return None
        measured, met = _lowest(((value(r), r) for r in mine if keep(r)), limit, fmt)
        return Check(issue, target, measured, met)

    return check


def _of(r: Row, suites: tuple[str, ...]) -> bool:
    return any(r["suite"] == s or (s.endswith("*") and r["suite"].startswith(s[:-1])) for s in suites)


def _cube(r: Row, sizes: tuple[int, ...]) -> bool:
    shape = tuple(r.get("shape") or ())
    return len(shape) == 3 and shape[0] == shape[1] == shape[2] and shape[0] in sizes


def _gemm(dtypes: tuple[str, ...], precision: str | None, sizes: tuple[int, ...]) -> Callable[[Row], bool]:
    return lambda r: (
        r["op"] == "gemm" and r["dtype"] in dtypes and r.get("precision") == precision
        and (r.get("layout") or "row") == "row" and _cube(r, sizes)
    )  # fmt: skip


def _speedup(r: Row) -> float | None:
    return r.get("speedup")


def _gcd(r: Row) -> int:
    m, n = r["shape"]
    return math.gcd(m, n)


# --- issue 4: GEMM ------------------------------------------------------------------------------------------

_G = ("gemm-targets",)
_BIG = (4096, 8192)


def _layouts(ours: list[Row], _: Sequence[Row]) -> Check | None:
    """Every transposition state within 10% of the fastest for the same shape, dtype and mode: gemm-targets at
    4096^3, gemm-layouts at each of its shapes."""
    chosen = [r for r in ours if r["suite"] == "gemm-layouts" or (r["suite"] in _G and _cube(r, (4096,)))]
    found = {case: by["densela"] for case, by in state_times(chosen).items() if len(by.get("densela", {})) > 1}
    spreads = {case: max(v.values()) / min(v.values()) for case, v in found.items()}
    if not spreads:
        return None
    worst = max(spreads, key=spreads.__getitem__)
    over = sum(s > 1.1 for s in spreads.values())
    measured = f"widest {100 * (spreads[worst] - 1):.0f}% ({' '.join(worst)}); {over} of {len(spreads)} over 10%"
    return Check(4, "every transposition state within 10% of the fastest (4096^3, gemm-layouts)", measured, over == 0)


def _tf32x3_error(ours: list[Row], rows: Sequence[Row]) -> Check | None:
    """tf32x3's normwise error no larger than cuBLAS SGEMM's on the same inputs (the suite's base row)."""
    sgemm = {
        (r["suite"], r["label"], r.get("layout")): r.get("err_rel")
        for r in rows
        if r.get("provider") == r.get("base") and r.get("precision") == "tf32x3"
    }
    pairs = [
        (r, r.get("err_rel"), sgemm.get((r["suite"], r["label"], r.get("layout"))))
        for r in ours
        if r["suite"] in _G and r.get("precision") == "tf32x3"
    ]
    pairs = [(r, ours_err, base) for r, ours_err, base in pairs if ours_err is not None and base is not None]
    if not pairs:
        return None
    worse = [p for p in pairs if p[1] > p[2]]
    r, ours_err, base = max(pairs, key=lambda p: p[1] / p[2] if p[2] else math.inf)
    measured = f"largest {ours_err:.2g} against SGEMM's {base:.2g} ({_case(r)}); {len(worse)} of {len(pairs)} larger"
    return Check(4, "tf32x3: normwise error no larger than cuBLAS SGEMM's", measured, not worse)


def _thin(dtype: str) -> Callable[[list[Row], Sequence[Row]], Check | None]:
    def check(ours: list[Row], _: Sequence[Row]) -> Check | None:
        thin = [r for r in ours if r["suite"] == "gemm-thin" and r["dtype"] == dtype and r.get("speedup")]
        if not thin:
            return None
        mean = math.exp(sum(math.log(r["speedup"]) for r in thin) / len(thin))
        lowest, none_below = _lowest(((r["speedup"], r) for r in thin), 0.9)
        measured = f"geometric mean {mean:.3f} over {len(thin)}; {lowest}"
        return Check(4, f"thin {dtype}: geometric mean >= 1.3, none below 0.9", measured, mean >= 1.3 and none_below)

    return check


def _trend(ours: list[Row], _: Sequence[Row]) -> Check | None:
    """pa2-sgemm: no size more than 10% below the upper quartile of the sizes within 10 of it."""
    by_n = [(r["size"], r["speedup"], r) for r in ours if r["suite"] == "pa2-sgemm" and r.get("speedup")]
    if not by_n:
        return None
    dips = []
    for n, s, r in by_n:
        near = sorted(t for m, t, _ in by_n if abs(m - n) <= 10)
        trend = near[(3 * (len(near) - 1)) // 4]
        dips.append((s / trend, r))
    measured, met = _lowest(dips, 0.9, word="deepest, speedup / trend")
    return Check(4, "N = 1000..1100: no dip more than 10% below the trend", measured, met)


_ISSUE_4 = (
    _floor(4, "bf16/fp16 >= 1.0x cuBLAS at 4096^3, 8192^3", _G, _gemm(("bfloat16", "float16"), None, _BIG),
           _speedup, 1.0),
    _floor(4, "bf16/fp16 >= 0.95x cuBLAS at 2048^3", _G, _gemm(("bfloat16", "float16"), None, (2048,)), _speedup,
           0.95),
    _floor(4, "tf32 >= 1.0x cuBLAS TF32 at 4096^3, 8192^3", _G, _gemm(("float32",), "tf32", _BIG), _speedup, 1.0),
    _floor(4, "tf32x3 >= 2.0x cuBLAS SGEMM at 4096^3, 8192^3", _G, _gemm(("float32",), "tf32x3", _BIG), _speedup,
           2.0),
    _tf32x3_error,
    _floor(4, "ieee >= 1.0x cuBLAS SGEMM at 4096^3, 8192^3", _G, _gemm(("float32",), "ieee", _BIG), _speedup, 1.0),
    _floor(4, "fp64 >= 0.9x cuBLAS DGEMM at 4096^3, 8192^3", _G, _gemm(("float64",), None, _BIG), _speedup, 0.9),
    _floor(4, "n <= 512: >= 1.0x cuBLAS", _G, lambda r: r["op"] == "gemm" and _cube(r, (128, 256, 512)), _speedup,
           1.0),
    _layouts,
    _thin("float32"),
    _thin("bfloat16"),
    _trend,
)  # fmt: skip


# --- issue 5: transposition and addition --------------------------------------------------------------------


def _memory(op: str, layouts: tuple[str, ...], copies: int) -> Callable[[Row], bool]:
    """Rows of ``op`` in ``layouts`` whose matrices are 64 MiB or more (bytes moved / ``copies``)."""
    return lambda r: (
        r["op"] == op and (r.get("layout") or "row") in layouts and (r.get("bytes") or 0) / copies >= 64 * MIB
    )


_IN_PLACE = _memory("transpose", ("inplace",), 2)


def _square(r: Row) -> bool:
    return _IN_PLACE(r) and r["shape"][0] == r["shape"][1]


def _rectangle(small: bool) -> Callable[[Row], bool]:
    return lambda r: _IN_PLACE(r) and r["shape"][0] != r["shape"][1] and (_gcd(r) < 32) == small


_M = ("memory-targets", "tnl-transpose-*")
_PCT = "{:.1f}"


def _pct(r: Row) -> float | None:
    return r.get("pct_ceiling")


_ISSUE_5 = (
    _floor(5, "transpose >= 90% of copy bandwidth (64 MiB and more)", _M, _memory("transpose", ("row", "col"), 2),
           _pct, 90.0, _PCT),
    _floor(5, "transpose >= 3x torch's x.t().contiguous() (64 MiB and more)", _M,
           _memory("transpose", ("row", "col"), 2), _speedup, 3.0),
    _floor(5, "transpose_ of a square >= 85% of copy bandwidth (64 MiB and more)", ("transpose-inplace",), _square,
           _pct, 85.0, _PCT),
    _floor(5, "transpose_ of a rectangle, gcd >= 32: >= 35% of copy bandwidth (64 MiB and more)",
           ("transpose-inplace",), _rectangle(False), _pct, 35.0, _PCT),
    _floor(5, "transpose_ of a rectangle, gcd < 32: >= 20% of copy bandwidth (64 MiB and more)",
           ("transpose-inplace",), _rectangle(True), _pct, 20.0, _PCT),
    _floor(5, "add, operands alike: >= 90% of copy bandwidth (64 MiB and more)", _M, _memory("add", ("row", "col"), 3),
           _pct, 90.0, _PCT),
    _floor(5, "add, operands alike: >= 0.97x torch.add (64 MiB and more)", _M, _memory("add", ("row", "col"), 3),
           _speedup, 0.97),
    _floor(5, "add, one operand transposed: >= 80% of copy bandwidth (64 MiB and more)", _M,
           _memory("add", ("row+col",), 3), _pct, 80.0, _PCT),
)  # fmt: skip


# --- issue 6: LU --------------------------------------------------------------------------------------------

_L = ("lu-large",)


def _order(sizes: Callable[[int], bool]) -> Callable[[Row], bool]:
    return lambda r: r["op"] == "lu" and sizes(r["shape"][0])


def _vs_magma(ours: list[Row], rows: Sequence[Row]) -> Check | None:
    magma = {(r["label"], r["dtype"]): r["median_ms"] for r in rows if r["suite"] in _L and r["provider"] == "magma"
             and timed(r)}  # fmt: skip
    pairs = [(magma[(r["label"], r["dtype"])] / r["median_ms"], r) for r in ours
             if r["suite"] in _L and (r["label"], r["dtype"]) in magma]  # fmt: skip
    if not pairs:
        return None
    measured, met = _lowest(pairs, 1.0, word="slowest: MAGMA time /")
    return Check(6, "LU: faster than torch's MAGMA path", measured, met)


def _refined(ours: list[Row], rows: Sequence[Row]) -> Check | None:
    """solve refined from tf32 or bf16 factors, n >= 8192: >= 2x cuSOLVER, backward error <= 10x cuSOLVER's."""
    base = {(r["label"], r.get("precision")): r.get("err_rel") for r in rows
            if r["suite"] == "lu-refine" and r["provider"] == r.get("base") and timed(r)}  # fmt: skip
    pairs = []
    for r in ours:
        if r["suite"] == "lu-refine" and r.get("precision") in ("tf32", "bf16") and r["shape"][0] >= 8192:
            reference = base.get((r["label"], r.get("precision")))
            accurate = r.get("err_rel") is not None and reference is not None and r["err_rel"] <= 10 * reference
            pairs.append((r["speedup"] if accurate else 0.0, r))
    if not pairs:
        return None
    measured, met = _lowest(pairs, 2.0)
    target = "solve refined from tf32/bf16 (n >= 8192): >= 2x cuSOLVER at an fp64-level residual (0: not reached)"
    return Check(6, target, measured, met)


_ISSUE_6 = (
    _floor(6, "LU n = 4096: >= 1.5x cuSOLVER", _L, _order(lambda n: n == 4096), _speedup, 1.5),
    _floor(6, "LU n = 8192: >= 1.3x cuSOLVER", _L, _order(lambda n: n == 8192), _speedup, 1.3),
    _floor(6, "LU n >= 16384: >= 1.0x cuSOLVER", _L, _order(lambda n: n >= 16384), _speedup, 1.0),
    _floor(6, "LU: never below 0.9x cuSOLVER", _L, _order(lambda n: True), _speedup, 0.9),
    _vs_magma,
    _floor(6, "batched LU: >= 1.5x the faster torch path", ("lu-batched",), lambda r: r["op"] == "lu",
           lambda r: r.get("vs_best"), 1.5),
    _refined,
)  # fmt: skip
