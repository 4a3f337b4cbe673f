"""The model gateway's request log of the shared endpoint, one JSONL file a day: the tenants'
requests, all routed to the day's model server pod (the vLLM counters count the same ones;
`benchmarks.formats.prometheus`)."""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass
from pathlib import Path

from benchmarks.fleet import ENDPOINT, SERVED_MODEL, TENANTS, Fleet, day_seed
from gpuledger.demo.common import iso_ms
from gpuledger.demo.requests import MAX_TOKENS, USER_AGENTS

REQUESTS_PER_GPU_DAY = 20
FIRST_REQUEST_S = 120  # requests arrive from 2 minutes into the day
LAST_REQUEST_S = 86_400 - 300  # and stop 5 minutes before its end


@dataclass(frozen=True)
class Request:
    request_id: str
    tenant_id: str
    input_tokens: int
    output_tokens: int
    outcome: str
    status_code: int
    started_at: dt.datetime
    finished_at: dt.datetime
    finished_reason: str | None  # vLLM's word on it; None: it never reached the server
    user_agent: str


def day_requests(fleet: Fleet, day: dt.datetime) -> list[Request]:
    """The day's requests in arrival order (none without a model server: no Kubernetes)."""
    if fleet.serving_run(day) is None:
        return []
    rng = day_seed(fleet.seed, "requests", day.date())
    count = fleet.gpus * REQUESTS_PER_GPU_DAY
    arrivals = sorted(rng.uniform(FIRST_REQUEST_S, LAST_REQUEST_S) for _ in range(count))
    requests = []
    for number, offset in enumerate(arrivals):
        started = day + dt.timedelta(milliseconds=int(offset * 1000))
        prompt = int(math.exp(rng.uniform(math.log(40), math.log(6000))))
        wanted = int(math.exp(rng.uniform(math.log(8), math.log(1600))))
        draw = rng.random()
        output, reason = 0, "abort"
        if draw < 0.01:
            outcome, status, seconds, reason = "rejected", 429, rng.uniform(0.002, 0.006), None
        elif draw < 0.025:
            outcome, status, seconds = "error", 500, rng.uniform(0.2, 2.0)
        elif draw < 0.045:
            output = int(wanted * rng.uniform(0.0, 0.6))
            outcome, status, seconds = "cancelled", 499, 0.2 + output * 0.028
        else:
            output = min(wanted, MAX_TOKENS)
            reason = "length" if wanted >= MAX_TOKENS else "stop"
            seconds = 0.15 + prompt * 0.00004 + output * 0.028 * rng.uniform(0.8, 1.3)
            outcome, status = "success", 200
        requests.append(
            Request(
                request_id=f"req-{day:%Y%m%d}-{number:07d}",
                tenant_id=rng.choice(TENANTS),
                input_tokens=prompt,
                output_tokens=output,
                outcome=outcome,
                status_code=status,
                started_at=started,
                finished_at=started + dt.timedelta(milliseconds=int(seconds * 1000)),
                finished_reason=reason,
                user_agent=rng.choice(USER_AGENTS),
            )
        )
    return requests


def write_requests_day(path: Path, requests: list[Request]) -> int:
    """The day's log, a request per line as the gateway wrote it; returns the lines."""
    with path.open("w", encoding="utf-8") as out:
        for r in requests:
            record = {
                "request_id": r.request_id,
                "tenant_id": r.tenant_id,
                "endpoint": ENDPOINT,
                "model": SERVED_MODEL,
                "input_tokens": r.input_tokens,
                "output_tokens": r.output_tokens,
                "outcome": r.outcome,
                "started_at": iso_ms(r.started_at),
                "finished_at": iso_ms(r.finished_at),
                "status_code": r.status_code,
                "user_agent": r.user_agent,
            }
            out.write(json.dumps(record) + "\n")
    return len(requests)
