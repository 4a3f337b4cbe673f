"""JSON Lines, Kubernetes watch and `sacct --json` files land piece by piece
(extractors.textfile.land_pieces, extractors.slurm.client.land_json) and the batch is the one
reading the file whole gives (extractors.filebatch.land_file): the same batch id, manifest
counts, extraction and coverage, rows and quarantine, with pieces so small (64 bytes of
whole lines) that most records, every pretty-printed watch event and every sacct job run
across pieces. A sacct document that is not read so (invalid JSON, no `jobs` list) is read
whole, with the same outcome as before."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from extractors import textfile
from extractors.filebatch import DEFAULT_READ, ReadOptions, SourceFileError, land_file
from extractors.jsonmembers import ArrayMemberReader, NotStreamed
from extractors.kubernetes import files as kubernetes_files
from extractors.kubernetes.parse import ParseOptions, parse_document
from extractors.kubernetes.records import RAW_TABLES as KUBERNETES_TABLES
from extractors.landing import LandingReport
from extractors.nvml import client as nvml_client
from extractors.nvml.parse import parse_nvml_jsonl
from extractors.nvml.records import RAW_TABLES as NVML_TABLES
from extractors.prometheus import client as prometheus_client
from extractors.prometheus.exposition import exposition_field_at, parse_exposition
from extractors.prometheus.records import RAW_TABLES as PROMETHEUS_TABLES
from extractors.rawstore import BATCHES_TABLE, QUARANTINE_TABLE
from extractors.requests import client as requests_client
from extractors.requests.parse import parse_requests_jsonl
from extractors.requests.records import RAW_TABLES as REQUESTS_TABLES
from extractors.slurm import client as slurm_client
from extractors.slurm.client import with_orphan_steps
from extractors.slurm.parse import parse_sacct_json
from extractors.slurm.records import RAW_TABLES as SLURM_TABLES
from extractors.vgpu import client as vgpu_client
from extractors.vgpu.parse import parse_vgpu_jsonl
from extractors.vgpu.records import RAW_TABLES as VGPU_TABLES
from tests.conftest import FIXTURES
from tests.extractors.slurm_samples import REAL

K8S = FIXTURES / "kubernetes"
# when each landing happened: not part of what a batch is
LANDING_TIMES = {"landed_at", "quarantined_at"}


def _whole(
    source: str, parse: Callable[[str], object], tables: dict[str, type], options: str = ""
) -> Callable[[Path, Path, ReadOptions], LandingReport]:
    def land(home: Path, path: Path, read: ReadOptions) -> LandingReport:
        return land_file(
            home, path, source=source, parse=parse, row_types=tables, options=options, read=read
        )

    return land


def _kubernetes_whole(home: Path, path: Path, read: ReadOptions) -> LandingReport:
    options = ParseOptions()
    parse = _whole(
        "kubernetes",
        lambda text: parse_document(text, options, read.extracted_at),
        KUBERNETES_TABLES,
        options.fingerprint(),
    )
    return parse(home, path, read)


def _kubernetes_pieces(home: Path, path: Path, read: ReadOptions) -> LandingReport:
    return kubernetes_files.ingest_file(home, path, ParseOptions(), read)


def _slurm_whole(home: Path, path: Path, read: ReadOptions) -> LandingReport:
    options = "cluster=;timezone=UTC"  # ingest_file's, for no --cluster and UTC
    parse = _whole(
        "slurm",
        lambda text: with_orphan_steps(home, parse_sacct_json(text)),
        SLURM_TABLES,
        options,
    )
    return parse(home, path, read)


def _slurm_pieces(home: Path, path: Path, read: ReadOptions) -> LandingReport:
    return slurm_client.ingest_file(home, path, read=read)


SOURCES = {
    "slurm": (_slurm_whole, _slurm_pieces),
    "kubernetes": (_kubernetes_whole, _kubernetes_pieces),
    "requests": (
        _whole("requests", parse_requests_jsonl, REQUESTS_TABLES),
        requests_client.ingest_file,
    ),
    "nvml": (_whole("nvml", parse_nvml_jsonl, NVML_TABLES), nvml_client.ingest_file),
    "vgpu": (_whole("vgpu", parse_vgpu_jsonl, VGPU_TABLES), vgpu_client.ingest_file),
}


def _landed(home: Path) -> dict[str, list[dict[str, object]]]:
    tables: dict[str, list[dict[str, object]]] = {}
    for folder in sorted((home / "raw").iterdir()):
        if folder.is_dir():
            rows = [
                {k: v for k, v in row.items() if k not in LANDING_TIMES}
                for path in sorted(folder.glob("*.parquet"))
                for row in pq.read_table(path).to_pylist()
            ]
            tables[folder.name] = rows
    return tables


def _both(tmp_path: Path, source: str, path: Path, read: ReadOptions = DEFAULT_READ) -> tuple:
    whole, pieces = SOURCES[source]
    whole_report = whole(tmp_path / "whole", path, read)
    pieces_report = pieces(tmp_path / "pieces", path, read)
    return whole_report, pieces_report


def _same_batch(
    tmp_path: Path, whole: LandingReport, pieces: LandingReport
) -> dict[str, list[dict[str, object]]]:
    """The batch landed in pieces is the one landed whole: id, counts, rejects and every row
    (returned)."""
    assert pieces.batch_id == whole.batch_id
    assert (pieces.records_read, pieces.records_landed, pieces.records_quarantined) == (
        whole.records_read,
        whole.records_landed,
        whole.records_quarantined,
    )
    assert pieces.rejected == whole.rejected
    landed = _landed(tmp_path / "pieces")
    assert landed == _landed(tmp_path / "whole")
    return landed


def _outcomes(tmp_path: Path, source: str, path: Path, read: ReadOptions) -> list[object]:
    """What reading `path` whole and in pieces gives: the refusal's message, else the batch
    id, records read and rejects."""
    outcomes: list[object] = []
    for name, land in zip(("whole", "pieces"), SOURCES[source], strict=True):
        try:
            report = land(tmp_path / name, path, read)
        except SourceFileError as error:
            outcomes.append(str(error))
        else:
            outcomes.append((report.batch_id, report.records_read, report.rejected))
    return outcomes


def _bad_requests(tmp_path: Path) -> Path:
    """The fixture's gateway log with a blank line, a line that is not JSON, a bad field and
    a request id again far below its first line (so in another piece)."""
    lines = (FIXTURES / "requests" / "gateway-2026-10-05.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    bad = json.loads(lines[1]) | {"input_tokens": -3}
    lines[2:2] = ["", "{not json", json.dumps(bad)]
    lines.append(json.dumps(first))
    path = tmp_path / "gateway-bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _sacct_json(tmp_path: Path, name: str) -> Path:
    """The Slurm 22.05 `sacct --json` sample pretty-printed (a job spans many lines), with
    its first job's id taken out when `name` says so (a rejected job and its steps), or with
    a `warnings` member after `jobs` (data_parser's layout)."""
    document = json.loads((REAL / "slurm" / "slurm22.05_sacct.json").read_text())
    if name == "rejected":
        del document["jobs"][0]["job_id"]
    if name == "warnings-last":
        document["warnings"] = [{"description": "a warning", "source": "sacct"}]
    path = tmp_path / f"sacct-{name}.json"
    path.write_text(json.dumps(document, indent=2))
    return path


CASES = [
    ("kubernetes", K8S / "kubectl-watch-pods-output-watch-events.json"),  # pretty-printed
    ("kubernetes", K8S / "bad-watch.jsonl"),
    ("kubernetes", K8S / "watch-pods.jsonl"),
    ("kubernetes", K8S / "watch-namespaces.jsonl"),
    ("requests", FIXTURES / "requests" / "gateway-2026-10-05.jsonl"),
    ("requests", None),  # _bad_requests
    ("nvml", FIXTURES / "nvml" / "gpu-node-07.jsonl"),
    ("slurm", REAL / "slurm" / "slurm22.05_sacct.json"),
    ("slurm", REAL / "slurm" / "clockwork_sacct_json_slurm21.08_dbv0.0.37.json"),
    ("slurm", "rejected"),
    ("slurm", "warnings-last"),
    ("vgpu", FIXTURES / "vgpu" / "hv-03.jsonl"),
]


@pytest.mark.parametrize(("source", "path"), CASES)
def test_a_file_landed_in_pieces_is_the_batch_read_whole(
    source: str, path: Path | str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if isinstance(path, str):
        path = _sacct_json(tmp_path, path)
    path = path or _bad_requests(tmp_path)
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)
    monkeypatch.setattr(slurm_client, "JSON_CHUNK_JOBS", 3)
    assert len(list(textfile._pieces(path, "utf-8"))) >= 3  # the pieces fed
    whole, pieces = _both(tmp_path, source, path)
    _same_batch(tmp_path, whole, pieces)
    manifest = _landed(tmp_path / "pieces")[BATCHES_TABLE]
    assert manifest[0]["records_read"] == whole.records_read > 0
    if path.name.startswith(("bad", "gateway-bad", "sacct-rejected")):
        assert _landed(tmp_path / "pieces")[QUARANTINE_TABLE]


def test_a_watch_event_cut_by_the_end_of_the_file_is_quarantined_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The event the last piece ends in the middle of is no event: rejected at its line, as a
    whole read rejects it."""
    text = (K8S / "kubectl-watch-pods-output-watch-events.json").read_text()
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) - 200])
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)
    whole, pieces = _both(tmp_path, "kubernetes", path)
    assert pieces.rejected == whole.rejected
    (cut,) = pieces.rejected
    assert (cut.field, cut.reason.startswith("invalid JSON")) == ("json", True)
    assert cut.line > 1 and pieces.records_landed == whole.records_landed > 0


def test_an_invalid_byte_is_named_by_line_and_field_as_in_a_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = (FIXTURES / "requests" / "gateway-2026-10-05.jsonl").read_bytes().split(b"\n")
    lines[5] = lines[5].replace(b'"tenant_id": "', b'"tenant_id": "\xff', 1)
    path = tmp_path / "gateway-latin.jsonl"
    path.write_bytes(b"\n".join(lines))
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)
    with pytest.raises(SourceFileError) as whole_error:
        SOURCES["requests"][0](tmp_path / "whole", path, DEFAULT_READ)
    with pytest.raises(SourceFileError) as pieces_error:
        SOURCES["requests"][1](tmp_path / "pieces", path, DEFAULT_READ)
    assert str(pieces_error.value) == str(whole_error.value)
    assert f"{path}:6: field tenant_id: invalid UTF-8 byte 0xff" in str(pieces_error.value)
    replace = ReadOptions(errors="replace")
    whole, pieces = _both(tmp_path, "requests", path, replace)
    assert pieces.warnings == whole.warnings and len(pieces.warnings) == 1
    assert _landed(tmp_path / "pieces") == _landed(tmp_path / "whole")


def test_watch_events_without_a_time_of_their_own_are_dated_by_the_latest_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = K8S / "watch-pods.jsonl"
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)
    _both(tmp_path, "kubernetes", path)
    (manifest,) = _landed(tmp_path / "pieces")[BATCHES_TABLE]
    assert manifest["extracted_at_basis"] == "watch_events"
    assert isinstance(manifest["extracted_at"], dt.datetime)
    assert manifest == _landed(tmp_path / "whole")[BATCHES_TABLE][0]


SCRAPED = dt.datetime(2026, 11, 5, 12, 0)
PROM = REAL.parent / "real"


def _scrape_whole(home: Path, path: Path, read: ReadOptions) -> LandingReport:
    return land_file(
        home,
        path,
        source="prometheus",
        parse=lambda text: parse_exposition(text, scrape_time=SCRAPED),
        row_types=PROMETHEUS_TABLES,
        options=f"scrape_time={SCRAPED.isoformat()}",
        read=read,
        field_at=exposition_field_at,
    )


def _scrape_pieces(home: Path, path: Path, read: ReadOptions) -> LandingReport:
    return prometheus_client.ingest_file(home, path, read, SCRAPED)


SOURCES["exposition"] = (_scrape_whole, _scrape_pieces)


def _odd_scrape(tmp_path: Path, name: str) -> Path:
    """A dcgm-exporter scrape whose last sample line has a bad value, cut (no newline after
    it) or not, or followed by spaces only; OpenMetrics text with its `# EOF` last."""
    text = (PROM / "dcgm-exporter" / "a800_mig_scrape_excerpt.prom").read_text()
    lines = [line for line in text.splitlines() if line.strip()]
    lines[-1] = lines[-1].rsplit(" ", 1)[0] + " 1.5e"  # a value cut short
    body = "\n".join(lines)
    texts = {
        "cut": body,
        "ends-with-newline": body + "\n",
        "spaces-after": body + "\n   ",
        "openmetrics": body.replace(" 1.5e", " 2") + " 1790812800\n# EOF\n",
    }
    path = tmp_path / f"scrape-{name}.prom"
    path.write_text(texts[name])
    return path


@pytest.mark.parametrize("errors", ["strict", "replace"])
@pytest.mark.parametrize(
    ("source", "path", "before"),
    [
        ("kubernetes", K8S / "kubectl-get-pods-namespaces-resourcequotas-nodes.json", b'"name": "'),
        ("exposition", PROM / "dcgm-exporter" / "a800_mig_scrape_excerpt.prom", b'Hostname="'),
    ],
)
def test_an_invalid_byte_in_a_list_or_a_scrape_is_named_as_in_a_whole_read(
    source: str,
    path: Path,
    before: bytes,
    errors: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Refused, or landed as U+FFFD with a warning, naming the field that holds the byte as
    a whole read names it (a List's value by its JSON path: such a List is read whole)."""
    content = path.read_bytes()
    at = content.index(before) + len(before)
    odd = tmp_path / f"latin{path.suffix}"
    odd.write_bytes(content[:at] + b"\xff" + content[at:])
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)
    read = replace(LISTED, errors=errors)
    whole, pieces = _outcomes(tmp_path, source, odd, read)
    assert pieces == whole
    if errors == "replace":
        wholly, piecewise = _both(tmp_path / "again", source, odd, read)
        assert piecewise.warnings == wholly.warnings and len(piecewise.warnings) == 1
        named = "items[0].metadata.name" if source == "kubernetes" else "label Hostname"
        assert f"field {named}:" in piecewise.warnings[0]
    else:
        assert "invalid UTF-8 byte 0xff" in str(whole)


