"""The FOCUS 1.2 mapping of a period's charge lines (FinOps Open Cost and Usage Specification,
specification/columns/*.md at the v1.2 tag; requirement ids from the FinOps Foundation's
requirements model, focus_validator `model-1.2.json`).

One FOCUS row per charge line, plus, for a reservation line, the rows that amortize it
(Category: ChargeCategory; Frequency: ChargeFrequency; SkuPriceId: what follows the SkuId
`<gpu class>-gpu-hour`).

| charge_component        | Category   | Frequency   | ServiceName            | SkuPriceId      |
|-------------------------|------------|-------------|------------------------|-----------------|
| allocated_gpu_hours     | Usage      | Usage-Based | GPU Compute            | -allocated      |
| burst_usage             | Usage      | Usage-Based | GPU Compute            | -borrowed       |
| variable_usage          | Usage      | Usage-Based | GPU Compute            | -variable       |
| shared_endpoint         | Usage      | Usage-Based | Shared Model Endpoints | -endpoint-share |
| shared_endpoint_hosting | Usage      | Usage-Based | GPU Compute            | -endpoint-share |
| guaranteed_capacity     | Purchase   | Recurring   | GPU Compute            | -reserved       |
| fixed_capacity          | Purchase   | Recurring   | GPU Compute            | -reserved       |
| central_platform        | Adjustment | Recurring   | GPU Compute            | null            |
| unrecovered_pool_cost   | Adjustment | Recurring   | GPU Compute            | null            |
| shared_overhead         | Adjustment | Recurring   | GPU Platform Overhead  | null            |
| credit                  | Credit     | One-Time    | GPU Compute            | null            |

ServiceCategory: Compute ("Other (Compute)") for GPU Compute and GPU Platform Overhead, AI and
Machine Learning ("Other (AI and Machine Learning)") for Shared Model Endpoints. PricingCategory:
Standard for Usage and Purchase rows, Committed for a reservation's amortization, null otherwise.
The ledger's unit of every priced component is a GPU-hour: PricingUnit `GPU-Hours`.

Every row: BilledCost = the line's amount (so the export adds up to the close to the cent);
BillingAccountId/Name and ProviderName = PublisherName = InvoiceIssuerName come from the
settings `focus_billing_account_id`, `focus_billing_account_name` and `focus_provider_name`
(defaults below); SubAccountId/Name = the tenant; Tags = {cost_center, department, project}
(project only when every segment behind the line belongs to one project); BillingPeriod = the
exported month, ChargePeriod = the month the line charges (for a Correction, the corrected
month); InvoiceId = the close id (null while provisional).

- Usage and Purchase rows carry the line's unit price as ListUnitPrice = ContractedUnitPrice
  (no negotiated discounts), PricingQuantity = ConsumedQuantity (Usage) = the line's quantity
  in `GPU-Hours`, ListCost = ContractedCost = unit price x quantity exactly (BilledCost is
  that product rounded to the cent, or a largest-remainder share of it for endpoint lines),
  SkuId `<gpu class>-gpu-hour`, SkuPriceId `<SkuId>-<suffix>`, SkuPriceDetails
  `{"GpuCount": 1, "x_GpuClass": ...}` (one GPU per GPU-hour).
- A reservation (guaranteed_capacity under quota_burst, fixed_capacity under cost_pool) is a
  usage-based commitment discount: CommitmentDiscountId
  `<billing account>/reservation/<tenant>/<gpu class>`, Category Usage, Unit GPU-Hours. Its line
  is the recurring Purchase (EffectiveCost 0, CommitmentDiscountQuantity = reserved GPU-hours),
  and two Usage rows at PricingCategory Committed amortize it (BilledCost 0): Used (the
  reserved GPU-hours the tenant used inside its reservation, ConsumedQuantity = them) and
  Unused (the rest, no ConsumedQuantity); their EffectiveCost adds up to the purchase's
  BilledCost (1.2 EffectiveCost-C-012-C). A part of zero GPU-hours is left out.
- Adjustment and Credit rows have no unit price, quantity or SKU: ListCost = ContractedCost =
  EffectiveCost = BilledCost (1.2 ListCost-C-008-C, ContractedCost-C-008-C, EffectiveCost-C-010-C).
- A Correction line (late evidence for a closed period) keeps the mapping of the component it
  corrects, with ChargeClass `Correction` (1.2 ChargeClass-C-004-C); ChargeDescription names
  the corrected period and close, as do x_CorrectedPeriod and x_CorrectedCloseId.

GPU detail rides in `x_` columns (1.2 ColumnHandling-A-010-M), after the FOCUS columns:
the component, line id, GPU class, sharing modes, confidence, GPU-hours, projects, rate card
version, line status (closed | provisional), close id and lines hash of the close.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from gpuledger.export.source import ExportSource

DEFAULT_BILLING_ACCOUNT_ID = "gpuledger"
DEFAULT_BILLING_ACCOUNT_NAME = "GPU Ledger chargeback"
DEFAULT_PROVIDER_NAME = "GPU platform"
GPU_HOURS = "GPU-Hours"
GPU_HOUR_UNITS = ("gpu_hour", "reserved_gpu_hour", "borrowed_gpu_hour", "unreserved_gpu_hour")
CENT = Decimal("0.01")
MICRO = Decimal("0.000001")

FOCUS_COLUMNS = (
    "BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency",
    "BillingPeriodEnd", "BillingPeriodStart", "ChargeCategory", "ChargeClass",
    "ChargeDescription", "ChargeFrequency", "ChargePeriodEnd", "ChargePeriodStart",
    "CommitmentDiscountCategory", "CommitmentDiscountId", "CommitmentDiscountName",
    "CommitmentDiscountQuantity", "CommitmentDiscountStatus", "CommitmentDiscountType",
    "CommitmentDiscountUnit", "ConsumedQuantity", "ConsumedUnit", "ContractedCost",
    "ContractedUnitPrice", "EffectiveCost", "InvoiceId", "InvoiceIssuerName", "ListCost",
    "ListUnitPrice", "PricingCategory", "PricingQuantity", "PricingUnit", "ProviderName",
    "PublisherName", "RegionId", "RegionName", "ResourceId", "ResourceName", "ResourceType",
    "ServiceCategory", "ServiceName", "ServiceSubcategory", "SkuId", "SkuPriceDetails",
    "SkuPriceId", "SubAccountId", "SubAccountName", "Tags",
)  # fmt: skip
CUSTOM_COLUMNS = (
    "x_ChargeComponent", "x_ChargeLineId", "x_GpuClass", "x_SharingModes", "x_Confidence",
    "x_GpuHours", "x_Projects", "x_RateCardVersion", "x_LineStatus", "x_CloseId",
    "x_LinesHash", "x_CorrectedPeriod", "x_CorrectedCloseId",
)  # fmt: skip
COLUMNS = FOCUS_COLUMNS + CUSTOM_COLUMNS
DATETIME_COLUMNS = (
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "ChargePeriodEnd",
    "ChargePeriodStart",
)
DECIMAL_COLUMNS = (
    "BilledCost", "CommitmentDiscountQuantity", "ConsumedQuantity", "ContractedCost",
    "ContractedUnitPrice", "EffectiveCost", "ListCost", "ListUnitPrice", "PricingQuantity",
    "x_GpuHours",
)  # fmt: skip


@dataclass(frozen=True)
class Service:
    name: str
    category: str
    subcategory: str


GPU_COMPUTE = Service("GPU Compute", "Compute", "Other (Compute)")
SHARED_ENDPOINTS = Service(
    "Shared Model Endpoints", "AI and Machine Learning", "Other (AI and Machine Learning)"
)
PLATFORM_OVERHEAD = Service("GPU Platform Overhead", "Compute", "Other (Compute)")


@dataclass(frozen=True)
class ComponentMapping:
    charge_category: str
    charge_frequency: str
    service: Service
    price_suffix: str | None = None
    commitment_type: str | None = None


COMPONENTS: dict[str, ComponentMapping] = {
    "allocated_gpu_hours": ComponentMapping("Usage", "Usage-Based", GPU_COMPUTE, "allocated"),
    "burst_usage": ComponentMapping("Usage", "Usage-Based", GPU_COMPUTE, "borrowed"),
    "variable_usage": ComponentMapping("Usage", "Usage-Based", GPU_COMPUTE, "variable"),
    "shared_endpoint": ComponentMapping("Usage", "Usage-Based", SHARED_ENDPOINTS, "endpoint-share"),
    "shared_endpoint_hosting": ComponentMapping(
        "Usage", "Usage-Based", GPU_COMPUTE, "endpoint-share"
    ),
    "guaranteed_capacity": ComponentMapping(
        "Purchase", "Recurring", GPU_COMPUTE, "reserved", "Guaranteed GPU capacity"
    ),
    "fixed_capacity": ComponentMapping(
        "Purchase", "Recurring", GPU_COMPUTE, "reserved", "Reserved share of the GPU pool"
    ),
    "central_platform": ComponentMapping("Adjustment", "Recurring", GPU_COMPUTE),
    "unrecovered_pool_cost": ComponentMapping("Adjustment", "Recurring", GPU_COMPUTE),
    "shared_overhead": ComponentMapping("Adjustment", "Recurring", PLATFORM_OVERHEAD),
    "credit": ComponentMapping("Credit", "One-Time", GPU_COMPUTE),
}


@dataclass(frozen=True)
class Account:
    """Who bills: the deployment's billing account and the platform that provides it."""

    billing_account_id: str
    billing_account_name: str
    provider_name: str

    @classmethod
    def from_settings(cls, settings: Mapping[str, str]) -> Account:
        return cls(
            settings.get("focus_billing_account_id", DEFAULT_BILLING_ACCOUNT_ID),
            settings.get("focus_billing_account_name", DEFAULT_BILLING_ACCOUNT_NAME),
            settings.get("focus_provider_name", DEFAULT_PROVIDER_NAME),
        )


