"""The compact state of a game and the layout that names its slots.

A game state is one flat Python list. Its first :data:`HEADER` slots are the machine's
(random generator, counters, the stack of suspended routines, the pending decisions, the
log, the result); every field of the game that can change during play follows at an
offset the compiler fixed for the scenario:

- a global field is one slot; a player field is one slot per seat; an entity field is one
  slot per record (``offset + index``);
- numbers and flags are ints and bools, texts are strs; a reference to a player, a card
  or a record is its index, :data:`NO_REF` (-1) for none, so that the slot always holds
  an int (the native build reads it unboxed); :func:`ref` and :func:`unref` convert;
- a set of cards, players or records is a bitmask int (bit ``i`` is element ``i``); an
  ordered list (a deck, a list of numbers) is a tuple.

Every slot holds an immutable value, so ``S[:]`` is a complete, independent copy.
Everything that cannot change during a game (the map, attributes of records, card texts,
constants, tables) is data of the engine, never part of the state.

:class:`Layout` describes the fields: the runtime writes saves, views and the named state
through it, and refuses a save written for another layout.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "ABI",
    "POSITION_FORMAT",
    "HEADER",
    "RNG",
    "DRAWS",
    "REVEALS",
    "STEPS",
    "TURN",
    "LIMIT",
    "SEED",
    "RESULT",
    "STACK",
    "PENDING",
    "ANSWERS",
    "LOG",
    "UNWIND",
    "Slot",
    "Layout",
    "bits",
    "mask_of",
    "NO_REF",
    "ref",
    "unref",
]

#: the interface between generated engines and this runtime; an engine generated for
#: another ABI is refused with "recompile"
ABI: Final = 3
#: the format a position is written in (saves and positions as JSON, a reference as its
#: index or null): part of every layout's hash, so a position written in another format is
#: refused. Kept apart from :data:`ABI`: ABI 3 changed how the state holds a reference
#: (-1 for none), not what a position says, so positions written under ABI 2 still load.
POSITION_FORMAT: Final = 2

# The header: slots every state has, whatever the game.
RNG: Final = 0  #: splitmix64 state of the game's generator (int)
DRAWS: Final = 1  #: random draws so far (undo stops at a draw)
REVEALS: Final = 2  #: reveals of hidden information so far (undo stops at a reveal)
STEPS: Final = 3  #: decisions applied
TURN: Final = 4  #: the turn number
LIMIT: Final = 5  #: the turn a game may not go beyond (a RulesError: the game runs endlessly)
SEED: Final = 6  #: the seed the game started from
RESULT: Final = 7  #: None, or (winners tuple, tie, reason text)
STACK: Final = 8  #: suspended routines: None or (frame, rest); a frame is (routine, pc, *locals)
PENDING: Final = 9  #: None, or a tuple of decisions (player, site, options, args)
ANSWERS: Final = 10  #: answers given so far to a simultaneous decision: ((player, value), ...)
LOG: Final = 11  #: None or (template, args, audience, previous event)
UNWIND: Final = 12  #: frames collected while suspending (a list, only while the machine runs)
HEADER: Final = 13

#: what a reference slot holds for none
NO_REF: Final = -1


def ref(v: int) -> Any:
    """The value of a reference slot: its index, or None for none (:data:`NO_REF`)."""
    return None if v < 0 else v


def unref(v: Any) -> int:
    """What a reference slot holds for ``v`` (an index, or None for none)."""
    return NO_REF if v is None else v


HEADER_NAMES = (
    "rng",
    "draws",
    "reveals",
    "steps",
    "turn",
    "limit",
    "seed",
    "result",
    "stack",
    "pending",
    "answers",
    "log",
    "unwind",
)


@dataclass(frozen=True)
class Slot:
    """One field of the game and where its values live.

    ``kind`` is how a value is stored: ``int``, ``bool``, ``str``, ``enum`` (the value's
    name), ``ref`` (an index or None), ``set`` (a bitmask of indices), ``seq`` (a tuple).
    ``ref`` names what an index refers to: ``player``, ``card`` or an entity type (for
    ``ref``, ``set`` and ``seq`` of references; None for a tuple of ints); for ``enum``,
    the enum's name.
    ``lo``/``hi`` bound an ``int`` field: an int, or per record a tuple of ints.
    """

    path: str  # "g.vp_stock", "p.vp", "e.army.location"
    offset: int
    count: int
    kind: str
    ref: str | None = None
    visible: str = "all"  # all | owner | none
    optional: bool = False
    lo: Any = None
    hi: Any = None

    @property
    def scope(self) -> str:
        return self.path[0]

    @property
    def name(self) -> str:
        return self.path.rpartition(".")[2]

    @property
    def etype(self) -> str | None:
        return self.path.split(".")[1] if self.scope == "e" else None


class Layout:
    """The slots of a scenario's state, by path; built from the data a generated module
    declares (``LAYOUT``)."""

    def __init__(self, size: int, slots: tuple[Slot, ...]) -> None:
        self.size = size
        self.slots = slots
        self.by_path = {s.path: s for s in slots}
        self.hash = _hash(size, slots)

    @classmethod
    def from_data(cls, size: int, rows: tuple[tuple[Any, ...], ...]) -> Layout:
        return cls(size, tuple(Slot(*row) for row in rows))

    def scope(self, scope: str) -> list[Slot]:
        return [s for s in self.slots if s.scope == scope]


def _hash(size: int, slots: tuple[Slot, ...]) -> str:
    text = repr((POSITION_FORMAT, size, [tuple(vars(s).values()) for s in slots]))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_BITS: dict[int, tuple[int, ...]] = {}
#: the indices in every mask below 256 (most sets of cards, players or records are small)
_BITS8: Final = tuple(tuple(i for i in range(8) if m >> i & 1) for m in range(256))


def bits(mask: int) -> tuple[int, ...]:
    """The indices set in a bitmask, in increasing order (cached)."""
    if 0 <= mask < 256:
        return _BITS8[mask]
    out = _BITS.get(mask)
    if out is None:
        found = []
        i = 0
        m = mask
        while m:
            if m & 1:
                found.append(i)
            m >>= 1
            i += 1
        out = tuple(found)
        if len(_BITS) < 1 << 16:
            _BITS[mask] = out
    return out


def mask_of(indices: Any) -> int:
    """The bitmask of some indices."""
    m = 0
    for i in indices:
        m |= 1 << i
    return m


def engine_data(primary: dict[str, Any], rows: tuple[tuple[Any, ...], ...]) -> dict[str, Any]:
    """The static data of a scenario's engine: what its module gives (``primary``) plus what
    follows from it, so that generated modules stay short and both stay consistent.

    From ``LAYOUT`` rows: ``o_<field>`` offsets. From ``id_<kind>``: ``n_<kind>``,
    ``all_<kind>`` (the indices) and ``k_<kind>__<id>`` (an id's index). From fixed record
    values ``s_e_<type>__<attr>``: ``ix_<type>__<attr>`` (record indices by value) and
    ``ix_<type>__<a>__<b>`` (by the pair of values of two attributes, a < b). From fixed
    player values ``s_p_<field>``: ``ix_player__<field>`` (seat indices by value). For the
    attributes ``ref_attrs`` names (a player or a record: an index), ``ixt_<type>__<attr>``:
    ``ix_<type>__<attr>`` as a tuple indexed by the value, the records of none last (no dict
    lookup), and where one may be none, ``si_e_<type>__<attr>``: the values, -1 for none. From card
    attributes ``card_<attr>``: ``mk_card__<attr>`` (card masks by value), for each enum
    ``e_<enum>`` the masks by its values' positions, ``mkt_card__<attr>__<enum>``, and
    ``card_all``.
    """
    d = dict(primary)
    for row in rows:
        path = row[0]
        scope, _, rest = path.partition(".")
        key = "e_" + rest.replace(".", "__") if scope == "e" else f"{scope}_{rest}"
        d["o_" + key] = row[1]
    for key, names in primary.items():
        if key.startswith("name_") and "lab_" + key[5:] not in primary:
            d["lab_" + key[5:]] = names  # a record's label is its name unless it has its own
    for key, ids in primary.items():
        if not key.startswith("id_"):
            continue
        kind = key[3:]
        d["n_" + kind] = len(ids)
        d["all_" + kind] = tuple(range(len(ids)))
        for i, name in enumerate(ids):
            d[f"k_{kind}__{name}"] = i
        if kind == "card":
            d["card_all"] = (1 << len(ids)) - 1
    for key, values in primary.items():
        if key.startswith("s_e_") and _scalars(values):
            index: dict[Any, tuple[int, ...]] = {}
            for i, v in enumerate(values):
                index[v] = (*index.get(v, ()), i)
            d["ix_" + key[4:]] = index
            # and by the values of two fixed attributes (``ix_<type>__<a>__<b>``, a < b)
            etype, _, attr = key[4:].partition("__")
            for other, more in primary.items():
                prefix = f"s_e_{etype}__"
                if other.startswith(prefix) and other > key and _scalars(more):
                    pairs: dict[Any, tuple[int, ...]] = {}
                    for i, vv in enumerate(zip(values, more, strict=True)):
                        pairs[vv] = (*pairs.get(vv, ()), i)
                    d[f"ix_{etype}__{attr}__{other[len(prefix) :]}"] = pairs
        elif key.startswith("s_p_") and _scalars(values):
            # the seats by the value of a player field no rule changes (``ix_player__<F>``)
            seats: dict[Any, tuple[int, ...]] = {}
            for i, v in enumerate(values):
                seats[v] = (*seats.get(v, ()), i)
            d["ix_player__" + key[4:]] = seats
        elif key.startswith("card_") and _scalars(values):
            masks: dict[Any, int] = {}
            for i, v in enumerate(values):
                masks[v] = masks.get(v, 0) | (1 << i)
            d["mk_card__" + key[5:]] = masks
    # the cards with each value of an enum, by the value's position in the enum (a card
    # attribute of that enum looked up in a loop over its values: compiler/codegen/ordinals.py)
    enums = {k[2:]: v for k, v in primary.items() if k.startswith("e_") and _scalars(v)}
    for key in [k for k in d if k.startswith("mk_card__")]:
        for enum, values in enums.items():
            d[f"mkt_card__{key[9:]}__{enum}"] = tuple(d[key].get(v, 0) for v in values)
    for path, kind in primary.get("ref_attrs", {}).items():
        if "ix_" + path in d:
            by_value = d["ix_" + path]
            # the records with none last: read as ``ixt[k if k is not None else -1]``
            n = d["n_" + kind]
            d["ixt_" + path] = tuple(by_value.get(i, ()) for i in (*range(n), None))
        values = primary.get("s_e_" + path)
        if values is not None and None in values:
            # an optional one as ints, -1 for none: compared with an int, an int compare
            d["si_e_" + path] = tuple(-1 if v is None else v for v in values)
    # a fixed attribute A naming a seat (``seat_attrs``), seen through a fixed player field F:
    # the records by that value (``ix_<type>__<A>_of_<F>``), alone and with each other fixed
    # attribute (names in order, as above)
    for path in primary.get("seat_attrs", ()):
        etype, _, attr = path.partition("__")
        seats = primary[f"s_e_{path}"]
        prefix = f"s_e_{etype}__"
        for key, values in primary.items():
            if not (key.startswith("s_p_") and _scalars(values)):
                continue
            name = f"{attr}_of_{key[4:]}"
            derived = tuple(values[s] for s in seats)
            d[f"ix_{etype}__{name}"] = _by_value(zip(derived, strict=True))
            for other, more in primary.items():
                if other.startswith(prefix) and _scalars(more):
                    b = other[len(prefix) :]
                    first, second = sorted([(name, derived), (b, more)])
                    d[f"ix_{etype}__{first[0]}__{second[0]}"] = _by_value(
                        zip(first[1], second[1], strict=True)
                    )
    return d


def _by_value(rows: Any) -> dict[Any, tuple[int, ...]]:
    """The indices of ``rows`` (tuples of values) by value: one value alone, or a pair."""
    index: dict[Any, tuple[int, ...]] = {}
    for i, row in enumerate(rows):
        v = row[0] if len(row) == 1 else row
        index[v] = (*index.get(v, ()), i)
    return index


def initial_state(
    size: int, header: tuple[Any, ...], rows: tuple[tuple[Any, ...], ...]
) -> list[Any]:
    """The state a scenario starts from: the header, then each field's initial values (the
    last element of its ``LAYOUT`` row)."""
    S = [None] * size
    S[: len(header)] = header
    for row in rows:
        offset, count, values = row[1], row[2], row[-1]
        S[offset : offset + count] = values
    return S


def _scalars(values: Any) -> bool:
    return isinstance(values, tuple) and all(v is None or isinstance(v, (int, str)) for v in values)
