"""What a seat may not see, from the declarations alone (not from the runtime's view), and
everything rulecraft hands a seat: the oracle of the leak tests (tests/test_all_scenarios.py
checks it along random games of every scenario, tests/test_leaks.py that it catches leaks).

:func:`disguise` makes a twin of a state that differs only in what a seat may not see: every
field value hidden from it by its declared visibility (cards dealt again between another
seat's hidden zones, sizes kept), the generator and the seed, the locals of waiting routines
the compiler declares secret (``spec.secrets``), deals the seat is no party to, other seats'
answers to a simultaneous decision, the options of their decisions and the prompt arguments
the compiler declares secret (``spec.secret_prompts``), and log lines addressed to others.
:func:`given` is all the seat is given: its view by field name, its export, its log, its view
for bots, and (with the research extras) the OpenSpiel/PettingZoo observation string and
tensor.
"""

from __future__ import annotations

import random
from typing import Any

from rulecraft.runtime import Game, GameSpec
from rulecraft.runtime.deals import is_deal, parties
from rulecraft.runtime.layout import (
    ANSWERS,
    LOG,
    NO_REF,
    PENDING,
    RNG,
    SEED,
    STACK,
    Slot,
    bits,
    mask_of,
)
from rulecraft.runtime.named import log_events
from rulecraft.runtime.split import Changes, Split


def owner_of(spec: GameSpec, S: list[Any], slot: Slot, i: int) -> int | None:
    """The seat that owns value ``i`` of a field: the seat of a player field, the ``owner`` of
    a record (a field, else a fixed attribute), nobody for a global."""
    if slot.scope == "p":
        return i
    if slot.scope == "e":
        field = spec.layout.by_path.get(f"e.{slot.etype}.owner")
        if field is not None:
            v = S[field.offset + i]
            return None if field.kind == "ref" and v == NO_REF else v  # -1: none
        owners = spec.data.get(f"s_e_{slot.etype}__owner")
        return owners[i] if owners is not None else None
    return None


def fogged(spec: GameSpec, S: list[Any], viewer: int | None) -> dict[str, set[int]]:
    """Per entity type under fog of war (``fog:``), the records ``viewer`` may see only as
    "a force of unknown size" at a place: on the board, not its own, not revealed to it."""
    out: dict[str, set[int]] = {}
    everyone = (1 << len(spec.seats)) - 1
    for etype, (at, *_rest) in (spec.data.get("fog") or {}).items():
        slot = spec.layout.by_path.get(f"e.{etype}.{at}")
        seen = spec.layout.by_path.get(f"e.{etype}.seen")
        if slot is None:
            continue
        out[etype] = set()
        for i in range(slot.count):
            owner = owner_of(spec, S, slot, i)
            if S[slot.offset + i] == NO_REF or owner is None or owner == viewer:
                continue
            who = S[seen.offset + i] if seen is not None else 0
            if (who >> viewer & 1) if viewer is not None else who == everyone:
                continue
            out[etype].add(i)
    return out


def unseen(spec: GameSpec, S: list[Any], viewer: int | None) -> list[tuple[Slot, int]]:
    """The values (field, index) that ``viewer`` (None: a spectator) may not see, by the
    visibility each field declares (and the fog of war over records on the board)."""
    out = []
    everyone = (1 << len(spec.seats)) - 1
    fog = fogged(spec, S, viewer)
    for slot in spec.layout.slots:  # the declarations, not the runtime's list of them
        if slot.visible == "all":
            continue
        declared = (spec.data.get("fog") or {}).get(slot.etype or "")
        if declared is not None and (slot.name == declared[0] or slot.name in declared[2]):
            out.extend((slot, i) for i in sorted(fog.get(slot.etype or "", ())))
            continue
        seen = spec.layout.by_path.get(slot.path + "_seen")
        for i in range(slot.count):
            if slot.visible == "owner" and viewer is not None:
                if owner_of(spec, S, slot, i) == viewer:
                    continue
            if seen is not None:  # revealed to the viewer
                who = S[seen.offset + i]
                if (who >> viewer & 1) if viewer is not None else who == everyone:
                    continue
            out.append((slot, i))
    return out


