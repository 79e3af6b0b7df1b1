"""The open issues' numbers by the last recorded lab run of each suite: the table of docs/performance.md.

Walks FOLDER (default: bench-results) for the lab's rows.jsonl files, takes for each suite the rows of the run that
measured it last (by the rows' dates) of those that measured all of it (a run cut short has fewer rows of a suite
than its rows' ``suite_rows``; runs written before that field are taken as whole), and prints
``densela.bench.targets``'s checks on them as a markdown table, then the run each suite came from and the later runs
passed over as cut short. CPU only.

Usage: python scripts/issue-targets.py [FOLDER]
"""

from __future__ import annotations

import sys
from pathlib import Path

from densela.bench.report import with_comparisons
from densela.bench.rows import Row, read_rows
from densela.bench.targets import check_targets, targets_table


def cut_short(rows: list[Row]) -> bool:
    """Whether a run's rows of one suite are fewer than it set out to measure (``suite_rows``).

    Example:
        >>> cut_short([{"suite_rows": 3}, {"suite_rows": 3}]), cut_short([{"suite_rows": None}])
        (True, False)
    """
    planned = max((r.get("suite_rows") or 0 for r in rows), default=0)
    return len(rows) < planned


def latest_runs(folder: Path) -> tuple[dict[str, tuple[str, Path, list[Row]]], list[tuple[str, Path]]]:
    """Per suite: (date, rows file, the suite's rows) of the whole run whose rows of it are the most recent; and the
    (suite, rows file) of the runs cut short that are more recent than it."""
    latest: dict[str, tuple[str, Path, list[Row]]] = {}
    partial: list[tuple[str, str, Path]] = []
    for path in sorted(folder.rglob("rows.jsonl")):
        rows = read_rows(path)
        for suite in {r["suite"] for r in rows}:
            mine = [r for r in rows if r["suite"] == suite]
            date = max(r.get("date") or "" for r in mine)
            if cut_short(mine):
                partial.append((suite, date, path))
            elif suite not in latest or date > latest[suite][0]:
                latest[suite] = (date, path, mine)
    later = [(suite, path) for suite, date, path in sorted(partial) if suite not in latest or date > latest[suite][0]]
    return latest, later


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "bench-results")
    latest, later = latest_runs(folder)
    rows = [r for _, _, mine in latest.values() for r in mine]
    print("\n".join(targets_table(check_targets(with_comparisons(rows)))))
    for suite, (date, path, _) in sorted(latest.items()):
        print(f"- `{suite}`: `{path.parent.relative_to(folder)}` ({date[:10]})")
    for suite, path in later:
        print(f"- `{suite}`: passed over, cut short: `{path.parent.relative_to(folder)}`")


if __name__ == "__main__":
    main()