def month_bounds(period: str) -> tuple[dt.datetime, dt.datetime]:
    """[start, end) of a YYYY-MM month, UTC."""
    start = dt.datetime.strptime(period, "%Y-%m").replace(tzinfo=dt.UTC)
    end = (start + dt.timedelta(days=32)).replace(day=1)
    return start, end


def _mapping(component: str) -> ComponentMapping:
    if component not in COMPONENTS:
        raise LookupError(
            f"charge component {component!r} has no FOCUS mapping (gpuledger/export/focus.py)"
        )
    return COMPONENTS[component]


def _tags(line: Mapping[str, object]) -> str | None:
    projects = str(line["projects"]).split(",") if line["projects"] else []
    tags = {
        "cost_center": line["cost_center"],
        "department": line["department"],
        "project": projects[0] if len(projects) == 1 else None,
    }
    present = {key: value for key, value in tags.items() if value is not None}
    return json.dumps(present, sort_keys=True) if present else None


def _common(line: Mapping[str, object], source: ExportSource, account: Account) -> dict:
    """The columns every row of a line shares."""
    mapping = _mapping(str(line["charge_component"]))
    billing_start, billing_end = month_bounds(source.state.period)
    charge_start, charge_end = month_bounds(str(line["corrects_period"] or line["period"]))
    unit = line["unit"]
    return {
        "BillingAccountId": account.billing_account_id,
        "BillingAccountName": account.billing_account_name,
        "BillingCurrency": line["currency"],
        "BillingPeriodStart": billing_start,
        "BillingPeriodEnd": billing_end,
        "ChargeCategory": mapping.charge_category,
        "ChargeClass": line["charge_class"],
        "ChargeDescription": line["description"],
        "ChargeFrequency": mapping.charge_frequency,
        "ChargePeriodStart": charge_start,
        "ChargePeriodEnd": charge_end,
        "InvoiceId": None if source.provisional else source.state.close_id,
        "InvoiceIssuerName": account.provider_name,
        "ProviderName": account.provider_name,
        "PublisherName": account.provider_name,
        "ServiceCategory": mapping.service.category,
        "ServiceName": mapping.service.name,
        "ServiceSubcategory": mapping.service.subcategory,
        "SubAccountId": line["tenant_id"],
        "SubAccountName": line["tenant_name"],
        "Tags": _tags(line),
        "x_ChargeComponent": line["charge_component"],
        "x_ChargeLineId": line["charge_line_id"],
        "x_GpuClass": line["gpu_class"],
        "x_SharingModes": line["sharing_modes"],
        "x_Confidence": line["confidence"],
        "x_GpuHours": line["quantity"] if unit in GPU_HOUR_UNITS else None,
        "x_Projects": line["projects"],
        "x_RateCardVersion": line["rate_card_version"],
        "x_LineStatus": line["status"],
        "x_CloseId": line["close_id"],
        "x_LinesHash": None if source.provisional else source.state.lines_sha256,
        "x_CorrectedPeriod": line["corrects_period"],
        "x_CorrectedCloseId": line["corrects_close_id"],
    }


