"""The state by name: a readable dict for display, a live named view for tests and tools,
and saves written through the layout.

- :func:`to_named` turns a state (or a view of one) into plain JSON data by field name:
  ``{"g": {...}, "p": [{...}, ...], "e": {type: [{...}, ...]}, "turn": ..., "log": ...}``.
  References are indices as in the state (``None`` for none), sets of cards or records are
  lists of indices, hidden values are ``{"hidden": n}`` (a hidden list: its length) or
  ``{"hidden": true}``.
- :class:`NamedState` is the same shape, live: reading a field reads the state, assigning
  one writes it (``g.state["p"][0]["vp"] = 3``). Slow; for tests, examples and tools.
- :func:`save` / :func:`load` write and read a *position* as JSON by field name with ids
  (``"location": "neutral"``) and the layout's hash; a position for another layout, or with
  a value outside its field's type or bounds, is refused with a message naming the field. A
  position is not a save of a game: nothing verifies that the rules can reach it (saves of
  games are their decisions, :mod:`rulecraft.runtime.saves`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping, MutableSequence
from typing import Any

from .layout import (
    ANSWERS,
    DRAWS,
    LIMIT,
    LOG,
    NO_REF,
    PENDING,
    RESULT,
    REVEALS,
    RNG,
    SEED,
    STACK,
    STEPS,
    TURN,
    Slot,
    bits,
    mask_of,
    ref,
    unref,
)
from .machine import GameError

__all__ = [
    "Hidden",
    "Fog",
    "fog_label",
    "fog_lines",
    "to_named",
    "NamedState",
    "save",
    "load",
    "SaveError",
    "log_events",
]


class SaveError(GameError):
    """A save that cannot be loaded into this game (a decision that does not replay, another
    layout, a bad value), or a game that cannot be saved (its state was edited by hand)."""


class Hidden:
    """What a view puts in place of a value its player may not see."""

    __slots__ = ("size",)

    def __init__(self, size: int | None) -> None:
        self.size = size  # the length of a hidden list, None for any other value

    def named(self) -> dict[str, Any]:
        return {"hidden": True if self.size is None else self.size}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hidden) and other.size == self.size

    def __hash__(self) -> int:
        return hash(("hidden", self.size))

    def __repr__(self) -> str:
        return f"Hidden({self.size})"


class Fog(Hidden):
    """What a view puts in place of a record's position in the fog of war (``fog:``), and of
    the record where a log line names it: the record's type, its owner and the places where
    that owner has records in the fog (the same for each of them: which record stands where
    is not told)."""

    __slots__ = ("etype", "owner", "where")

    def __init__(self, etype: str, owner: Any, where: tuple[Any, ...] = ()) -> None:
        super().__init__(None)
        self.etype = etype
        self.owner = owner
        self.where = where

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fog) and (other.etype, other.owner, other.where) == (
            self.etype,
            self.owner,
            self.where,
        )

    def __hash__(self) -> int:
        return hash(("fog", self.etype, self.owner, self.where))

    def __repr__(self) -> str:
        return f"Fog({self.etype!r}, {self.owner!r}, {self.where!r})"


def fog_label(spec: Any, etype: str, owner: Any) -> str:
    """How a record of ``etype`` in the fog is named: its type's ``fog: label``."""
    label = spec.data["fog"][etype][1]
    return label.replace("{owner}", spec.name_of("player", owner))


def fog_lines(spec: Any, S: list[Any]) -> list[str]:
    """What a view (``S``) shows of the records in the fog: "Red force of unknown size at
    Wood", one line per owner and place, in the order of the places' records."""
    seen: set[Any] = set()
    out = []
    for etype, (at, *_rest) in sorted((spec.data.get("fog") or {}).items()):
        slot = spec.layout.by_path.get(f"e.{etype}.{at}")
        if slot is None:
            continue
        for k in range(slot.offset, slot.offset + slot.count):
            v = S[k]
            if isinstance(v, Fog) and v not in seen:
                seen.add(v)
                place = spec.data["fog"][etype][3]
                for x in v.where:
                    out.append(f"{fog_label(spec, etype, v.owner)} at {spec.name_of(place, x)}")
    return out


# ---------------------------------------------------------------------------- values


def _named_value(slot: Slot, v: Any) -> Any:
    if isinstance(v, Hidden):
        return v.named()
    if slot.kind == "set":
        return list(bits(v))
    if slot.kind == "seq":
        return list(v)
    if slot.kind == "ref":
        return ref(v)
    return v


