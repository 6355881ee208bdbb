"""Generic random-play checks of every compiled scenario of The March of Progress.

The scenarios are discovered from ``rulecraft.generated.march_of_progress.SPECS`` when this
module is imported, so a newly compiled scenario is covered without editing this file. Nothing
here knows the rules: the checks hold for any generated engine.

- no dead end: while the game runs, some decision is pending and each has >= 1 option (ids
  unique); the game ends within a bounded number of turns and decisions;
- save/load: ``Game.from_json(g.to_json())`` at a random decision, played on with the same
  decisions, gives the same log, result and final state as the uninterrupted game;
- hidden information: after set-up, at random decisions and at the end, for every seat p, a
  second state differing only in what p may not see (the other seats' hidden cards permuted
  between their hidden fields and, with 3+ seats, swapped between those seats, keeping every
  field's size; other hidden values, other seats' secret answers, options and private log
  lines changed; ``rng``/``seed`` changed) has the same ``view`` for p. The owner of a
  changed field must see the change.

``pytest -m soak`` plays ``RULECRAFT_SOAK_GAMES`` games in total (default 3000), shared out
among the scenarios, each scenario stopping early at its share of ``RULECRAFT_SOAK_SECONDS``
(default 540) so the whole soak stays under ~10 minutes.
"""

from __future__ import annotations

import json
import marshal
import os
import random
import time
from typing import Any

import pytest
from rulecraft.generated.march_of_progress import SPECS
from rulecraft.runtime import Game, GameSpec, resolve
from rulecraft.runtime.view import view

GAME = "march_of_progress"
SCENARIOS = sorted(SPECS)
GAMES = 30
#: a game must end within its scenario's own ``max_turns`` (attrition scenarios legitimately
#: run hundreds of turns in random play) and this many decisions
MAX_DECISIONS = 50_000
#: random decisions per game at which the views are checked (besides set-up and the end)
HIDDEN_CHECKS = 6


def _spec(scenario: str) -> GameSpec:
    spec, sid = resolve(f"{GAME}/{scenario}")
    assert sid == scenario
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
        ids = [o.id for o in d.options]
        assert len(set(ids)) == len(ids), f"duplicate option ids in {d.kind!r}: {ids}"


def turn_bound(spec: GameSpec, scenario: str) -> int:
    return spec.scenarios[scenario].max_turns


def play_random(
    spec: GameSpec, scenario: str, seed: int, on_step=None
) -> tuple[Game, list[tuple[int, str]]]:
    """A uniformly random game (a random one of several pending decisions first); the
    decisions taken. ``on_step(g)`` runs after set-up and after every decision."""
    g = Game.new(spec, scenario, seed)
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
        g.apply(d.player, oid)
        taken.append((d.player, oid))
        check_live(g, bound)
        if on_step is not None:
            on_step(g)
    return g, taken


# -- hidden information --------------------------------------------------------------------------
def hidden_fields(spec: GameSpec) -> tuple[dict[str, str], dict[str, dict[str, str]], list[str]]:
    """(p-field -> mode, e-type -> {field -> mode}, hidden g-fields) of everything not "all"."""
    p: dict[str, str] = {}
    e: dict[str, dict[str, str]] = {}
    g: list[str] = []
    for key, mode in spec.visibility.items():
        if mode == "all":
            continue
        scope, _, rest = key.partition(".")
        if scope == "p":
            p[rest] = mode
        elif scope == "e":
            etype, _, fld = rest.partition(".")
            e.setdefault(etype, {})[fld] = mode
        elif scope == "g":
            g.append(rest)
    return p, e, g


def _other_value(value: Any, rng: random.Random) -> Any:
    """A different value of the same kind (for a hidden non-list value)."""
    if isinstance(value, list):
        out = list(value)
        rng.shuffle(out)
        return out
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1 + rng.randrange(5)
    if isinstance(value, str):
        return value + "?"
    if value is None:
        return 0
    return {"changed": repr(value)}


