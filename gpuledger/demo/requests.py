"""The model gateway's request log of `chat-shared`: three tenants' requests of the month,
routed to the model server pod up at the time (the vLLM counters count the same ones)."""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass

from gpuledger.demo.common import (
    Holding,
    Timeline,
    file_text,
    iso_ms,
    log_uniform,
    poisson_times,
    weighted,
)
from gpuledger.demo.constants import Window
from gpuledger.demo.kubernetes.pods import KubePod

ENDPOINT = "chat-shared"
SERVED_MODEL = "llama-3-70b"
REQUEST_TENANTS = (("atlas", 0.4), ("cirrus", 0.35), ("ember", 0.25))
REQUESTS_PER_DAY = 100.0
MAX_TOKENS = 1024
USER_AGENTS = ("openai-python/1.51.0", "langchain-openai/0.2.3", "curl/8.5.0")


@dataclass(frozen=True)
class GatewayRequest:
    """One request to ENDPOINT as the gateway logged it; `server` is the model server pod it
    was routed to (None: none was up) and `finished_reason` vLLM's word on it (None: it
    never reached the server)."""

    request_id: str
    tenant_id: str
    input_tokens: int
    output_tokens: int
    outcome: str
    status_code: int
    started_at: dt.datetime
    finished_at: dt.datetime
    finished_reason: str | None
    server: KubePod | None
    user_agent: str


def gateway_requests(
    rng: random.Random, window: Window, servers: Sequence[KubePod]
) -> list[GatewayRequest]:
    """The period's requests to ENDPOINT: mostly served; some rejected by the gateway
    (rate limit), failed, timed out or cancelled by the caller; errors while no server pod
    was up (between a pod's deletion and its successor's start)."""
    up = Timeline.of(
        Holding(pod.started_at, pod.finished_at, pod)
        for pod in servers
        if pod.started_at is not None
    )
    requests = []
    arrivals = poisson_times(rng, REQUESTS_PER_DAY, window.period_start, window.period_end, True)
    for number, arrival in enumerate(arrivals):
        started = arrival + dt.timedelta(milliseconds=rng.randrange(1000))
        tenant = weighted(rng, REQUEST_TENANTS)
        prompt = int(log_uniform(rng, 40, 6000))
        wanted = int(log_uniform(rng, 8, 1600))
        serving = up.at(started)
        server = (
            serving.owner if serving is not None and isinstance(serving.owner, KubePod) else None
        )
        draw = rng.random()
        output, reason = 0, "abort"
        if server is None:
            outcome, status, seconds, reason = "error", 503, rng.uniform(0.002, 0.02), None
        elif draw < 0.01:
            outcome, status, seconds, reason = "rejected", 429, rng.uniform(0.002, 0.006), None
        elif draw < 0.025:
            outcome, status, seconds = "error", 500, rng.uniform(0.2, 2.0)
        elif draw < 0.035:
            output = int(wanted * rng.uniform(0.2, 0.8))
            outcome, status, seconds = "timeout", 504, 60.0
        elif draw < 0.055:
            output = int(wanted * rng.uniform(0.0, 0.6))
            outcome, status, seconds = "cancelled", 499, 0.2 + output * 0.028
        else:
            output = min(wanted, MAX_TOKENS)
            reason = "length" if wanted >= MAX_TOKENS else "stop"
            seconds = 0.15 + prompt * 0.00004 + output * 0.028 * rng.uniform(0.8, 1.3)
            outcome, status = "success", 200
        requests.append(
            GatewayRequest(
                request_id=f"req-{started:%Y%m%d}-{number:05d}",
                tenant_id=tenant,
                input_tokens=prompt,
                output_tokens=output,
                outcome=outcome,
                status_code=status,
                started_at=started,
                finished_at=started + dt.timedelta(milliseconds=int(seconds * 1000)),
                finished_reason=reason,
                server=server,
                user_agent=rng.choice(USER_AGENTS),
            )
        )
    return requests


def requests_jsonl(requests: Sequence[GatewayRequest]) -> str:
    lines = [
        json.dumps(
            {
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
        )
        for r in requests
    ]
    return file_text(lines)