def _slot_values(spec: Any, S: list[Any], slot: Slot) -> list[Any]:
    return [_named_value(slot, S[slot.offset + i]) for i in range(slot.count)]


def log_events(S: list[Any]) -> list[tuple[int, tuple[Any, ...], Any]]:
    """The log's events in order: ``(template, args, audience)``."""
    out = []
    node = S[LOG]
    while node:
        out.append((node[0], node[1], node[2]))
        node = node[3]
    out.reverse()
    return out


def log_lines(spec: Any, S: list[Any]) -> list[list[Any]]:
    """The log as ``[text, audience]`` lines (audience None: everyone; else a list)."""
    return [
        [spec.render(t, a, S), None if aud is None else list(aud)] for t, a, aud in log_events(S)
    ]


def _static(spec: Any, key: str) -> Any:
    return spec.data.get(key)


def to_named(spec: Any, S: list[Any], viewer: Any = "absent") -> dict[str, Any]:
    """Plain JSON data of a state (or a view) by field name."""
    seats = list(spec.seats)
    out: dict[str, Any] = {
        "game": spec.game,
        "scenario": spec.scenario,
        "seats": seats,
        "seed": S[SEED],
        "draws": S[DRAWS],
        "reveals": S[REVEALS],
        "steps": S[STEPS],
        "turn": S[TURN],
        "c": dict(spec.constants),
    }
    if not isinstance(S[RNG], Hidden):
        out["rng"] = S[RNG]
    by_path = spec.layout.by_path
    g: dict[str, Any] = {}
    for key in spec.global_fields:
        slot = by_path.get("g." + key)
        g[key] = _named_value(slot, S[slot.offset]) if slot else _static(spec, "s_g_" + key)
    out["g"] = g
    players = []
    for i, seat in enumerate(seats):
        pd: dict[str, Any] = {"id": seat, "name": spec.seat_labels[i]}
        for key in spec.player_fields:
            slot = by_path.get("p." + key)
            if slot is not None:
                pd[key] = _named_value(slot, S[slot.offset + i])
            else:
                pd[key] = _static_named(spec, "s_p_" + key, i)
        players.append(pd)
    out["p"] = players
    ents: dict[str, Any] = {}
    for tname, (statics, slots) in _records(spec).items():
        recs = []
        for j, static in enumerate(statics):
            rec = dict(static)
            for key, slot in slots:
                rec[key] = _named_value(slot, S[slot.offset + j])
            recs.append(rec)
        ents[tname] = recs
    out["e"] = ents
    out["stack"] = named_stack(spec, S)
    pending: tuple[Any, ...] = S[PENDING] or ()
    out["pending"] = [named_decision(spec, S, d) for d in pending] or None
    out["simultaneous"] = bool(pending) and spec.sites[pending[0][1]].simultaneous
    answers = S[ANSWERS] or ()
    out["answers"] = {str(p): v for p, v in answers if not isinstance(v, Hidden)}
    out["log"] = log_lines(spec, S)
    if spec.data.get("fog"):
        out["fog"] = fog_lines(spec, S)
    out["result"] = named_result(S)
    if viewer != "absent":
        out["viewer"] = viewer
    return out


def _records(spec: Any) -> dict[str, tuple[tuple[dict[str, Any], ...], tuple[Any, ...]]]:
    """Per table of ``spec``: each record's fields that never change (id, name, static
    fields), in field order with a placeholder for the others, and the fields kept in the
    state with their slots. Made once per spec: a board of thousands of hexes is mostly
    static, and every view names it. The static values' lists are shared between views:
    they are read, never changed."""
    made = spec.__dict__.get("_named_records")
    if made is not None:
        return made
    game, by_path = spec.data, spec.layout.by_path
    made = {}
    for tname, fields in spec.entity_fields.items():
        slots = tuple(
            (key, slot) for key in fields if (slot := by_path.get(f"e.{tname}.{key}")) is not None
        )
        statics = []
        for j, rid in enumerate(game["id_" + tname]):
            rec: dict[str, Any] = {"id": rid, "name": game["name_" + tname][j]}
            for key in fields:
                rec[key] = (
                    None
                    if f"e.{tname}.{key}" in by_path
                    else _static_named(spec, f"s_e_{tname}__{key}", j)
                )
            statics.append(rec)
        made[tname] = (tuple(statics), slots)
    spec.__dict__["_named_records"] = made
    return made


