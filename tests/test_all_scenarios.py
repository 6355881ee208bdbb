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
  ``rng``/``seed`` changed; the locals of waiting routines and prompt arguments the compiler
  declares secret, deals p is no party to) gives p the same view, export, log, bot view and
  observation string and tensor (tests/leak_helpers.py). The owner of a changed field must
  see the change.

``pytest -m soak`` plays ``RULECRAFT_SOAK_GAMES`` games in total (default 3000), shared out
among the scenarios, each scenario stopping early at its share of ``RULECRAFT_SOAK_SECONDS``
(default 540) so the whole soak stays under ~10 minutes. The default tests play ``GAMES``
games of each scenario, fewer (at least ``MIN_GAMES``) where they take over ``SECONDS``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import random
import time

import pytest
from leak_helpers import disguise, given, owner_of, unseen
from rulecraft.runtime import Game, GameSpec, resolve
from rulecraft.runtime.layout import (
    STEPS,
    TURN,
)
from rulecraft.runtime.registry import known_games

#: ``game/scenario`` of every compiled scenario
SCENARIOS = sorted(
    f"{game}/{sid}"
    for game in known_games()
    # the bundled games only: a test game registered by an earlier test module is not one
    if importlib.util.find_spec(f"rulecraft.generated.{game}") is not None
    for sid in importlib.import_module(f"rulecraft.generated.{game}").SPECS
)
#: scenarios one random game of which, with the views or a save checked, takes 4-10 s
#: (Marlborough's but Blenheim: hundreds of decisions, its campaigns a thousand and more):
#: the default run leaves them to ``-m long`` (CI runs it; the soak plays them too)
LONG = {
    *(f"marlborough/grand_design_{year}" for year in (1701, 1704, 1709)),
    "marlborough/opening_guns",
    "marlborough/ne_plus_ultra",
}
#: decisions with more options than this (allocations) are checked on a sample of ids
LISTED = 200
#: the default (not soak) tests play GAMES games of each scenario, fewer (at least
#: MIN_GAMES) in a scenario whose games take longer than SECONDS in all (a Third Reich
#: campaign game with the views checked takes ~5 s); ``-m soak`` (CI) plays more games of
#: every scenario, with every check at once, on other seeds
MIN_GAMES = 1
SECONDS = 1.0
GAMES = 30
#: the soak plays at least this many games of each scenario (a Marlborough game with every
#: check takes about ten seconds)
SOAK_MIN_GAMES = 3
#: a game must end within its scenario's own ``max_turns`` (attrition scenarios legitimately
#: run hundreds of turns in random play) and this many decisions
MAX_DECISIONS = 50_000
#: random decisions per game at which the views are checked (besides set-up and the end): in
#: the default run, and in the soak (a check of a Marlborough position takes about a second)
HIDDEN_CHECKS = 2
SOAK_HIDDEN_CHECKS = 6


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


def check_hidden_information(g: Game, rng: random.Random) -> None:
    """Every seat and the spectator are given the same in ``g`` and a twin that differs only
    in what they may not see (tests/leak_helpers.py); a seat that owns a changed value sees
    the change."""
    S, spec = g.raw, g.spec
    seats = len(spec.seats)
    for viewer in [*range(seats), None]:
        T = disguise(spec, S, viewer, rng)
        mine, twin = given(spec, S, viewer), given(spec, T, viewer)
        leaks = [k for k in mine if mine[k] != twin[k]]
        who = "a spectator" if viewer is None else spec.seats[viewer]
        assert not leaks, (
            f"{who} is given {', '.join(leaks)} differently in two states that differ only in "
            f"what it may not see (turn {S[TURN]}, step {S[STEPS]})"
        )
        if viewer is None:
            continue
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
                assert Game(spec, S).view(q) != Game(spec, T).view(q), (
                    f"{spec.seats[q]} does not see a change in its own hidden fields"
                )


# -- the tests -----------------------------------------------------------------------------------
def run_games(
    scenario: str,
    seeds: range,
    hidden: bool,
    save_load: bool,
    deadline: float | None = None,
    min_games: int = MIN_GAMES,
    checks: int = HIDDEN_CHECKS,
) -> int:
    spec = _spec(scenario)
    played = 0
    if deadline is None:
        deadline = time.monotonic() + SECONDS
    for seed in seeds:
        if played >= min_games and time.monotonic() > deadline:
            break
        g, taken = play_random(spec, scenario, seed)
        assert g.finished
        if hidden:
            check_views_along(spec, scenario, seed, g, taken, checks)
        if save_load:
            check_save_load(spec, scenario, seed, g, taken)
        played += 1
    return played


def check_views_along(
    spec: GameSpec, scenario: str, seed: int, g: Game, taken: list, checks: int = HIDDEN_CHECKS
) -> None:
    """Replay the game and check the views after set-up, at ``checks`` random decisions and
    at the end (every decision would be quadratic in the log of a long game)."""
    rng = random.Random(seed * 131 + 5)
    at = {0, len(taken)} | {rng.randrange(len(taken) + 1) for _ in range(checks)}
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


def _by_length(names: list[str]) -> list:  # type: ignore[type-arg]
    return [pytest.param(n, marks=pytest.mark.long) if n in LONG else n for n in names]


@pytest.mark.parametrize("scenario", _by_length(SCENARIOS))
def test_random_play_ends_and_save_load_changes_nothing(scenario):
    """Every decision has an option and the game ends within a bounded length (every game
    played here is checked so); a save at a random decision, loaded and played on, ends the
    same game."""
    run_games(scenario, range(GAMES), hidden=False, save_load=True)


@pytest.mark.parametrize("scenario", _by_length(SCENARIOS))
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
        min_games=SOAK_MIN_GAMES,
        checks=SOAK_HIDDEN_CHECKS,
    )
    assert played >= min(games, SOAK_MIN_GAMES)
