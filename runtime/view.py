"""Visibility: the one place where what a player may see is decided.

``view(spec, S, player)`` copies a state with everything ``player`` may not see replaced by
:class:`~rulecraft.runtime.named.Hidden` (a hidden list keeps its length): fields declared
``owner`` (unless the player owns them) or ``none``, the generator and the seed, other
players' answers to a simultaneous decision, the options of other players' decisions, log
lines addressed to others, the locals of waiting routines that may hold a hidden value (the
compiler's secrecy analysis marks them, :mod:`rulecraft.compiler.secrecy`), the deals in
routines' locals it is not a party to, and records in the fog of war (``fog:``): which of
another seat's records stands where (a :class:`~rulecraft.runtime.named.Fog` in place of
each position, the same for all of that owner's) and the fields the fog covers, unless shown.
``determinize(spec, V, rng)`` turns such a view back into a full state consistent with it,
for bots that simulate; it never reads the true state.
"""

from __future__ import annotations

import random
from typing import Any

from .deals import is_deal, parties
from .layout import (
    ANSWERS,
    LOG,
    NO_REF,
    PENDING,
    RNG,
    SEED,
    STACK,
    STEPS,
    UNWIND,
    bits,
    mask_of,
)
from .machine import DeadEnd, GameError, answer, reask, run
from .named import Fog, Hidden
from .rng import seed_state

__all__ = [
    "view",
    "determinize",
    "log_for",
    "is_hidden",
    "in_fog",
    "mask_event",
    "mask_prompt",
    "VIEWER",
]

#: a view records its player in the slot of the machine's transient frames
VIEWER = UNWIND


def is_hidden(value: Any) -> bool:
    """Whether ``value`` is what a view put in place of a hidden value."""
    return isinstance(value, Hidden) or (
        type(value) is dict and len(value) == 1 and "hidden" in value
    )


def _owner_of(spec: Any, slot: Any, i: int, S: list[Any]) -> Any:
    if slot.scope == "p":
        return i
    if slot.scope == "e":
        t = slot.etype
        owner_slot = spec.layout.by_path.get(f"e.{t}.owner")
        if owner_slot is not None:
            v = S[owner_slot.offset + i]
            return None if owner_slot.kind == "ref" and v == NO_REF else v  # -1: none
        owners = spec.data.get(f"s_e_{t}__owner")
        return owners[i] if owners is not None else None
    return None


def in_fog(spec: Any, S: list[Any], player: int | None) -> dict[str, set[int]]:
    """Per fogged entity type (``fog:``), the records ``player`` (None: a spectator) sees
    only as "a force of unknown size" at their place: on the board (a position), not the
    player's own, and not shown to the player (``reveal``; to a spectator, to everyone)."""
    fogs = spec.data.get("fog")
    if not fogs:
        return {}
    out: dict[str, set[int]] = {}
    everyone = (1 << len(spec.seats)) - 1
    for etype, (at, *_rest) in fogs.items():
        slot = spec.layout.by_path.get(f"e.{etype}.{at}")
        if slot is None:
            continue  # records that never move: where each one stands is in the rules
        seen = spec.layout.by_path.get(f"e.{etype}.seen")
        hidden = set()
        for i in range(slot.count):
            if S[slot.offset + i] == NO_REF:
                continue  # off the board (-1: none): its counter is in a box everyone sees
            owner = _owner_of(spec, slot, i, S)
            if owner is None or (player is not None and owner == player):
                continue  # nobody's (neutral) records are seen by all, one's own by oneself
            if seen is not None:
                who = S[seen.offset + i]
                if (who >> player & 1) if player is not None else who == everyone:
                    continue
            hidden.add(i)
        out[etype] = hidden
    return out


def _fog_fields(spec: Any) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {t: (row[0], row[2]) for t, row in (spec.data.get("fog") or {}).items()}


def _fog_at(spec: Any, S: list[Any], slot: Any, hidden: set[int]) -> dict[int, Any]:
    """The :class:`Fog` each hidden record's position becomes: per owner, the places where
    that owner has records in the fog (the same value for each of them)."""
    where: dict[Any, set[Any]] = {}
    for i in hidden:
        where.setdefault(_owner_of(spec, slot, i, S), set()).add(S[slot.offset + i])
    fog = {q: Fog(slot.etype, q, tuple(sorted(xs))) for q, xs in where.items()}
    return {i: fog[_owner_of(spec, slot, i, S)] for i in hidden}


def mask_event(spec: Any, S: list[Any], fog: dict[str, set[int]], tid: int, args: Any) -> Any:
    """A log event's arguments with each record in the fog replaced by its :class:`Fog`
    (named as the fog names it: "Red force of unknown size")."""
    return _mask_args(spec, S, fog, spec.templates[tid].kinds, args)