def _static_named(spec: Any, key: str, i: int) -> Any:
    values = spec.data.get(key)
    if values is None:
        return None
    v = values[i]
    return list(v) if isinstance(v, tuple) else v


def named_decision(spec: Any, S: list[Any], d: tuple[Any, ...]) -> dict[str, Any]:
    site = spec.sites[d[1]]
    out: dict[str, Any] = {"player": d[0], "kind": site.kind, "prompt": spec.prompt(d, S)}
    if isinstance(d[2], Hidden):
        return out
    if site.options.startswith("alloc:"):
        split = d[2]
        kind = site.options[6:]
        out["allocate"] = {
            "points": split.points,
            "max_each": split.max_each,
            "targets": [spec.target_id(kind, t) for t in split.targets],
            "options": len(split),
        }
        return out
    if site.options == "report":
        out["report"] = {"changes": len(d[2])}  # every value of every fact: not listed
        return out
    if site.options == "offer":
        # every deal the window allows, the pass included: not listed (a hex-and-counter
        # game's negotiation window may have over 100,000); Decision.options numbers them
        out["offer"] = {"options": len(d[2]) + 1}
        return out
    out["options"] = [list(o) for o in spec.options(d, S)]
    return out


def named_result(S: list[Any]) -> dict[str, Any] | None:
    r = S[RESULT]
    if r is None:
        return None
    return {"winners": list(r[0]), "tie": bool(r[1]), "reason": r[2]}


def named_stack(spec: Any, S: list[Any]) -> list[dict[str, Any]]:
    frames = []
    node = S[STACK]
    while node is not None:
        F = node[0]
        frames.append(
            {
                "routine": spec.routine_names[F[0]],
                "pc": F[1],
                "locals": [_jsonable(x) for x in F[2:]],
            }
        )
        node = node[1]
    return frames


def _jsonable(v: Any) -> Any:
    if isinstance(v, (tuple, list)):
        return [_jsonable(x) for x in v]
    if isinstance(v, Hidden):
        return v.named()
    return v


# ---------------------------------------------------------------------------- live view


