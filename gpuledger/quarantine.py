"""`gpuledger quarantine list|acknowledge|release`: review what the landing held back.

Each quarantined record is shown with its batch, file, line, field and reason, and its
status: open (it blocks the close of a period its batch covers, above the policy's
quarantine_tolerance_pct), acknowledged (with a reason, recorded on that close) or released
(it landed as a new batch). A period is chosen by its batches' evidence span.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from extractors.quarantine import QuarantinedRecord, acknowledge, quarantined, release
from extractors.rawstore import batch_manifest
from gpuledger.output import landing_lines, table_text

STATUSES = ("open", "acknowledged", "released")


def add_arguments(parser: argparse.ArgumentParser, period_type: object) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="quarantined records, with file, line and reason")
    listing.add_argument("--period", type=period_type, help="batches whose evidence touches it")
    listing.add_argument("--source")
    listing.add_argument("--batch")
    listing.add_argument("--status", choices=STATUSES)
    for name, text in (
        ("acknowledge", "keep records out, and let the close through (recorded on it)"),
        ("release", "land held-back records as they were parsed"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("--batch", required=True)
        action.add_argument(
            "--line", type=int, action="append", default=[], help="(repeat; default: all open)"
        )
        action.add_argument("--reason", required=True)
        action.add_argument("--by", default="unknown", help="who decides")


def _month(period: str) -> tuple[dt.datetime, dt.datetime]:
    start = dt.datetime.strptime(period, "%Y-%m")
    end = (start + dt.timedelta(days=32)).replace(day=1)
    return start, end


def _selected(home: Path, args: argparse.Namespace) -> list[QuarantinedRecord]:
    records = quarantined(home, args.batch)
    if args.period:
        start, end = _month(args.period)
        touching = {
            b.batch_id
            for b in batch_manifest(home)
            if b.coverage_start_at is not None
            and b.coverage_start_at < end
            and b.coverage_end_at >= start
        }
        records = [r for r in records if r.row.batch_id in touching]
    if args.source:
        records = [r for r in records if r.row.source == args.source]
    if args.status:
        records = [r for r in records if r.status == args.status]
    return records


def _rows(records: Sequence[QuarantinedRecord]) -> list[dict[str, object]]:
    return [
        {
            "batch": r.row.batch_id,
            "where": f"{r.row.file}:{r.row.line}",
            "field": r.row.field,
            "reason": r.row.reason,
            "status": r.status,
            "decision": ""
            if r.decision is None
            else f"{r.decision.reason} ({r.decision.decided_by})",
        }
        for r in records
    ]


COLUMNS = (
    ("batch", "batch"),
    ("where", "file:line"),
    ("field", "field"),
    ("reason", "reason"),
    ("status", "status"),
    ("decision", "decision"),
)


def run(home: Path, args: argparse.Namespace) -> int:
    if args.action == "list":
        records = _selected(home, args)
        if not records:
            print("no quarantined record" + (f" for {args.period}" if args.period else ""))
            return 0
        print(table_text(_rows(records), COLUMNS))
        counts = {s: sum(r.status == s for r in records) for s in STATUSES}
        print(", ".join(f"{n} {s}" for s, n in counts.items()))
        return 0
    if args.action == "acknowledge":
        done = acknowledge(home, args.batch, args.line, args.reason, args.by)
        print(f"acknowledged {len(done)} record(s) of batch {args.batch}: {args.reason}")
        return 0
    report = release(home, args.batch, args.line, args.reason, args.by)
    print("\n".join(landing_lines(report)))
    print(f"released from batch {args.batch}: {args.reason}; run gpuledger build to count it")
    return 0