def mask_prompt(spec: Any, S: list[Any], fog: dict[str, set[int]], d: Any) -> Any:
    """A pending decision with the records in the fog its prompt names masked (the seat
    asked reads "Attack Red force of unknown size?", not which unit it is)."""
    site = spec.sites[d[1]]
    kinds = spec.templates[site.prompt].kinds
    if site.decline >= 0:
        kinds = kinds + spec.templates[site.decline].kinds
    args = _mask_args(spec, S, fog, kinds, d[3])
    return d if args is d[3] else (*d[:3], args, *d[4:])


def _mask_args(spec: Any, S: list[Any], fog: dict[str, set[int]], kinds: Any, args: Any) -> Any:
    out = list(args)
    changed = False
    for k, (kind, a) in enumerate(zip(kinds, args, strict=False)):
        plain = kind.removeprefix("list:")
        t = plain.removeprefix("e:")
        if not plain.startswith("e:") or not fog.get(t) or isinstance(a, Hidden):
            continue
        slot = spec.layout.by_path[f"e.{t}.{spec.data['fog'][t][0]}"]
        if kind.startswith("list:"):
            # records in the fog named together: one "force" per owner (not how many)
            named: list[Any] = []
            for x in a:
                f = Fog(t, _owner_of(spec, slot, x, S)) if x in fog[t] else None
                if f is None or f not in named:
                    named.append(x if f is None else f)
            out[k] = tuple(named)
        elif a in fog[t]:
            out[k] = Fog(t, _owner_of(spec, slot, a, S))
        else:
            continue
        changed = True
    return tuple(out) if changed else args


def view(spec: Any, S: list[Any], player: int | None, log: bool = True) -> list[Any]:
    """What ``player`` (None: a spectator) may see of ``S``, as a state with holes."""
    V = S[:]
    V[RNG] = Hidden(None)
    V[SEED] = None
    V[VIEWER] = player
    fog = in_fog(spec, S, player)
    fog_fields = _fog_fields(spec) if fog else {}
    for slot in spec.hidden_slots:
        fogged = fog_fields.get(slot.etype or "")
        if fogged is not None and (slot.name == fogged[0] or slot.name in fogged[1]):
            hidden = fog[slot.etype]  # type: ignore[index]
            if slot.name == fogged[0]:
                for i, f in _fog_at(spec, S, slot, hidden).items():
                    V[slot.offset + i] = f
                continue
            for i in hidden:
                v = S[slot.offset + i]
                V[slot.offset + i] = Hidden(
                    len(bits(v)) if slot.kind == "set" else len(v) if slot.kind == "seq" else None
                )
            continue
        seen = spec.layout.by_path.get(slot.path + "_seen")
        everyone = (1 << len(spec.seats)) - 1
        for i in range(slot.count):
            if slot.visible == "owner" and player is not None:
                if _owner_of(spec, slot, i, S) == player:
                    continue
            if seen is not None:
                # a revealed value: shown to the players who have seen it
                who = S[seen.offset + i]
                if (who >> player & 1) if player is not None else who == everyone:
                    continue
            k = slot.offset + i
            v = S[k]
            if slot.kind == "set":
                V[k] = Hidden(len(bits(v)))
            elif slot.kind == "seq":
                V[k] = Hidden(len(v))
            else:
                V[k] = Hidden(None)
    answers = S[ANSWERS]
    if answers:
        mine = tuple((p, v) for p, v in answers if p == player)
        V[ANSWERS] = mine or None
    pending = S[PENDING]
    if pending:
        secret = spec.secret_prompts
        V[PENDING] = tuple(
            d
            if d[0] == player
            else (
                d[0],
                d[1],
                Hidden(None),
                tuple(Hidden(None) for _ in d[3]) if d[1] in secret else d[3],
            )
            for d in pending
        )
    if fog and V[PENDING]:
        V[PENDING] = tuple(mask_prompt(spec, S, fog, d) for d in V[PENDING])
    V[STACK] = _stack_for(spec, S[STACK], player)
    if not log:
        V[LOG] = False
    elif S[LOG]:
        events = []
        node = S[LOG]
        while node:
            aud = node[2]
            if aud is None or (player is not None and player in aud):
                events.append(node)
            node = node[3]
        chain: Any = None
        for e in reversed(events):
            args = mask_event(spec, S, fog, e[0], e[1]) if fog else e[1]
            chain = (e[0], args, e[2], chain)
        V[LOG] = chain
    return V