def _priced(line: Mapping[str, object], quantity: Decimal, pricing: str) -> dict:
    """Unit price, quantity and SKU of a GPU-hour row (Usage or Purchase)."""
    if line["unit"] not in GPU_HOUR_UNITS:
        raise LookupError(
            f"charge line {line['charge_line_id']}: unit {line['unit']!r} of a priced "
            f"component {line['charge_component']!r} is not a GPU-hour unit"
        )
    price = line["unit_price"]
    cost = price * quantity if price is not None else line["amount"]
    sku = f"{line['gpu_class']}-gpu-hour"
    suffix = COMPONENTS[str(line["charge_component"])].price_suffix
    return {
        "ListUnitPrice": price,
        "ContractedUnitPrice": price,
        "ListCost": cost,
        "ContractedCost": cost,
        "PricingQuantity": quantity,
        "PricingUnit": GPU_HOURS,
        "PricingCategory": pricing,
        "SkuId": sku,
        "SkuPriceId": f"{sku}-{suffix}",
        "SkuPriceDetails": json.dumps({"GpuCount": 1, "x_GpuClass": line["gpu_class"]}),
    }


def _commitment(line: Mapping[str, object], account: Account) -> dict:
    mapping = COMPONENTS[str(line["charge_component"])]
    tenant, gpu_class = line["tenant_id"], line["gpu_class"]
    name = f"{line['tenant_name'] or tenant} {gpu_class} reservation"
    return {
        "CommitmentDiscountId": f"{account.billing_account_id}/reservation/{tenant}/{gpu_class}",
        "CommitmentDiscountName": name,
        "CommitmentDiscountType": mapping.commitment_type,
        "CommitmentDiscountCategory": "Usage",
        "CommitmentDiscountUnit": GPU_HOURS,
    }