def _other_value(value: Any, rng: random.Random) -> Any:
    """A different value of the same kind (for a hidden value that is not a card zone)."""
    if isinstance(value, (tuple, list)):
        out = list(value)
        rng.shuffle(out)
        out = out if out != list(value) else [*value, 0]
        return type(value)(out)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1 + rng.randrange(5)
    if isinstance(value, str):
        return value + "?"
    if value is None:
        return 0
    return ("changed", repr(value))


def _other_set(mask: int, n: int, rng: random.Random) -> int:
    """Another set (bitmask) of as many of ``n`` records, if there is one."""
    size = bin(mask).count("1")
    chosen = rng.sample(range(n), size)
    out = 0
    for c in chosen:
        out |= 1 << c
    return out


def _other_word(spec: GameSpec, kind: str, value: Any) -> Any:
    """Another value a log line can show where it shows ``value`` (of a template's ``kind``)."""
    if kind.startswith("list:"):
        return tuple(_other_word(spec, kind[5:], v) for v in value)
    if kind == "int":
        return value + 1
    if kind == "bool":
        return not value
    if kind in ("str", "text"):
        return f"{value} (changed)"
    n = len(spec.ids.get(kind.removeprefix("e:"), ()))
    return value if value is None or n < 2 else (value + 1) % n


def _cards(slot: Slot, v: Any) -> list[int]:
    return list(bits(v)) if slot.kind == "set" else list(v)


def _stored(slot: Slot, cards: list[int]) -> Any:
    return mask_of(cards) if slot.kind == "set" else tuple(cards)


def _valid(slot: Slot, cards: list[int]) -> bool:
    """Whether a zone can hold these cards (a set holds each card once)."""
    return slot.kind != "set" or len(set(cards)) == len(cards)


