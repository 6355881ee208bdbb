"""Generic random-play checks of every compiled scenario of every game in ``generated/``.

The scenarios are discovered from ``rulecraft.generated.<game>.SPECS`` when this module is
imported, so a newly compiled game or scenario is covered without editing this file. Nothing
here knows the rules: the checks hold for any generated engine.

- no dead end: while the game runs, some decision is pending and each has >= 1 option (ids
  unique); the game ends within a bounded number of turns and decisions;
- save/load: ``Game.from_json(g.to_json())`` at a random decision, played on with the same
  decisions, gives the same log, result and final state as the uninterrupted game;
- hidden information: after set-up, at random decisions and at the end, for every seat p, a
  second state differing only in what p may not see (the other seats' hidden cards dealt
  again between their hidden fields, one card of each such field replaced by another card
  and, with 3+ seats, cards swapped between those seats, keeping every field's size; other
  hidden values, other seats' secret answers, options and private log lines changed;
  ``rng``/``seed`` changed) has the same view for p (``to_named(view(...))``, what
  ``Game.view`` gives). The owner of a changed field must see the change.

``pytest -m soak`` plays ``RULECRAFT_SOAK_GAMES`` games in total (default 3000), shared out
among the scenarios, each scenario stopping early at its share of ``RULECRAFT_SOAK_SECONDS``
(default 540) so the whole soak stays under ~10 minutes. The default tests play ``GAMES``
games of each scenario, fewer (at least ``MIN_GAMES``) where they take over ``SECONDS``.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import time
from typing import Any

import pytest
from rulecraft.runtime import Game, GameSpec, resolve
from rulecraft.runtime.layout import (
    ANSWERS,
    LOG,
    PENDING,
    RNG,
    SEED,
    STEPS,
    TURN,
    Slot,
    bits,
    mask_of,
)
from rulecraft.runtime.named import log_events, to_named
from rulecraft.runtime.registry import known_games
from rulecraft.runtime.split import Changes, Split
from rulecraft.runtime.view import view

#: ``game/scenario`` of every compiled scenario
SCENARIOS = sorted(
    f"{game}/{sid}"
    for game in known_games()
    for sid in importlib.import_module(f"rulecraft.generated.{game}").SPECS
)
#: decisions with more options than this (allocations) are checked on a sample of ids
LISTED = 200
#: the default (not soak) tests play GAMES games of each scenario, fewer (at least
#: MIN_GAMES) in a scenario whose games take longer than SECONDS in all
MIN_GAMES = 5
SECONDS = 12.0
GAMES = 30
#: a game must end within its scenario's own ``max_turns`` (attrition scenarios legitimately
#: run hundreds of turns in random play) and this many decisions
MAX_DECISIONS = 50_000
#: random decisions per game at which the views are checked (besides set-up and the end)
HIDDEN_CHECKS = 6


def _spec(name: str) -> GameSpec:
    spec, sid = resolve(name)
    assert f"{spec.game}/{sid}" == name
    return spec


# -- invariants ----------------------------------------------------------------------------------
def check_live(g: Game, bound: int) -> None:
    S = g.state
    assert S["turn"] <= bound, f"turn {S['turn']} beyond {bound}"
    if g.finished:
        assert g.pending() == [], "a finished game still waits for decisions"
        r = g.result
        assert isinstance(r["winners"], list) and isinstance(r["tie"], bool), r
        assert all(0 <= w < len(S["seats"]) for w in r["winners"]), r
        return
    pend = g.pending()
    assert pend, "dead end: a running game waits for nothing"
    for d in pend:
        assert d.options, f"dead end: {d.seat} has no option for {d.kind!r} ({d.prompt})"
        n = len(d.options)
        ids = [d.options[i].id for i in (range(n) if n <= LISTED else range(0, n, n // LISTED))]
        assert len(set(ids)) == len(ids), f"duplicate option ids in {d.kind!r}: {ids}"


def turn_bound(spec: GameSpec, scenario: str) -> int:
    return spec.scenarios[scenario.rpartition("/")[2]].max_turns


def play_random(
    spec: GameSpec, scenario: str, seed: int, on_step=None
) -> tuple[Game, list[tuple[int, str]]]:
    """A uniformly random game (a random one of several pending decisions first); the
    decisions taken. ``on_step(g)`` runs after set-up and after every decision."""
    g = Game.new(spec, None, seed)
    rng = random.Random(seed * 7919 + 17)
    bound = turn_bound(spec, scenario)
    taken: list[tuple[int, str]] = []
    check_live(g, bound)
    if on_step is not None:
        on_step(g)
    while not g.finished:
        assert len(taken) < MAX_DECISIONS, f"no end after {MAX_DECISIONS} decisions"
        pend = g.pending()
        d = pend[rng.randrange(len(pend))]
        oid = d.options[rng.randrange(len(d.options))].id
        if d.kind == "report" and rng.random() < 0.5:
            oid = "done"  # a reporter says nothing changed half of the time
        g.apply(d.player, oid)
        taken.append((d.player, oid))
        check_live(g, bound)
        if on_step is not None:
            on_step(g)
    return g, taken


# -- hidden information --------------------------------------------------------------------------
def owner_of(spec: GameSpec, S: list[Any], slot: Slot, i: int) -> int | None:
    """The seat that owns value ``i`` of a field: the seat of a player field, the ``owner`` of
    a record (a field, else a fixed attribute), nobody for a global."""
    if slot.scope == "p":
        return i
    if slot.scope == "e":
        field = spec.layout.by_path.get(f"e.{slot.etype}.owner")
        if field is not None:
            return S[field.offset + i]
        owners = spec.data.get(f"s_e_{slot.etype}__owner")
        return owners[i] if owners is not None else None
    return None


def unseen(spec: GameSpec, S: list[Any], viewer: int | None) -> list[tuple[Slot, int]]:
    """The values (field, index) that ``viewer`` (None: a spectator) may not see, by the
    visibility each field declares."""
    out = []
    everyone = (1 << len(spec.seats)) - 1
    for slot in spec.hidden_slots:
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
    if isinstance(value, tuple):
        out = list(value)
        rng.shuffle(out)
        return tuple(out) if out != list(value) else (*value, 0)
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
    zones: dict[int, list[tuple[Slot, int]]] = {}  # seat -> its card zones the viewer can't see
    for slot, i in hidden:
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
    # the other seats' options, and log events the viewer may not read
    if S[PENDING]:
        T[PENDING] = tuple(
            d if d[0] == viewer else (d[0], d[1], _other_options(d[2]), d[3]) for d in S[PENDING]
        )
    node = None
    for tid, args, audience in log_events(S):
        if audience is not None and viewer not in audience:
            kinds = spec.templates[tid].kinds
            args = tuple(_other_word(spec, k, a) for k, a in zip(kinds, args, strict=True))
        node = (tid, args, audience, node)
    T[LOG] = node
    T[RNG] = ((S[RNG] ^ 0x5DEECE66D) + 1) & (2**64 - 1)
    T[SEED] = (S[SEED] or 0) + 7919
    return T


def _other_options(opts: Any) -> Any:
    """Other options of the same kind (those of a secret decision)."""
    if isinstance(opts, Split):
        return Split(opts.points + 1, opts.targets, opts.max_each + 1)
    if isinstance(opts, Changes):
        return Changes(opts.facts[1:])
    return tuple(reversed(opts))


def seen_by(spec: GameSpec, S: list[Any], player: int | None) -> dict[str, Any]:
    """What ``player`` sees of ``S``, by field name (as ``Game.view``)."""
    return to_named(spec, view(spec, S, player), player)


def check_hidden_information(g: Game, rng: random.Random) -> None:
    S, spec = g.raw, g.spec
    seats = len(spec.seats)
    for viewer in range(seats):
        T = disguise(spec, S, viewer, rng)
        assert seen_by(spec, S, viewer) == seen_by(spec, T, viewer), (
            f"{spec.seats[viewer]} can tell apart two states that differ only in what it may "
            f"not see (turn {S[TURN]}, step {S[STEPS]})"
        )
        # owners see their own hidden fields: a change there must show in their view
        for q in range(seats):
            if q == viewer:
                continue
            owned = [
                slot.offset + i
                for slot, i in unseen(spec, S, viewer)
                if slot.visible == "owner" and owner_of(spec, S, slot, i) == q
            ]
            if any(S[k] != T[k] for k in owned):
                assert seen_by(spec, S, q) != seen_by(spec, T, q), (
                    f"{spec.seats[q]} does not see a change in its own hidden fields"
                )
    assert seen_by(spec, S, None) == seen_by(spec, disguise(spec, S, None, rng), None)


# -- the tests -----------------------------------------------------------------------------------
def run_games(
    scenario: str, seeds: range, hidden: bool, save_load: bool, deadline: float | None = None
) -> int:
    spec = _spec(scenario)
    played = 0
    if deadline is None:
        deadline = time.monotonic() + SECONDS
    for seed in seeds:
        if played >= MIN_GAMES and time.monotonic() > deadline:
            break
        g, taken = play_random(spec, scenario, seed)
        assert g.finished
        if hidden:
            check_views_along(spec, scenario, seed, g, taken)
        if save_load:
            check_save_load(spec, scenario, seed, g, taken)
        played += 1
    return played


def check_views_along(spec: GameSpec, scenario: str, seed: int, g: Game, taken: list) -> None:
    """Replay the game and check the views after set-up, at HIDDEN_CHECKS random decisions
    and at the end (every decision would be quadratic in the log of a long game)."""
    rng = random.Random(seed * 131 + 5)
    at = {0, len(taken)} | {rng.randrange(len(taken) + 1) for _ in range(HIDDEN_CHECKS)}
    h = Game.new(spec, None, seed)
    for k in range(len(taken) + 1):
        if k in at:
            check_hidden_information(h, rng)
        if k < len(taken):
            h.apply(*taken[k])
    assert h.state["log"] == g.state["log"], "the same seed and decisions replay differently"


def check_save_load(spec: GameSpec, scenario: str, seed: int, g: Game, taken: list) -> None:
    cut = random.Random(seed * 31 + 7).randrange(len(taken) + 1)
    h = Game.new(spec, None, seed)
    for p, oid in taken[:cut]:
        h.apply(p, oid)
    saved = h.to_json()
    restored = Game.from_json(saved)
    assert restored.spec is spec or restored.spec.scenarios.keys() >= {spec.scenario}
    assert json.loads(restored.to_json()) == json.loads(saved)
    for p, oid in taken[cut:]:
        restored.apply(p, oid)
    assert restored.finished, f"saved at decision {cut}: the restored game did not end"
    assert restored.state["log"] == g.state["log"], f"log differs after a save at decision {cut}"
    assert restored.result == g.result
    assert json.loads(restored.to_json()) == json.loads(g.to_json())


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_random_play_ends_without_dead_end(scenario):
    """Every decision has an option; the game ends within a bounded length."""
    run_games(scenario, range(GAMES), hidden=False, save_load=False)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_save_load_at_a_random_decision_changes_nothing(scenario):
    run_games(scenario, range(GAMES), hidden=False, save_load=True)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_views_hide_what_a_seat_may_not_see(scenario):
    run_games(scenario, range(GAMES), hidden=True, save_load=False)


def test_scenarios_are_discovered():
    games = {name.partition("/")[0] for name in SCENARIOS}
    assert {"march_of_progress", "third_reich_diplomacy"} <= games
    for name in SCENARIOS:
        spec = _spec(name)
        assert spec.scenario in spec.scenarios


@pytest.mark.soak
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_all_scenarios_soak(scenario):
    """All checks at once, ``RULECRAFT_SOAK_GAMES`` games shared among the scenarios."""
    total = int(os.environ.get("RULECRAFT_SOAK_GAMES", "3000"))
    budget = float(os.environ.get("RULECRAFT_SOAK_SECONDS", "540")) / len(SCENARIOS)
    games = max(GAMES, total // len(SCENARIOS))
    # seeds beyond the default run's, so the soak explores new games
    played = run_games(
        scenario,
        range(1000, 1000 + games),
        hidden=True,
        save_load=True,
        deadline=time.monotonic() + budget,
    )
    assert played >= min(games, MIN_GAMES)
