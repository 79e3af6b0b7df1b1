"""The benchmark lab: suites reproducing four studies, providers, timing, ceilings and reports.

The ``densela bench | report | roofline`` commands call these functions; docs/bench.md describes them.

Example:
    >>> from densela.bench import SUITES
    >>> SUITES["tnl-gemm-square"].base
    'cublas'
"""

from densela.bench.report import format_table, write_report
from densela.bench.roofline import ceilings, measure_ceilings
from densela.bench.rows import FIELDS, read_rows
from densela.bench.run import run_suites
from densela.bench.suites import SUITES, Case, Suite

__all__ = [
    "FIELDS",
    "SUITES",
    "Case",
    "Suite",
    "ceilings",
    "format_table",
    "measure_ceilings",
    "read_rows",
    "run_suites",
    "write_report",
]
