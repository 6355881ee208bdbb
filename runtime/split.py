"""The options of an `allocate` decision: every split of points over targets, never listed.

A power with 9 points and 20 countries, at most 5 on one, has millions of splits: the
options of such a decision are a :class:`Split`, a read-only sequence that numbers them.
``split[i]`` is the ``i``-th split (0 is "place nothing"), ``len(split)`` how many there
are, ``v in split`` whether ``v`` is one, ``split.index(v)`` its number. Everything that
treats options as a sequence (random bots, playouts, ``apply_index``) works unchanged; a
random index is a uniformly random split.

A split is written as the targets with repeats, one element per point, in the order of the
targets: ``(3, 3, 7)`` puts two points on target 3 and one on target 7.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

__all__ = ["Split", "Changes"]


class Split:
    """Every way to place at most ``points`` points on ``targets``, at most ``max_each`` on
    one. Immutable and hashable (it sits in a state's pending decision)."""

    __slots__ = ("points", "targets", "max_each", "_ways")

    def __init__(self, points: int, targets: Any, max_each: int | None = None) -> None:
        self.targets: tuple[Any, ...] = tuple(dict.fromkeys(targets))
        self.points = max(0, int(points))
        cap = self.points if max_each is None else max(0, int(max_each))
        self.max_each = min(cap, self.points)
        self._ways = _ways_table(len(self.targets), self.points, self.max_each)

    # -- counting: ways(i, r) = splits of at most r points over targets i.. (each ≤ max_each)

    def __len__(self) -> int:
        return self._ways[0][self.points]

    def __getitem__(self, i: int) -> tuple[Any, ...]:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"split {i} of {n}")
        out: list[Any] = []
        left = self.points
        ways = self._ways
        most = self.max_each
        for t, target in enumerate(self.targets):
            if left == 0:
                break  # nothing left to place: no point on this target or the next ones
            # splits with k points on this target come in order k = 0, 1, ...
            below = ways[t + 1]
            block = below[left]
            if i < block:
                continue  # k = 0, most targets of a random split
            i -= block
            for k in range(1, min(most, left) + 1):
                block = below[left - k]
                if i < block:
                    out.extend([target] * k)
                    left -= k
                    break
                i -= block
        return tuple(out)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        for i in range(len(self)):
            yield self[i]

    def counts(self, value: Any) -> list[int] | None:
        """Points per target of ``value`` (targets with repeats), or None if it is no split."""
        if not isinstance(value, (tuple, list)):
            return None
        where = {t: k for k, t in enumerate(self.targets)}
        counts = [0] * len(self.targets)
        last = -1
        for x in value:
            k = where.get(x)
            if k is None or k < last:
                return None
            last = k
            counts[k] += 1
        if sum(counts) > self.points or any(c > self.max_each for c in counts):
            return None
        return counts

    def __contains__(self, value: Any) -> bool:
        return self.counts(value) is not None

    def index(self, value: Any) -> int:
        counts = self.counts(value)
        if counts is None:
            raise ValueError(f"{value!r} is not a split of {self!r}")
        i = 0
        left = self.points
        ways = self._ways
        for t, c in enumerate(counts):
            for k in range(c):
                i += ways[t + 1][left - k]
            left -= c
        return i

    def of_counts(self, counts: dict[Any, int]) -> tuple[Any, ...]:
        """The split with ``counts[target]`` points on each target (targets in order)."""
        return tuple(t for t in self.targets for _ in range(counts.get(t, 0)))

    # -- identity

    def _key(self) -> tuple[Any, ...]:
        return (self.points, self.targets, self.max_each)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Split) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Split({self.points}, {self.targets!r}, max_each={self.max_each})"

    def __reduce__(self) -> Any:
        return (Split, self._key())


@lru_cache(maxsize=256)
def _ways_table(n: int, points: int, max_each: int) -> tuple[tuple[int, ...], ...]:
    """``ways[i][r]``: the splits of at most ``r`` points over the last ``n - i`` targets."""
    rows: list[tuple[int, ...]] = [tuple(1 for _ in range(points + 1))]
    for _ in range(n):
        below = rows[-1]
        rows.append(
            tuple(sum(below[r - k] for k in range(min(max_each, r) + 1)) for r in range(points + 1))
        )
    rows.reverse()
    return tuple(rows)


class Changes:
    """The options of a `report` decision: every change of one external fact, numbered
    without being listed (an int fact with bounds 0..999 has a thousand). Element ``i`` is
    ``(state index, new value)``; ``facts`` holds ``(state index, values, current value)``."""

    __slots__ = ("facts", "_starts", "_n")

    def __init__(self, facts: tuple[tuple[int, tuple[Any, ...], Any], ...]) -> None:
        self.facts = facts
        starts = []
        n = 0
        for _k, values, now in facts:
            starts.append(n)
            n += len(values) - (now in values)
        self._starts = tuple(starts)
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> tuple[int, Any]:
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        f = bisect.bisect_right(self._starts, i) - 1
        k, values, now = self.facts[f]
        j = i - self._starts[f]
        if now in values and j >= values.index(now):
            j += 1
        return (k, values[j])

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        for i in range(self._n):
            yield self[i]

    def __contains__(self, change: Any) -> bool:
        if not isinstance(change, (tuple, list)) or len(change) != 2:
            return False
        for k, values, now in self.facts:
            if k == change[0]:
                return change[1] in values and change[1] != now
        return False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Changes) and self.facts == other.facts

    def __hash__(self) -> int:
        return hash(self.facts)

    def __reduce__(self) -> Any:
        return (Changes, (self.facts,))
