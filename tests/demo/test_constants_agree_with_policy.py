"""policy/demo and gpuledger/demo/constants.py state the same demo month: every instant a
policy file names is one the constants list for that file and the reverse, the rows the
generated evidence plays out (the nlp-shared handover, cirrus's reservation) hold the
constants' instants, the policy's periods are the demo month, its VMs are the constants'
UUID VMs, and every date the policy README names is one of the constants' instants."""

from __future__ import annotations

import csv
import datetime as dt
import re
from pathlib import Path

import pytest

from gpuledger.demo import constants
from tests.demo.evidence import POLICY, owners, policy_rows

POLICY_FILES = sorted(POLICY.glob("*.csv"))
# A date, maybe with its time, but not inside a name such as adj-2026-10-001.
INSTANT = re.compile(r"(?<![\w-])\d{4}-\d{2}-\d{2}(?!\d)(?:T\d{2}:\d{2}:\d{2}Z| \d{2}:\d{2} UTC)?")


def instant(text: str) -> dt.datetime:
    """A policy or README instant (a date alone is its midnight), in UTC."""
    value = dt.datetime.fromisoformat(text.removesuffix(" UTC"))
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def named_instants(text: str) -> set[dt.datetime]:
    """Every date or instant `text` names."""
    return {instant(found) for found in INSTANT.findall(text)}


def policy_instants(path: Path) -> set[dt.datetime]:
    """Every date or instant the cells of a policy file name."""
    with path.open(newline="", encoding="utf-8") as handle:
        return {
            found for row in csv.reader(handle) for cell in row for found in named_instants(cell)
        }


def constant_instants() -> set[dt.datetime]:
    """Every instant the constants module defines, alone or in a tuple."""
    found = set()
    for value in vars(constants).values():
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, dt.datetime):
                found.add(item)
    found |= {vm.start for vm in constants.VIRTUAL_MACHINES}
    found |= {vm.end for vm in constants.VIRTUAL_MACHINES if vm.end is not None}
    return found


def test_constants_list_only_policy_files_that_exist() -> None:
    assert set(constants.POLICY_INSTANTS) <= {path.name for path in POLICY_FILES}


@pytest.mark.parametrize("path", POLICY_FILES, ids=lambda path: path.name)
def test_a_policy_file_names_the_instants_the_constants_list_for_it(path: Path) -> None:
    assert policy_instants(path) == set(constants.POLICY_INSTANTS.get(path.name, ()))


def test_nlp_shared_changes_owner_at_the_handover() -> None:
    rows = [r for r in policy_rows("ownership") if r["scope_key"] == "nlp-shared"]
    spans = sorted(
        (instant(r["valid_from"]), r["valid_to"] and instant(r["valid_to"]), r["tenant_id"])
        for r in rows
    )
    handover = constants.NLP_SHARED_HANDOVER
    assert spans == [(constants.POLICY_FROM, handover, "atlas"), (handover, "", "cirrus")]


def test_reservations_begin_at_the_constants_instants() -> None:
    begins = {
        (r["tenant_id"], r["gpu_class"]): r["valid_from"] for r in policy_rows("reservations")
    }
    assert instant(begins[("cirrus", "a100")]) == constants.CIRRUS_RESERVATION_FROM
    assert instant(begins[("delta", "a100")]) == constants.DELTA_RESERVATION_FROM


def test_endpoint_weights_are_revised_at_the_constants_instant() -> None:
    versions = {
        r["weight_version"]: (r["valid_from"], r["valid_to"])
        for r in policy_rows("endpoint_weights")
    }
    revised = constants.CHAT_WEIGHTS_REVISED
    assert instant(versions["chat-2026.1"][1]) == revised
    assert instant(versions["chat-2026.2"][0]) == revised


def test_the_policy_periods_are_the_demo_month() -> None:
    periods = {
        (path.name, row["period"])
        for path in POLICY_FILES
        for row in policy_rows(path.stem)
        if "period" in row
    }
    assert periods
    assert {period for _, period in periods} == {constants.DEMO_PERIOD}


def test_the_policy_owns_the_uuid_vms_and_not_the_domain_id_one() -> None:
    vms = {vm.vm_id: vm.vm_id_type for vm in constants.VIRTUAL_MACHINES}
    assert set(owners("vm")) == {vm for vm, kind in vms.items() if kind == "uuid"}
    assert "domain_id" in vms.values()


def test_every_date_the_policy_readme_names_is_a_constant() -> None:
    named = named_instants((POLICY / "README.md").read_text(encoding="utf-8"))
    assert len(named) >= 4
    assert named <= constant_instants()
