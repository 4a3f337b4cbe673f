"""The `gpuledger` command (DESIGN.md "Command line")."""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from extractors.commands import source_commands
from extractors.filebatch import SourceFileError
from extractors.inventory.parse import InventoryFormatError
from extractors.landing import LandingReport
from gpuledger.close import EXIT_PUBLISHED, CloseOutcome, close_period, reopen_period
from gpuledger.core.home import home_lock, resolve_home, resolve_policy
from gpuledger.core.ledger import LedgerError
from gpuledger.core.policy import PolicyError
from gpuledger.core.warehouse import BuildError, build
from gpuledger.explain import explain
from gpuledger.report import render_report

EXIT_USAGE = 2
DEMO_MARKER = ".gpuledger-demo"


def _period(value: str) -> str:
    parts = value.split("-")
    if len(parts) != 2 or len(parts[0]) != 4 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"{value!r} is not a period YYYY-MM")
    if not 1 <= int(parts[1]) <= 12:
        raise argparse.ArgumentTypeError(f"{value!r} has no month {parts[1]}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpuledger", description="Who used the GPU, and what do they owe?"
    )
    parser.add_argument("--home", help="landed data and warehouse (env GPULEDGER_HOME)")
    parser.add_argument("--policy", help="policy directory (env GPULEDGER_POLICY)")
    commands = parser.add_subparsers(dest="command", required=True)

    ingest = commands.add_parser("ingest", help="land raw evidence")
    sources = ingest.add_subparsers(dest="source", required=True)
    for name, command in source_commands().items():
        command.add_arguments(sources.add_parser(name, help=command.HELP))

    build_cmd = commands.add_parser(
        "build", help="build the warehouse (the Dagster provisional_build job)"
    )
    build_cmd.add_argument("--period", type=_period, help="accepted for symmetry; builds all")

    close = commands.add_parser(
        "close", help="close and publish a period (the Dagster monthly_close job)"
    )
    close.add_argument("--period", type=_period, required=True)
    close.add_argument("--approver", default="unknown")

    reopen = commands.add_parser(
        "reopen", help="reopen a closed period; its close stays in the ledger"
    )
    reopen.add_argument("--period", type=_period, required=True)
    reopen.add_argument("--reason", required=True)
    reopen.add_argument("--approver", default="unknown", help="who reopens it")

    report = commands.add_parser("report", help="showback of a period")
    report.add_argument("--period", type=_period, required=True)
    report.add_argument("--tenant")
    report.add_argument("--format", choices=("table", "csv", "html"), default="table")

    explain_cmd = commands.add_parser("explain", help="the evidence behind a tenant's charge lines")
    explain_cmd.add_argument("--period", type=_period, required=True)
    explain_cmd.add_argument("--tenant", required=True)
    explain_cmd.add_argument("--line", help="a charge_line_id: its evidence")

    demo = commands.add_parser("demo", help="generate, ingest, close and show a demo month")
    demo.add_argument("--period", type=_period, default="2026-10")
    demo.add_argument("--seed", type=int, default=7)
    return parser


def _print_landing(report: LandingReport) -> None:
    print(report.summary())
    for rejected in report.rejected[:20]:
        where = f"{report.file}:{rejected.line}"
        print(f"  quarantined {where}: field {rejected.field}: {rejected.reason}")
    if len(report.rejected) > 20:
        print(f"  ... and {len(report.rejected) - 20} more (all kept in quarantine)")


def _ingest(home: Path, args: argparse.Namespace) -> int:
    reports = source_commands()[args.source].ingest(home, args)
    for report in reports:
        _print_landing(report)
    if len(reports) > 1:
        print(
            f"total: read {sum(r.records_read for r in reports)}, "
            f"landed {sum(r.records_landed for r in reports)}, "
            f"quarantined {sum(r.records_quarantined for r in reports)}"
        )
    return 0


def print_close(outcome: CloseOutcome) -> None:
    if outcome.checks:
        print(f"reconciliation checks for {outcome.period}:")
        for check in outcome.checks:
            marker = "BLOCKS" if check.blocks else ""
            limit = "" if check.limit_value is None else f" (limit {check.limit_value})"
            observed = "-" if check.observed_value is None else str(check.observed_value)
            print(
                f"  {check.status.upper():<15} {check.check_name:<38} {observed} {check.unit}"
                f"{limit} {marker}".rstrip()
            )
            if check.blocks:
                print(f"      {check.detail}")
    print(outcome.message)


def _demo(home: Path, policy: Path, args: argparse.Namespace, explicit_home: bool) -> int:
    from gpuledger.demo import run_demo

    if not explicit_home:
        home = Path(".gpuledger-demo").resolve()
    if home.exists() and any(home.iterdir()):
        if not (home / DEMO_MARKER).exists():
            print(f"{home} holds data that is not a demo's; choose another --home", file=sys.stderr)
            return EXIT_USAGE
        with home_lock(home):
            shutil.rmtree(home)
    home.mkdir(parents=True, exist_ok=True)
    (home / DEMO_MARKER).write_text("created by gpuledger demo; removed by the next demo run\n")
    return run_demo(home, policy, args.period, args.seed)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    home = resolve_home(args.home)
    policy = resolve_policy(args.policy)
    try:
        if args.command == "ingest":
            return _ingest(home, args)
        if args.command == "build":
            print(build(home, policy))
            return 0
        if args.command == "close":
            outcome = close_period(home, policy, args.period, args.approver)
            print_close(outcome)
            return outcome.exit_code
        if args.command == "reopen":
            print(reopen_period(home, args.period, args.reason, args.approver))
            return 0
        if args.command == "report":
            print(render_report(home, args.period, args.tenant, args.format), end="")
            return 0
        if args.command == "explain":
            print(explain(home, args.period, args.tenant, args.line), end="")
            return 0
        if args.command == "demo":
            return _demo(home, policy, args, explicit_home=args.home is not None)
    except (
        SourceFileError,
        InventoryFormatError,
        PolicyError,
        BuildError,
        LedgerError,
        LookupError,
    ) as exc:
        print(f"gpuledger: {exc}", file=sys.stderr)
        return 1
    except FileNotFoundError as exc:
        print(f"gpuledger: {exc}", file=sys.stderr)
        return 1
    return EXIT_PUBLISHED


if __name__ == "__main__":
    sys.exit(main())