class NamedState(MutableMapping[str, Any]):
    """A live, named view of a game's state: ``g.state["p"][0]["vp"]`` reads the state,
    assigning writes it. Constants (``["c"]``) switch the game to a variant of its engine."""

    def __init__(self, game: Any) -> None:
        self._game = game

    @property
    def _S(self) -> list[Any]:
        return self._game.raw

    def _edited(self, why: str = "its state was edited by name (game.state[...] = ...)") -> None:
        """Mark the game as no longer the one its decisions made (it cannot be saved as a
        game, only as a position)."""
        mark = getattr(self._game, "_edit", None)
        if mark is not None:
            mark(why)

    @property
    def _spec(self) -> Any:
        return self._game.spec

    def __getitem__(self, key: str) -> Any:
        S, spec = self._S, self._spec
        header = {
            "rng": RNG,
            "draws": DRAWS,
            "reveals": REVEALS,
            "steps": STEPS,
            "turn": TURN,
            "seed": SEED,
            "limit": LIMIT,
        }
        if key in header:
            return S[header[key]]
        if key == "game":
            return spec.game
        if key == "scenario":
            return spec.scenario
        if key == "seats":
            return list(spec.seats)
        if key == "g":
            return _Fields(self, "g", 0)
        if key == "p":
            return [_Fields(self, "p", i) for i in range(len(spec.seats))]
        if key == "e":
            return {t: _Records(self, t) for t in spec.entity_fields}
        if key == "c":
            return _Constants(self._game)
        if key == "answers":
            return _Answers(self)
        if key == "log":
            return log_lines(spec, S)
        if key == "pending":
            pending = S[PENDING]
            return [named_decision(spec, S, d) for d in pending] if pending else None
        if key == "simultaneous":
            pending = S[PENDING]
            return bool(pending) and spec.sites[pending[0][1]].simultaneous
        if key == "result":
            return named_result(S)
        if key == "stack":
            return named_stack(spec, S)
        raise KeyError(key)

    def __setitem__(self, key: str, value: Any) -> None:
        header = {"rng": RNG, "draws": DRAWS, "reveals": REVEALS, "steps": STEPS, "turn": TURN}
        header.update(seed=SEED, limit=LIMIT)
        if key not in header:
            raise KeyError(f"{key!r} cannot be assigned (assign its fields)")
        if key != "limit":  # the turn limit is a setting of the game, saved with it
            self._edited()
        self._S[header[key]] = value

    def __delitem__(self, key: str) -> None:
        raise TypeError("the fields of a state cannot be deleted")

    def __iter__(self) -> Iterator[str]:
        yield from ("game", "scenario", "seats", "seed", "rng", "draws", "reveals", "steps")
        yield from ("turn", "c", "g", "p", "e", "stack", "pending", "simultaneous", "answers")
        yield from ("log", "result")

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _LiveMapping(MutableMapping[str, Any]):
    """A mapping read and written in place in a state; equal to any mapping with the same
    items (``g.state["p"][0] == h.state["p"][0]``)."""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class _Fields(_LiveMapping):
    """The fields of the globals (``scope == "g"``) or of one seat (``"p"``, ``index``)."""

    def __init__(self, owner: NamedState, scope: str, index: int) -> None:
        self._owner = owner
        self._scope = scope
        self._index = index

    def _names(self) -> tuple[str, ...]:
        spec = self._owner._spec
        return spec.global_fields if self._scope == "g" else spec.player_fields

    def __getitem__(self, key: str) -> Any:
        spec, S = self._owner._spec, self._owner._S
        i = self._index
        if self._scope == "p" and key in ("id", "name"):
            return spec.seats[i] if key == "id" else spec.seat_labels[i]
        if key not in self._names():
            raise KeyError(key)
        slot = spec.layout.by_path.get(f"{self._scope}.{key}")
        if slot is None:
            return (
                _static_named(spec, f"s_{self._scope}_{key}", i)
                if self._scope == "p"
                else (spec.data.get(f"s_g_{key}"))
            )
        k = slot.offset + (i if self._scope == "p" else 0)
        if slot.kind in ("set", "seq"):
            return _ListField(S, k, slot, self._owner)
        return ref(S[k]) if slot.kind == "ref" else S[k]

    def __setitem__(self, key: str, value: Any) -> None:
        spec, S = self._owner._spec, self._owner._S
        slot = spec.layout.by_path.get(f"{self._scope}.{key}")
        if slot is None:
            raise KeyError(f"{self._scope}.{key} is fixed in this game (no rule changes it)")
        k = slot.offset + (self._index if self._scope == "p" else 0)
        S[k] = _stored(slot, value)
        self._owner._edited()

    def __delitem__(self, key: str) -> None:
        raise TypeError("fields cannot be deleted")

    def __iter__(self) -> Iterator[str]:
        if self._scope == "p":
            yield from ("id", "name")
        yield from self._names()

    def __len__(self) -> int:
        return len(self._names()) + (2 if self._scope == "p" else 0)


class _Records(MutableSequence[Any]):
    def __init__(self, owner: NamedState, tname: str) -> None:
        self._owner = owner
        self._tname = tname

    def __getitem__(self, i: Any) -> Any:
        n = len(self)
        if isinstance(i, slice):
            return [self[j] for j in range(n)[i]]
        if not -n <= i < n:
            raise IndexError(i)
        return _Record(self._owner, self._tname, i % n)

    def __len__(self) -> int:
        return len(self._owner._spec.data["id_" + self._tname])

    def __setitem__(self, i: Any, value: Any) -> None:
        raise TypeError("records cannot be replaced; assign their fields")

    def __delitem__(self, i: Any) -> None:
        raise TypeError("records cannot be removed")

    def insert(self, index: int, value: Any) -> None:
        raise TypeError("records cannot be added")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, _Records)):
            return list(self) == list(other)
        return NotImplemented


