"""`gpuledger ingest prometheus`: saved query_range responses, or a live Prometheus server."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from extractors.commands import land_each
from extractors.filebatch import add_read_arguments, iso_instant, read_flags_given, read_options
from extractors.landing import LandingReport
from extractors.prometheus.auth import (
    PASSWORD_ENV,
    TOKEN_ENV,
    USER_ENV,
    CredentialsError,
    clean_url,
    resolve_credentials,
)
from extractors.prometheus.client import (
    DEFAULT_QUERIES,
    MAX_POINTS_PER_SERIES,
    LiveWindow,
    ingest_file,
    ingest_live,
    is_selector,
    parse_step,
)
from extractors.timeparse import parse_timestamp

HELP = (
    "Prometheus: query_range JSON or exposition-format scrapes (.prom) of DCGM, vLLM and "
    "Triton series, or a live server"
)
_LIVE_ONLY = ("url", "start", "end", "query", "bearer_token_file", "basic_auth_file")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--file",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="saved /api/v1/query_range JSON, or a saved /metrics scrape (exposition text)",
    )
    mode.add_argument("--live", action="store_true", help="query a Prometheus server")
    parser.add_argument(
        "--url",
        help="Prometheus base URL, e.g. http://127.0.0.1:9090 (a user:password@ in it is taken "
        "out and sent as basic auth; prefer a file or the environment)",
    )
    auth = parser.add_mutually_exclusive_group()
    auth.add_argument(
        "--bearer-token-file",
        type=Path,
        metavar="PATH",
        help=f"a file holding the bearer token (else env {TOKEN_ENV})",
    )
    auth.add_argument(
        "--basic-auth-file",
        type=Path,
        metavar="PATH",
        help=f"a file holding user:password (else env {USER_ENV} and {PASSWORD_ENV})",
    )
    parser.add_argument("--start", help="window start, ISO 8601 (zone-less is UTC)")
    parser.add_argument("--end", help="window end, ISO 8601 (zone-less is UTC)")
    parser.add_argument("--step", default="60s", help="evaluation step (default 60s)")
    parser.add_argument(
        "--query",
        nargs="+",
        metavar="NAME",
        help="metric names or selectors to fetch (default: the DCGM, vLLM and Triton set)",
    )
    parser.add_argument(
        "--max-points",
        type=int,
        default=MAX_POINTS_PER_SERIES,
        help=f"points per series per request (at most {MAX_POINTS_PER_SERIES}; lower it to "
        "keep responses small on large fleets)",
    )
    parser.add_argument(
        "--scrape-time",
        type=iso_instant,
        metavar="ISO",
        help="when a saved scrape (exposition text) was taken: its samples' time, required "
        "unless they carry timestamps",
    )
    add_read_arguments(
        parser,
        extracted_at_help="when the files were saved (default: the scrape time, else the "
        "latest sample)",
    )
    parser.set_defaults(prometheus_parser=parser)


def ingest(home: Path, args: argparse.Namespace) -> list[LandingReport]:
    parser: argparse.ArgumentParser = args.prometheus_parser
    if args.file:
        given = [f"--{name.replace('_', '-')}" for name in _LIVE_ONLY if getattr(args, name)]
        if given:
            parser.error(f"{', '.join(given)} only go with --live")
        read = read_options(args)
        return land_each(args.file, lambda path: ingest_file(home, path, read, args.scrape_time))
    file_only = read_flags_given(args) + (["--scrape-time"] if args.scrape_time else [])
    if file_only:
        parser.error(f"{', '.join(file_only)} only go with --file")
    missing = [f"--{name}" for name in ("url", "start", "end") if not getattr(args, name)]
    if missing:
        parser.error(f"--live needs {', '.join(missing)}")
    times = {}
    for name in ("start", "end"):
        try:
            times[name] = parse_timestamp(getattr(args, name))
        except ValueError:
            parser.error(f"--{name} {getattr(args, name)!r} is not an ISO 8601 time")
    if times["end"] < times["start"]:
        parser.error("--end is before --start")
    try:
        step_seconds = parse_step(args.step)
    except ValueError as err:
        parser.error(str(err))
    queries = [query.strip() for query in args.query or DEFAULT_QUERIES]
    bad = [query for query in queries if not is_selector(query)]
    if bad:
        parser.error(f'--query takes metric names or selectors (name{{label="v"}}): {bad[0]!r}')
    if not 1 <= args.max_points <= MAX_POINTS_PER_SERIES:
        parser.error(f"--max-points must be between 1 and {MAX_POINTS_PER_SERIES}")
    try:
        credentials = resolve_credentials(
            args.url,
            bearer_token_file=args.bearer_token_file,
            basic_auth_file=args.basic_auth_file,
            environ=os.environ,
        )
    except CredentialsError as err:
        parser.error(str(err))
    window = LiveWindow(
        url=clean_url(args.url),
        start=times["start"],
        end=times["end"],
        step_seconds=step_seconds,
        max_points=args.max_points,
    )
    return ingest_live(home, window, queries, credentials)
