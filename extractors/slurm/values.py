"""Slurm's value formats (pure): durations, TRES lists and the GPU count rule, MIG profiles,
array task specs, hostlists and job states, shared by the `--parsable2` and `--json` parsers."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterable

from extractors.slurm.records import SlurmJob

MAX_INT = 2**63 - 1  # the largest value of a raw table's integer column
MAX_ARRAY_TASKS = 100_000  # a pending array record expanding past this is rejected
NO_LIMIT = frozenset({"", "unlimited", "partition_limit", "none"})
_DURATION = re.compile(r"^(?:(?:(\d+)-)?(\d+):)?(\d+):(\d+)(?:\.\d+)?$")
_MIG_PROFILE = re.compile(r"(\d+g\.\d+gb(?:\+me)?)$")
_GRES_DETAIL = re.compile(r"\([^)]*\)")  # `(IDX:0-1)` after a GRES count


class FieldError(ValueError):
    """One field of a record is unusable: the record is rejected naming that field."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def parse_duration_seconds(value: str) -> int | None:
    """`[[days-]hh:]mm:ss[.frac]` to whole seconds; None for UNLIMITED/Partition_Limit/empty.

    Raises ValueError for anything else.
    """
    text = value.strip()
    if text.lower() in NO_LIMIT:
        return None
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"invalid duration {value!r}")
    days, hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    total = ((days * 24 + hours) * 60 + minutes) * 60 + seconds
    if total > MAX_INT:
        raise ValueError(f"invalid duration {value!r}")
    return total


def parse_tres(text: str) -> list[tuple[str, str]]:
    """A TRES list `billing=1,cpu=1,gres/gpu:h100=2,gres/gpu=2` as (key, value) pairs, in order."""
    pairs = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"malformed TRES entry {item!r}")
        pairs.append((key.strip(), value.strip()))
    return pairs


@dataclasses.dataclass(frozen=True)
class GpuTres:
    """What a TRES list says about GPUs: count, first typed type and its MIG profile."""

    count: int
    gpu_type: str | None
    mig_profile: str | None


def gpu_tres(pairs: Iterable[tuple[str, str]]) -> GpuTres:
    """Apply the GPU-count rule to TRES pairs.

    The untyped `gres/gpu=N` wins when present; otherwise the typed `gres/gpu:TYPE=N` entries
    are summed (Slurm lists both for a typed allocation: summing everything double-counts).
    Raises ValueError for a GPU entry whose count is not a non-negative integer.
    """
    untyped: int | None = None
    typed_total = 0
    first_type: str | None = None
    for key, value in pairs:
        if key != "gres/gpu" and not key.startswith("gres/gpu:"):
            continue
        if not is_uint(value):
            raise ValueError(f"invalid GPU count {key}={value!r}")
        if key == "gres/gpu":
            untyped = int(value)
        else:
            typed_total += int(value)
            first_type = first_type or key.removeprefix("gres/gpu:")
    count = untyped if untyped is not None else typed_total
    return GpuTres(count=count, gpu_type=first_type, mig_profile=mig_profile(first_type))


def gres_gpus(text: str) -> GpuTres:
    """GPUs in a legacy GRES list (ReqGRES / AllocGRES, before Slurm's TRES: `gpu:2`,
    `gpu:p100:2(IDX:0-1),hbm:0`): the sum of the `gpu` entries' counts (a count left out is
    1, as Slurm reads `--gres=gpu`), the first entry's type and its MIG profile."""
    total, first_type = 0, None
    for item in _GRES_DETAIL.sub("", text).split(","):
        parts = item.strip().split(":")
        if parts[0].removeprefix("gres/") != "gpu":
            continue
        counted = len(parts) > 1 and is_uint(parts[-1])
        total += int(parts[-1]) if counted else 1
        gpu_type = ":".join(parts[1:-1] if counted else parts[1:])
        first_type = first_type or gpu_type or None
    return GpuTres(count=total, gpu_type=first_type, mig_profile=mig_profile(first_type))


def tres_gpu_count(text: str) -> int:
    """GPUs (or MIG instances) in a TRES string; see `gpu_tres` for the rule. 0 when none."""
    return gpu_tres(parse_tres(text)).count


def mig_profile(gpu_type: str | None) -> str | None:
    """The MIG profile a gres type names: `a100_3g.20gb` -> `3g.20gb`; None for a whole GPU."""
    if not gpu_type:
        return None
    match = _MIG_PROFILE.search(gpu_type)
    return match.group(1) if match else None


