"""extractors.seen_keys: a file's keys kept as hashes in sorted runs give the first line of
every repeated key exactly as a dict of the keys does, whatever the pieces."""

from __future__ import annotations

import random

import numpy as np
import pytest

from extractors.seen_keys import SeenKeys, _Run


def _dict_first_lines(keys: list[str]) -> list[int]:
    first: dict[str, int] = {}
    found = []
    for line, key in enumerate(keys, start=1):
        found.append(first.get(key, 0))
        first.setdefault(key, line)
    return found


@pytest.mark.parametrize("piece", [1, 7, 100, 5000])
def test_first_lines_match_a_dict_of_the_keys(piece: int) -> None:
    rng = random.Random(piece)
    # 5,000 records of 3,000 distinct keys: repeats within a piece and across many
    keys = [f"req-{rng.randrange(3000)}" for _ in range(5000)]
    seen = SeenKeys()
    found: list[int] = []
    for start in range(0, len(keys), piece):
        chunk = keys[start : start + piece]
        found += seen.first_lines(chunk, list(range(start + 1, start + 1 + len(chunk)))).tolist()
    assert found == _dict_first_lines(keys)
    assert seen.count == len(set(keys))
    # runs are merged as they grow: a few, not one a piece
    assert len(seen._runs) <= 2 + int(np.log2(max(1, len(keys) // piece)))


def test_a_key_repeated_only_within_its_piece_names_the_line_in_that_piece() -> None:
    seen = SeenKeys()
    assert seen.first_lines(["a", "b"], [1, 2]).tolist() == [0, 0]
    assert seen.first_lines(["c", "c", "a", "c"], [10, 11, 12, 13]).tolist() == [0, 10, 1, 10]


def test_keys_whose_first_hashes_agree_are_told_apart_by_the_second() -> None:
    """A 64-bit collision of the first hash: the run holds both keys under one first hash;
    each query finds its own line, and a pair it does not hold is not found."""
    first = np.array([5, 5, 9], dtype=np.int64)
    second = np.array([2, 1, 3], dtype=np.int64)
    run = _Run.of(first, second, np.array([40, 30, 50], dtype=np.int64))
    queries_first = np.array([5, 5, 5, 9, 7], dtype=np.int64)
    queries_second = np.array([1, 2, 4, 3, 3], dtype=np.int64)
    assert run.lines_of(queries_first, queries_second).tolist() == [30, 40, 0, 50, 0]
