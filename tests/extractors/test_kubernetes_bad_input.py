"""extractors.kubernetes.parse on bad input: records rejected whole with field and reason,
and whole-file problems raised."""

from __future__ import annotations

import json

import pytest

from extractors.kubernetes.parse import KubernetesFormatError, ParseOptions, parse_document
from tests.extractors.kubernetes_samples import K8S, OBSERVED, allocations, parse

BAD_ITEMS = [
    (0, "metadata.uid", "items[0] Pod team-b/notebook-alice-0: no metadata.uid"),
    (1, "spec.containers[0].resources.limits.nvidia.com/mig-3g.40gb",
     "quantity 'abc' is not a whole number"),
    (2, "kind", "kind 'Service' is not ingested"),
    (3, "spec.containers[0].resources.requests.nvidia.com/gpu.shared",
     "quantity '0.5' is not a whole number"),
    (5, "status.containerStatuses[0].state.running.startedAt", "invalid timestamp 'yesterday'"),
    (6, "kind", "items[6] object team-a: the object has no kind"),
    (7, "status.used.requests.nvidia.com/gpu", "quantity 'lots' is not a Kubernetes quantity"),
    (8, "spec.containers[0].resources", "nvidia.com/gpu: request 4 differs from limit 8"),
]  # fmt: skip


def test_bad_list_items_are_rejected_whole_with_field_and_reason() -> None:
    result = parse("bad-items.json")
    got = [(r.line, r.field, r.reason) for r in result.rejected]
    assert [(line, field) for line, field, _ in got] == [(n, f) for n, f, _ in BAD_ITEMS]
    for (_, _, reason), (_, _, expected) in zip(got, BAD_ITEMS, strict=True):
        assert expected in reason
    # The one good pod (items[4]) lands; the rejected pod with a bad second field lands nothing.
    assert {r.source_line for r in allocations(result)} == {4}
    assert json.loads(result.rejected[0].raw)["metadata"]["name"] == "notebook-alice-0"


def test_bad_watch_lines_are_rejected_and_parsing_resumes() -> None:
    result = parse("bad-watch.jsonl")
    got = [(r.line, r.field) for r in result.rejected]
    assert got == [(2, "json"), (3, "type"), (4, "type"), (6, "type")]
    reasons = [r.reason for r in result.rejected]
    assert reasons[0].startswith("invalid JSON: ")
    assert "watch ERROR event: 410 Expired: too old resource version" in reasons[1]
    assert "not a watch event" in reasons[2]
    assert "unknown watch event type 'SYNC'" in reasons[3]
    assert sorted({r.source_line for r in allocations(result)}) == [1, 5]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty file"),
        ("   \n", "empty file"),
        ("[]", "line 1: expected a JSON object"),
        ("pods:\n- name: x\n", "line 1: expected a JSON object"),
        ('{"kind": "Status", "message": "pods is forbidden"}', "the API returned a Status"),
        ('{"apiVersion": "v1", "kind": "Pod"}', "not a Kubernetes List"),
        ('{"items": {}}', "'items' is not a list"),
        ('{"items": []}\n{"items": []}', "line 2: unexpected data after the List"),
    ],
)
def test_whole_file_problems_raise(text: str, message: str) -> None:
    with pytest.raises(KubernetesFormatError, match=message):
        parse_document(text, ParseOptions(), OBSERVED)


def test_truncated_list_names_line_and_column() -> None:
    with pytest.raises(KubernetesFormatError, match=r"^line 63 column 6: invalid JSON"):
        parse("bad-truncated-list.json")


def test_podresources_is_not_the_api_and_says_so() -> None:
    """The kubelet PodResources listing (CEEMS sample) has no uids; it is not ingested."""
    with pytest.raises(KubernetesFormatError, match="not a Kubernetes List"):
        parse("real/ceems_nvidia-pod-resources.json")


def test_items_of_a_podlist_take_the_list_kind() -> None:
    document = json.loads((K8S / "live" / "pods-list-1.json").read_text())
    assert "kind" not in document["items"][0]  # the API omits it in list items
    result = parse_document(json.dumps(document), ParseOptions(), OBSERVED)
    assert not result.rejected
    assert {r.list_resource_version for r in allocations(result)} == {"1000"}
