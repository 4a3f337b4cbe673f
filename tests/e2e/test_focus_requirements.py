"""FOCUS 1.2 requirements that focus-validator 1.0.0 (FOCUS 1.0 rules) does not check, held on the
FOCUS exports of the demo's closed October and of the April that corrects March.

Each test names the requirements it holds by their ids in the FinOps Foundation's requirements
model for FOCUS 1.2 (focus_validator >= 2.0, `focus_validator/rules/model-1.2.json`; the text is
specification/columns/*.md and attributes/*.md of the FOCUS_Spec repository at tag v1.2). The
allowed values below are copied from those columns' "Allowed values" tables: the oracle lives
here, apart from the mapping it checks (gpuledger/export/focus.py).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from decimal import Decimal

import pytest

from gpuledger.core.serving import query_served
from gpuledger.export.focus import CUSTOM_COLUMNS, FOCUS_COLUMNS
from tests.e2e.focus import Export

CHARGE_CATEGORIES = {"Usage", "Purchase", "Tax", "Credit", "Adjustment"}
CHARGE_FREQUENCIES = {"One-Time", "Recurring", "Usage-Based"}
PRICING_CATEGORIES = {"Standard", "Dynamic", "Committed", "Other"}
COMMITMENT_DISCOUNT_CATEGORIES = {"Spend", "Usage"}
COMMITMENT_DISCOUNT_STATUSES = {"Used", "Unused"}
SERVICE_CATEGORIES = {
    "AI and Machine Learning", "Analytics", "Business Applications", "Compute", "Databases",
    "Developer Tools", "Multicloud", "Identity", "Integration", "Internet of Things",
    "Management and Governance", "Media", "Migration", "Mobile", "Networking", "Security",
    "Storage", "Web", "Other",
}  # fmt: skip
# ServiceSubcategory -> its one parent ServiceCategory (the two this export can name)
SERVICE_SUBCATEGORY_PARENTS = {
    "Other (Compute)": "Compute",
    "Other (AI and Machine Learning)": "AI and Machine Learning",
}
# the columns CostAndUsage-D-*-M makes mandatory in every FOCUS 1.2 dataset
MANDATORY_COLUMNS = {
    "BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency",
    "BillingPeriodEnd", "BillingPeriodStart", "ChargeCategory", "ChargeClass",
    "ChargeDescription", "ChargePeriodEnd", "ChargePeriodStart", "ContractedCost",
    "EffectiveCost", "InvoiceIssuerName", "ListCost", "PricingQuantity", "PricingUnit",
    "ProviderName", "PublisherName", "ServiceCategory", "ServiceName",
}  # fmt: skip
# FOCUS-defined SkuPriceDetails properties (skupricedetails.md, "FOCUS-Defined Properties")
SKU_PRICE_PROPERTIES = {
    "CoreCount", "DiskMaxIops", "DiskSpace", "DiskType", "GpuCount", "InstanceType",
    "InstanceSeries", "MemorySize", "NetworkMaxIops", "NetworkMaxThroughput", "OperatingSystem",
    "Redundancy", "StorageClass",
}  # fmt: skip
DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
NUMBER = re.compile(r"-?\d+(\.\d+)?")
DATETIME_COLUMNS = (
    "BillingPeriodStart",
    "BillingPeriodEnd",
    "ChargePeriodStart",
    "ChargePeriodEnd",
)
NUMERIC_COLUMNS = (
    "BilledCost", "CommitmentDiscountQuantity", "ConsumedQuantity", "ContractedCost",
    "ContractedUnitPrice", "EffectiveCost", "ListCost", "ListUnitPrice", "PricingQuantity",
)  # fmt: skip
PRICED = ("Usage", "Purchase")
ACCOUNTS = {
    "october": ("gpuledger", "GPU Ledger chargeback", "GPU platform"),
    "april": ("research-cluster", "GPU Ledger chargeback", "Research Computing"),
}


@pytest.fixture(params=["october", "april"])
def rows(request: pytest.FixtureRequest, focus_exports: dict[str, Export]) -> list[dict]:
    return focus_exports[request.param].rows


@pytest.fixture(params=["october", "april"])
def focus_export(request: pytest.FixtureRequest, focus_exports: dict[str, Export]) -> Export:
    return focus_exports[request.param]


def _decimal(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _not_correction(row: dict) -> bool:
    return row["ChargeClass"] != "Correction"


def _month_bounds(period: str) -> tuple[str, str]:
    start = dt.datetime.strptime(period, "%Y-%m")
    end = (start + dt.timedelta(days=32)).replace(day=1)
    return start.strftime("%Y-%m-%dT00:00:00Z"), end.strftime("%Y-%m-%dT00:00:00Z")


def test_mandatory_columns_present_and_custom_columns_prefixed_after_them(
    focus_export: Export,
) -> None:
    """CostAndUsage-D-005..041-M (mandatory columns present); ColumnHandling-A-001-M,
    A-003-M (Pascal case, alphanumeric), A-010-M (custom columns `x_`), A-012/A-013-O (FOCUS
    columns first, custom columns after, not intermixed)."""
    header = list(focus_export.rows[0])
    assert set(header) >= MANDATORY_COLUMNS
    focus = [c for c in header if not c.startswith("x_")]
    assert header == focus + [c for c in header if c.startswith("x_")]
    assert focus == list(FOCUS_COLUMNS) and header[len(focus) :] == list(CUSTOM_COLUMNS)
    assert all(re.fullmatch(r"[A-Z][A-Za-z0-9]*", c) for c in focus)
    assert all(re.fullmatch(r"x_[A-Z][A-Za-z0-9]*", c) for c in header[len(focus) :])


def test_charge_class_is_null_or_correction_and_correction_only_for_corrections(
    rows: list[dict],
) -> None:
    """ChargeClass-C-003-C (null unless a correction of a previously invoiced period),
    C-004-C (not null for one), C-005-C ("Correction" when not null); the corrected period is
    an earlier, closed billing period."""
    for row in rows:
        assert row["ChargeClass"] in (None, "Correction")
        corrects = row["x_CorrectedPeriod"]
        assert (row["ChargeClass"] == "Correction") == (corrects is not None)
        if corrects:
            assert _month_bounds(corrects)[1] <= row["BillingPeriodStart"]
            assert row["x_CorrectedCloseId"].startswith(f"close-{corrects}-v")


def test_allowed_values(rows: list[dict]) -> None:
    """ChargeCategory-C-003-M, ChargeFrequency-C-003-M, PricingCategory-C-007-M,
    ServiceCategory-C-003-M, ServiceSubcategory-C-003-M and C-004-M (one parent category),
    CommitmentDiscountCategory-C-005-M, CommitmentDiscountStatus-C-005-M."""
    for row in rows:
        assert row["ChargeCategory"] in CHARGE_CATEGORIES
        assert row["ChargeFrequency"] in CHARGE_FREQUENCIES
        assert row["PricingCategory"] in PRICING_CATEGORIES | {None}
        assert row["ServiceCategory"] in SERVICE_CATEGORIES
        assert SERVICE_SUBCATEGORY_PARENTS[row["ServiceSubcategory"]] == row["ServiceCategory"]
        assert row["CommitmentDiscountCategory"] in COMMITMENT_DISCOUNT_CATEGORIES | {None}
        assert row["CommitmentDiscountStatus"] in COMMITMENT_DISCOUNT_STATUSES | {None}


def test_service_name_has_one_category(rows: list[dict]) -> None:
    """ServiceName-C-005-C: one and only one ServiceCategory per ServiceName."""
    categories = defaultdict(set)
    for row in rows:
        categories[row["ServiceName"]].add(row["ServiceCategory"])
    assert all(len(found) == 1 for found in categories.values())


def test_billing_period_is_the_month_and_charge_period_the_month_charged(
    focus_export: Export,
) -> None:
    """BillingPeriodStart-C-004-M / BillingPeriodEnd-C-004-M (inclusive start, exclusive end of
    the billing period: the exported month), ChargePeriodStart-C-004-M / ChargePeriodEnd-C-004-M
    (the month the line charges; for a Correction, the corrected month); DateTimeFormat-A-001-M,
    A-003..006-M ('YYYY-MM-DDTHH:mm:ssZ', UTC)."""
    billing = _month_bounds(focus_export.period)
    for row in focus_export.rows:
        assert all(DATETIME.fullmatch(row[column]) for column in DATETIME_COLUMNS)
        assert (row["BillingPeriodStart"], row["BillingPeriodEnd"]) == billing
        charged = _month_bounds(row["x_CorrectedPeriod"] or focus_export.period)
        assert (row["ChargePeriodStart"], row["ChargePeriodEnd"]) == charged


def test_numbers_are_plain_decimals(rows: list[dict]) -> None:
    """NumericFormat-A-003-M, A-008-M, A-009-M, A-010-M: an integer or decimal, no qualifier,
    no comma, no plus sign (and, here, no exponent)."""
    for row in rows:
        for column in NUMERIC_COLUMNS:
            assert row[column] is None or NUMBER.fullmatch(row[column]), (column, row[column])


def test_costs_present_and_consistent(rows: list[dict]) -> None:
    """BilledCost-C-003-M, ListCost-C-003-M, ContractedCost-C-003-M, EffectiveCost-C-003-M (not
    null); ListCost-C-008-C, ContractedCost-C-008-C, EffectiveCost-C-010-C (a charge unrelated to
    other charges without a unit price, e.g. a Credit: List = Contracted = Effective = Billed);
    ListCost-C-009-C, ContractedCost-C-009-C, PricingQuantity-C-009-C (unit price x
    PricingQuantity = the cost, exactly, unless a Correction)."""
    for row in rows:
        billed, listed, contracted, effective = (
            _decimal(row[c]) for c in ("BilledCost", "ListCost", "ContractedCost", "EffectiveCost")
        )
        assert None not in (billed, listed, contracted, effective)
        if row["ChargeCategory"] not in PRICED:
            assert row["ListUnitPrice"] is row["ContractedUnitPrice"] is None
            assert listed == contracted == effective == billed
        quantity = _decimal(row["PricingQuantity"])
        if row["ListUnitPrice"] is not None and quantity is not None and _not_correction(row):
            assert _decimal(row["ListUnitPrice"]) * quantity == listed
            assert _decimal(row["ContractedUnitPrice"]) * quantity == contracted
    credits = [row for row in rows if row["ChargeCategory"] == "Credit"]
    assert credits and all(Decimal(row["BilledCost"]) < 0 for row in credits)


def test_priced_rows_have_price_quantity_sku_and_pricing_category(rows: list[dict]) -> None:
    """For Usage and Purchase rows that are not Corrections, not null: ListUnitPrice-C-005-C,
    ContractedUnitPrice-C-006-C, PricingQuantity-C-005-C, PricingCategory-C-004-C,
    SkuId-C-005-C, SkuPriceId-C-005-C; unit prices non-negative (ListUnitPrice-C-008-M,
    ContractedUnitPrice-C-009-C); PricingUnit-C-005/006-C (null exactly when PricingQuantity
    is); SkuPriceId-C-008-M (one parent SkuId); ChargeFrequency-C-004-C (a Purchase is not
    Usage-Based)."""
    parents = defaultdict(set)
    for row in rows:
        if row["ChargeCategory"] in PRICED and _not_correction(row):
            for column in ("ListUnitPrice", "ContractedUnitPrice", "PricingQuantity",
                           "PricingCategory", "SkuId", "SkuPriceId"):  # fmt: skip
                assert row[column] is not None, (column, row["x_ChargeLineId"])
        for column in ("ListUnitPrice", "ContractedUnitPrice"):
            assert row[column] is None or Decimal(row[column]) >= 0
        assert (row["PricingUnit"] is None) == (row["PricingQuantity"] is None)
        if row["SkuPriceId"]:
            parents[row["SkuPriceId"]].add(row["SkuId"])
        if row["ChargeCategory"] == "Purchase":
            assert row["ChargeFrequency"] != "Usage-Based"
    assert all(len(found) == 1 for found in parents.values())


def test_consumed_quantity_only_for_consumption(rows: list[dict]) -> None:
    """ConsumedQuantity-C-004-C (null unless Usage, and null for the Unused part of a
    commitment), C-006-C (not null for other Usage, unless a Correction); ConsumedUnit-C-005/006-C
    (null exactly when ConsumedQuantity is)."""
    for row in rows:
        consumes = row["ChargeCategory"] == "Usage" and row["CommitmentDiscountStatus"] != "Unused"
        if not consumes:
            assert row["ConsumedQuantity"] is None
        elif _not_correction(row):
            assert row["ConsumedQuantity"] is not None
        assert (row["ConsumedUnit"] is None) == (row["ConsumedQuantity"] is None)


def test_commitment_columns_null_unless_the_row_is_a_commitment(rows: list[dict]) -> None:
    """CommitmentDiscountId-C-004/005-C (null exactly when the charge is not related to a
    commitment discount: here, a reservation line and its amortization); Category-C-003/004-C,
    Name-C-004/006-C, Type-C-004/005-C (null exactly when the id is); Status-C-003-C (null when
    the id is), C-004-C (not null for a commitment's Usage); Quantity-C-005/007-C (not null for
    a commitment's Usage or Purchase, null otherwise); Unit-C-005/006-C (null exactly when the
    quantity is)."""
    reservations = {"guaranteed_capacity", "fixed_capacity"}
    for row in rows:
        is_commitment = row["x_ChargeComponent"] in reservations
        assert (row["CommitmentDiscountId"] is not None) == is_commitment
        for column in ("CommitmentDiscountCategory", "CommitmentDiscountName",
                       "CommitmentDiscountType", "CommitmentDiscountQuantity"):  # fmt: skip
            assert (row[column] is not None) == is_commitment, column
        if not is_commitment:
            assert row["CommitmentDiscountStatus"] is None
        elif row["ChargeCategory"] == "Usage":
            assert row["CommitmentDiscountStatus"] is not None
        unit, quantity = row["CommitmentDiscountUnit"], row["CommitmentDiscountQuantity"]
        assert (unit is None) == (quantity is None)


def test_commitments_amortize_to_their_purchase(rows: list[dict]) -> None:
    """EffectiveCost-C-005-C (0 for a Purchase that covers later charges), C-012-C (per
    CommitmentDiscountId, Usage EffectiveCost = Purchase BilledCost), C-013-C (= Used + Unused);
    PricingCategory-C-009-C (Committed for the charges a commitment covers, not its purchase);
    CommitmentDiscountQuantity-C-012/014/015-C (the purchase's GPU-hours = used + unused)."""
    by_commitment = defaultdict(list)
    for row in rows:
        if row["CommitmentDiscountId"]:
            by_commitment[row["CommitmentDiscountId"]].append(row)
    assert by_commitment
    for commitment in by_commitment.values():
        purchases = [r for r in commitment if r["ChargeCategory"] == "Purchase"]
        usage = [r for r in commitment if r["ChargeCategory"] == "Usage"]
        assert all(Decimal(r["EffectiveCost"]) == 0 for r in purchases)
        assert all(r["PricingCategory"] == "Standard" for r in purchases)
        assert all(r["PricingCategory"] == "Committed" for r in usage)
        assert all(Decimal(r["BilledCost"]) == 0 for r in usage)
        bought = sum(Decimal(r["BilledCost"]) for r in purchases)
        assert sum(Decimal(r["EffectiveCost"]) for r in usage) == bought
        quantities = (
            sum(Decimal(r["CommitmentDiscountQuantity"]) for r in part)
            for part in (purchases, usage)
        )
        assert next(quantities) == next(quantities)


def test_key_value_columns_are_json_objects_of_scalars(rows: list[dict]) -> None:
    """KeyValueFormat-A-001..004-M for Tags-C-001-M and SkuPriceDetails-C-001-M;
    SkuPriceDetails-C-004-C (null when SkuPriceId is), C-017-C (keys FOCUS-defined or `x_`),
    C-020/021-M (GpuCount spelled so, numeric), C-022-C (per single PricingUnit: one GPU for a
    GPU-hour); Tags-C-016-C (one user-defined scheme: keys not prefixed)."""
    for row in rows:
        for column in ("Tags", "SkuPriceDetails"):
            if row[column] is not None:
                value = json.loads(row[column])
                assert isinstance(value, dict)
                assert all(
                    isinstance(v, str | int | float | bool) or v is None for v in value.values()
                )
        if row["SkuPriceId"] is None:
            assert row["SkuPriceDetails"] is None
        else:
            details = json.loads(row["SkuPriceDetails"])
            assert all(k in SKU_PRICE_PROPERTIES or k.startswith("x_") for k in details)
            assert details["GpuCount"] == 1 and row["PricingUnit"] == "GPU-Hours"
        if row["Tags"]:
            assert set(json.loads(row["Tags"])) <= {"cost_center", "department", "project"}


def test_accounts_and_invoice(focus_export: Export) -> None:
    """BillingAccountId-C-003-M, InvoiceIssuerName-C-003-M, ProviderName-C-003-M,
    PublisherName-C-003-M (not null); SubAccountName-C-005-C (not null with a SubAccountId);
    InvoiceId-C-005-C (a closed period's charges carry its close as invoice) and BilledCost-C-007-M
    (per InvoiceId, BilledCost adds up to the invoice: the close's total)."""
    # the demo keeps the defaults; the correction story's policy names its own
    account = ACCOUNTS[focus_export.name]
    totals = defaultdict(Decimal)
    for row in focus_export.rows:
        named = (row["BillingAccountId"], row["BillingAccountName"], row["ProviderName"])
        assert named == account
        assert row["ProviderName"] == row["PublisherName"] == row["InvoiceIssuerName"]
        assert row["SubAccountId"] and row["SubAccountName"]
        totals[row["InvoiceId"]] += Decimal(row["BilledCost"])
    closes = query_served(
        focus_export.home,
        "select close_id, total_amount from dim_period where period = ?",
        [focus_export.period],
    )
    assert dict(totals) == {close["close_id"]: close["total_amount"] for close in closes}
