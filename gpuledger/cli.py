"""The `gpuledger` command: parse the arguments, run the command, print, exit.

Exit codes: 0 success; 1 a usage, input or build error (one line naming the file, line and
field; never a traceback); 2 bad arguments; 3 close blocked; 4 the period is already closed.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from extractors.commands import FilesFailed, source_commands
from extractors.filebatch import SourceFileError
from extractors.inventory.parse import InventoryFormatError
from extractors.landing import LandingReport
from extractors.quarantine import QuarantineError
from extractors.rawstore import sweep_interrupted
from gpuledger import quarantine
from gpuledger.core.home import home_lock, resolve_home, resolve_policy
from gpuledger.core.ledger import LedgerError
from gpuledger.core.policy import PolicyError, parse_period
from gpuledger.core.warehouse import BuildError
from gpuledger.explain import explain
from gpuledger.export import FORMATS, ExportError, export_period
from gpuledger.metrics import prepare_semantic_layer, semantic_layer_lines
from gpuledger.output import check_lines, close_lines, landing_lines
from gpuledger.progress import shown as progress_shown
from gpuledger.report import render_report
from gpuledger.site import write_site

EXIT_ERROR = 1
EXIT_USAGE = 2
DEMO_MARKER = ".gpuledger-demo"
USER_ERRORS = (
    SourceFileError,
    InventoryFormatError,
    PolicyError,
    BuildError,
    LedgerError,
    LookupError,
    FileNotFoundError,
    QuarantineError,
    ExportError,
)


def _period(value: str) -> str:
    try:
        return parse_period(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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
    build_cmd.add_argument(
        "--period", type=_period, help="also print the period's reconciliation checks"
    )

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

    export = commands.add_parser("export", help="a period's charge lines as FOCUS, CSV or Parquet")
    export.add_argument("--period", type=_period, required=True)
    export.add_argument("--format", choices=FORMATS, required=True)
    export.add_argument("--output", type=Path, required=True)
    export.add_argument("--tenant")
    export.add_argument(
        "--provisional", action="store_true", help="an open period's provisional lines"
    )

    site = commands.add_parser("site", help="write the static showback site of a period")
    site.add_argument("--period", type=_period, required=True)
    site.add_argument("--output", type=Path, required=True, help="folder for the pages")
    site.add_argument("--tenant", help="write only this tenant's page")

    quarantine.add_arguments(
        commands.add_parser("quarantine", help="review the records the landing held back"),
        _period,
    )

    explain_cmd = commands.add_parser("explain", help="the evidence behind a tenant's charge lines")
    explain_cmd.add_argument("--period", type=_period, required=True)
    explain_cmd.add_argument("--tenant", required=True)
    explain_cmd.add_argument("--line", help="a charge_line_id: its evidence")

    commands.add_parser(
        "metrics", help="parse the metrics (MetricFlow) over the served copy; how to query them"
    )

    demo = commands.add_parser("demo", help="generate, ingest, close and show a demo month")
    demo.add_argument("--period", type=_period, default="2026-10")
    demo.add_argument("--seed", type=int, default=7)
    return parser


def _ingest(home: Path, args: argparse.Namespace) -> int:
    """Every file's summary (or the one line saying why it did not land), a total for
    several; exit 1 when a file failed or all its records were quarantined."""
    try:
        outcomes: tuple[LandingReport | str, ...] = tuple(
            source_commands()[args.source].ingest(home, args)
        )
    except FilesFailed as exc:
        outcomes = exc.outcomes
    reports = [o for o in outcomes if isinstance(o, LandingReport)]
    for outcome in outcomes:
        if isinstance(outcome, str):
            print(f"gpuledger: {outcome}", file=sys.stderr)
        else:
            print("\n".join(landing_lines(outcome)))
    failed = len(outcomes) - len(reports)
    if len(outcomes) > 1:
        print(
            f"total: read {sum(r.records_read for r in reports)}, "
            f"landed {sum(r.records_landed for r in reports)}, "
            f"quarantined {sum(r.records_quarantined for r in reports)}"
            + (f"; {failed} of {len(outcomes)} files not landed" if failed else "")
        )
    # a live window sacct reported nothing for is no failure; a file with no record is
    # refused before it lands (extractors.filebatch)
    empty = [r.file for r in reports if r.records_read and r.records_landed == 0]
    for file in empty:
        print(f"gpuledger: {file} landed no record", file=sys.stderr)
    return EXIT_ERROR if empty or failed else 0


# gpuledger.runs imports Dagster (the in-process runner): imported by the commands that run
# jobs only, so an ingest, report or export starts in a fraction of the time


def _build(home: Path, policy: Path, args: argparse.Namespace) -> int:
    from gpuledger.runs import CloseOutcome, build, period_checks

    print(build(home, policy))
    if args.period:
        checks = period_checks(home, args.period)
        outcome = CloseOutcome(0, args.period, "", checks)
        blocking = [c.check_name for c in checks if c.blocks]
        print("\n".join(check_lines(outcome)) or f"no reconciliation rows for {args.period}")
        if checks:
            print(
                f"a close of {args.period} would be blocked by {', '.join(blocking)}"
                if blocking
                else f"every blocking check of {args.period} passes"
            )
    return 0


def _close(home: Path, policy: Path, args: argparse.Namespace) -> int:
    from gpuledger.runs import close_period

    outcome = close_period(home, policy, args.period, args.approver)
    print("\n".join(close_lines(outcome)))
    return outcome.exit_code


def _demo(home: Path, policy: Path, args: argparse.Namespace) -> int:
    from gpuledger.demo import run_demo

    if args.home is None:
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


def _export(home: Path, args: argparse.Namespace) -> int:
    result = export_period(
        home, args.period, args.format, args.output, args.tenant, args.provisional
    )
    print(result.summary())
    return 0 if result.adds_up else EXIT_ERROR


def _sweep(home: Path) -> None:
    for moved in sweep_interrupted(home):
        print(f"swept a file an interrupted ingest left behind: {moved}", file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    home = resolve_home(args.home)
    policy = resolve_policy(args.policy)
    if args.command in ("ingest", "build", "close"):
        _sweep(home)
    if args.command == "ingest":
        return _ingest(home, args)
    if args.command == "build":
        return _build(home, policy, args)
    if args.command == "close":
        return _close(home, policy, args)
    if args.command == "reopen":
        from gpuledger.runs import reopen_period

        print(reopen_period(home, args.period, args.reason, args.approver))
        return 0
    if args.command == "quarantine":
        return quarantine.run(home, args)
    if args.command == "report":
        print(render_report(home, args.period, args.tenant, args.format), end="")
        return 0
    if args.command == "export":
        return _export(home, args)

    if args.command == "site":
        for page in write_site(home, args.period, args.output, args.tenant):
            print(page)
        return 0
    if args.command == "explain":
        print(explain(home, args.period, args.tenant, args.line), end="")
        return 0
    if args.command == "metrics":
        print("\n".join(semantic_layer_lines(prepare_semantic_layer(home))))
        return 0
    return _demo(home, policy, args)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        with progress_shown():
            return _run(args)
    except USER_ERRORS as exc:
        print(f"gpuledger: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # the reader (`| head`) stopped reading: nothing more to say
        sys.stderr.close()
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
