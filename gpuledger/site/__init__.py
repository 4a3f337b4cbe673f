"""The showback site (`gpuledger site`): static pages over the served copy of the marts."""

from gpuledger.site.data import PeriodData, load_period
from gpuledger.site.pages import fleet_page, tenant_page, write_site

__all__ = ["PeriodData", "fleet_page", "load_period", "tenant_page", "write_site"]