def expand_array_spec(spec: str) -> list[str]:
    """Array task ids of a spec like `9-11,20`, `1-100%4` (throttle ignored) or `1-7:2`."""
    body = spec.split("%", 1)[0]
    tasks: list[str] = []
    for part in body.split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+)(?::(\d+))?)?", part.strip())
        if match is None:
            raise ValueError(f"invalid array task list {spec!r}")
        first = int(match.group(1))
        last = int(match.group(2) or first)
        step = int(match.group(3) or 1)
        if last < first or step < 1 or len(tasks) + (last - first) // step >= MAX_ARRAY_TASKS:
            raise ValueError(f"invalid or too large array task list {spec!r}")
        tasks.extend(str(t) for t in range(first, last + 1, step))
    return tasks


def expand_hostlist(expr: str) -> list[str]:
    """Expand a Slurm hostlist: `gpu[01-04]`, `d09n04s[01-02],d13n[03,05,07-08,16]`, `a,b`.

    Zero padding follows the range's first bound; several bracket groups in one name are
    expanded as a product. `None assigned` and empty give []. Raises ValueError when malformed.
    """
    text = expr.strip()
    if not text or text.lower() == "none assigned":
        return []
    hosts: list[str] = []
    for name in _split_top_level(text):
        pieces = re.split(r"(\[[^\[\]]*\])", name)
        choices: list[list[str]] = []
        for piece in pieces:
            if piece.startswith("["):
                choices.append(_expand_ranges(piece[1:-1], expr))
            elif "[" in piece or "]" in piece:
                raise ValueError(f"invalid hostlist {expr!r}")
            else:
                choices.append([piece])
        hosts.extend("".join(combo) for combo in itertools.product(*choices))
    return hosts


def _split_top_level(text: str) -> list[str]:
    names, depth, current = [], 0, []
    for char in text:
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth < 0 or depth > 1:
            raise ValueError(f"invalid hostlist {text!r}")
        if char == "," and depth == 0:
            names.append("".join(current))
            current = []
        else:
            current.append(char)
    names.append("".join(current))
    if depth != 0 or any(not n for n in names):
        raise ValueError(f"invalid hostlist {text!r}")
    return names


def _expand_ranges(body: str, expr: str) -> list[str]:
    values = []
    for part in body.split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part.strip())
        if match is None or (match.group(2) and int(match.group(2)) < int(match.group(1))):
            raise ValueError(f"invalid hostlist {expr!r}")
        low, high = match.group(1), match.group(2) or match.group(1)
        values.extend(str(n).zfill(len(low)) for n in range(int(low), int(high) + 1))
    return values


def array_task(row: SlurmJob, array_job_id: str, task_id: str) -> SlurmJob:
    return dataclasses.replace(
        row, job_id=f"{array_job_id}_{task_id}", array_job_id=array_job_id, array_task_id=task_id
    )


def split_state(value: str) -> tuple[str | None, str | None]:
    """`CANCELLED by 0` -> ("CANCELLED", "by 0"); fixed-width `CANCELLED+` -> "CANCELLED"."""
    word, _, rest = value.strip().partition(" ")
    word = word.rstrip("+")
    return word or None, rest.strip() or None


def node_fields(value: str, field: str) -> dict[str, str | None]:
    """`node_list` as sacct gives it (None when no node is assigned) and `node_names`, the
    expanded hostlist comma-separated; a malformed hostlist rejects the record at `field`."""
    if value.lower() in ("", "none assigned"):
        return {"node_list": None, "node_names": None}
    try:
        names = ",".join(expand_hostlist(value))
    except ValueError as err:
        raise FieldError(field, f"invalid hostlist {value!r}: {err}") from None
    return {"node_list": value, "node_names": names}


def gpu_fields(alloc: GpuTres, req: GpuTres) -> dict[str, int | str | None]:
    """The GPU columns of a row: the counts of both TRES lists, the type and MIG profile of the
    allocation (of the request when the allocation names none)."""
    return {
        "alloc_gpu_count": alloc.count,
        "req_gpu_count": req.count,
        "gpu_type": alloc.gpu_type or req.gpu_type,
        "mig_profile": alloc.mig_profile or req.mig_profile,
    }


def is_uint(text: str) -> bool:
    """ASCII digits of a number a raw table's 64-bit integer column holds."""
    return text.isascii() and text.isdigit() and int(text) <= MAX_INT
