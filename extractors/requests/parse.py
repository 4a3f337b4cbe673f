"""Parse gateway request logs (JSON Lines) into GatewayRequest rows (pure).

One JSON object per line with at least `request_id, tenant_id, endpoint, model,
input_tokens, output_tokens, outcome, started_at, finished_at`; other fields are ignored.
Rules, each a quarantine reason naming the field:
- every listed field present; the text fields non-empty strings;
- tokens non-negative JSON integers (`12`, not `12.0` or `"12"`);
- `outcome` one of OUTCOMES (case-insensitive, landed lower case):
  success (served), error (failed in the server), timeout, cancelled (by the caller),
  rejected (refused before serving: quota, rate limit, validation);
- timestamps ISO 8601 with a zone offset (`Z`, `+02:00`), landed as UTC;
  `finished_at` not before `started_at`;
- a `request_id` seen earlier in the same file is quarantined (the first one lands).
"""

from __future__ import annotations

import operator
from typing import Any

from extractors import jsonl
from extractors.jsonl import FieldError
from extractors.records import ParseResult
from extractors.requests.records import REQUESTS_TABLE, GatewayRequest

OUTCOMES = ("success", "error", "timeout", "cancelled", "rejected")


def parse_requests_jsonl(text: str) -> ParseResult:
    return requests_stream().whole(text)


def requests_stream() -> jsonl.JsonlStream:
    """A gateway log parsed piece by piece (extractors.textfile.land_pieces) or whole. A
    request id seen before in the file quarantines the later line, naming the first: the ids
    seen so far are kept as hashes and a line (extractors.seen_keys, 24 bytes a request), so
    memory grows with the file's distinct requests at that rate, not with its bytes."""

    def read(obj: dict[str, Any], line: int) -> jsonl.Rows:
        return [(REQUESTS_TABLE, _request(obj, line))]

    request_id = operator.attrgetter("request_id")
    return jsonl.JsonlStream(read, jsonl.UniqueKey("request_id", REQUESTS_TABLE, request_id))


def _request(obj: dict[str, Any], line: int) -> GatewayRequest:
    request_id = jsonl.text(obj, "request_id")
    tenant_id = jsonl.text(obj, "tenant_id")
    endpoint = jsonl.text(obj, "endpoint")
    model = jsonl.text(obj, "model")
    input_tokens = jsonl.integer(obj, "input_tokens")
    output_tokens = jsonl.integer(obj, "output_tokens")
    outcome = jsonl.text(obj, "outcome").lower()
    if outcome not in OUTCOMES:
        raise FieldError("outcome", f"{obj['outcome']!r} is not one of {', '.join(OUTCOMES)}")
    started = jsonl.timestamp(obj, "started_at")
    finished = jsonl.timestamp(obj, "finished_at")
    if finished < started:
        raise FieldError(
            "finished_at",
            f"finished_at {obj['finished_at']} is before started_at {obj['started_at']}",
        )
    return GatewayRequest(
        request_id=request_id,
        tenant_id=tenant_id,
        endpoint=endpoint,
        model=model,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        outcome=outcome,
        started_at=started,
        finished_at=finished,
        source_line=line,
    )
