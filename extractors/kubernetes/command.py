"""`gpuledger ingest kubernetes`: List / watch-event files, or live list + watch."""

from __future__ import annotations

import argparse
from pathlib import Path

from extractors.commands import land_each
from extractors.filebatch import add_read_arguments, read_flags_given, read_options
from extractors.kubernetes.fields import (
    DEFAULT_PROJECT_LABEL,
    DEFAULT_REPLICAS_ANNOTATION,
    DEFAULT_TENANT_LABEL,
    ParseOptions,
)
from extractors.kubernetes.files import KubernetesLiveError, LiveOptions, ingest_file
from extractors.landing import LandingReport

HELP = "Kubernetes pods, namespaces, quotas, nodes: kubectl -o json files or live list + watch"


def _positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a positive number")
    return number


def _count(value: str) -> int:
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value!r} is negative")
    return number


def _seconds(value: str) -> float:
    number = float(value)
    if number <= 0:
        raise argparse.ArgumentTypeError(f"{value!r} is not a positive number of seconds")
    return number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--file",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="`kubectl get pods,namespaces,resourcequotas,nodes -A -o json` output, or watch "
        "events (`{type, object}` per line, or `kubectl get -w -o json --output-watch-events`)",
    )
    mode.add_argument("--live", action="store_true", help="list and watch the API server")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--server", metavar="URL", help="API server URL (no authentication)")
    where.add_argument("--kubeconfig", type=Path, metavar="PATH", help="kubeconfig file")
    parser.add_argument("--context", help="kubeconfig context (default: the current one)")
    parser.add_argument(
        "--cluster",
        help="cluster name recorded on every row (default: `default` for files; the "
        "kubeconfig context's cluster, or the server's host:port, live)",
    )
    parser.add_argument(
        "--timeslice-replicas",
        type=_positive_int,
        metavar="N",
        help="replicas per GPU of time-sliced resources when the pod declares none",
    )
    for what, default in (("tenant", DEFAULT_TENANT_LABEL), ("project", DEFAULT_PROJECT_LABEL)):
        parser.add_argument(
            f"--{what}-label",
            default=default,
            metavar="KEY",
            help=f"namespace label naming the {what} (default {default})",
        )
    parser.add_argument(
        "--replicas-annotation",
        default=DEFAULT_REPLICAS_ANNOTATION,
        metavar="KEY",
        help="pod or node annotation declaring time-slice replicas "
        f"(default {DEFAULT_REPLICAS_ANNOTATION})",
    )
    parser.add_argument(
        "--max-events",
        type=_count,
        metavar="N",
        help="live: stop after N watch events; lists do not count (0 without saved state: "
        "list once and stop)",
    )
    parser.add_argument(
        "--timeout-seconds", type=_seconds, metavar="S", help="live: stop after S seconds"
    )
    add_read_arguments(
        parser,
        extracted_at_help="when kubectl ran: required for a List (it carries no time); watch "
        "events without it are dated each by its own times",
    )
    parser.add_argument(
        "--batch-events",
        type=_positive_int,
        default=LiveOptions.batch_events,
        metavar="N",
        help=f"live: land a batch every N objects (default {LiveOptions.batch_events})",
    )
    parser.add_argument(
        "--batch-seconds",
        type=_seconds,
        default=LiveOptions.batch_seconds,
        metavar="S",
        help=f"live: land a batch every S seconds (default {LiveOptions.batch_seconds:g})",
    )


def _parse_options(args: argparse.Namespace, cluster: str) -> ParseOptions:
    return ParseOptions(
        cluster=cluster,
        timeslice_replicas=args.timeslice_replicas,
        tenant_label=args.tenant_label,
        project_label=args.project_label,
        replicas_annotation=args.replicas_annotation,
    )


def ingest(home: Path, args: argparse.Namespace) -> list[LandingReport]:
    if args.file:
        options = _parse_options(args, args.cluster or "default")
        read = read_options(args)
        return land_each(args.file, lambda path: ingest_file(home, path, options, read))
    given = read_flags_given(args)
    if given:
        raise KubernetesLiveError(f"{', '.join(given)}: only with --file")
    # the kubernetes client (~0.8 s to import) only for a live run
    from extractors.kubernetes.client import connect
    from extractors.kubernetes.live import run_live

    connection = connect(server=args.server, kubeconfig=args.kubeconfig, context=args.context)
    options = _parse_options(args, args.cluster or connection.default_cluster)
    live = LiveOptions(
        batch_events=args.batch_events,
        batch_seconds=args.batch_seconds,
        max_events=args.max_events,
        timeout_seconds=args.timeout_seconds,
    )
    return run_live(home, connection, options, live)
