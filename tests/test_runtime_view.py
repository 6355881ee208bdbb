"""Runtime: visibility is enforced by view(), and determinize() never uses hidden truth."""

from __future__ import annotations

import json
import random
from collections import Counter

from fixtures.toy import CARD_ID, SPEC
from rulecraft.runtime import Game, determinize, log_for, view
from rulecraft.runtime.layout import LOG
from rulecraft.runtime.machine import playout
from rulecraft.runtime.named import log_events


def committed_game(seed: int = 1) -> Game:
    """Both players have picked in secret; red decides the stakes before the reveal."""
    g = Game.new(SPEC, "duel", seed)
    g.apply(0, g.legal(0)[0].id)
    g.apply(1, g.legal(1)[0].id)
    return g


def reword_private_lines(g: Game, player: int) -> None:
    """Every log line addressed only to ``player`` says something else."""
    node = None
    for tid, args, audience in log_events(g.raw):
        if audience == (player,):
            args = tuple(f"{a} (other)" if isinstance(a, str) else a for a in args)
        node = (tid, args, audience, node)
    g.raw[LOG] = node


def swap_blue_secrets(g: Game) -> Game:
    """The same game except for things red cannot see (blue's hand, deck, played card)."""
    h = g.clone()
    blue = h.state["p"][1]
    blue["hand"][0], blue["deck"][0] = blue["deck"][0], blue["hand"][0]
    blue["played"][0], blue["hand"][1] = blue["hand"][1], blue["played"][0]
    h.state["e"]["marker"][1]["strength"] += 7
    h.state["answers"]["1"] = 4
    h.state["rng"] ^= 0xFFFF
    h.state["seed"] += 1
    reword_private_lines(h, 1)
    return h


def test_view_hides_other_seats_fields_by_rule():
    g = committed_game()
    V = g.view(0)
    blue = V["p"][1]
    assert blue["hand"] == {"hidden": 2} and blue["played"] == {"hidden": 1}
    assert blue["deck"] == {"hidden": 2} and blue["discard"] == [] and blue["vp"] == 0
    red = V["p"][0]
    assert red["hand"] == g.state["p"][0]["hand"] and red["played"] == g.state["p"][0]["played"]
    assert red["deck"] == {"hidden": 2}  # "none": even the owner does not see it
    assert V["e"]["marker"][0]["strength"] == 0 and V["e"]["marker"][1]["strength"] == {
        "hidden": True
    }
    assert "rng" not in V and V["seed"] is None and V["viewer"] == 0
    # the answers of a simultaneous decision are kept only until every player has answered
    assert V["answers"] == {} and g.state["answers"] == {}
    json.dumps(V)  # plain JSON
    assert "rng" in g.state and g.state["p"][1]["hand"] != {"hidden": 2}  # the state is untouched


def test_views_are_equal_for_states_differing_only_in_hidden_things():
    for seed in range(5):
        g = committed_game(seed)
        h = swap_blue_secrets(g)
        assert h.state != g.state
        assert view(SPEC, h.raw, 0) == view(SPEC, g.raw, 0)
        assert view(SPEC, h.raw, None) == view(SPEC, g.raw, None)
        assert view(SPEC, h.raw, 1) != view(SPEC, g.raw, 1)
        assert h.view(0) == g.view(0) and h.view(None) == g.view(None)
        assert h.view(1) != g.view(1)


def test_secret_answer_is_invisible_and_pending_options_of_others_hidden():
    g = Game.new(SPEC, "duel", 3)
    a, b = g.clone(), g.clone()
    a.apply(1, a.legal(1)[0].id)
    b.apply(1, b.legal(1)[1].id)
    assert a.view(0) == b.view(0)
    assert a.view(1) != b.view(1)
    fresh = g.view(0)
    assert fresh["pending"][1] == {
        "player": 1,
        "kind": "choose-card",
        "prompt": g.pending()[1].prompt,
    }
    assert "options" in fresh["pending"][0]
    spectator = g.view(None)
    assert all("options" not in d for d in spectator["pending"])
    assert all(p["hand"] == {"hidden": 3} for p in spectator["p"])


def test_log_for_hides_private_lines():
    g = committed_game(2)
    red, blue, anyone = g.log_for(0), g.log_for(1), g.log_for(None)
    mine = [t for t, a in g.state["log"] if a == [0]]
    theirs = [t for t, a in g.state["log"] if a == [1]]
    assert mine and theirs
    assert all(t in red and t not in blue and t not in anyone for t in mine)
    assert all(t in blue and t not in red for t in theirs)
    assert log_for(SPEC, g.raw, 0) == [t for t, _ in g.view(0)["log"]]
    assert anyone == [t for t, a in g.state["log"] if a is None]


def _summary(S: list) -> tuple:
    blue = Game(SPEC, S).state["p"][1]
    return (tuple(sorted(blue["hand"])), tuple(blue["played"]), tuple(sorted(blue["deck"])))


def test_determinize_never_uses_hidden_truth():
    g = committed_game(4)
    h = swap_blue_secrets(g)
    V1, V2 = g.view_state(0), h.view_state(0)
    d1 = [determinize(SPEC, V1, random.Random(i)) for i in range(40)]
    d2 = [determinize(SPEC, V2, random.Random(i)) for i in range(40)]
    assert d1 == d2
    assert len({_summary(S) for S in d1}) > 3  # blue's cards really are drawn at random


def test_determinized_state_is_consistent_with_the_view():
    g = committed_game(6)
    V = g.view_state(0)
    for i in range(30):
        D = determinize(SPEC, V, random.Random(i))
        S = Game(SPEC, D).state
        red, blue = S["p"]
        assert red["hand"] == g.state["p"][0]["hand"] and red["played"] == g.state["p"][0]["played"]
        assert len(blue["hand"]) == 2 and len(blue["played"]) == 1 and len(blue["deck"]) == 2
        for p in S["p"]:
            zones = p["hand"] + p["played"] + p["deck"] + p["revealed"] + p["discard"]
            assert Counter(zones) == Counter(p["cards"])
        assert S["rng"] != g.state["rng"] and S["pending"][0]["kind"] == "yes-no"
        assert isinstance(S["e"]["marker"][1]["strength"], int)
        playout(SPEC, D, random.Random(i).random)
        assert Game(SPEC, D).result["reason"]


def test_determinize_asks_the_other_seats_simultaneous_decision_again():
    g = Game.new(SPEC, "duel", 8)
    g.apply(1, g.legal(1)[0].id)  # blue has answered in secret; red must pick
    V = g.view(0)
    assert [d["player"] for d in V["pending"]] == [0] and V["answers"] == {}
    S = Game(SPEC, determinize(SPEC, g.view_state(0), random.Random(1))).state
    assert sorted(d["player"] for d in S["pending"]) == [0, 1]
    assert all(d["options"] for d in S["pending"]) and S["answers"] == {}
    # the viewer's own answer survives determinization
    g2 = Game.new(SPEC, "duel", 8)
    pick = g2.legal(0)[2].id
    g2.apply(0, pick)
    S2 = Game(SPEC, determinize(SPEC, g2.view_state(0), random.Random(1))).state
    assert [d["player"] for d in S2["pending"]] == [1]
    assert S2["answers"] == {"0": CARD_ID.index(pick.split(":")[1])}
    assert S2["steps"] == g2.state["steps"]