def _reservation_rows(
    line: Mapping[str, object], common: dict, source: ExportSource, account: Account
) -> Iterator[dict]:
    commitment = _commitment(line, account)
    quantity, amount = line["quantity"], line["amount"]
    resource = {
        "ResourceId": commitment["CommitmentDiscountId"],
        "ResourceName": commitment["CommitmentDiscountName"],
        "ResourceType": commitment["CommitmentDiscountType"],
    }
    yield {
        **common,
        **_priced(line, quantity, "Standard"),
        **commitment,
        **resource,
        "CommitmentDiscountQuantity": quantity,
        "BilledCost": amount,
        "EffectiveCost": Decimal("0.00"),
    }
    key = (str(line["corrects_period"] or line["period"]), line["tenant_id"], line["gpu_class"])
    share = source.reservation_use.get(key, Decimal(0))
    used_quantity = (quantity * share).quantize(MICRO, ROUND_HALF_EVEN)
    used_cost = (amount * share).quantize(CENT, ROUND_HALF_EVEN)
    parts = (
        ("Used", used_quantity, used_cost, used_quantity, {}),
        ("Unused", quantity - used_quantity, amount - used_cost, None, resource),
    )
    for status, part_quantity, part_cost, consumed, part_resource in parts:
        if part_quantity == 0 and part_cost == 0:
            continue
        what = "used inside" if status == "Used" else "left unused of"
        yield {
            **common,
            **_priced(line, part_quantity, "Committed"),
            **commitment,
            **part_resource,
            "ChargeCategory": "Usage",
            "ChargeFrequency": "Usage-Based",
            "ChargeDescription": f"reserved GPU-hours {what} the reservation "
            f"({common['ChargeDescription']})",
            "CommitmentDiscountStatus": status,
            "CommitmentDiscountQuantity": part_quantity,
            "ConsumedQuantity": consumed,
            "ConsumedUnit": GPU_HOURS if consumed is not None else None,
            "BilledCost": Decimal("0.00"),
            "EffectiveCost": part_cost,
        }


def _line_rows(
    line: Mapping[str, object], source: ExportSource, account: Account
) -> Iterator[dict]:
    mapping = _mapping(str(line["charge_component"]))
    common = _common(line, source, account)
    amount = line["amount"]
    if mapping.commitment_type:
        yield from _reservation_rows(line, common, source, account)
    elif mapping.charge_category == "Usage":
        quantity = line["quantity"]
        yield {
            **common,
            **_priced(line, quantity, "Standard"),
            "ConsumedQuantity": quantity,
            "ConsumedUnit": GPU_HOURS,
            "BilledCost": amount,
            "EffectiveCost": amount,
        }
    else:
        yield {
            **common,
            "ListCost": amount,
            "ContractedCost": amount,
            "BilledCost": amount,
            "EffectiveCost": amount,
        }


def focus_rows(source: ExportSource, account: Account) -> list[dict[str, object]]:
    """Every FOCUS row of the source's lines, each with every column (null where none)."""
    return [
        {column: row.get(column) for column in COLUMNS}
        for line in source.lines
        for row in _line_rows(line, source, account)
    ]
