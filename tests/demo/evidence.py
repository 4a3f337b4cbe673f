"""Reading the demo's files back: sacct rows by a small parser of its own, the other
sources through the real parsers (asserting nothing was quarantined), and the policy/demo
tables the checks hold them to. The checks do not trust the generator's bookkeeping."""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from extractors.records import ParseResult
from gpuledger.demo import DemoFiles

REPO = Path(__file__).resolve().parents[2]
POLICY = REPO / "policy" / "demo"
EXTRACTED = dt.datetime(2026, 11, 5)

PERIOD_START = dt.datetime(2026, 10, 1)
PERIOD_END = dt.datetime(2026, 11, 1)
HANDOVER = dt.datetime(2026, 10, 15, 12)
LATE_NODE_FROM = dt.datetime(2026, 10, 8)
OPEN_END = dt.datetime.max
FIELDS = [
    "jobid",
    "jobidraw",
    "cluster",
    "partition",
    "qos",
    "account",
    "group",
    "gid",
    "user",
    "uid",
    "submit",
    "eligible",
    "start",
    "end",
    "elapsed",
    "exitcode",
    "state",
    "nnodes",
    "ncpus",
    "reqcpus",
    "reqmem",
    "reqtres",
    "alloctres",
    "timelimit",
    "nodelist",
    "jobname",
]


@dataclass(frozen=True)
class Row:
    file: str
    values: dict[str, str]

    @property
    def is_step(self) -> bool:
        return "." in self.values["jobid"]

    def time(self, field: str) -> dt.datetime | None:
        text = self.values[field]
        return None if text == "Unknown" else dt.datetime.fromisoformat(text)

    @property
    def gpus(self) -> int:
        match = re.search(r"(?:^|,)gres/gpu=(\d+)", self.values["alloctres"])
        return int(match.group(1)) if match else 0

    @property
    def nodes(self) -> list[str]:
        return expand_hostlist(self.values["nodelist"])

    @property
    def month_gpu_hours(self) -> float:
        start = self.time("start")
        if start is None:
            return 0.0
        end = self.time("end") or OPEN_END
        seconds = (min(end, PERIOD_END) - max(start, PERIOD_START)).total_seconds()
        return max(0.0, seconds) * self.gpus / 3600


def expand_hostlist(text: str) -> list[str]:
    match = re.fullmatch(r"(.+)-\[(.+)\]", text)
    if match is None:
        return [text]
    names = []
    for part in match.group(2).split(","):
        low, _, high = part.partition("-")
        for number in range(int(low), int(high or low) + 1):
            names.append(f"{match.group(1)}-{number:0{len(low)}d}")
    return names


def read_rows(files: DemoFiles) -> list[Row]:
    rows = []
    for path in files.sacct_files:
        for line in path.read_text(encoding="utf-8").splitlines():
            rows.append(Row(path.name, dict(zip(FIELDS, line.split("|"), strict=True))))
    return rows


def parsed(paths: Iterable[Path], parse: Callable[[str], ParseResult]) -> ParseResult:
    """The rows of every file through the real parser, asserting nothing was quarantined."""
    merged = ParseResult()
    for path in paths:
        result = parse(path.read_text(encoding="utf-8"))
        assert result.records_read > 0, path.name
        assert result.rejected == [], f"{path.name}: {result.rejected[:3]}"
        merged.records_read += result.records_read
        for table, table_rows in result.tables.items():
            for row in table_rows:
                merged.add(table, row)
    return merged


def peak(intervals: Iterable[tuple[dt.datetime, dt.datetime, float]]) -> float:
    """The largest sum of amounts held at one instant ([start, end); ends release first)."""
    changes = sorted(
        change for start, end, amount in intervals for change in ((start, amount), (end, -amount))
    )
    held = most = 0.0
    for _, change in changes:
        held += change
        most = max(most, held)
    return most


def month_hours(start: dt.datetime, end: dt.datetime) -> float:
    seconds = (min(end, PERIOD_END) - max(start, PERIOD_START)).total_seconds()
    return max(0.0, seconds) / 3600


def policy_rows(name: str) -> list[dict[str, str]]:
    with (POLICY / f"{name}.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def owners(scope_type: str) -> dict[str, str]:
    return {
        r["scope_key"]: r["tenant_id"]
        for r in policy_rows("ownership")
        if r["scope_type"] == scope_type
    }


def weights(mode: str) -> dict[str, float]:
    return {
        r["profile"]: float(r["capacity_fraction"])
        for r in policy_rows("partition_weights")
        if r["sharing_mode"] == mode and r["gpu_model"] == "NVIDIA A100-SXM4-80GB"
    }


@dataclass(frozen=True)
class PodInterval:
    """A pod's GPU request and its allocation interval (open ones end at the extraction)."""

    uid: str
    name: str
    namespace: str
    node: str
    resource: str
    sharing_mode: str
    mig_profile: str | None
    count: int
    replicas: int | None
    start: dt.datetime
    end: dt.datetime


@dataclass(frozen=True)
class Kube:
    result: ParseResult
    intervals: list[PodInterval]
    listing: dict[str, object]

    def table(self, name: str) -> list:
        return self.result.tables.get(name, [])


def node_labels(kube: Kube) -> dict[str, dict[str, str]]:
    return {
        item["metadata"]["name"]: item["metadata"]["labels"]
        for item in kube.listing["items"]
        if item["kind"] == "Node"
    }


def namespace_tenants(kube: Kube) -> dict[str, str | None]:
    """Who owns each namespace: its tenant label, else policy/demo/ownership.csv, else nobody."""
    policy = owners("k8s_namespace")
    return {
        row.name: row.tenant_label_value or policy.get(row.name)
        for row in kube.table("kubernetes_namespaces")
    }


def gpu_equivalents(interval: PodInterval) -> float:
    if interval.sharing_mode == "mig":
        return interval.count * weights("mig")[interval.mig_profile]
    if interval.sharing_mode == "timeslice":
        return interval.count / (interval.replicas or 4)
    return float(interval.count)


def file_bytes(files: DemoFiles) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in files.all_files()}