@pytest.mark.parametrize(
    "name",
    [
        "dcgm-exporter/a800_mig_scrape_excerpt.prom",
        "dcgm-exporter/datadog_t4_metrics_excerpt.prom",
        "triton/kura_triton_metrics_reason_excerpt.prom",
        "vllm/vllm_docs_design_metrics_example.prom",  # elided lines
        "external/prometheus/triton-vllm-backend_README_vllm-metrics-via-triton.prom",
        "cut",
        "ends-with-newline",
        "spaces-after",
        "openmetrics",
    ],
)
def test_a_scrape_landed_in_pieces_is_the_batch_read_whole(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exposition-format scrape is read piece by piece (a sample line at a time): the
    same batch, rows, rejects (the line a file stops in the middle of named so) and warnings
    (elided lines) as reading it whole."""
    path = PROM / name if name.endswith(".prom") else _odd_scrape(tmp_path, name)
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)
    assert len(list(textfile._pieces(path, "utf-8"))) >= 3  # the pieces fed
    whole, pieces = _both(tmp_path, "exposition", path)
    landed = _same_batch(tmp_path, whole, pieces)
    assert pieces.warnings == whole.warnings and landed["prometheus_points"]
    if name in ("cut", "ends-with-newline", "spaces-after"):
        bad = max(pieces.rejected, key=lambda rejected: rejected.line)  # the last line
        stops = bad.reason.endswith("the file stops in the middle of this line")
        assert stops == (name != "ends-with-newline")


def test_a_scrape_without_times_is_refused_as_a_whole_read_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "no-time.prom"
    path.write_text('# TYPE up gauge\nup{job="a"} 1\n' * 20)
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)
    refusals = []
    for land, home in (
        (
            _whole(
                "prometheus", lambda t: parse_exposition(t, scrape_time=None), PROMETHEUS_TABLES
            ),
            "whole",
        ),
        (prometheus_client.ingest_file, "pieces"),
    ):
        with pytest.raises(SourceFileError) as error:
            land(tmp_path / home, path, DEFAULT_READ)
        refusals.append(str(error.value))
    assert refusals[0] == refusals[1] and "give --scrape-time" in refusals[0]


LISTED = ReadOptions(extracted_at=dt.datetime(2026, 11, 5))


def _pod_list(tmp_path: Path, name: str) -> Path:
    """The kubectl List fixture's pods as a PodList whose items name no kind (as the API
    serves them) and whose metadata has a resourceVersion: the List's kind and metadata
    before its items (the API's order) or after them (`kind-after`, kubectl's)."""
    document = json.loads(
        (K8S / "kubectl-get-pods-namespaces-resourcequotas-nodes.json").read_text()
    )
    pods = [item for item in document["items"] if item["kind"] == "Pod"]
    for pod in pods:
        del pod["kind"], pod["apiVersion"]
    members = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "4242"}}
    if name == "kind-after":
        members = {"apiVersion": "v1", "items": pods} | members
    else:
        members |= {"items": pods}
    path = tmp_path / f"podlist-{name}.json"
    path.write_text(json.dumps(members, indent=4))
    return path


@pytest.mark.parametrize(
    "name",
    [
        "kubectl-get-pods-namespaces-resourcequotas-nodes.json",
        "real/ceems_pods-metadata.json",  # a third party's pod List (real/SOURCES.md)
        "bad-items.json",  # items rejected
        "kind-before",
        "kind-after",
    ],
)
def test_a_list_landed_item_by_item_is_the_batch_read_whole(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A List is read piece by piece, its items one at a time, once its other members (kind,
    metadata: kubectl writes them after the items) are read: the same batch as reading it
    whole, rows, list resourceVersion and quarantine included."""
    path = K8S / name if name.endswith(".json") else _pod_list(tmp_path, name)
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)
    assert len(list(textfile._pieces(path, "utf-8"))) >= 3  # the pieces fed

    def not_whole(*args: object, **kwargs: object) -> None:
        raise AssertionError("the List was read whole")

    monkeypatch.setattr(kubernetes_files, "land_file", not_whole)
    whole, pieces = _both(tmp_path, "kubernetes", path, LISTED)
    landed = _same_batch(tmp_path, whole, pieces)
    if name == "bad-items.json":
        assert landed[QUARANTINE_TABLE] and pieces.records_quarantined > 0
    if name.startswith("kind-"):
        pods = landed["kubernetes_pod_allocations"]
        assert pods and {row["list_resource_version"] for row in pods} == {"4242"}


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ('{"apiVersion": "v1", "items": [{"kind": "Namespace"', LISTED),  # cut short
        ('{"apiVersion": "v1", "kind": "List"}', LISTED),  # no items
        ('{"items": {"kind": "Namespace"}, "kind": "List"}', LISTED),  # not a list
        ('{"items": [], "kind": "List"}', LISTED),  # no item
        ('{"items": [], "items": []}', LISTED),  # twice
        ('{"kind": "Status", "message": "forbidden"}', LISTED),
        ('{"items": [{"kind": "Namespace"}], "kind": "List"} {"items": []}', LISTED),
        ('{"items": [{"kind": "Namespace", "metadata": {"uid": "u"}}]}', DEFAULT_READ),  # no time
    ],
)
def test_a_list_not_read_item_by_item_is_read_whole_with_the_same_outcome(
    text: str, read: ReadOptions, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "odd.json"
    path.write_text(text + "\n")
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)
    whole, pieces = _outcomes(tmp_path, "kubernetes", path, read)
    assert pieces == whole


@pytest.mark.parametrize(
    "text",
    [
        '{"meta": {}, "errors": [], "jobs": [{"job_id": 1}',  # cut short
        '{"meta": {}, "errors": []}',  # no jobs
        '{"jobs": {"job_id": 1}}',  # not a list
        '{"jobs": [], "jobs": []}',  # twice
    ],
)
def test_a_sacct_document_not_read_in_pieces_is_read_whole_with_the_same_outcome(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "odd.json"
    path.write_text(text + "\n")
    reader = ArrayMemberReader("jobs")
    with pytest.raises(NotStreamed):
        reader.feed(text + "\n", True)
    monkeypatch.setattr(textfile, "PIECE_BYTES", 64)
    whole, pieces = _outcomes(tmp_path, "slurm", path, DEFAULT_READ)
    assert pieces == whole