def _stack_for(spec: Any, node: Any, player: int | None) -> Any:
    """The stack with the routines' locals that may hold a hidden value hidden from every
    seat (the compiler marks them: ``spec.secrets``), and every deal hidden from those who
    are not its parties (an offer being answered is seen by its parties only)."""
    secrets = spec.secrets
    negotiation = bool(spec.data.get("deal_goods"))
    top = node
    frames = []
    changed = False
    while node is not None:
        F = node[0]
        secret = secrets.get((F[0], F[1]), ())
        if secret or negotiation:
            locals_ = list(F[2:])
            hidden = {row[0] for row in secret}
            for k, x in enumerate(locals_):
                if is_deal(x):
                    hide = player is None or player not in parties(x)
                else:
                    hide = k in hidden and not isinstance(x, Hidden)
                if hide:
                    locals_[k] = Hidden(None)
                    changed = True
            F = (F[0], F[1], *locals_)
        frames.append(F)
        node = node[1]
    return _restack(frames) if changed else top


def _fill_stack(spec: Any, S: list[Any]) -> Any:
    """The stack of a view with each hidden local filled in for a bot's world: computed again
    from the world's state where the compiler left a way (a local defined by a pure
    expression of shown ones), else its stand-in, a value of its type (``spec.secrets``); a
    hidden deal becomes None."""
    node = S[STACK]
    top = node
    frames = []
    changed = False
    while node is not None:
        F = node[0]
        if any(isinstance(x, Hidden) for x in F[2:]):
            rows = {row[0]: row for row in spec.secrets.get((F[0], F[1]), ())}
            locals_ = list(F[2:])
            for k, x in enumerate(locals_):
                if isinstance(x, Hidden):
                    locals_[k] = _filled(spec, S, F, rows.get(k))
            F = (F[0], F[1], *locals_)
            changed = True
        frames.append(F)
        node = node[1]
    return _restack(frames) if changed else top


def _filled(spec: Any, S: list[Any], F: Any, row: Any) -> Any:
    if row is None:
        return None
    _k, fill, method = row
    if method is not None:
        try:
            return getattr(spec.engine, method)(S, F)
        except GameError:
            pass  # the world drawn is one its definition cannot be read in: the stand-in
    return fill


def _restack(frames: list[Any]) -> Any:
    out: Any = None
    for F in reversed(frames):
        out = (F, out)
    return out


def _deck_slots(spec: Any) -> list[tuple[str, list[Any]]]:
    """Per deck type (`deck: true`), the slots that hold its cards: found once per spec."""
    found = spec.__dict__.get("_deck_slots")
    if found is None:
        found = [
            (t, [s for s in spec.layout.slots if s.ref == t and s.kind in ("ref", "set", "seq")])
            for t in spec.data.get("deck_types", ())
        ]
        spec.__dict__["_deck_slots"] = found
    return found


def _fill_decks(spec: Any, S: list[Any], rng: random.Random) -> None:
    """Hidden places of deck cards (`deck: true` records) get the cards not seen elsewhere:
    every card is in one place, so what the viewer cannot see is what is left, shuffled."""
    for t, slots in _deck_slots(spec):
        known: set[int] = set()
        holes: list[tuple[Any, int]] = []
        for s in slots:
            for i in range(s.count):
                v = S[s.offset + i]
                if isinstance(v, Hidden):
                    holes.append((s, s.offset + i))
                elif s.kind == "ref":
                    if v >= 0:  # -1: none
                        known.add(v)
                else:
                    known.update(bits(v) if s.kind == "set" else v)
        if not holes:
            continue
        pool = [c for c in range(len(spec.ids[t])) if c not in known]
        rng.shuffle(pool)
        for s, k in holes:
            n = 1 if s.kind == "ref" else (S[k].size or 0)
            if n > len(pool):
                continue  # more hidden than unseen: left to the scenario's value below
            chosen, pool = pool[:n], pool[n:]
            if s.kind == "ref":
                S[k] = chosen[0]
            else:
                S[k] = mask_of(chosen) if s.kind == "set" else tuple(chosen)


def _fill_fog(spec: Any, S: list[Any], rng: random.Random) -> None:
    """Records in the fog get places again: each place the view shows the owner at gets one
    of them, the others go to those places at random (which record is where, and how many
    stand at a place, is what the viewer does not know). Their other hidden fields take the
    scenario's values below."""
    for etype, (at, *_rest) in (spec.data.get("fog") or {}).items():
        slot = spec.layout.by_path.get(f"e.{etype}.{at}")
        if slot is None:
            continue
        groups: dict[Any, list[int]] = {}
        for i in range(slot.count):
            v = S[slot.offset + i]
            if isinstance(v, Fog):
                groups.setdefault(v, []).append(i)
        for fog, records in groups.items():
            rng.shuffle(records)
            places = list(fog.where)
            for k, i in enumerate(records):
                S[slot.offset + i] = places[k] if k < len(places) else rng.choice(places)