def disguise(S: dict[str, Any], spec: GameSpec, viewer: int, rng: random.Random) -> dict:
    """A copy of ``S`` that differs only in what ``viewer`` may not see."""
    T = marshal.loads(marshal.dumps(S))
    p_fields, e_fields, g_fields = hidden_fields(spec)
    seats = len(T["p"])
    secret_of: dict[int, list[str]] = {}  # seat -> its hidden list fields the viewer can't see
    for q in range(seats):
        P = T["p"][q]
        fields = sorted(f for f, m in p_fields.items() if f in P and (q != viewer or m == "none"))
        lists = [f for f in fields if isinstance(P[f], list)]
        secret_of[q] = lists
        # the seat's hidden cards, permuted between its hidden zones (sizes kept)
        pool = [c for f in lists for c in P[f]]
        rng.shuffle(pool)
        for f in lists:
            n = len(P[f])
            P[f], pool = pool[:n], pool[n:]
        for f in fields:
            if f not in lists:
                P[f] = _other_value(P[f], rng)
    # with 3+ seats: swap cards between two other seats' hidden zones (counts kept)
    others = [q for q in range(seats) if q != viewer and any(T["p"][q][f] for f in secret_of[q])]
    for _ in range(3 if len(others) >= 2 else 0):
        a, b = rng.sample(others, 2)
        fa = rng.choice([f for f in secret_of[a] if T["p"][a][f]])
        fb = rng.choice([f for f in secret_of[b] if T["p"][b][f]])
        ia, ib = rng.randrange(len(T["p"][a][fa])), rng.randrange(len(T["p"][b][fb]))
        T["p"][a][fa][ia], T["p"][b][fb][ib] = T["p"][b][fb][ib], T["p"][a][fa][ia]
    for etype, fields in e_fields.items():
        for rec in T.get("e", {}).get(etype, ()):
            mine = rec.get("owner") == viewer
            for f, m in fields.items():
                if f in rec and not (m == "owner" and mine):
                    rec[f] = _other_value(rec[f], rng)
    for f in g_fields:
        if f in T["g"]:
            T["g"][f] = _other_value(T["g"][f], rng)
    # the other seats' secret answers to a simultaneous decision (a face-down card)
    for key, value in list((T.get("answers") or {}).items()):
        q = int(key)
        if q == viewer:
            continue
        pool = [c for f in secret_of.get(q, ()) for c in S["p"][q][f]]
        T["answers"][key] = rng.choice(pool) if value in pool and pool else _other_value(value, rng)
    # the other seats' options, and log lines the viewer may not read
    for d in T["pending"] or ():
        if d["player"] != viewer:
            d["options"] = list(reversed(d["options"]))
    for line in T["log"]:
        if line[1] is not None and viewer not in line[1]:
            line[0] = line[0] + " (changed)"
    T["rng"] = (S["rng"] ^ 0x5DEECE66D) + 1
    T["seed"] = (S["seed"] or 0) + 7919
    return T


def check_hidden_information(g: Game, rng: random.Random) -> None:
    S, spec = g.state, g.spec
    p_fields, _, _ = hidden_fields(spec)
    seats = len(S["seats"])
    for viewer in range(seats):
        T = disguise(S, spec, viewer, rng)
        assert view(S, viewer, spec) == view(T, viewer, spec), (
            f"{S['seats'][viewer]} can tell apart two states that differ only in what it may "
            f"not see (turn {S['turn']}, step {S['steps']})"
        )
        # owners see their own hidden fields: a change there must show in their view
        for q in range(seats):
            if q == viewer:
                continue
            owned = [f for f, m in p_fields.items() if m == "owner" and f in S["p"][q]]
            if any(S["p"][q][f] != T["p"][q][f] for f in owned):
                assert view(S, q, spec) != view(T, q, spec), (
                    f"{S['seats'][q]} does not see a change in its own hidden fields"
                )
    assert view(S, None, spec) == view(disguise(S, spec, -1, rng), None, spec)


# -- the tests -----------------------------------------------------------------------------------
def run_games(
    scenario: str, seeds: range, hidden: bool, save_load: bool, deadline: float | None = None
) -> int:
    spec = _spec(scenario)
    played = 0
    for seed in seeds:
        if deadline is not None and played >= GAMES and time.monotonic() > deadline:
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
    h = Game.new(spec, scenario, seed)
    for k in range(len(taken) + 1):
        if k in at:
            check_hidden_information(h, rng)
        if k < len(taken):
            h.apply(*taken[k])
    assert h.state["log"] == g.state["log"], "the same seed and decisions replay differently"


def check_save_load(spec: GameSpec, scenario: str, seed: int, g: Game, taken: list) -> None:
    cut = random.Random(seed * 31 + 7).randrange(len(taken) + 1)
    h = Game.new(spec, scenario, seed)
    for p, oid in taken[:cut]:
        h.apply(p, oid)
    saved = h.to_json()
    restored = Game.from_json(saved)
    assert restored.spec is spec or restored.spec.scenarios.keys() >= {scenario}
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
    assert SCENARIOS, "no compiled scenario of march_of_progress"
    for scenario in SCENARIOS:
        spec = _spec(scenario)
        assert scenario in spec.scenarios


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
    assert played >= min(games, GAMES)
