"""Visibility: the one place where what a player may see is decided.

``view(spec, S, player)`` copies a state with everything ``player`` may not see replaced by
:class:`~rulecraft.runtime.named.Hidden` (a hidden list keeps its length): fields declared
``owner`` (unless the player owns them) or ``none``, the generator and the seed, other
players' answers to a simultaneous decision, the options of other players' decisions, log
lines addressed to others, the locals of waiting routines that may hold a hidden value (the
compiler's secrecy analysis marks them, :mod:`rulecraft.compiler.secrecy`), and the deals in
routines' locals it is not a party to.
``determinize(spec, V, rng)`` turns such a view back into a full state consistent with it,
for bots that simulate; it never reads the true state.
"""

from __future__ import annotations

import random
from typing import Any

from .deals import is_deal, parties
from .layout import ANSWERS, LOG, PENDING, RNG, SEED, STACK, STEPS, UNWIND, bits, mask_of
from .machine import DeadEnd, GameError, answer, reask, run
from .named import Hidden
from .rng import seed_state

__all__ = ["view", "determinize", "log_for", "is_hidden", "VIEWER"]

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
            return S[owner_slot.offset + i]
        owners = spec.data.get(f"s_e_{t}__owner")
        return owners[i] if owners is not None else None
    return None


def view(spec: Any, S: list[Any], player: int | None, log: bool = True) -> list[Any]:
    """What ``player`` (None: a spectator) may see of ``S``, as a state with holes."""
    V = S[:]
    V[RNG] = Hidden(None)
    V[SEED] = None
    V[VIEWER] = player
    for slot in spec.hidden_slots:
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
            chain = (e[0], e[1], e[2], chain)
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
                    if v is not None:
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


def log_for(spec: Any, S: list[Any], player: int | None) -> list[str]:
    """The log lines ``player`` (None: a spectator) may read."""
    out = []
    node = S[LOG]
    while node:
        aud = node[2]
        if aud is None or (player is not None and player in aud):
            out.append(spec.render(node[0], node[1], S))
        node = node[3]
    out.reverse()
    return out


def determinize(spec: Any, V: list[Any], rng: random.Random) -> list[Any]:
    """A full state consistent with the view ``V``, hidden things drawn at random.

    - each seat's hidden card zones get the cards of its universe (the fixed player field
      ``cards``) that are not in its visible zones, shuffled, keeping each zone's size;
    - hidden places of deck cards (`deck: true`) get the cards not seen elsewhere, shuffled;
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
