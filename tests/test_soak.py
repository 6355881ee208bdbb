"""Random-play soak of The March of Progress (Thirty Years War).

Both seats pick uniformly at random among the legal options; after every decision the
invariants below are checked. The default run plays 50 games; ``pytest -m soak`` plays
``RULECRAFT_SOAK_GAMES`` games (default 3000).
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter

import pytest
from mop_helpers import PLAYERS, SCENARIO, SPEC, play_random, replay
from rulecraft.runtime import Game

TOTAL_VPS = 35
MAX_TURNS = 300  # random games end far sooner; the engine's own bound is 1000
ZONES = ("hand", "discard", "played", "revealed")


def check_invariants(g: Game) -> None:
    S = g.state
    assert S["g"]["vp_stock"] >= 0
    assert S["g"]["vp_stock"] + sum(P["vp"] for P in S["p"]) == TOTAL_VPS
    assert S["g"]["initiative"] in PLAYERS
    for i, P in enumerate(S["p"]):
        assert 1 <= P["strength"] <= 6, P["strength"]
        zones = [c for z in ZONES for c in P[z]]
        assert len(zones) == 8 and Counter(zones) == Counter(P["cards"]), P
        assert len(set(zones)) == 8
        assert len(P["played"]) + len(P["revealed"]) <= 1
        in_play = [a for a in S["e"]["army"] if a["owner"] == i and a["location"] is not None]
        assert len(in_play) <= 3
        assert len([a for a in S["e"]["army"] if a["owner"] == i]) == 3
    for c in S["e"]["country"]:
        assert 0 <= c["vp_die"] <= c["vp_max"]
    for a in S["e"]["army"]:
        if a["location"] is None:
            assert not a["fortified"] and not a["on_capital"]
        if a["on_capital"]:
            home = S["e"]["country"][a["location"]]
            assert home["kind"] == "home" and home["owner"] != a["owner"]
    # at most one army on each capital
    caps = Counter(a["location"] for a in S["e"]["army"] if a["on_capital"])
    assert all(n == 1 for n in caps.values())
    if g.finished:
        assert g.pending() == []
        r = g.result
        best = max(P["vp"] for P in S["p"])
        assert best >= 18
        assert r["winners"] == [i for i, P in enumerate(S["p"]) if P["vp"] == best]
        assert r["tie"] == (len(r["winners"]) > 1)
    else:
        pend = g.pending()
        assert pend, "dead end: a running game waits for nothing"
        for d in pend:
            assert d.options, f"dead end: {d}"
            assert len({o.id for o in d.options}) == len(d.options)
    assert S["turn"] <= MAX_TURNS


def play_one(seed: int) -> tuple[Game, list]:
    g = Game.new(SPEC, SCENARIO, seed)
    check_invariants(g)
    taken = play_random(g, random.Random(seed * 7919 + 1), on_step=check_invariants)
    assert g.finished and g.turn <= MAX_TURNS
    return g, taken


def check_save_load_and_clone(seed: int, g: Game, taken: list) -> None:
    rng = random.Random(seed)
    cut = rng.randrange(len(taken) + 1)
    h = Game.new(SPEC, SCENARIO, seed)
    replay(h, taken[:cut])
    saved = h.to_json()
    restored = Game.from_json(saved)
    assert json.loads(restored.to_json()) == json.loads(saved)
    twin = h.clone()
    before = h.to_json()
    # the clone is independent: play it on, the original does not change
    if not twin.finished:
        play_random(twin, random.Random(seed + 99))
        assert h.to_json() == before
    replay(restored, taken[cut:])
    assert restored.finished
    assert restored.state["log"] == g.state["log"]
    assert restored.result == g.result
    assert restored.state["p"] == g.state["p"] and restored.state["e"] == g.state["e"]


def run_soak(games: int) -> None:
    turns = []
    for seed in range(games):
        g, taken = play_one(seed)
        turns.append(g.turn)
        if seed % 4 == 0:
            check_save_load_and_clone(seed, g, taken)
    assert max(turns) <= MAX_TURNS


def test_random_play_soak_default():
    """VP total, army limit, die ranges, card zones, no dead end, bounded length.
    Rules: MOP-SETUP-05, MOP-SETUP-06, MOP-COMP-06, MOP-CARD-01, MOP-SEQ-04, MOP-END-01"""
    run_soak(20)  # -m soak plays thousands


@pytest.mark.soak
def test_random_play_soak_long():
    """VP total, army limit, die ranges, card zones, no dead end, bounded length.
    Rules: MOP-SETUP-05, MOP-SETUP-06, MOP-COMP-06, MOP-CARD-01, MOP-SEQ-04, MOP-END-01"""
    run_soak(int(os.environ.get("RULECRAFT_SOAK_GAMES", "3000")))


def test_same_seed_and_decisions_replay_identically():
    """Rules: MOP-SETUP-07"""
    g, taken = play_one(12345)
    h = Game.new(SPEC, SCENARIO, 12345)
    replay(h, taken)
    assert h.state["log"] == g.state["log"] and h.result == g.result