def disguise(spec: GameSpec, S: list[Any], viewer: int | None, rng: random.Random) -> list[Any]:
    """A copy of the compact state ``S`` that differs only in what ``viewer`` may not see."""
    T = S[:]
    hidden = unseen(spec, S, viewer)
    fog = fogged(spec, S, viewer)
    zones: dict[int, list[tuple[Slot, int]]] = {}  # seat -> its card zones the viewer can't see
    for slot, i in hidden:
        declared = (spec.data.get("fog") or {}).get(slot.etype or "")
        if declared is not None and slot.name == declared[0]:
            continue  # the places of records in the fog: moved between them below
        if slot.scope == "p" and slot.ref == "card" and slot.kind in ("set", "seq"):
            zones.setdefault(i, []).append((slot, slot.offset + i))
        elif slot.kind == "set" and slot.ref in spec.ids:
            # a hidden set of records shows its size only: other records, as many
            T[slot.offset + i] = _other_set(S[slot.offset + i], len(spec.ids[slot.ref]), rng)
        elif slot.kind == "seq" and slot.ref in spec.ids:
            # a hidden list of records (a face-down deck) shows its length only
            seq = list(S[slot.offset + i])
            n = len(spec.ids[slot.ref])
            T[slot.offset + i] = tuple(rng.randrange(n) for _ in seq)
        else:
            T[slot.offset + i] = _other_value(S[slot.offset + i], rng)
    # each seat's hidden cards, dealt again between its hidden zones (sizes kept)
    for found in zones.values():
        pool = [c for slot, k in found for c in _cards(slot, S[k])]
        for _attempt in range(5):
            rng.shuffle(pool)
            rest, dealt = pool, []
            for slot, k in found:
                n = len(_cards(slot, S[k]))
                dealt.append(rest[:n])
                rest = rest[n:]
            if all(_valid(slot, cards) for (slot, _), cards in zip(found, dealt, strict=True)):
                for (slot, k), cards in zip(found, dealt, strict=True):
                    T[k] = _stored(slot, cards)
                break
    # a zone is a set: dealing again may change nothing, so one card of each zone becomes a
    # card it does not hold (a state no game reaches, which the view must not tell either)
    every = range(len(spec.ids["card"]))
    for found in zones.values():
        for slot, k in found:
            cards = _cards(slot, T[k])
            outside = [c for c in every if c not in cards]
            if cards and outside:
                cards[rng.randrange(len(cards))] = rng.choice(outside)
                T[k] = _stored(slot, cards)
    # with 3+ seats: swap cards between two other seats' hidden zones (sizes kept)
    others = [q for q, found in zones.items() if any(_cards(s, T[k]) for s, k in found)]
    for _ in range(3 if len(others) >= 2 else 0):
        a, b = rng.sample(others, 2)
        sa, ka = rng.choice([(s, k) for s, k in zones[a] if _cards(s, T[k])])
        sb, kb = rng.choice([(s, k) for s, k in zones[b] if _cards(s, T[k])])
        ca, cb = _cards(sa, T[ka]), _cards(sb, T[kb])
        ia, ib = rng.randrange(len(ca)), rng.randrange(len(cb))
        ca[ia], cb[ib] = cb[ib], ca[ia]
        if _valid(sa, ca) and _valid(sb, cb):
            T[ka], T[kb] = _stored(sa, ca), _stored(sb, cb)
    # records in the fog: which stands where, and how many at a place, is not seen (each
    # place keeps at least one of the owner's records); a log line names another of them
    swap: dict[str, dict[int, int]] = {}
    for etype, records in fog.items():
        slot = spec.layout.by_path[f"e.{etype}.{spec.data['fog'][etype][0]}"]
        swap[etype] = {}
        by_owner: dict[Any, list[int]] = {}
        for i in sorted(records):
            by_owner.setdefault(owner_of(spec, S, slot, i), []).append(i)
        for group in by_owner.values():
            places = sorted({S[slot.offset + i] for i in group})
            order = group[:]
            rng.shuffle(order)
            for k, i in enumerate(order):
                T[slot.offset + i] = places[k] if k < len(places) else rng.choice(places)
            for a, b in zip(group, [*group[1:], group[0]], strict=True):
                swap[etype][a] = b
    # the other seats' secret answers to a simultaneous decision (a face-down card)
    if S[ANSWERS]:
        answers = []
        for q, value in S[ANSWERS]:
            if q != viewer:
                cards = [c for s, k in zones.get(q, ()) for c in _cards(s, S[k])]
                others = [c for c in cards if c != value]
                is_card = type(value) is int and value in cards
                value = rng.choice(others) if is_card and others else _other_value(value, rng)
            answers.append((q, value))
        T[ANSWERS] = tuple(answers)
    # the other seats' options (and prompt arguments the compiler declares secret), and log
    # events the viewer may not read
    if S[PENDING]:
        T[PENDING] = tuple(
            d if d[0] == viewer else (d[0], d[1], _other_options(d[2]), _other_prompt(spec, d, rng))
            for d in S[PENDING]
        )
        if fog:  # a prompt that names a record in the fog: another of the same owner's
            T[PENDING] = tuple(_other_records_in_prompt(spec, swap, d) for d in T[PENDING])
    T[STACK] = _other_frames(spec, S[STACK], viewer, rng)
    node = None
    for tid, args, audience in log_events(S):
        kinds = spec.templates[tid].kinds
        if audience is not None and viewer not in audience:
            args = tuple(_other_word(spec, k, a) for k, a in zip(kinds, args, strict=True))
        elif fog:
            args = tuple(_other_record(swap, k, a) for k, a in zip(kinds, args, strict=True))
        node = (tid, args, audience, node)
    T[LOG] = node
    T[RNG] = ((S[RNG] ^ 0x5DEECE66D) + 1) & (2**64 - 1)
    T[SEED] = (S[SEED] or 0) + 7919
    return T


def _other_record(swap: dict[str, dict[int, int]], kind: str, value: Any) -> Any:
    """Where a log line names a record in the fog: another of the same owner's."""
    plain = kind.removeprefix("list:")
    if not plain.startswith("e:") or plain[2:] not in swap:
        return value
    moved = swap[plain[2:]]
    if kind.startswith("list:"):
        return tuple(moved.get(x, x) for x in value)
    return moved.get(value, value)


