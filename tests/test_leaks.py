"""Nothing hidden leaks: what the leak check catches, and the values in locals it guards.

The check itself runs along random games of every scenario of every bundled game in
tests/test_all_scenarios.py (``test_views_hide_what_a_seat_may_not_see``, and under ``soak``):
every seat and the spectator must be given byte-identical views, exports, logs, bot views,
observation strings and tensors in a state and its twin that differs only in what they may
not see, made from the declarations alone (tests/leak_helpers.py). Here: that a view that
leaks fails it, and the leaks of issue 20 (the Goal cards Austria drew, waiting in a local).
"""

from __future__ import annotations

import importlib
import json
import random

from leak_helpers import differences
from rulecraft.runtime import Game, load_spec

view_module = importlib.import_module("rulecraft.runtime.view")


def _positions(game: str, scenario: str, seed: int, decisions: int) -> list[Game]:
    """Copies of the states of a random game, one per decision."""
    g = Game.new(load_spec(game, scenario), None, seed)
    rng = random.Random(seed)
    out = []
    for _ in range(decisions):
        if g.finished:
            break
        out.append(g.clone())
        d = rng.choice(g.pending())
        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    return out


def westphalia_goals_drawn() -> Game:
    """Westphalia at set-up: Austria has drawn three Goal cards and chooses one to keep."""
    g = Game.named("westphalia", 3)
    d = g.pending()[0]
    assert g.spec.seats[d.player] == "austria" and len(d.options) == 3
    return g


def test_the_goal_cards_austria_drew_are_hidden_from_the_others():
    """Rules: WEST-2-07 (Austria draws three Goal cards and keeps one in secret). The drawn
    cards wait in a local of the set-up routine: no other seat, nor a spectator, sees them."""
    g = westphalia_goals_drawn()
    drawn = {o.id.split(":")[-1] for o in g.pending()[0].options}
    austria = g.spec.seats.index("austria")
    for seat in [None, *range(len(g.spec.seats))]:
        if seat == austria:
            continue
        text = g.export(seat)
        frames = json.loads(text)["view"]["stack"]
        assert frames[0]["locals"] == [{"hidden": True}], frames[0]
        assert g.view(seat)["stack"][0]["locals"] == [{"hidden": True}]
    # Austria is asked: its own options name the cards
    assert {o.id.split(":")[-1] for o in g.legal(austria)} == drawn


def test_a_leaking_view_is_caught(monkeypatch):
    """The check fails where a view shows what it should hide: the locals of a waiting
    routine, or a hidden field."""
    g = westphalia_goals_drawn()
    bavaria = g.spec.seats.index("bavaria")
    rng = random.Random(5)
    assert differences(g.spec, g.raw, bavaria, rng) == []
    # a view that shows the routines' locals as they are
    monkeypatch.setattr(view_module, "_stack_for", lambda spec, node, player: node)
    leaks = differences(g.spec, g.raw, bavaria, rng)
    assert "view" in leaks and "export" in leaks and "view_state" in leaks
    monkeypatch.undo()
    # a view that forgets the hidden fields (The March of Progress: the other's hand)
    mop = _positions("march_of_progress", "thirty_years_war", 1, 6)[-1]
    assert differences(mop.spec, mop.raw, 0, rng) == []
    monkeypatch.setattr(mop.spec, "hidden_slots", ())
    leaks = differences(mop.spec, mop.raw, 0, rng)
    assert {"view", "export", "view_state"} <= set(leaks)


def test_the_compiler_marks_locals_that_hold_hidden_values():
    """The secrecy analysis marks the local that holds the drawn Goal cards (a hidden deck
    read), the cards The March of Progress's attacker may discard (read from its hand), and
    a Third Reich power's secret DP split (an answer in a ``simultaneously`` block)."""
    west = load_spec("westphalia", "congress")
    names = {west.routine_names[r] for r, _pc in west.secrets}
    assert "setup__decks" in names
    mop = load_spec("march_of_progress", "thirty_years_war")
    assert "attack" in {mop.routine_names[r] for r, _pc in mop.secrets}
    trd = load_spec("third_reich_diplomacy", "campaign_1939")
    assert "commit_dps" in {trd.routine_names[r] for r, _pc in trd.secrets}


def test_a_view_that_tells_which_record_stands_where_in_the_fog_is_caught(monkeypatch):
    """Fog of war (tests/fixtures/games/outposts/): a view that gives each enemy record in
    the fog its own place, instead of the places where the owner has some, tells which unit
    stands where, and the twin check fails on it."""
    from fixtures.outposts import SPEC
    from rulecraft.runtime.named import Fog

    g = Game.new(SPEC, None, 1)
    rng = random.Random(3)
    assert differences(SPEC, g.raw, 0, rng) == []

    def own_place(spec, S, slot, hidden):  # type: ignore[no-untyped-def]
        owners = spec.data["s_e_unit__owner"]
        return {i: Fog("unit", owners[i], (S[slot.offset + i],)) for i in hidden}

    monkeypatch.setattr(view_module, "_fog_at", own_place)
    assert "view_state" in differences(SPEC, g.raw, 0, rng)  # what the bots are given
