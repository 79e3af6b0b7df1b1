"""The open issues' numbers by the last recorded lab run of each suite: the table of docs/performance.md.

Walks FOLDER (default: bench-results) for the lab's rows.jsonl files, takes for each suite the rows of the run that
measured it last (by the rows' dates), and prints ``densela.bench.targets``'s checks on them as a markdown table,
then the run each suite came from. CPU only.

Usage: python scripts/issue-targets.py [FOLDER]
"""

from __future__ import annotations

import sys
from pathlib import Path

from densela.bench.report import with_comparisons
from densela.bench.rows import Row, read_rows
from densela.bench.targets import check_targets, targets_table


def latest_runs(folder: Path) -> dict[str, tuple[str, Path, list[Row]]]:
    """Per suite: (date, rows file, the suite's rows) of the run whose rows of it are the most recent."""
    latest: dict[str, tuple[str, Path, list[Row]]] = {}
    for path in sorted(folder.rglob("rows.jsonl")):
        rows = read_rows(path)
        for suite in {r["suite"] for r in rows}:
            mine = [r for r in rows if r["suite"] == suite]
            date = max(r.get("date") or "" for r in mine)
            if suite not in latest or date > latest[suite][0]:
                latest[suite] = (date, path, mine)
    return latest


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "bench-results")
    latest = latest_runs(folder)
    rows = [r for _, _, mine in latest.values() for r in mine]
    print("\n".join(targets_table(check_targets(with_comparisons(rows)))))
    for suite, (date, path, _) in sorted(latest.items()):
        print(f"- `{suite}`: `{path.parent.relative_to(folder)}` ({date[:10]})")


if __name__ == "__main__":
    main()
