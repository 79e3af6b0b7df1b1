"""The result row: one measurement of one provider on one case, as written to JSON lines.

Fields (None where not applicable):
- what: ``suite``, ``op``, ``provider``, ``base`` (the suite's base provider), ``best_of`` (list: the
  providers whose fastest time per case the report compares the others with, or None), ``shape`` (list),
  ``label`` (shape as the studies write it), ``size``, ``dtype``, ``precision`` (gemm: the float32 mode;
  solve: the refinement's lower precision), ``layout``;
- time: ``median_ms``, ``p20_ms``, ``p80_ms``, ``reps`` (timed repetitions), ``spread`` ((p80 - p20) /
  median), ``noisy`` (spread above the target after the time limit), ``timer`` ("cuda-events" for GPU
  work, "wall" for CPU work, "interpreter" where Triton's interpreter ran and the time means nothing);
- rates: ``flops``, ``bytes``, ``tflops`` (TFLOP/s), ``gbps`` (GB/s), ``pct_ceiling`` (percent of the
  measured ceiling: copy bandwidth for memory-bound ops, the vendor GEMM peak of the precision
  otherwise), ``ceiling`` (its value and unit as text), ``speedup`` (base median / this median);
- accuracy against a float64 reference: ``err_max`` (max-norm of the difference), ``err_l2`` (L2 norm of
  the difference), ``err_rel`` (L2 difference / L2 norm of the reference); for a solve, the difference is
  the residual b - A x and ``err_rel`` the normwise backward error (infinity norm);
- transfers: ``h2d_ms``, ``d2h_ms`` (host-to-device copy of the inputs, device-to-host of the result);
- outcome: ``status`` ("ok", "failed", "skipped"), ``note`` (the error or skip reason; on an ok row what
  the provider said of its result, as densela's refinement: iterations, converged or fell back);
- context: ``gpu``, ``driver``, ``cuda``, ``versions`` (dict: python, densela, torch, triton, numpy,
  cupy), ``git_commit``, ``date`` (when the row was measured: ISO 8601, UTC), ``host``, ``suite_rows`` (how many
  rows the run set out to measure for the row's suite: a run with fewer rows of it was cut short; None in runs
  written before 2026-11-26).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Row = dict[str, Any]

FIELDS = (
    "suite", "op", "provider", "base", "best_of", "shape", "label", "size", "dtype", "precision", "layout",
    "median_ms", "p20_ms", "p80_ms", "reps", "spread", "noisy", "timer",
    "flops", "bytes", "tflops", "gbps", "pct_ceiling", "ceiling", "speedup",
    "err_max", "err_l2", "err_rel", "h2d_ms", "d2h_ms", "status", "note",
    "gpu", "driver", "cuda", "versions", "git_commit", "date", "host", "suite_rows",
)  # fmt: skip


def read_rows(path: str | Path) -> list[Row]:
    """Every row of a JSON-lines results file (blank lines skipped).

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.jsonl"
        >>> append_row(path, {"suite": "quick", "provider": "densela", "status": "ok"})
        >>> read_rows(path)[0]["provider"]
        'densela'
    """
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def append_row(path: str | Path, row: Row) -> None:
    """Appends one row and flushes, so an interrupted run keeps everything measured so far."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({k: row.get(k) for k in FIELDS}) + "\n")


def timed(r: Row | None) -> bool:
    """Whether the row holds a time (measured, and not by Triton's interpreter).

    Example:
        >>> timed({"status": "ok", "timer": "cuda-events", "median_ms": 0.5}), timed({"status": "failed"})
        (True, False)
    """
    return bool(r and r.get("status") == "ok" and r.get("timer") != "interpreter" and r.get("median_ms"))


GEMM_STATES = ("nn", "nt", "tn", "tt")
"""GEMM's transposition states, as the lab's ``layout`` names them ("row" is "nn")."""


def state_times(rows: list[Row]) -> dict[tuple[str, str], dict[str, dict[str, float]]]:
    """The median times of the timed GEMM rows by case (label, dtype with its float32 mode), provider and
    transposition state.

    Example:
        >>> r = {"op": "gemm", "status": "ok", "timer": "cuda-events", "label": "8x8 * 8x8", "dtype": "float64"}
        >>> state_times([{**r, "provider": "densela", "median_ms": 1.0}, {**r, "provider": "densela", "layout": "nt",
        ...              "median_ms": 1.5}])
        {('8x8 * 8x8', 'float64'): {'densela': {'nn': 1.0, 'nt': 1.5}}}
    """
    times: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    for r in rows:
        if r["op"] == "gemm" and timed(r):
            state = "nn" if (r.get("layout") or "row") == "row" else r["layout"]
            mode = f"{r['dtype']}{' ' + r['precision'] if r.get('precision') else ''}"
            times.setdefault((r["label"], mode), {}).setdefault(r["provider"], {})[state] = r["median_ms"]
    return times
