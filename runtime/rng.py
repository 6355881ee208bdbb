"""Seeded random numbers whose whole state is one int kept in the game state.

The generator is splitmix64 (Steele, Lea, Flood 2014): the state is a 64-bit counter
advanced by a fixed odd constant, and each output is a bijective mix of the counter.
It is fast in pure Python, passes BigCrush, and its state (``S[RNG]``) is one int.
Every draw increments ``S[DRAWS]`` so that undo can refuse to take back chance. Generated
engines roll with :func:`roll` (through ``rulecraft.runtime.prelude``).

Die values can be fixed in advance for one game (:func:`fix_rolls`; examples of play script
their dice with it): the generator still draws as usual, so the rest of the game's chance is
as it would have been, but the die shows the value fixed. Shuffles never take fixed values.
"""

from __future__ import annotations

from typing import Any, Final

from .layout import DRAWS, RNG
from .machine import RulesError

__all__ = [
    "seed_state",
    "derive_seed",
    "roll",
    "randbelow",
    "shuffle",
    "choice",
    "FIXED_ROLLS",
    "FixedRollError",
    "fix_rolls",
    "fixed_left",
    "unfix_rolls",
    "fixed_roll",
]

_MASK: Final = (1 << 64) - 1
_GAMMA: Final = 0x9E3779B97F4A7C15


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


def roll(S: list[Any], sides: int = 6, fixed: bool = True) -> int:
    """A die roll ``1 .. sides`` (or the value fixed for it, unless not ``fixed``: a shuffle's
    draws); counts as one draw. The die of every generated engine
    (``rulecraft.runtime.prelude``), so written out in full: it is in the hot loop."""
    if sides <= 0:
        raise RulesError(f"cannot roll a die with {sides} sides")
    S[DRAWS] += 1
    # Unbiased: reject the top partial block of the 64-bit range (rarely taken for small n).
    limit = _MASK + 1 - ((_MASK + 1) % sides)
    x: int = S[RNG]
    while True:
        x = (x + _GAMMA) & _MASK
        z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        if z < limit:
            S[RNG] = x
            if FIXED_ROLLS and fixed:
                return fixed_roll(S, sides, z % sides + 1)
            return z % sides + 1


def randbelow(S: list[Any], n: int) -> int:
    """A uniform int in ``0 .. n-1``; counts as one draw."""
    if n <= 0:
        raise ValueError(f"cannot draw below {n}")
    return roll(S, n, False) - 1


def choice(S: list[Any], seq: list[Any]) -> Any:
    """A uniform element of a non-empty list; counts as one draw."""
    return seq[randbelow(S, len(seq))]


def shuffle(S: list[Any], lst: list[Any]) -> None:
    """Shuffle ``lst`` in place (Fisher-Yates); the whole shuffle counts as one draw."""
    draws = S[DRAWS]
    for i in range(len(lst) - 1, 0, -1):
        j = roll(S, i + 1, False) - 1
        lst[i], lst[j] = lst[j], lst[i]
    S[DRAWS] = draws + 1


#: The die values fixed in advance, by game: ``id(S)`` -> ``(S, values not rolled yet)``.
#: :func:`roll` looks here only while it is not empty.
FIXED_ROLLS: dict[int, tuple[list[Any], list[int]]] = {}


class FixedRollError(RulesError):
    """A fixed value that the die rolled cannot show (``value`` on a die of ``sides``)."""

    def __init__(self, value: int, sides: int) -> None:
        super().__init__(f"a die of {sides} sides cannot show {value} (a fixed roll)")
        self.value = value
        self.sides = sides


def fix_rolls(S: list[Any], values: list[int]) -> None:
    """The next die rolls of the game whose state is ``S`` (this list, not a copy of it) show
    ``values``, in order, after the values fixed before and not rolled yet."""
    entry = FIXED_ROLLS.get(id(S))
    left = entry[1] if entry is not None and entry[0] is S else []
    FIXED_ROLLS[id(S)] = (S, left + [int(v) for v in values])


def fixed_left(S: list[Any]) -> list[int]:
    """The values fixed for the game in ``S`` and not rolled yet."""
    entry = FIXED_ROLLS.get(id(S))
    return list(entry[1]) if entry is not None and entry[0] is S else []


def unfix_rolls(S: list[Any]) -> list[int]:
    """Stop fixing the rolls of the game in ``S``; returns the values not rolled."""
    left = fixed_left(S)
    entry = FIXED_ROLLS.get(id(S))
    if entry is not None and entry[0] is S:
        del FIXED_ROLLS[id(S)]
    return left


def fixed_roll(S: list[Any], sides: int, rolled: int) -> int:
    """What a die of ``sides`` that the generator rolled as ``rolled`` shows: the next value
    fixed for the game in ``S`` if there is one (a :class:`FixedRollError` if the die cannot
    show it), else ``rolled``."""
    entry = FIXED_ROLLS.get(id(S))
    if entry is None or entry[0] is not S or not entry[1]:
        return rolled
    v = entry[1].pop(0)
    if not 1 <= v <= sides:
        raise FixedRollError(v, sides)
    return v
