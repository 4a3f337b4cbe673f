"""The keys a file has shown so far, in little memory: to quarantine a record whose key (a
gateway request's `request_id`) repeats one on an earlier line, naming that line, while the
file is read piece by piece (extractors.textfile.land_pieces).

A dict of the keys and their lines took about 160 bytes a key (the string, its line and the
dict's slot): 1.31M requests in one file peaked at 449 MiB, and memory grew with the file.
Here a piece's keys are looked up together when the piece ends, and then kept as two
independent 64-bit hashes and the line (24 bytes a key) in runs sorted by the first hash,
merged as they grow (each lookup is a binary search of every run). Two keys are the same when
both hashes are: two different keys of one file agree on 128 bits with a probability of about
n**2 / 2**129 (1e-25 for 100M keys). The hashes are Python's string hash of the key and of
the key with a suffix (SipHash, seeded per process: a file is read in one process). A gateway
log's parse takes about 8% longer than with the dict (4.0 s against 3.7 s for 327,680
requests).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SUFFIX = "\x1f"


@dataclass(frozen=True)
class _Run:
    """Keys in order of their first hash, with the second and the line each was first on."""

    first: np.ndarray
    second: np.ndarray
    lines: np.ndarray

    @classmethod
    def of(cls, first: np.ndarray, second: np.ndarray, lines: np.ndarray) -> _Run:
        """In order of the first hash (a stable sort: two runs joined are merged in linear
        time); keys with the same first hash are told apart by `lines_of`."""
        order = np.argsort(first, kind="stable")
        return cls(first[order], second[order], lines[order])

    def __len__(self) -> int:
        return len(self.first)

    def lines_of(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """The line of each (first, second) hash pair in this run, 0 where it is not."""
        found = np.zeros(len(first), dtype=np.int64)
        start = np.searchsorted(self.first, first, side="left")
        end = np.searchsorted(self.first, first, side="right")
        for offset in range(int((end - start).max(initial=0))):
            at = start + offset
            hit = (at < end) & (self.second[np.minimum(at, len(self) - 1)] == second)
            found[hit] = self.lines[at[hit]]
        return found


class SeenKeys:
    """Every key of a file so far, and the line it was first on."""

    def __init__(self) -> None:
        self._runs: list[_Run] = []

    def first_lines(self, keys: list[str], lines: list[int]) -> np.ndarray:
        """For the keys of the next piece, in file order, with their lines: the line of each
        key's first occurrence on an earlier line (of an earlier piece or of this one), 0 for
        a key seen first here. The keys seen first here are kept."""
        count = len(keys)
        first = np.fromiter(map(hash, keys), dtype=np.int64, count=count)
        second = np.fromiter((hash(key + SUFFIX) for key in keys), dtype=np.int64, count=count)
        at = np.asarray(lines, dtype=np.int64)
        # in (first, second, line) order (a stable sort of lines already in order): a key's
        # rows together, its first line first; sorted keys also make numpy's binary searches
        # of the runs walk forward
        order = np.lexsort((second, first))
        first, second, at = first[order], second[order], at[order]
        earlier = np.zeros(count, dtype=np.int64)
        for run in self._runs:
            found = run.lines_of(first, second)
            earlier = np.where(earlier == 0, found, earlier)
        starts = np.ones(count, dtype=bool)
        starts[1:] = (first[1:] != first[:-1]) | (second[1:] != second[:-1])
        group_first_line = at[np.maximum.accumulate(np.where(starts, np.arange(count), 0))]
        # a key seen in an earlier piece names that line; else its first line here
        found_here = np.where(earlier != 0, earlier, np.where(starts, 0, group_first_line))
        result = np.empty(count, dtype=np.int64)
        result[order] = found_here
        new = starts & (earlier == 0)
        if new.any():
            self._add(_Run.of(first[new], second[new], at[new]))
        return result

    def _add(self, run: _Run) -> None:
        """Keep the runs few: a run is merged into the one before it while that one is not
        more than twice its size (so there are about log2(keys / piece) runs)."""
        self._runs.append(run)
        while len(self._runs) > 1 and len(self._runs[-2]) <= 2 * len(self._runs[-1]):
            last, before = self._runs.pop(), self._runs.pop()
            self._runs.append(
                _Run.of(
                    np.concatenate((before.first, last.first)),
                    np.concatenate((before.second, last.second)),
                    np.concatenate((before.lines, last.lines)),
                )
            )

    @property
    def count(self) -> int:
        return sum(len(run) for run in self._runs)
