"""Parse Kubernetes API objects into GPU allocation evidence (pure; no I/O).

Input is either a v1 List (`kubectl get pods,namespaces,resourcequotas -A -o json`, a
PodList, a NamespaceList, ...) or a stream of watch events (`{"type": ..., "object": ...}`,
one JSON object per line or pretty-printed one after another, as `kubectl get -w -o json
--output-watch-events` writes them). The live client builds the same `Observation`s from
the API and parses them with `parse_observations`.

Counting: every List item and every watch event is one record read. A record is landed
when it parses, even if it yields no row (a pod without GPU requests, a BOOKMARK event, a
quota without GPU resources); it is quarantined (never partly landed) when it cannot be
read: no uid, a GPU quantity that is not a whole number, a bad timestamp, an unsupported
kind, a watch ERROR event.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import TypeGuard

from extractors.kubernetes import fields
from extractors.kubernetes.fields import BadRecord, Observation, ParseOptions
from extractors.kubernetes.objects import namespace_rows, node_rows, resource_quota_rows
from extractors.kubernetes.pods import pod_rows
from extractors.records import ParseResult
from extractors.timeparse import parse_timestamp

OBJECT_EVENTS = ("ADDED", "MODIFIED", "DELETED")
# The keys whose values date an object's state (metadata.managedFields[].time included).
_EVIDENCE_TIMES = frozenset(
    {"creationTimestamp", "time", "startTime", "lastTransitionTime", "startedAt", "finishedAt"}
)
KINDS = ("Pod", "Namespace", "ResourceQuota", "Node")


class KubernetesFormatError(ValueError):
    """The input as a whole is not a Kubernetes List or watch stream."""


_PARSERS = {
    "Pod": pod_rows,
    "Namespace": namespace_rows,
    "ResourceQuota": resource_quota_rows,
    "Node": node_rows,
}


def _compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _describe(obj: object) -> str:
    if not isinstance(obj, Mapping):
        return ""
    meta = obj.get("metadata")
    if not isinstance(meta, Mapping):
        return ""
    name = "/".join(str(meta[k]) for k in ("namespace", "name") if meta.get(k))
    return f" {name}" if name else ""


def _parse_one(result: ParseResult, observation: Observation, options: ParseOptions) -> None:
    if observation.event_type == "BOOKMARK":
        return
    if observation.observed_at is None:
        raise BadRecord(
            "object",
            "the event carries no time (no observed_at, creation or status time): "
            "give --extracted-at",
        )
    if observation.event_type == "ERROR":
        status = observation.obj if isinstance(observation.obj, Mapping) else {}
        raise BadRecord(
            "type",
            f"watch ERROR event: {status.get('code')} {status.get('reason')}: "
            f"{status.get('message')}",
        )
    if observation.event_type not in (None, *OBJECT_EVENTS):
        raise BadRecord("type", f"unknown watch event type {observation.event_type!r}")
    if not isinstance(observation.obj, Mapping):
        raise BadRecord("object", "the object is not a JSON object")
    kind = observation.obj.get("kind") or observation.kind
    if kind not in _PARSERS:
        if kind is None:
            raise BadRecord("kind", "the object has no kind")
        raise BadRecord("kind", f"kind {kind!r} is not ingested (only {', '.join(KINDS)})")
    # A record lands whole or not at all: rows go to a scratch result first.
    scratch = ParseResult()
    _PARSERS[str(kind)](scratch, observation, options)
    for table, rows in scratch.tables.items():
        for row in rows:
            result.add(table, row)


def parse_observations(observations: Iterable[Observation], options: ParseOptions) -> ParseResult:
    """Rows for every observation; a record that cannot be read is rejected whole."""
    result = ParseResult()
    for observation in observations:
        result.records_read += 1
        try:
            _parse_one(result, observation, options)
        except BadRecord as bad:
            kind = observation.kind
            if isinstance(observation.obj, Mapping):
                kind = observation.obj.get("kind") or kind
            where = " ".join(
                p
                for p in (observation.where, f"{kind or 'object'}{_describe(observation.obj)}")
                if p
            )
            result.reject(
                observation.line,
                bad.field,
                f"{where}: {bad.reason}",
                _compact(
                    observation.obj
                    if observation.event_type is None
                    else {"type": observation.event_type, "object": observation.obj}
                ),
            )
    return result


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _list_observations(
    document: Mapping[str, object], observed_at: dt.datetime | None
) -> list[Observation]:
    items = document.get("items")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise KubernetesFormatError("'items' is not a list")
    if observed_at is None:
        raise KubernetesFormatError(
            "a Kubernetes List carries no time: give --extracted-at (when kubectl listed it)"
        )
    list_kind = document.get("kind")
    item_kind = None
    if isinstance(list_kind, str) and list_kind.endswith("List") and list_kind != "List":
        item_kind = list_kind[: -len("List")]
    meta = document.get("metadata")
    list_rv = fields.text(meta.get("resourceVersion")) if isinstance(meta, Mapping) else None
    return [
        Observation(
            line=index,
            obj=item,
            observed_at=observed_at,
            list_resource_version=list_rv,
            kind=item_kind,
            where=f"items[{index}]",
        )
        for index, item in enumerate(items)
    ]


def _is_event(value: object) -> TypeGuard[Mapping[str, object]]:
    return isinstance(value, Mapping) and "type" in value and "object" in value


def _stream_observations(
    text: str, start: int, observed_at: dt.datetime | None, result: ParseResult
) -> list[Observation]:
    """Watch events one after another; a record that is not JSON is rejected and skipped
    (parsing resumes at the next line that starts with `{`). Each is dated `observed_at`
    when given, else by its own evidence (`event_time`)."""
    decoder = json.JSONDecoder()
    observations = []
    position = counted = start
    line = _line_of(text, start)
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return observations
        line += text.count("\n", counted, position)
        counted = position
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            result.records_read += 1
            next_start = text.find("\n{", position)
            end = len(text) if next_start == -1 else next_start + 1
            result.reject(line, "json", f"invalid JSON: {exc}", text[position:end])
            position = end
            continue
        position = end
        if not _is_event(value):
            result.records_read += 1
            result.reject(
                line, "type", "not a watch event (expected 'type' and 'object')", _compact(value)
            )
            continue
        event_type = value.get("type")
        observations.append(
            Observation(
                line=line,
                obj=value.get("object"),
                observed_at=observed_at or event_time(value),
                event_type=str(event_type) if event_type is not None else "",
            )
        )


def event_time(event: Mapping[str, object]) -> dt.datetime | None:
    """When a watch event was seen, by its own evidence: the `observed_at` gpuledger's live
    writer records with it, else the latest time its object carries (creation, a managed
    field's update, a condition's transition, a container's start or finish: the change the
    event reports is no earlier). A deletionTimestamp is not evidence: it lies a grace
    period ahead."""
    recorded = event.get("observed_at")
    if isinstance(recorded, str):
        try:
            return parse_timestamp(recorded)
        except ValueError:
            pass
    times = list(_object_times(event.get("object")))
    return max(times) if times else None


def _object_times(value: object) -> Iterator[dt.datetime]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in _EVIDENCE_TIMES and isinstance(item, str):
                try:
                    yield parse_timestamp(item)
                except ValueError:
                    continue
            elif key != "deletionTimestamp":
                yield from _object_times(item)
    elif isinstance(value, list):
        for item in value:
            yield from _object_times(item)


def parse_document(
    text: str, options: ParseOptions, observed_at: dt.datetime | None
) -> ParseResult:
    """A v1 List or a watch event stream; `observed_at` is when it was captured (the
    user's --extracted-at). A List carries no time of its own: without `observed_at` it is
    refused. Watch events without it are dated each by its own evidence (`event_time`), the
    batch's extraction instant the latest of them (basis `watch_events`).

    List items are numbered by their index in `items` (0-based); watch events by the line
    where they start (1-based).
    """
    start = len(text) - len(text.lstrip())
    if start == len(text):
        raise KubernetesFormatError("empty file: expected a Kubernetes List or watch events")
    if text[start] != "{":
        raise KubernetesFormatError(
            f"line {_line_of(text, start)}: expected a JSON object (a List or a watch event)"
        )
    try:
        first, end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise KubernetesFormatError(
            f"line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}"
        ) from None
    rest = text[end:].strip()
    extra = len(text) - len(text[end:].lstrip())
    if _is_event(first):
        result = ParseResult()
        observations = _stream_observations(text, start, observed_at, result)
        parsed = parse_observations(observations, options)
        parsed.records_read += result.records_read
        parsed.rejected.extend(result.rejected)
        parsed.rejected.sort(key=lambda r: r.line)
        seen = [o.observed_at for o in observations if o.observed_at is not None]
        if observed_at is None and seen:
            parsed.extracted_at, parsed.extracted_at_basis = max(seen), "watch_events"
        return parsed
    if not isinstance(first, Mapping) or "items" not in first:
        kind = first.get("kind") if isinstance(first, Mapping) else None
        if kind == "Status":
            raise KubernetesFormatError(
                f"the API returned a Status, not objects: {first.get('message')}"
            )
        raise KubernetesFormatError(
            "line 1: not a Kubernetes List ('items') or watch event ('type' and 'object')"
        )
    if rest:
        raise KubernetesFormatError(f"line {_line_of(text, extra)}: unexpected data after the List")
    return parse_observations(_list_observations(first, observed_at), options)
