"""The open issues' numbers by the last recorded lab run of each suite: the table of docs/performance.md.

Walks FOLDER (default: bench-results) for the lab's rows.jsonl files, takes for each suite the rows of the run that
measured it last (by the rows' dates) of those that measured all of it (a run cut short has fewer rows of a suite
than its rows' ``suite_rows``; runs written before that field are taken as whole), and prints
``densela.bench.targets``'s checks on them as a markdown table, then the run each suite came from and the later runs
passed over as cut short. With ``--runs K`` (K > 1) a second table follows: each target's verdict on the K latest
whole runs of each suite, newest first (the i-th verdict from the i-th latest run of every suite; "-" where the
suites behind a target have fewer runs), for the targets a single run cannot settle; older runs may be of older
code, so the verdicts show a target's history as well as its noise. CPU only.

Usage: python scripts/issue-targets.py [FOLDER] [--runs K]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from densela.bench.report import with_comparisons
from densela.bench.rows import Row, read_rows
from densela.bench.targets import Check, check_targets, targets_table

Run = tuple[str, Path, list[Row]]
"""(date of its latest row, rows file, the suite's rows) of one run of one suite."""


def cut_short(rows: list[Row]) -> bool:
    """Whether a run's rows of one suite are fewer than it set out to measure (``suite_rows``).

    Example:
        >>> cut_short([{"suite_rows": 3}, {"suite_rows": 3}]), cut_short([{"suite_rows": None}])
        (True, False)
    """
    planned = max((r.get("suite_rows") or 0 for r in rows), default=0)
    return len(rows) < planned


def suite_runs(folder: Path) -> tuple[dict[str, list[Run]], list[tuple[str, Path]]]:
    """Per suite: its whole runs, newest first; and the (suite, rows file) of the runs cut short that are more recent
    than the suite's newest whole run."""
    whole: dict[str, list[Run]] = {}
    partial: list[tuple[str, str, Path]] = []
    for path in sorted(folder.rglob("rows.jsonl")):
        rows = read_rows(path)
        for suite in {r["suite"] for r in rows}:
            mine = [r for r in rows if r["suite"] == suite]
            date = max(r.get("date") or "" for r in mine)
            if cut_short(mine):
                partial.append((suite, date, path))
            else:
                whole.setdefault(suite, []).append((date, path, mine))
    for runs in whole.values():
        runs.sort(key=lambda run: run[0], reverse=True)
    later = [(suite, path) for suite, date, path in sorted(partial) if suite not in whole or date > whole[suite][0][0]]
    return whole, later


def latest_runs(folder: Path) -> tuple[dict[str, Run], list[tuple[str, Path]]]:
    """Per suite: the whole run whose rows of it are the most recent; and the runs cut short after it
    (``suite_runs``)."""
    whole, later = suite_runs(folder)
    return {suite: runs[0] for suite, runs in whole.items()}, later


def checks_of(runs: dict[str, Run]) -> list[Check]:
    """``check_targets`` on the rows of one run of each suite."""
    return check_targets(with_comparisons([r for _, _, mine in runs.values() for r in mine]))


def history(whole: dict[str, list[Run]], depth: int) -> list[tuple[Check, list[bool | None]]]:
    """Each target of the latest runs with its verdicts on the ``depth`` latest runs of each suite, newest first:
    verdict i from the i-th latest run of every suite that has one (None where the target has no rows there).

    Example:
        >>> row = lambda s, d: {"suite": "lu-large", "op": "lu", "provider": "densela", "base": "cusolver",
        ...     "shape": [4096], "label": "4096x4096", "dtype": "float64", "status": "ok", "timer": "cuda-events",
        ...     "median_ms": 1.0, "speedup": s, "date": d}
        >>> runs = {"lu-large": [("2", Path("b"), [row(1.6, "2")]), ("1", Path("a"), [row(1.2, "1")])]}
        >>> [(c.target, verdicts) for c, verdicts in history(runs, 3)][:1]
        [('LU n = 4096: >= 1.5x cuSOLVER', [True, False, None])]
    """
    levels = [checks_of({suite: mine[i] for suite, mine in whole.items() if len(mine) > i}) for i in range(depth)]
    verdicts = [{c.target: c.met for c in level} for level in levels]
    return [(c, [level.get(c.target) for level in verdicts]) for c in levels[0]] if levels else []


def history_table(rows: list[tuple[Check, list[bool | None]]]) -> list[str]:
    """``history`` as markdown lines: issue, target, the verdicts newest first, how many of the judged runs met it."""
    depth = max((len(verdicts) for _, verdicts in rows), default=0)
    lines = [f"| issue | target | last {depth} runs, newest first | met |", "|---|---|---|---|"]
    for check, verdicts in rows:
        judged = [v for v in verdicts if v is not None]
        words = ", ".join("-" if v is None else "yes" if v else "no" for v in verdicts)
        lines.append(f"| {check.issue} | {check.target} | {words} | {sum(judged)} of {len(judged)} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default="bench-results")
    parser.add_argument("--runs", type=int, default=1, help="verdicts on this many latest runs of each suite")
    args = parser.parse_args()
    folder = Path(args.folder)
    whole, later = suite_runs(folder)
    latest = {suite: runs[0] for suite, runs in whole.items()}
    print("\n".join(targets_table(checks_of(latest))))
    for suite, (date, path, _) in sorted(latest.items()):
        print(f"- `{suite}`: `{path.parent.relative_to(folder)}` ({date[:10]})")
    for suite, path in later:
        print(f"- `{suite}`: passed over, cut short: `{path.parent.relative_to(folder)}`")
    if args.runs > 1:
        print(f"\n## The same targets on the {args.runs} latest whole runs of each suite\n")
        print("\n".join(history_table(history(whole, args.runs))))


if __name__ == "__main__":
    main()
