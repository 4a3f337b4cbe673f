"""The reconciliation checks: which ones a close needs, and what the warehouse reports.

`registered_check_names()` lists every check a period's close needs (one row each in
marts.fact_reconciliation); `reconciliation(home, period)` reads those rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gpuledger.core.home import PROJECT_DIR
from gpuledger.core.warehouse import connect

RECONCILIATION_SQL = PROJECT_DIR / "models" / "marts" / "chargeback" / "fact_reconciliation.sql"


@dataclass(frozen=True)
class CheckResult:
    check_name: str
    status: str
    is_blocking: bool
    observed_value: object
    limit_value: object
    unit: str
    detail: str

    @property
    def blocks(self) -> bool:
        return self.is_blocking and self.status == "fail"


def registered_check_names() -> tuple[str, ...]:
    sql = RECONCILIATION_SQL.read_text()
    return tuple(sorted(set(re.findall(r"'([a-z0-9_]+)'\s+as\s+check_name", sql))))


def reconciliation(home: Path, period: str) -> tuple[CheckResult, ...]:
    with connect(home) as con:
        rows = con.execute(
            "select check_name, status, is_blocking, observed_value, limit_value, unit, detail "
            "from marts.fact_reconciliation where period = ? order by check_name",
            [period],
        ).fetchall()
    return tuple(CheckResult(*row) for row in rows)
