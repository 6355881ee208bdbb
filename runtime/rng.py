"""Seeded random numbers whose whole state is one int kept in the game state.

The generator is splitmix64 (Steele, Lea, Flood 2014): the state is a 64-bit counter
advanced by a fixed odd constant, and each output is a bijective mix of the counter.
It is fast in pure Python, passes BigCrush, and its state (``S[RNG]``) is one int.
Every draw increments ``S[DRAWS]`` so that undo can refuse to take back chance. Generated
engines carry the same generator (``_roll``); a test checks both give the same numbers.
"""

from __future__ import annotations

from typing import Any

from .layout import DRAWS, RNG

__all__ = ["seed_state", "derive_seed", "roll", "randbelow", "shuffle", "choice"]

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def seed_state(seed: int) -> int:
    """The generator state a game seeded with ``seed`` starts from."""
    return _mix(seed & _MASK)


def derive_seed(seed: int, index: int) -> int:
    """A seed for sub-game ``index`` of a run seeded ``seed`` (stable, well spread, < 2**63)."""
    return _mix((seed & _MASK) ^ _mix(((index + 1) * _GAMMA) & _MASK)) >> 1


def _below(S: list[Any], n: int) -> int:
    # Unbiased: reject the top partial block of the 64-bit range (rarely taken for small n).
    if n <= 0:
        raise ValueError(f"cannot draw below {n}")
    limit = _MASK + 1 - ((_MASK + 1) % n)
    x = S[RNG]
    while True:
        x = (x + _GAMMA) & _MASK
        z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        if z < limit:
            S[RNG] = x
            return z % n


def randbelow(S: list[Any], n: int) -> int:
    """A uniform int in ``0 .. n-1``; counts as one draw."""
    S[DRAWS] += 1
    return _below(S, n)


def roll(S: list[Any], sides: int = 6) -> int:
    """A die roll ``1 .. sides``; counts as one draw."""
    S[DRAWS] += 1
    return _below(S, sides) + 1


def choice(S: list[Any], seq: list[Any]) -> Any:
    """A uniform element of a non-empty list; counts as one draw."""
    S[DRAWS] += 1
    return seq[_below(S, len(seq))]


def shuffle(S: list[Any], lst: list[Any]) -> None:
    """Shuffle ``lst`` in place (Fisher-Yates); the whole shuffle counts as one draw."""
    S[DRAWS] += 1
    for i in range(len(lst) - 1, 0, -1):
        j = _below(S, i + 1)
        lst[i], lst[j] = lst[j], lst[i]