class _Record(_LiveMapping):
    def __init__(self, owner: NamedState, tname: str, index: int) -> None:
        self._owner = owner
        self._tname = tname
        self._index = index

    def __getitem__(self, key: str) -> Any:
        spec, S = self._owner._spec, self._owner._S
        t, i = self._tname, self._index
        if key == "id":
            return spec.data["id_" + t][i]
        if key == "name":
            return spec.data["name_" + t][i]
        if key not in spec.entity_fields[t]:
            raise KeyError(key)
        slot = spec.layout.by_path.get(f"e.{t}.{key}")
        if slot is None:
            return _static_named(spec, f"s_e_{t}__{key}", i)
        if slot.kind in ("set", "seq"):
            return _ListField(S, slot.offset + i, slot, self._owner)
        return ref(S[slot.offset + i]) if slot.kind == "ref" else S[slot.offset + i]

    def __setitem__(self, key: str, value: Any) -> None:
        spec, S = self._owner._spec, self._owner._S
        slot = spec.layout.by_path.get(f"e.{self._tname}.{key}")
        if slot is None:
            raise KeyError(f"{self._tname}.{key} is fixed in this game (no rule changes it)")
        S[slot.offset + self._index] = _stored(slot, value)
        self._owner._edited()

    def __delitem__(self, key: str) -> None:
        raise TypeError("fields cannot be deleted")

    def __iter__(self) -> Iterator[str]:
        yield from ("id", "name")
        yield from self._owner._spec.entity_fields[self._tname]

    def __len__(self) -> int:
        return 2 + len(self._owner._spec.entity_fields[self._tname])


class _ListField(MutableSequence[Any]):
    """A list field (a set or an ordered list) read and written in place."""

    def __init__(self, S: list[Any], k: int, slot: Slot, owner: NamedState | None = None) -> None:
        self._S = S
        self._k = k
        self._slot = slot
        self._owner = owner

    def _items(self) -> list[Any]:
        v = self._S[self._k]
        return list(bits(v)) if self._slot.kind == "set" else list(v)

    def _write(self, items: list[Any]) -> None:
        self._S[self._k] = _stored(self._slot, items)
        if self._owner is not None:
            self._owner._edited()

    def __getitem__(self, i: Any) -> Any:
        return self._items()[i]

    def __setitem__(self, i: Any, value: Any) -> None:
        items = self._items()
        items[i] = value
        self._write(items)

    def __delitem__(self, i: Any) -> None:
        items = self._items()
        del items[i]
        self._write(items)

    def __len__(self) -> int:
        return len(self._items())

    def insert(self, index: int, value: Any) -> None:
        items = self._items()
        items.insert(index, value)
        self._write(items)

    def __add__(self, other: Any) -> list[Any]:
        return self._items() + list(other)

    def __radd__(self, other: Any) -> list[Any]:
        return list(other) + self._items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _ListField):
            return self._items() == other._items()
        return self._items() == other if isinstance(other, list) else NotImplemented

    def __repr__(self) -> str:
        return repr(self._items())


class _Answers(_LiveMapping):
    """Answers given so far to a simultaneous decision: ``{str(player): value}``."""

    def __init__(self, owner: NamedState) -> None:
        self._owner = owner

    def _pairs(self) -> tuple[tuple[int, Any], ...]:
        return self._owner._S[ANSWERS] or ()

    def __getitem__(self, key: str) -> Any:
        for p, v in self._pairs():
            if str(p) == key:
                return v
        raise KeyError(key)

    def __setitem__(self, key: str, value: Any) -> None:
        pairs = list(self._pairs())
        for i, (p, _) in enumerate(pairs):
            if str(p) == key:
                pairs[i] = (p, value)
                break
        else:
            pairs.append((int(key), value))
        self._owner._S[ANSWERS] = tuple(pairs)
        self._owner._edited()

    def __delitem__(self, key: str) -> None:
        pairs = [(p, v) for p, v in self._pairs() if str(p) != key]
        self._owner._S[ANSWERS] = tuple(pairs) or None
        self._owner._edited()

    def __iter__(self) -> Iterator[str]:
        return (str(p) for p, _ in self._pairs())

    def __len__(self) -> int:
        return len(self._pairs())


