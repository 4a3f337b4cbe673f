"""Two closes of one period at once, as two real processes: one publishes, the other is told
the period is already closed (the home lock serializes them; DuckDB never sees two writers)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import sql
from tests.orchestration.conftest import land_march_and_april, policies


def test_two_closes_at_once_one_wins_the_other_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    land_march_and_april(home, tmp_path)
    _, mapped = policies(tmp_path)
    command = [
        sys.executable,
        "-m",
        "gpuledger.cli",
        "--home",
        str(home),
        "--policy",
        str(mapped),
        "close",
        "--period",
        "2026-03",
    ]
    closes = [
        subprocess.Popen(
            [*command, "--approver", name],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("alice", "bob")
    ]
    results = [(p.wait(timeout=600), *p.communicate()) for p in closes]
    codes = sorted(code for code, _, _ in results)
    if codes != [0, 4]:
        pytest.fail("\n\n".join(f"exit {c}\nstdout:\n{o}\nstderr:\n{e}" for c, o, e in results))
    winner = next(r for r in results if r[0] == 0)
    loser = next(r for r in results if r[0] == 4)
    assert "closed and published as close-2026-03-v1-" in winner[1]
    assert "period 2026-03 is already closed (close close-2026-03-v1-" in loser[1]
    assert "Traceback" not in loser[2] and "Traceback" not in winner[2]
    approver = sql(home, "select approver from ledger.closes")
    assert len(approver) == 1 and approver[0][0] in {"alice", "bob"}
    assert f"by {approver[0][0]}" in loser[1]
