"""The deployment's policy directory: validated, normalized and snapshotted for dbt."""

from gpuledger.core.policy.load import Policy, PolicyError, load_policy
from gpuledger.core.policy.values import parse_period

__all__ = ["Policy", "PolicyError", "load_policy", "parse_period"]