def _other_records_in_prompt(
    spec: GameSpec, swap: dict[str, dict[int, int]], d: tuple[Any, ...]
) -> tuple[Any, ...]:
    site = spec.sites[d[1]]
    kinds = spec.templates[site.prompt].kinds
    if site.decline >= 0:
        kinds += spec.templates[site.decline].kinds
    args = tuple(_other_record(swap, k, a) for k, a in zip(kinds, d[3], strict=False)) + tuple(
        d[3][len(kinds) :]
    )
    return (*d[:3], args, *d[4:])


def _other_prompt(spec: GameSpec, d: tuple[Any, ...], rng: random.Random) -> tuple[Any, ...]:
    """The prompt's arguments of a decision, changed where the compiler says they are secret."""
    if d[1] not in spec.secret_prompts:
        return d[3]
    site = spec.sites[d[1]]
    kinds = spec.templates[site.prompt].kinds
    if site.decline >= 0:
        kinds += spec.templates[site.decline].kinds
    return tuple(_other_word(spec, k, x) for k, x in zip(kinds, d[3], strict=False)) + tuple(
        d[3][len(kinds) :]
    )


def _other_frames(spec: GameSpec, node: Any, viewer: int | None, rng: random.Random) -> Any:
    """The waiting routines with their secret locals (``spec.secrets``) and the deals the
    viewer is no party to changed."""
    frames = []
    while node is not None:
        F = list(node[0])
        secret = {row[0] for row in spec.secrets.get((F[0], F[1]), ())}
        for k, x in enumerate(F[2:]):
            if is_deal(x):
                if viewer is None or viewer not in parties(x):
                    g, giver, receiver, arg = x[1]
                    F[2 + k] = (x[0], (g, giver, receiver, _other_value(arg, rng)), *x[2:])
            elif k in secret:
                F[2 + k] = _other_value(x, rng)
        frames.append(tuple(F))
        node = node[1]
    out: Any = None
    for F in reversed(frames):
        out = (F, out)
    return out


def _other_options(opts: Any) -> Any:
    """Other options of the same kind (those of a secret decision)."""
    if isinstance(opts, Split):
        return Split(opts.points + 1, opts.targets, opts.max_each + 1)
    if isinstance(opts, Changes):
        return Changes(opts.facts[1:])
    return tuple(reversed(opts))


def given(spec: GameSpec, S: list[Any], seat: int | None) -> dict[str, Any]:
    """Everything rulecraft hands ``seat`` (None: a spectator) of ``S``: data, text or bytes."""
    g = Game(spec, S)
    out = {
        # JSON data compared as such (no text made: a 2,400-hex board's dump with sorted keys
        # took three times the view; the export below is the same view as text)
        "view": g.view(seat),
        "export": g.export(seat),
        "log": "\n".join(g.log_for(seat)),
        # the bots' view (its log is the log above: a linked list too deep for repr)
        "view_state": repr(g.view_state(seat, log=False)),
    }
    try:
        from rulecraft.runtime.adapters.encoding import ObservationEncoder, observation_text
    except ImportError:  # the research extras are not installed: the rest is still checked
        return out
    import numpy as np

    out["observation_string"] = observation_text(g, seat)
    encoder = spec.__dict__.get("_test_encoder")
    if encoder is None:
        encoder = spec.__dict__["_test_encoder"] = ObservationEncoder(spec)
    tensor = np.zeros(encoder.size)
    encoder.encode(g, seat, tensor)
    out["observation_tensor"] = tensor.tobytes()
    return out


def differences(spec: GameSpec, S: list[Any], seat: int | None, rng: random.Random) -> list[str]:
    """What ``seat`` is given differently in ``S`` and a twin: empty when nothing leaks."""
    a = given(spec, S, seat)
    b = given(spec, disguise(spec, S, seat, rng), seat)
    return [k for k in a if a[k] != b[k]]
