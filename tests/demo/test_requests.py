"""The model gateway's request log: three tenants on one shared endpoint, in the month."""

from __future__ import annotations

import collections

from tests.demo.evidence import PERIOD_END, PERIOD_START, owners


def test_gateway_log_is_three_tenants_on_one_shared_endpoint(requests_log: list) -> None:
    assert 2000 <= len(requests_log) <= 5000
    assert {r.tenant_id for r in requests_log} == {"atlas", "cirrus", "ember"}
    assert {(r.endpoint, r.model) for r in requests_log} == {("chat-shared", "llama-3-70b")}
    outcomes = collections.Counter(r.outcome for r in requests_log)
    assert set(outcomes) == {"success", "error", "timeout", "cancelled", "rejected"}
    assert outcomes["success"] >= 0.9 * len(requests_log)
    assert all(PERIOD_START <= r.started_at < PERIOD_END for r in requests_log)
    assert owners("endpoint") == {"chat-shared": "boreal"}
