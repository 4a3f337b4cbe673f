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
from collections.abc import Iterable, Mapping
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
    context = list_context(document)
    return [item_observation(i, item, observed_at, context) for i, item in enumerate(items)]


def list_context(members: Mapping[str, object]) -> tuple[str | None, str | None]:
    """What a List's own members tell its items: the kind of an item that names none (a
    PodList's items are Pods) and the List's resourceVersion."""
    list_kind = members.get("kind")
    item_kind = None
    if isinstance(list_kind, str) and list_kind.endswith("List") and list_kind != "List":
        item_kind = list_kind[: -len("List")]
    meta = members.get("metadata")
    list_rv = fields.text(meta.get("resourceVersion")) if isinstance(meta, Mapping) else None
    return item_kind, list_rv


def item_observation(
    index: int, item: object, observed_at: dt.datetime, context: tuple[str | None, str | None]
) -> Observation:
    """Item `index` of a List: `context` is what the List tells its items (list_context)."""
    item_kind, list_rv = context
    return Observation(
        line=index,
        obj=item,
        observed_at=observed_at,
        list_resource_version=list_rv,
        kind=item_kind,
        where=f"items[{index}]",
    )


def _is_event(value: object) -> TypeGuard[Mapping[str, object]]:
    return isinstance(value, Mapping) and "type" in value and "object" in value


def _at(error: json.JSONDecodeError, origin: tuple[int, int, int]) -> str:
    """json's message for `error` (`msg: line L column C (char P)`), placed in the file: the
    decoded text starts `origin` (characters before it, its line, its 0-based column) in."""
    offset, line, column = origin
    if error.lineno == 1:
        column += error.colno
    else:
        column = error.colno
    return (
        f"{error.msg}: line {line + error.lineno - 1} column {column} (char {offset + error.pos})"
    )


def _read_events(
    text: str,
    start: int,
    origin: tuple[int, int, int],
    observed_at: dt.datetime | None,
    result: ParseResult,
    *,
    final: bool,
) -> tuple[list[Observation], int, int]:
    """The events of `text` from `start`, with where an event that may continue in the next
    piece starts (`len(text)` when none does) and its line. `origin`: where `text` starts in
    the file (characters before it, its line, its 0-based column), for the lines of records
    and the places invalid JSON is reported at. Not `final`: a record that does not decode
    and has no line starting with `{` after it may be an event cut by the end of the piece,
    so it is left for the next one."""
    decoder = json.JSONDecoder()
    observations = []
    position = counted = start
    line = origin[1] + text.count("\n", 0, start)
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return observations, position, line
        line += text.count("\n", counted, position)
        counted = position
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            next_start = text.find("\n{", position)
            if next_start == -1 and not final:
                return observations, position, line
            result.records_read += 1
            end = len(text) if next_start == -1 else next_start + 1
            result.reject(line, "json", f"invalid JSON: {_at(exc, origin)}", text[position:end])
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


class WatchStream:
    """A watch event stream parsed piece by piece (extractors.textfile.land_pieces): the same
    records, rows and rejects as `parse_document` reading the file whole, with memory for a
    piece and the event it ends in the middle of (kept for the next piece). Only for a file
    whose first object is a watch event (`starts_with_event`); a List: files.ListStream."""

    def __init__(self, options: ParseOptions, observed_at: dt.datetime | None) -> None:
        self.options, self.observed_at = options, observed_at
        self.rest = ""  # the start of an event the last piece ended in
        self.rest_origin = (0, 1, 0)  # where it starts: characters before it, line, column
        self.read = 0  # the characters of the pieces parsed, the rest's included
        self.latest: dt.datetime | None = None

    def parse(self, text: str, line: int, final: bool) -> ParseResult:
        if self.rest:
            buffer, origin = self.rest + text, self.rest_origin
        else:
            buffer, origin = text, (self.read, line, 0)
        self.read += len(text)
        unread = ParseResult()
        observations, stop, stop_line = _read_events(
            buffer, 0, origin, self.observed_at, unread, final=final
        )
        self.rest = buffer[stop:]
        line_start = buffer.rfind("\n", 0, stop) + 1
        column = stop - line_start if line_start else origin[2] + stop
        self.rest_origin = (origin[0] + stop, stop_line, column)
        parsed = parse_observations(observations, self.options)
        parsed.records_read += unread.records_read
        parsed.rejected.extend(unread.rejected)
        parsed.rejected.sort(key=lambda r: r.line)
        for observation in observations:
            seen = observation.observed_at
            if seen is not None and (self.latest is None or seen > self.latest):
                self.latest = seen
        return parsed

    def end(self) -> ParseResult:
        """The batch's extraction instant, when no --extracted-at dates it: the latest
        event's (basis `watch_events`)."""
        ended = ParseResult()
        if self.observed_at is None and self.latest is not None:
            ended.extracted_at, ended.extracted_at_basis = self.latest, "watch_events"
        return ended


def starts_with_event(text: str) -> bool:
    """Whether `text` (a file's beginning) starts with a whole watch event."""
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return False
    try:
        first, _ = json.JSONDecoder().raw_decode(stripped)
    except json.JSONDecodeError:
        return False
    return _is_event(first)


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
    times = []
    for value in _time_texts(event.get("object")):
        try:
            times.append(parse_timestamp(value))
        except ValueError:
            continue
    return max(times) if times else None


def _time_texts(value: object) -> set[str]:
    """The distinct texts of the object's evidence times (each is parsed once: an object
    repeats its creation time in its conditions and managed fields)."""
    found: set[str] = set()
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, list):
            pending.extend(child for child in item if _container(child))
        elif isinstance(item, Mapping):
            for key, child in item.items():
                if key in _EVIDENCE_TIMES and isinstance(child, str):
                    found.add(child)
                elif key != "deletionTimestamp" and _container(child):
                    pending.append(child)
    return found


def _container(value: object) -> bool:
    """A JSON object or array (told apart from a scalar without the ABC's slower check)."""
    kind = type(value)
    if kind is dict or kind is list:
        return True
    return kind not in _SCALARS and isinstance(value, Mapping | list)


_SCALARS = (str, int, float, bool, type(None))


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
        stream = WatchStream(options, observed_at)  # the whole text as its one piece
        parsed = stream.parse(text, 1, final=True)
        ended = stream.end()
        parsed.extracted_at, parsed.extracted_at_basis = (
            ended.extracted_at,
            ended.extracted_at_basis,
        )
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
