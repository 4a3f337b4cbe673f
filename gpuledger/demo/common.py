"""What several sources share: random draws, time formats, arrival processes, who held a
device when, and the files' text."""

from __future__ import annotations

import bisect
import datetime as dt
import heapq
import itertools
import json
import math
import os
import random
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

HOUR = 3600
DAY = 86400
EPOCH = dt.datetime(1970, 1, 1)
OFFICE_PEAK = 1.6  # the most `office_factor` gives
T = TypeVar("T")
E = TypeVar("E", bound=tuple)
K = TypeVar("K")


# ---------------------------------------------------------------- random draws


def weighted(rng: random.Random, choices: Sequence[tuple[T, float]]) -> T:
    return rng.choices([c for c, _ in choices], weights=[w for _, w in choices])[0]


def log_uniform(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def random_uuid(rng: random.Random) -> str:
    """A version-4 UUID drawn from `rng`."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def random_hex(rng: random.Random, digits: int) -> str:
    return f"{rng.getrandbits(4 * digits):0{digits}x}"


# ---------------------------------------------------------------- time


def iso_z(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_ms(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def iso_us(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def epoch_seconds(t: dt.datetime) -> int:
    return int((t - EPOCH).total_seconds())


def ticks(start: dt.datetime, end: dt.datetime, step: dt.timedelta) -> list[dt.datetime]:
    """start, start + step, ... up to and including `end`."""
    return [start + i * step for i in range((end - start) // step + 1)]


def office_factor(t: dt.datetime) -> float:
    """Relative arrival rate of interactive work: busier on weekday office hours (UTC)."""
    return OFFICE_PEAK if t.weekday() < 5 and 8 <= t.hour < 19 else 0.5


def thinned_arrivals(
    rng: random.Random,
    per_day: float,
    start: dt.datetime,
    end: dt.datetime,
    factor: Callable[[dt.datetime], float] | None = None,
    peak: float = 1.0,
) -> list[dt.datetime]:
    """Whole-second arrival times in [start, end) of a Poisson process of `per_day` times
    `factor(t)` a day: drawn at `peak` times the rate and thinned by `factor` (which never
    exceeds `peak`); without a factor, every draw arrives."""
    rate = per_day * peak / DAY
    t, times = start, []
    while True:
        t += dt.timedelta(seconds=int(rng.expovariate(rate)) + 1)
        if t >= end:
            return times
        if factor is None or rng.random() * peak < factor(t):
            times.append(t)


def poisson_times(
    rng: random.Random, per_day: float, start: dt.datetime, end: dt.datetime, diurnal: bool
) -> list[dt.datetime]:
    """Arrivals at `per_day`, thinned by `office_factor` when `diurnal`."""
    if diurnal:
        return thinned_arrivals(rng, per_day, start, end, office_factor, OFFICE_PEAK)
    return thinned_arrivals(rng, per_day, start, end)


def instants(events: list[E], until: dt.datetime) -> Iterator[tuple[dt.datetime, list[E]]]:
    """A scheduler's clock: pop the heap `events` (tuples led by their time) one instant at
    a time up to `until`, yielding (instant, its events in heap order); events pushed while
    the caller handles an instant are popped in their turn."""
    while events and events[0][0] <= until:
        now = events[0][0]
        batch = []
        while events and events[0][0] == now:
            batch.append(heapq.heappop(events))
        yield now, batch


def dispatch(
    queue: list[tuple[K, int]],
    now: dt.datetime,
    place: Callable[[int, dt.datetime, set[str]], bool],
) -> None:
    """A scheduler's pass over its queue at `now`, in queue order: `place(index, now,
    drained)` starts the entry (True), or leaves it queued and may drain nodes (add them to
    `drained`) that the rest of the pass must not use. Started entries leave the queue."""
    drained: set[str] = set()
    queue[:] = [entry for entry in queue if not place(entry[1], now, drained)]


# ---------------------------------------------------------------- device holdings


@dataclass(frozen=True)
class Holding:
    """One device (GPU, MIG instance, time-slice replica) held from `start` until `end`
    (None: still held at the extraction) by `owner` (a Job or a KubePod)."""

    start: dt.datetime
    end: dt.datetime | None
    owner: object


@dataclass(frozen=True)
class Timeline:
    """A device's holdings in time order; they never overlap."""

    holdings: tuple[Holding, ...]
    starts: tuple[dt.datetime, ...]

    @classmethod
    def of(cls, holdings: Iterable[Holding]) -> Timeline:
        ordered = tuple(sorted(holdings, key=lambda h: h.start))
        for before, after in itertools.pairwise(ordered):
            if before.end is None or before.end > after.start:
                raise AssertionError(f"overlapping holdings at {after.start}")
        return cls(ordered, tuple(h.start for h in ordered))

    def at(self, t: dt.datetime) -> Holding | None:
        index = bisect.bisect_right(self.starts, t) - 1
        if index < 0:
            return None
        holding = self.holdings[index]
        return holding if holding.end is None or t < holding.end else None


# ---------------------------------------------------------------- files


def json_line(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def file_text(lines: Iterable[str]) -> str:
    """The lines, each ended by a newline."""
    return "\n".join(lines) + "\n"


def write_file(out_dir: Path, name: str, text: str, modified: dt.datetime) -> Path:
    """Write `text` to `out_dir/name`, its modification time `modified` (UTC)."""
    path = out_dir / name
    path.write_text(text, encoding="utf-8")
    seconds = (modified - EPOCH).total_seconds()
    os.utime(path, (seconds, seconds))
    return path