class _Constants(MutableMapping[str, Any]):
    """The constants and readings of the game; assigning one switches the game to a variant
    of its engine (the state is kept)."""

    def __init__(self, game: Any) -> None:
        self._game = game

    def __getitem__(self, key: str) -> Any:
        return self._game.spec.constants[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._game.spec = self._game.spec.with_constants(**{key: value})
        mark = getattr(self._game, "_edit", None)
        if mark is not None:  # the decisions so far were made under the old constants
            mark(f"its constant {key!r} was changed during play (game.state['c'][...] = ...)")

    def __delitem__(self, key: str) -> None:
        raise TypeError("constants cannot be deleted")

    def __iter__(self) -> Iterator[str]:
        return iter(self._game.spec.constants)

    def __len__(self) -> int:
        return len(self._game.spec.constants)


def _stored(slot: Slot, value: Any) -> Any:
    """A value written by name, as the state keeps it."""
    if isinstance(value, _ListField):
        value = value._items()
    if slot.kind == "set":
        items = list(value)
        if len(set(items)) != len(items):
            raise ValueError(f"{slot.path} is a set: it cannot hold an element twice ({items})")
        return mask_of(items)
    if slot.kind == "seq":
        return tuple(value)
    if slot.kind == "ref":
        return unref(value)
    return value


# ---------------------------------------------------------------------------- saves

#: the version of a position (what saves were before they held decisions; see
#: :mod:`rulecraft.runtime.saves`)
POSITION_VERSION = 2


def header(spec: Any, version: int) -> dict[str, Any]:
    """What a save or a position opens with: its version, the game and scenario, the layout
    it was written for and the constants changed from the scenario's."""
    out: dict[str, Any] = {
        "rulecraft": version,
        "game": spec.game,
        "scenario": spec.scenario,
        "layout": spec.layout.hash,
    }
    if spec.overrides:
        out["constants"] = dict(spec.overrides)
    return out


def save(spec: Any, S: list[Any]) -> dict[str, Any]:
    """A position as JSON data by field name, with ids for references."""
    out = header(spec, POSITION_VERSION)
    for name, k in (("seed", SEED), ("rng", RNG), ("draws", DRAWS), ("reveals", REVEALS)):
        out[name] = S[k]
    out.update(steps=S[STEPS], turn=S[TURN], limit=S[LIMIT])
    r = S[RESULT]
    out["result"] = (
        None
        if r is None
        else {"winners": [spec.seats[w] for w in r[0]], "tie": bool(r[1]), "reason": r[2]}
    )
    fields: dict[str, Any] = {"g": {}, "p": {s: {} for s in spec.seats}, "e": {}}
    for slot in spec.layout.slots:
        for i in range(slot.count):
            value = _saved(spec, slot, S[slot.offset + i])
            if slot.scope == "g":
                fields["g"][slot.name] = value
            elif slot.scope == "p":
                fields["p"][spec.seats[i]][slot.name] = value
            else:
                t = slot.etype
                rid = spec.data["id_" + t][i]
                fields["e"].setdefault(t, {}).setdefault(rid, {})[slot.name] = value
    out.update(fields)
    out["stack"] = named_stack(spec, S)
    pending = S[PENDING]
    out["asked"] = pending[0][1] if pending else None
    out["answers"] = [[spec.seats[p], _jsonable(v)] for p, v in (S[ANSWERS] or ())]
    out["log"] = [
        [t, _jsonable(a), None if aud is None else list(aud)] for t, a, aud in log_events(S)
    ]
    return out


def _saved(spec: Any, slot: Slot, v: Any) -> Any:
    ref = slot.ref
    if slot.kind == "ref":
        return None if v < 0 else spec.ids[ref][v]
    if slot.kind == "set":
        return [spec.ids[ref][i] for i in bits(v)]
    if slot.kind == "seq":
        return [spec.ids[ref][i] for i in v] if ref else list(v)
    return v


def load(spec: Any, data: dict[str, Any]) -> list[Any]:
    """The state of the position ``data`` (see :func:`save`), checked against the layout.

    The pending decision is not read from the save: it is asked again from the saved
    position (the caller does that), so a save cannot offer options the rules do not."""
    if not isinstance(data, dict):
        raise SaveError("a save is a JSON object")
    if data.get("rulecraft") != POSITION_VERSION:
        raise SaveError(
            f"this is not a rulecraft position of version {POSITION_VERSION} "
            f"(it says {data.get('rulecraft')!r})"
        )
    if data.get("layout") != spec.layout.hash:
        raise SaveError(
            f"this save was written for another version of {spec.game}/{spec.scenario} "
            f"(layout {data.get('layout')!r}, this engine has {spec.layout.hash!r}); "
            "it cannot be loaded into this engine"
        )
    S = list(spec.init)

    def get(path: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
        node: Any = data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                raise SaveError(f"the save has no {path!r}")
            node = node[part]
        if node is None and optional:
            return None
        if not isinstance(node, kind) or (kind is int and isinstance(node, bool)):
            raise SaveError(f"{path!r} in the save must be {_kind_name(kind)}, not {node!r}")
        return node

    S[SEED] = get("seed", int, optional=True)
    for name, k in (("rng", RNG), ("draws", DRAWS), ("reveals", REVEALS), ("steps", STEPS)):
        S[k] = get(name, int)
        if S[k] < 0 or S[k] >= 1 << 64:
            raise SaveError(f"{name!r} in the save is out of range: {S[k]}")
    S[TURN] = get("turn", int)
    S[LIMIT] = get("limit", int)
    if not 0 <= S[TURN] < 1 << 63 or not 1 <= S[LIMIT] < 1 << 63:
        raise SaveError(f"'turn' and 'limit' in the save are out of range: {S[TURN]}, {S[LIMIT]}")
    _no_strangers(spec, data)
    for slot in spec.layout.slots:
        for i in range(slot.count):
            if slot.scope == "g":
                path = f"g.{slot.name}"
            elif slot.scope == "p":
                path = f"p.{spec.seats[i]}.{slot.name}"
            else:
                path = f"e.{slot.etype}.{spec.data['id_' + slot.etype][i]}.{slot.name}"
            node: Any = data
            for part in path.split("."):
                if not isinstance(node, dict) or part not in node:
                    raise SaveError(f"the save has no {path!r}")
                node = node[part]
            S[slot.offset + i] = _loaded(spec, slot, i, node, path)
    result = data.get("result")
    if result is not None:
        if not isinstance(result, dict):
            raise SaveError("'result' in the save must be an object or null")
        if not isinstance(result.get("winners", []), list):
            raise SaveError("'result.winners' in the save must be a list of seats")
        winners = [
            _ref_index(spec, "player", w, "result.winners") for w in result.get("winners", [])
        ]
        S[RESULT] = (tuple(winners), bool(result.get("tie")), str(result.get("reason", "")))
    frames = data.get("stack")
    # a finished game waits nowhere: its stack may be empty
    S[STACK] = None if S[RESULT] is not None and frames == [] else _loaded_stack(spec, frames)
    answers = data.get("answers") or []
    if not isinstance(answers, list) or not all(
        isinstance(a, list) and len(a) == 2 for a in answers
    ):
        raise SaveError("'answers' in the save must be a list of [seat, answer] pairs")
    S[ANSWERS] = (
        tuple((_ref_index(spec, "player", p, "answers"), _tuples(v)) for p, v in answers) or None
    )
    S[LOG] = _loaded_log(spec, data.get("log"))
    return S


#: the keys of a save (see :func:`save`)
_SAVE_KEYS = frozenset(
    {"rulecraft", "game", "scenario", "layout", "constants", "seed", "rng", "draws", "reveals"}
    | {"steps", "turn", "limit", "result", "g", "p", "e", "stack", "asked", "answers", "log"}
)


def _no_strangers(spec: Any, data: dict[str, Any]) -> None:
    """Refuse a save that holds what this game does not have: a seat, a field, a record."""
    fields: dict[str, set[str]] = {"g": set(), "p": set()}
    for slot in spec.layout.slots:
        fields.setdefault(slot.scope if slot.scope != "e" else f"e.{slot.etype}", set()).add(
            slot.name
        )

    def refuse(what: str, have: Any, known: Any) -> None:
        extra = sorted(set(have) - set(known), key=str) if isinstance(have, dict) else []
        if extra:
            raise SaveError(
                f"the save has {what} {extra[0]!r}, which this game does not have"
                + (f" (it has: {', '.join(map(str, known))})" if len(known) < 12 else "")
            )

    refuse("an entry", data, sorted(_SAVE_KEYS))
    refuse("a global", data.get("g"), sorted(fields["g"]))
    refuse("a seat", data.get("p"), list(spec.seats))
    for seat, rec in (data.get("p") or {}).items() if isinstance(data.get("p"), dict) else ():
        refuse(f"for {seat} a field", rec, sorted(fields["p"]))
    kinds = data.get("e")
    types = sorted(k[2:] for k in fields if k.startswith("e."))
    refuse("a kind of record", kinds, types)
    for t, recs in kinds.items() if isinstance(kinds, dict) else ():
        refuse(f"a {t}", recs, list(spec.data.get("id_" + t, ())))
        for rid, rec in recs.items() if isinstance(recs, dict) else ():
            refuse(f"for {t} {rid} a field", rec, sorted(fields.get(f"e.{t}", ())))


def _kind_name(kind: Any) -> str:
    names = {int: "a whole number", str: "a text", bool: "true or false", list: "a list"}
    if isinstance(kind, tuple):
        return " or ".join(names.get(k, k.__name__) for k in kind)
    return names.get(kind, kind.__name__)


def _ref_index(spec: Any, kind: str, rid: Any, path: str) -> int:
    ids = spec.ids.get(kind, ())
    if not isinstance(rid, str) or rid not in ids:
        raise SaveError(f"{path!r} in the save: {rid!r} is not a {kind} of this game")
    return ids.index(rid)


def _loaded(spec: Any, slot: Slot, i: int, v: Any, path: str) -> Any:
    kind = slot.kind
    if kind == "ref":
        if v is None:
            return NO_REF
        return _ref_index(spec, slot.ref or "", v, path)
    if kind in ("set", "seq"):
        if not isinstance(v, list):
            raise SaveError(f"{path!r} in the save must be a list, not {v!r}")
        if slot.ref is None:
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
                raise SaveError(f"{path!r} in the save must be a list of whole numbers")
            return tuple(v)
        items = [_ref_index(spec, slot.ref, x, path) for x in v]
        if kind == "set":
            if len(set(items)) != len(items):
                raise SaveError(f"{path!r} in the save names an element twice")
            return mask_of(items)
        return tuple(items)
    if kind == "int":
        if not isinstance(v, int) or isinstance(v, bool):
            raise SaveError(f"{path!r} in the save must be a whole number, not {v!r}")
        lo = slot.lo[i] if isinstance(slot.lo, tuple) else slot.lo
        hi = slot.hi[i] if isinstance(slot.hi, tuple) else slot.hi
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise SaveError(f"{path!r} in the save is {v}, outside its bounds {lo}..{hi}")
        if not -(1 << 63) <= v < 1 << 63:
            raise SaveError(f"{path!r} in the save is out of range ({len(str(v))} digits)")
        return v
    if kind == "bool":
        if not isinstance(v, bool):
            raise SaveError(f"{path!r} in the save must be true or false, not {v!r}")
        return v
    if kind == "enum":
        values = spec.enums.get(slot.ref or "", None)
        if v is None and slot.optional:
            return None
        if not isinstance(v, str) or (values is not None and v not in values):
            raise SaveError(f"{path!r} in the save: {v!r} is not an allowed value")
        return v
    if v is None:  # a text not given yet (texts start as none)
        return None
    if not isinstance(v, str):
        raise SaveError(f"{path!r} in the save must be a text, not {v!r}")
    return v


def _tuples(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_tuples(x) for x in v)
    if isinstance(v, dict):
        raise SaveError("a value in the save is an object where a plain value belongs")
    return v


def _loaded_stack(spec: Any, frames: Any) -> Any:
    if not isinstance(frames, list) or not frames:
        raise SaveError("the save has no position of the rules ('stack')")
    st: Any = None
    for f in reversed(frames):
        if not isinstance(f, dict):
            raise SaveError("a frame of 'stack' in the save is not an object")
        name = f.get("routine")
        if name not in spec.routine_names or spec.routines[spec.routine_names.index(name)] is None:
            raise SaveError(f"the save names a routine {name!r} this engine does not wait in")
        pc, locals_ = f.get("pc"), f.get("locals")
        if (
            not isinstance(pc, int)
            or isinstance(pc, bool)
            or pc < 0
            or not isinstance(locals_, list)
        ):
            raise SaveError(f"a frame of {name!r} in the save is damaged")
        st = ((spec.routine_names.index(name), pc, *(_tuples(x) for x in locals_)), st)
    return st


def _loaded_log(spec: Any, events: Any) -> Any:
    if events is None:
        return None
    if not isinstance(events, list):
        raise SaveError("'log' in the save must be a list")
    node: Any = None
    for e in events:
        if not (isinstance(e, list) and len(e) == 3 and isinstance(e[0], int)):
            raise SaveError("an entry of 'log' in the save is damaged")
        tid, args, aud = e
        if not 0 <= tid < len(spec.templates) or not isinstance(args, list):
            raise SaveError("an entry of 'log' in the save names no text of this game")
        if len(args) != len(spec.templates[tid].kinds):
            raise SaveError("an entry of 'log' in the save has the wrong number of values")
        node = (tid, _tuples(args), None if aud is None else _tuples(aud), node)
    return node
