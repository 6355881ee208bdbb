"""The numbering of an `allocate` decision's splits (``rulecraft.runtime.split.Split``):
``split[i]`` is the ``i``-th split with the first target's count most significant, counts
ascending, and ``index`` undoes it, whatever the shape (points, targets, cap on one)."""

from __future__ import annotations

import itertools

import pytest
from rulecraft.runtime import Split


def brute(points: int, targets: tuple[str, ...], most: int) -> list[tuple[str, ...]]:
    """Every split listed: count vectors in lexicographic order, each within the caps."""
    out = []
    for counts in itertools.product(range(min(most, points) + 1), repeat=len(targets)):
        if sum(counts) <= points:
            out.append(tuple(t for t, c in zip(targets, counts, strict=True) for _ in range(c)))
    return out


@pytest.mark.parametrize(
    ("points", "n", "most"),
    [(0, 3, 0), (1, 1, 1), (3, 4, 3), (5, 4, 2), (6, 5, 3), (4, 6, 1), (7, 3, 7), (2, 0, 2)],
)
def test_every_index_names_the_split_of_that_rank(points, n, most):
    targets = tuple("abcdefg"[:n])
    s = Split(points, targets, most)
    every = brute(points, targets, most)
    assert len(s) == len(every)
    assert [s[i] for i in range(len(s))] == every
    assert [s.index(v) for v in every] == list(range(len(every)))
    assert s[-1] == every[-1]
    with pytest.raises(IndexError):
        s[len(s)]