def log_for(spec: Any, S: list[Any], player: int | None) -> list[str]:
    """The log lines ``player`` (None: a spectator) may read."""
    out = []
    node = S[LOG]
    fog = in_fog(spec, S, player)
    while node:
        aud = node[2]
        if aud is None or (player is not None and player in aud):
            args = mask_event(spec, S, fog, node[0], node[1]) if fog else node[1]
            out.append(spec.render(node[0], args, S))
        node = node[3]
    out.reverse()
    return out


def determinize(spec: Any, V: list[Any], rng: random.Random) -> list[Any]:
    """A full state consistent with the view ``V``, hidden things drawn at random.

    - each seat's hidden card zones get the cards of its universe (the fixed player field
      ``cards``) that are not in its visible zones, shuffled, keeping each zone's size;
    - hidden places of deck cards (`deck: true`) get the cards not seen elsewhere, shuffled;
    - records in the fog of war (`fog:`) are put back at the places the view shows their
      owner at, each place getting at least one, at random;
    - other hidden values take the scenario's initial value; a hidden local of a waiting
      routine is computed again from the world drawn where it is a pure expression of the
      frame's shown locals, else it takes the stand-in of its type the compiler chose;
    - a pending simultaneous decision, or one whose options are hidden, is asked again, and
      the viewer's own answer, if given, is applied again; where the world drawn cannot ask
      it (it has no option there), it stays asked with no option: a dead end for playouts;
    - the generator is fresh, drawn from ``rng`` (the bot's own); the log is off.
    """
    S = V[:]
    viewer = V[VIEWER]
    S[VIEWER] = None
    S[RNG] = seed_state(rng.getrandbits(64))
    S[SEED] = None
    S[LOG] = False
    universe = spec.data.get("s_p_cards")
    card_slots = [s for s in spec.layout.slots if s.scope == "p" and s.ref == "card"]
    for q in range(len(spec.seats)):
        hidden = [s for s in card_slots if isinstance(S[s.offset + q], Hidden)]
        if not hidden:
            continue
        if universe is None:
            raise GameError("cannot determinize: the game declares no player field 'cards'")
        known: list[int] = []
        for s in card_slots:
            v = S[s.offset + q]
            if not isinstance(v, Hidden):
                known.extend(bits(v) if s.kind == "set" else v)
        pool = list(universe[q])
        for c in known:
            if c in pool:
                pool.remove(c)
        rng.shuffle(pool)
        need = sum(S[s.offset + q].size for s in hidden)
        if need > len(pool):
            raise GameError(
                f"cannot determinize seat {spec.seats[q]}: {need} hidden cards but only "
                f"{len(pool)} unaccounted cards in its 'cards'"
            )
        for s in hidden:
            n = S[s.offset + q].size
            chosen, pool = pool[:n], pool[n:]
            S[s.offset + q] = mask_of(chosen) if s.kind == "set" else tuple(chosen)
    _fill_decks(spec, S, rng)
    _fill_fog(spec, S, rng)
    for k, v in enumerate(S):
        if isinstance(v, Hidden):
            S[k] = spec.init[k]
    S[STACK] = _fill_stack(spec, S)
    pending = S[PENDING]
    if pending and (
        spec.sites[pending[0][1]].simultaneous or any(isinstance(d[2], Hidden) for d in pending)
    ):
        own = None
        had_own = False
        for p, v in S[ANSWERS] or ():
            if p == viewer:
                own, had_own = v, True
        before = S[:]
        try:
            reask(spec, S)
        except DeadEnd:
            # The world drawn cannot ask what the view shows asked (another seat's options
            # come from what this viewer cannot see, and the world gave it none): a world the
            # real history could not reach, left at that decision with no option, where a
            # playout meets the dead end as it meets any other.
            S[:] = before
            S[PENDING] = tuple(
                (d[0], d[1], (), *d[3:]) if isinstance(d[2], Hidden) else d for d in pending
            )
            S[ANSWERS] = None
            return S
        if had_own and S[PENDING]:
            for i, d in enumerate(S[PENDING]):
                if d[0] == viewer:
                    if own in d[2] or (own is None and spec.sites[d[1]].optional):
                        ready, v = answer(S, i, own, spec.sites[d[1]].simultaneous)
                        S[STEPS] -= 1  # applying it again is not a new decision
                        if ready:
                            run(spec, S, v)
                    break
    assert S[STACK] is not None or S[PENDING] is None
    return S
